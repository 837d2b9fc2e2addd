// What native policies match, mirroring the webhook registration (webhook-config/base): the carriers' resources in
// every namespace, and not a deleting object's finalizer-only last removal (unless a Machine's hooks hold it). No namespace is left open: the webhook
// leaves the one it runs in open so that a broken webhook can be fixed; the API server's own policies depend on no
// pod, and are fixed by editing or deleting them (cluster-scoped objects no policy here matches).
import { celCarrier } from '../../core/cel/carrier.js';
import { cel, celJoin, celString, type Cel } from '../../core/cel/text.js';
import { CARRIERS, type HookCarrier } from '../../core/carriers.js';
import type { LabelSelector } from '../../core/policy.js';
import { KNOWN_RESOURCES } from '../../core/resources.js';

export const LABELS = Object.freeze({ 'app.kubernetes.io/name': 'hookkeeper' });

/** A deleting object losing its last finalizer, changing nothing else hookkeeper reads. */
const FINISHING = celJoin(
  [
    cel`has(object.metadata.deletionTimestamp)`,
    cel`(!has(object.metadata.finalizers) || size(object.metadata.finalizers) == 0)`,
    cel`oldObject != null`,
    cel`has(object.spec) == has(oldObject.spec)`,
    cel`(!has(object.spec) || object.spec == oldObject.spec)`,
    cel`has(object.metadata.annotations) == has(oldObject.metadata.annotations)`,
    cel`(!has(object.metadata.annotations) || object.metadata.annotations == oldObject.metadata.annotations)`,
  ],
  ' && ',
);

/** A Machine (a live carrier) that carries a hook: its controller's finalizer is held (rule controller-finalizer). */
const holdsHooks = (c: HookCarrier): Cel => cel`(${celCarrier(c).hasHooks})`;

/**
 * The one matchCondition of the UPDATE webhook, and one of every native ValidatingAdmissionPolicy (webhook-config/base and
 * the chart carry this text; test/native/match.test.ts holds them to it): a deleting object losing its last finalizer
 * and changing nothing else hookkeeper reads (spec: the list carriers' hooks; annotations: Cluster API's) is leaving,
 * and is not sent, so deletions finish while hookkeeper is down, unless it is a Machine that still carries a hook:
 * only its controller may end that deletion (controller-finalizer), and the changes-what-rules-read condition leaves
 * the controller's own removal out. An update that also touches hooks is judged (engine: isFinalizerOnlyRemoval).
 * oldObject is null on CREATE: read only behind the guard. Each equality costs a tenth of the smaller side's entry
 * count (not its depth), so a Machine at the size limit passes it cheaply.
 */
export const NOT_FINISHING_DELETION = Object.freeze({
  name: 'not-finishing-deletion',
  expression: cel`!(${FINISHING}) || ${celJoin(
    CARRIERS.filter((c) => c.gatesDeletion).map(
      (c) =>
        cel`(request.kind.group == ${celString(c.group)} && request.kind.kind == ${celString(c.kind)} && ${holdsHooks(c)})`,
    ),
    ' || ',
  )}`,
});

/**
 * The same for the native policies, without the Machines' exception: the rules other than controller-finalizer skip a
 * finalizer-only last removal (engine: judgesFinalizerRemovals), so their policies are not evaluated for it;
 * controller-finalizer's own policies judge it (NativeValidation gate `finishingDeletion`).
 */
export const NATIVE_NOT_FINISHING_DELETION = Object.freeze({
  name: NOT_FINISHING_DELETION.name,
  expression: cel`!(${FINISHING})`,
});

/** The plural resource of a carrier's kind (src/core/resources.ts), if hookkeeper knows it. */
export function pluralOf(carrier: HookCarrier): string | undefined {
  return KNOWN_RESOURCES.find((r) => r.group === carrier.group && r.kind === carrier.kind)?.plural;
}

export function resourceRule(carrier: HookCarrier, plural: string, operations: readonly string[]): object {
  // Every served version: a carrier's hooks do not move between versions (Equivalent matching would convert).
  return { apiGroups: [carrier.group], apiVersions: ['*'], resources: [plural], operations: [...operations] };
}

/** The namespaces a default-hook rule names, or every namespace. */
export function namespaceSelector(only?: readonly string[]): LabelSelector {
  return only && only.length > 0
    ? { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...only] }] }
    : {};
}
