// The validating side: for each carrier, the rules' CEL grouped by where their violations go (deny, warn,
// break-glass), one ValidatingAdmissionPolicy and one binding per group; per-rule enforcement picks the group.
import { celCarrier } from '../core/cel/carrier.js';
import type { CelVariable, Outcome } from '../core/cel/types.js';
import { CARRIERS, type HookCarrier } from '../core/carriers.js';
import type { Policy } from '../core/policy.js';
import { RULES } from '../core/registry.js';
import type { Enforcement, KubeObject } from '../core/types.js';
import { LABELS, namespaceSelector, NOT_FINISHING_DELETION, pluralOf, resourceRule } from './match.js';
import type { ApiVersions } from './version.js';

export type Group = 'deny' | 'warn' | 'break-glass';

/** Binding actions per group: a warning also leaves an audit annotation, as the webhook's notices do. */
export const ACTIONS: Readonly<Record<Group, readonly string[]>> = {
  deny: ['Deny'],
  warn: ['Warn', 'Audit'],
  'break-glass': ['Warn', 'Audit'],
};

export function groupOf(outcome: Outcome, enforcement: Enforcement): Group {
  if (outcome === 'breakGlass') return 'break-glass';
  return outcome === 'enforced' && enforcement === 'deny' ? 'deny' : 'warn';
}

interface Bucket {
  variables: Map<string, string>;
  validations: Array<{ expression: string; messageExpression: string; message: string; reason: string }>;
}

function policyName(carrier: HookCarrier, group: Group): string {
  return `hookkeeper-${carrier.id}${group === 'deny' ? '' : `-${group}`}`;
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
    const cel = celCarrier(carrier);
    const buckets = new Map<Group, Bucket>();
    for (const rule of RULES) {
      const enforcement = policy.enforcement[rule.id];
      if (enforcement === 'off' || !rule.native || !('validating' in rule.native)) continue;
      if (!rule.sources.includes('admission')) continue;
      const { variables, validations } = rule.native.validating({ policy, cel });
      for (const v of validations) {
        const group = groupOf(v.outcome, enforcement);
        let bucket = buckets.get(group);
        if (!bucket) {
          bucket = { variables: new Map(), validations: [] };
          addVariables(bucket, cel.variables);
          buckets.set(group, bucket);
        }
        addVariables(bucket, variables);
        bucket.validations.push({
          expression: v.expression,
          messageExpression: v.messageExpression,
          // Shown if the message expression itself fails.
          message: `hookkeeper ${rule.id}: ${rule.summary}`,
          reason: v.reason,
        });
      }
    }
    for (const group of ['deny', 'warn', 'break-glass'] as const) {
      const bucket = buckets.get(group);
      if (!bucket) continue;
      const name = policyName(carrier, group);
      policies.push({
        apiVersion: versions.validating,
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name, labels: { ...LABELS } },
        spec: {
          // Fail closed: an expression that cannot be evaluated refuses the request (no network can fail here).
          failurePolicy: 'Fail',
          matchConstraints: {
            matchPolicy: 'Equivalent',
            namespaceSelector: namespaceSelector(),
            resourceRules: [resourceRule(carrier, plural, ['CREATE', 'UPDATE'])],
          },
          matchConditions: [{ ...NOT_FINISHING_DELETION }],
          variables: [...bucket.variables].map(([n, expression]) => ({ name: n, expression })),
          validations: bucket.validations,
        },
      });
      bindings.push({
        apiVersion: versions.validating,
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name, labels: { ...LABELS } },
        spec: { policyName: name, validationActions: [...ACTIONS[group]] },
      });
    }
  }
  return { policies, bindings };
}
