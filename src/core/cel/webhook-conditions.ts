// Which requests reach the webhooks, derived from the rules: the validating webhook's matchConditions skip an UPDATE
// that changes nothing a rule reads of its kind (each rule's updateReads) and a CREATE that carries nothing a rule
// reads (createReads), and the mutating webhook's objectSelector
// and matchCondition send only what a mutating rule selects. `hookkeeper webhook-config render`, webhook-config/base
// and the Helm chart carry these expressions (test/native/match.test.ts holds them to this file).
import { HOOK_ANNOTATION_PREFIX } from '../capi.js';
import { CARRIERS, MACHINE_STAGES, type HookCarrier } from '../carriers.js';
import type { KindRef, LabelSelector, Policy } from '../policy.js';
import { twinJudgedOnCreate } from '../migration.js';
import { VALIDATING } from '../registry.js';
import type { CreateReads, ObjectPart } from '../../rules/context.js';
import { newlySelectedCel } from '../../rules/default-hooks/cel.js';
import { kindAndNamespaceCel, labelSelectorCel, namespaceCel } from './selector.js';
import { cel, celString } from './text.js';

/** CEL string literal, spliced into this file's string-built expressions. */
const str = (text: string): string => celString(text);

export interface MatchCondition {
  name: string;
  expression: string;
}

/** matchCondition name of the UPDATEs the validating webhook is sent. */
export const UPDATE_CONDITION_NAME = 'changes-what-rules-read';

/** matchCondition name of the CREATEs the validating webhook is sent. */
export const CREATE_CONDITION_NAME = 'carries-what-rules-read';

/** matchCondition name of the requests a default hook (or a child's reference) may be added on. */
export const DEFAULT_HOOK_CONDITION_NAME = 'create-or-newly-selected';

/** A part a rule reads, or every label (what an install that cannot compile its policy must assume). */
type ReadPart = ObjectPart | 'labels';

/** `has()` of each step of `keys` below `base`, each step above the last known to be a map (as guards.ts dig reads). */
function present(base: string, keys: readonly string[]): string {
  const steps: string[] = [];
  let at = base;
  keys.forEach((key, i) => {
    at = `${at}.${key}`;
    // metadata is always an object (the API server decodes it as ObjectMeta).
    if (i === 0 && key === 'metadata') return;
    if (i > 0 && !(i === 1 && keys[0] === 'metadata')) steps.push(`type(${at.slice(0, at.lastIndexOf('.'))}) == map`);
    steps.push(`has(${at})`);
  });
  return `(${steps.join(' && ')})`;
}

/** The value at `keys` is the same in object and oldObject (both absent counts as the same). */
function sameAt(keys: readonly string[]): string {
  const path = keys.join('.');
  return `((${present('object', keys)} ? object.${path} : null) == (${present('oldObject', keys)} ? oldObject.${path} : null))`;
}

function sameLabel(key: string): string {
  const has = (base: string): string => `(has(${base}.metadata.labels) && ${str(key)} in ${base}.metadata.labels)`;
  return `(${has('object')} == ${has('oldObject')} && (!${has('object')} || object.metadata.labels[${str(key)}] == oldObject.metadata.labels[${str(key)}]))`;
}

/** An annotation key `k` that names one of the carrier's Cluster API hooks (it starts with a stage's prefix). */
const isHookKey = (carrier: HookCarrier): string =>
  carrier.stages.map((s) => `k.startsWith(${str(HOOK_ANNOTATION_PREFIX[s])})`).join(' || ');

/**
 * Cluster API hooks: the annotations whose keys start with a hook prefix, with their values, the same on both sides;
 * other annotations may change. Annotations that are no map count as changed.
 */
function sameHookAnnotations(carrier: HookCarrier): string {
  const root = carrier.root;
  const path = root.join('.');
  const within = (a: string, b: string): string =>
    `(!${present(a, root)} || (type(${a}.${path}) == map && ${a}.${path}.all(k, !(${isHookKey(carrier)}) || ` +
    `(${present(b, root)} && type(${b}.${path}) == map && k in ${b}.${path} && ${b}.${path}[k] == ${a}.${path}[k]))))`;
  return `(${within('object', 'oldObject')} && ${within('oldObject', 'object')})`;
}

function same(part: ReadPart, carrier: HookCarrier | undefined): string | undefined {
  if (part === 'hooks') {
    if (!carrier) return undefined;
    return carrier.format === 'list' ? sameAt(carrier.root) : sameHookAnnotations(carrier);
  }
  if (part === 'labels') return sameAt(['metadata', 'labels']);
  if (typeof part === 'object') return sameLabel(part.label);
  return sameAt(['metadata', part]);
}

function partKey(part: ReadPart): string {
  return typeof part === 'object' ? `label:${part.label}` : part;
}

const kindCel = (k: KindRef): string =>
  `(request.kind.group == ${str(k.group)} && request.kind.kind == ${str(k.kind)})`;

/** What one kind's UPDATE is sent for: changes of parts, stored denials, or everything (a rule that does not say). */
interface KindReads {
  kind: KindRef;
  carrier: HookCarrier | undefined;
  parts: Map<string, ReadPart>;
  denials: string[];
  everything: boolean;
}

function readsOf(
  kind: KindRef,
  carrier: HookCarrier | undefined,
  policy: Policy | undefined,
  denies: boolean,
): KindReads {
  const out: KindReads = { kind, carrier, parts: new Map(), denials: [], everything: false };
  const add = (p: ReadPart): void => void out.parts.set(partKey(p), p);
  if (policy === undefined) {
    for (const p of ['hooks', 'ownerReferences', 'finalizers', 'deletionTimestamp', 'labels'] as const) add(p);
    if (denies && carrier?.gatesDeletion) out.denials.push('!has(object.metadata.deletionTimestamp)');
    return out;
  }
  const children = policy.children.some((r) =>
    r.match.kinds.some((k) => k.group === kind.group && k.kind === kind.kind),
  );
  for (const rule of VALIDATING.admission) {
    if (policy.enforcement[rule.id] === 'off') continue;
    if (rule.selects === 'carriers' ? !carrier : rule.selects === 'children' ? !children : false) continue;
    const reads = rule.updateReads?.(policy, carrier);
    // A rule that does not say what it reads is sent every UPDATE of its kinds.
    if (!reads) out.everything = true;
    for (const p of reads?.parts ?? []) add(p);
    if (reads?.storedDenial !== undefined) out.denials.push(reads.storedDenial.cel);
  }
  // Hooks of a kind that carries none are nothing to compare.
  if (!carrier) out.parts.delete('hooks');
  return out;
}

/** The carrier holds a hook (or something other than what its schema allows, for the webhook to judge). */
function carriesHook(carrier: HookCarrier): string {
  const path = `object.${carrier.root.join('.')}`;
  if (carrier.format === 'list') {
    const stage = (s: string): string =>
      `(has(${path}.${s}) && (type(${path}.${s}) != list || size(${path}.${s}) > 0))`;
    return `(${present('object', carrier.root)} && (type(${path}) != map || ${MACHINE_STAGES.map(stage).join(' || ')}))`;
  }
  return `(${present('object', carrier.root)} && (type(${path}) != map || ${path}.exists(k, ${isHookKey(carrier)})))`;
}

/** More than one controller reference (the API server refuses it too), or references it cannot count. */
const SECOND_CONTROLLER =
  '(has(object.metadata.ownerReferences) && (type(object.metadata.ownerReferences) != list || ' +
  'object.metadata.ownerReferences.filter(r, type(r) != map || (has(r.controller) && r.controller == true)).size() > 1))';

/**
 * What the carrier rules (on for the policy) read of a CREATE of `carrier`; undefined when one does not say, and every
 * CREATE is sent. Without a policy, every part a rule may read.
 */
function createParts(policy: Policy | undefined, carrier: HookCarrier): Set<CreateReads['parts'][number]> | undefined {
  const parts = new Set<CreateReads['parts'][number]>();
  for (const rule of VALIDATING.admission) {
    if (rule.selects !== 'carriers' || (policy && policy.enforcement[rule.id] === 'off')) continue;
    if (!rule.createReads) return undefined;
    // Without a policy every part counts: any rule's reads, and any default-hook selection.
    if (!policy) return new Set(['hooks', 'controllers', 'selected', 'twin']);
    for (const p of rule.createReads(policy, carrier).parts) parts.add(p);
  }
  return parts;
}

/**
 * The CREATEs of a carrier a default-hook rule selects (namespace, labels; the kind is tested beside it), or every
 * CREATE of a live carrier without a policy (the chart given defaultHooks of its own cannot compile them).
 */
function selectedOnCreate(c: HookCarrier, policy: Policy | undefined): string | undefined {
  if (!c.gatesDeletion) return undefined;
  if (policy === undefined) return 'true';
  if (policy.enforcement['default-hooks'] === 'off') return undefined;
  const terms = policy.defaultHooks
    .filter(
      (r) => r.operations.includes('CREATE') && r.match.kinds.some((k) => k.group === c.group && k.kind === c.kind),
    )
    .map((r) => {
      const labels = `(${labelSelectorCel(r.match.labelSelector, cel`object`)})`;
      const inNamespace = namespaceCel(r.match);
      return inNamespace === undefined ? labels : `(${inNamespace} && ${labels})`;
    });
  return terms.length === 0 ? undefined : terms.join(' || ');
}

/**
 * A Machine CREATE judged against its twin (src/core/migration.ts): in its API's migration namespace, by anyone but
 * the synchronizers and the kind's machine controllers, whatever it carries.
 */
function twinOnCreate(c: HookCarrier, policy: Policy): string | undefined {
  const judged = twinJudgedOnCreate(policy, c);
  if (!judged) return undefined;
  const trusted = judged.trusted.map((u) => `${celString(u)}: true`).join(', ');
  const by = trusted === '' ? '' : ` && !(request.userInfo.username in {${trusted}})`;
  return `(request.namespace == ${celString(judged.namespace)}${by})`;
}

/**
 * The validating webhook's condition for CREATEs (its `machine-creates` entry): a hook carrier's CREATE is sent only
 * when it carries what a rule (on for the policy) reads of a CREATE (a hook, a second controller reference), a
 * default-hook rule selects it (default-hook-kept checks the hook is still there), or it is a Machine in its
 * migration namespace made by someone but the synchronizers and machine controllers (judged against its twin), so a
 * worker Machine without hooks, made by its MachineSet, never waits on hookkeeper; a CREATE of any other kind always is. Such a CREATE gets nothing from the webhook but an
 * allow (test/deploy/webhook-conditions.test.ts). Without a policy, every rule counts, and every live carrier's
 * CREATE may be selected.
 */
export function validatingCreateCondition(policy?: Policy): MatchCondition {
  const sends = (c: HookCarrier): string => {
    const parts = createParts(policy, c);
    if (parts === undefined) return kindCel(c);
    const carried: string[] = [];
    for (const p of parts) {
      if (p === 'hooks') carried.push(carriesHook(c));
      else if (p === 'controllers') carried.push(SECOND_CONTROLLER);
      else if (p === 'twin') {
        const twin = policy === undefined ? undefined : twinOnCreate(c, policy);
        if (twin !== undefined) carried.push(twin);
        else if (policy === undefined && c.gatesDeletion) return kindCel(c);
      } else {
        const selected = selectedOnCreate(c, policy);
        if (selected === 'true') return kindCel(c);
        if (selected !== undefined) carried.push(`(${selected})`);
      }
    }
    return `(${kindCel(c)} && (${carried.length === 0 ? 'false' : carried.join(' || ')}))`;
  };
  const terms = [`!(${CARRIERS.map((c) => kindCel(c)).join(' || ')})`, ...CARRIERS.map(sends)];
  return { name: CREATE_CONDITION_NAME, expression: `request.operation != 'CREATE' || ${terms.join(' || ')}` };
}

/**
 * The validating webhook's condition for a policy: CREATE, DELETE and every kind it does not know are sent; an UPDATE
 * of a hook carrier or a child kind is sent when it changes what a rule (on for the policy) reads of that kind. Such
 * an UPDATE gets what a write of the stored object back unchanged gets: allowed, with the warnings about what was
 * stored (a ratcheted violation, a missing default hook under `warn`), which are lost
 * (docs/install.md#which-requests-reach-the-webhook). Without a policy (the Helm chart given a policy of its own):
 * every label counts, and finalizers, and with `missingDefaultHookDenies` every UPDATE of a non-deleting Machine.
 * A part every kind reads is compared once, unguarded; the others behind their kinds.
 */
export function validatingUpdateCondition(policy?: Policy, missingDefaultHookDenies = false): MatchCondition {
  const kinds: KindReads[] = [];
  const seen = new Set<string>();
  const addKind = (kind: KindRef, carrier: HookCarrier | undefined): void => {
    const key = `${kind.group}/${kind.kind}`;
    if (seen.has(key)) return;
    seen.add(key);
    kinds.push(readsOf(kind, carrier, policy, missingDefaultHookDenies));
  };
  for (const c of CARRIERS) addKind(c, c);
  for (const r of policy?.children ?? []) for (const k of r.match.kinds) addKind(k, undefined);

  const either = (list: readonly KindReads[]): string =>
    list.length === 1 ? kindCel(list[0]?.kind as KindRef) : `(${list.map((k) => kindCel(k.kind)).join(' || ')})`;
  const terms: string[] = [`!${either(kinds)}`];
  const everything = kinds.filter((k) => k.everything);
  if (everything.length > 0) terms.push(either(everything));
  const denials = new Map<string, KindReads[]>();
  for (const k of kinds) for (const d of k.denials) denials.set(d, [...(denials.get(d) ?? []), k]);
  for (const [d, list] of denials) terms.push(`(${either(list)} && (${d}))`);
  // Parts other than hooks, by key: unguarded when every kind reads it.
  const shared = new Map<string, { part: ReadPart; kinds: KindReads[] }>();
  for (const k of kinds)
    for (const [key, part] of k.parts) {
      if (key === 'hooks') continue;
      const entry = shared.get(key) ?? { part, kinds: [] };
      entry.kinds.push(k);
      shared.set(key, entry);
    }
  for (const { part, kinds: list } of shared.values()) {
    const changed = `!${same(part, undefined) ?? 'true'}`;
    terms.push(list.length === kinds.length ? changed : `(${either(list)} && ${changed})`);
  }
  for (const k of kinds)
    if (k.parts.has('hooks')) terms.push(`(${kindCel(k.kind)} && !${same('hooks', k.carrier) ?? 'true'})`);
  return {
    name: UPDATE_CONDITION_NAME,
    expression: `request.operation != 'UPDATE' || oldObject == null || ${terms.join(' || ')}`,
  };
}

/**
 * The same condition for one carrier's UPDATEs (a native ValidatingAdmissionPolicy matches one carrier's resource,
 * so no kind test): what a validation there can fail on changed, or a stored denial holds. None when a rule on for
 * the policy does not say what it reads.
 */
export function carrierUpdateCondition(policy: Policy, carrier: HookCarrier): MatchCondition | undefined {
  const reads = readsOf(carrier, carrier, policy, false);
  if (reads.everything) return undefined;
  const terms = [
    ...reads.denials.map((d) => `(${d})`),
    ...[...reads.parts.values()].map((p) => `!${same(p, carrier) ?? 'true'}`),
  ];
  return {
    name: UPDATE_CONDITION_NAME,
    expression: `request.operation != 'UPDATE' || oldObject == null || ${terms.length === 0 ? 'false' : terms.join(' || ')}`,
  };
}

/** The CREATEs a mutating rule of the policy may change: a default-hook rule's selection, a child rule's kinds. */
function createSelected(policy: Policy): string[] {
  const out: string[] = [];
  if (policy.enforcement['default-hooks'] !== 'off')
    for (const r of policy.defaultHooks.filter((d) => d.operations.includes('CREATE')))
      out.push(`(${kindAndNamespaceCel(r.match)} && (${labelSelectorCel(r.match.labelSelector, cel`object`)}))`);
  if (policy.enforcement['child-owner-reference'] !== 'off')
    for (const r of policy.children)
      out.push(`(${kindAndNamespaceCel(r.match)} && (${labelSelectorCel(r.match.labelSelector, cel`object`)}))`);
  return out;
}

/**
 * The mutating webhook's matchCondition: the CREATEs a default-hook or child rule selects (kind, namespace, labels),
 * so a worker Machine's CREATE never waits on hookkeeper, and only the UPDATEs that make an object match a rule with
 * UPDATE in its operations. Without a policy: every CREATE, and any UPDATE of a non-deleting object whose labels
 * change (the only way an UPDATE can come to match), for an install that cannot compile the policy it is given (the
 * Helm chart with its own defaultHooks or children).
 */
export function mutatingWebhookCondition(policy?: Policy): MatchCondition {
  const labels = (base: string): string => `(has(${base}.metadata.labels) ? ${base}.metadata.labels : {})`;
  if (policy === undefined)
    return {
      name: DEFAULT_HOOK_CONDITION_NAME,
      expression: `request.operation == 'CREATE' || (!has(object.metadata.deletionTimestamp) && ${labels('object')} != ${labels('oldObject')})`,
    };
  const creates = createSelected(policy);
  const updates =
    policy.enforcement['default-hooks'] === 'off'
      ? []
      : policy.defaultHooks.filter((r) => r.operations.includes('UPDATE')).map((r) => `(${newlySelectedCel(r, true)})`);
  const create = creates.length === 0 ? 'false' : creates.join(' || ');
  const update = updates.length === 0 ? 'false' : updates.join(' || ');
  // A conditional, not ||: oldObject is null on CREATE, and CEL's || does not stop at an error on its right.
  return { name: DEFAULT_HOOK_CONDITION_NAME, expression: `request.operation == 'CREATE' ? ${create} : ${update}` };
}

/**
 * The mutating webhook's objectSelector: the one label selector every mutating rule of the Machine kinds shares (the
 * API server then skips other Machines before any CEL), or none when they select by different labels or not at all.
 */
export function mutatingObjectSelector(policy: Policy, kinds: readonly KindRef[]): LabelSelector | undefined {
  const ofKinds = (match: { kinds: readonly KindRef[] }): boolean =>
    match.kinds.some((k) => kinds.some((w) => w.group === k.group && w.kind === k.kind));
  const selectors: Array<LabelSelector | undefined> = [];
  if (policy.enforcement['default-hooks'] !== 'off')
    for (const r of policy.defaultHooks) if (ofKinds(r.match)) selectors.push(r.match.labelSelector);
  if (policy.enforcement['child-owner-reference'] !== 'off')
    for (const r of policy.children) if (ofKinds(r.match)) selectors.push(r.match.labelSelector);
  const [first] = selectors;
  const empty = (s: LabelSelector | undefined): boolean =>
    Object.keys(s?.matchLabels ?? {}).length === 0 && (s?.matchExpressions ?? []).length === 0;
  if (first === undefined || selectors.some(empty)) return undefined;
  const text = JSON.stringify(first);
  return selectors.every((s) => JSON.stringify(s) === text) ? (JSON.parse(text) as LabelSelector) : undefined;
}
