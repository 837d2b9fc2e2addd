// The validating side: for each carrier, the rules' CEL grouped by where their violations go (deny, warn,
// break-glass), one ValidatingAdmissionPolicy and one binding per group; per-rule enforcement picks the group.
import { celCarrier } from '../../core/cel/carrier.js';
import { cel, celString } from '../../core/cel/text.js';
import { carrierUpdateCondition, type MatchCondition } from '../../core/cel/webhook-conditions.js';
import type { CelCarrier, CelVariable, Outcome } from '../../core/cel/types.js';
import { CARRIERS, type HookCarrier } from '../../core/carriers.js';
import type { Policy } from '../../core/policy.js';
import { RULES } from '../../core/registry.js';
import type { Enforcement, KubeObject } from '../../core/types.js';
import { LABELS, NATIVE_NOT_FINISHING_DELETION, pluralOf, resourceRule } from './match.js';
import type { ApiVersions } from './version.js';

export type BindingGroup = 'deny' | 'warn' | 'break-glass';

/** Binding actions per group: a warning also leaves an audit annotation, as the webhook's notices do. */
export const ACTIONS: Readonly<Record<BindingGroup, readonly string[]>> = {
  deny: ['Deny'],
  warn: ['Warn', 'Audit'],
  'break-glass': ['Warn', 'Audit'],
};

/** The binding, by its validation actions, that a validation of this outcome goes to under this enforcement. */
export function bindingGroupOf(outcome: Outcome, enforcement: Enforcement): BindingGroup {
  if (outcome === 'breakGlass') return 'break-glass';
  return outcome === 'enforced' && enforcement === 'deny' ? 'deny' : 'warn';
}

interface Bucket {
  group: BindingGroup;
  gate?: { name: string; expression: string; updateOnly: boolean; changesHooks: boolean; finishingDeletion: boolean };
  variables: Map<string, string>;
  validations: Array<{ expression: string; messageExpression: string; message: string; reason: string }>;
  /** Every validation is about what the stored object already had (ratcheting): nothing to say on CREATE. */
  updateOnly: boolean;
}

/**
 * What a policy is evaluated for, beyond the match: a gated policy's own condition; otherwise an object that carries
 * a hook or an owner reference (nothing else can fail a rule here). Then, unless the gate already needs the hooks to
 * change, an UPDATE only when it changes what a rule reads (the webhook's condition, for this carrier): the rules
 * ratchet, so such an UPDATE can lose only warnings about what was stored. The API server evaluates every
 * validation and every message expression of a matching policy, so a label update of a control-plane Machine
 * costs it these conditions only.
 */
function gates(
  view: CelCarrier,
  bucket: Bucket,
  update: MatchCondition | undefined,
): Array<{ name: string; expression: string }> {
  const own = bucket.gate
    ? { name: bucket.gate.name, expression: bucket.gate.expression }
    : {
        name: 'carries-hooks-or-owner-references',
        expression: cel`${view.hasHooks} || has(object.metadata.ownerReferences)`,
      };
  return update === undefined || bucket.gate?.changesHooks === true ? [own] : [own, { ...update }];
}

/**
 * The operations a policy matches: UPDATE alone when nothing in it can fail without a stored object (ratcheting's
 * warnings, a gate that compares with oldObject), so a CREATE never reaches its conditions; every matched policy
 * costs the API server a CEL activation per phase (conditions, validations, messages, audit annotations).
 */
function operationsOf(bucket: Bucket): string[] {
  return bucket.updateOnly || bucket.gate?.updateOnly === true ? ['UPDATE'] : ['CREATE', 'UPDATE'];
}

function policyName(carrier: HookCarrier, suffix: string | undefined, group: BindingGroup): string {
  return `hookkeeper-${carrier.id}${suffix === undefined ? '' : `-${suffix}`}${group === 'deny' ? '' : `-${group}`}`;
}

const REFERENCE = /\bvariables\.([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The variables a policy's validations reach, in declaration order: a rule declares what any of its validations
 * may use, and a policy carries only what its own read (a smaller object, under kubectl apply's 256 KiB
 * last-applied annotation).
 */
export function reachable(
  variables: ReadonlyMap<string, string>,
  expressions: readonly string[],
): Array<{ name: string; expression: string }> {
  const used = new Set<string>();
  const visit = (text: string): void => {
    for (const m of text.matchAll(REFERENCE)) {
      const name = m[1] ?? '';
      if (used.has(name) || !variables.has(name)) continue;
      used.add(name);
      visit(variables.get(name) ?? '');
    }
  };
  for (const e of expressions) visit(e);
  return [...variables].filter(([name]) => used.has(name)).map(([name, expression]) => ({ name, expression }));
}

function addVariables(bucket: Bucket, variables: readonly CelVariable[]): void {
  for (const v of variables) {
    const known = bucket.variables.get(v.name);
    if (known !== undefined && known !== v.expression)
      throw new Error(`CEL variable ${v.name} declared twice, differently`);
    bucket.variables.set(v.name, v.expression);
  }
}

/** ValidatingAdmissionPolicies and their bindings, for every carrier with a known resource. */
export function validatingObjects(
  policy: Policy,
  versions: ApiVersions,
): { policies: KubeObject[]; bindings: KubeObject[] } {
  const policies: KubeObject[] = [];
  const bindings: KubeObject[] = [];
  for (const carrier of CARRIERS) {
    const plural = pluralOf(carrier);
    if (plural === undefined) continue;
    const view = celCarrier(carrier);
    const update = carrierUpdateCondition(policy, carrier);
    // By policy name: a gated validation goes to a policy of its own (NativeValidation.gate).
    const buckets = new Map<string, Bucket>();
    for (const rule of RULES) {
      const enforcement = policy.enforcement[rule.id];
      if (enforcement === 'off' || !rule.native || !('validating' in rule.native)) continue;
      if (!rule.sources.includes('admission')) continue;
      const { variables, validations } = rule.native.validating({ policy, view, k8sMinor: versions.minor });
      for (const v of validations) {
        const group = bindingGroupOf(v.outcome, enforcement);
        const name = policyName(carrier, v.gate?.suffix, group);
        let bucket = buckets.get(name);
        if (
          bucket &&
          (bucket.gate?.expression !== v.gate?.when.expression ||
            (bucket.gate?.updateOnly ?? false) !== (v.gate?.updateOnly ?? false))
        ) {
          throw new Error(`policy ${name}: validations with different gates`);
        }
        if (!bucket) {
          bucket = {
            group,
            ...(v.gate
              ? {
                  gate: {
                    ...v.gate.when,
                    updateOnly: v.gate.updateOnly ?? false,
                    changesHooks: v.gate.changesHooks ?? false,
                    finishingDeletion: v.gate.finishingDeletion ?? false,
                  },
                }
              : {}),
            variables: new Map(),
            validations: [],
            updateOnly: true,
          };
          addVariables(bucket, view.variables);
          buckets.set(name, bucket);
        }
        addVariables(bucket, variables);
        if (v.outcome !== 'existing') bucket.updateOnly = false;
        // The webhook warns a violation as `<rule>: <message>` (src/admission/handle.ts); a notice (unverified
        // removal, break-glass) and a denial in their own words.
        const violationWarned = group === 'warn' && (v.outcome === 'enforced' || v.outcome === 'existing');
        bucket.validations.push({
          expression: v.expression,
          messageExpression: violationWarned
            ? cel`${celString(`${rule.id}: `)} + (${v.messageExpression})`
            : v.messageExpression,
          // Shown if the message expression itself fails.
          message: `hookkeeper ${rule.id}: ${rule.summary}`,
          reason: v.reason,
        });
      }
    }
    for (const [name, bucket] of buckets) {
      policies.push({
        apiVersion: versions.validating,
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name, labels: { ...LABELS } },
        spec: {
          // Fail closed: an expression that cannot be evaluated refuses the request (no network can fail here).
          failurePolicy: 'Fail',
          matchConstraints: {
            matchPolicy: 'Equivalent',
            resourceRules: [resourceRule(carrier, plural, operationsOf(bucket))],
          },
          // A policy that judges a deleting Machine's last finalizer removal is evaluated for it; the others are not.
          matchConditions: [
            ...(bucket.gate?.finishingDeletion === true ? [] : [{ ...NATIVE_NOT_FINISHING_DELETION }]),
            ...gates(view, bucket, update),
          ],
          variables: reachable(
            bucket.variables,
            bucket.validations.flatMap((v) => [v.expression, v.messageExpression]),
          ),
          validations: bucket.validations,
        },
      });
      bindings.push({
        apiVersion: versions.validating,
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name, labels: { ...LABELS } },
        spec: { policyName: name, validationActions: [...ACTIONS[bucket.group]] },
      });
    }
  }
  return { policies, bindings };
}
