// The mutating side: one MutatingAdmissionPolicy (JSONPatch) and binding per default-hook rule and live carrier
// it selects, matching the rule's kinds, namespaces, labels and operations in the policy's match constraints.
import { newlySelectedCel } from '../../rules/default-hooks/cel.js';
import { DEFAULT_HOOK_CONDITION_NAME } from '../../core/cel/webhook-conditions.js';
import { CARRIERS } from '../../core/carriers.js';
import type { Policy } from '../../core/policy.js';
import { defaultHooksRule } from '../../rules/default-hooks/rule.js';
import type { KubeObject } from '../../core/types.js';
import { LABELS, namespaceSelector, pluralOf, resourceRule } from './match.js';
import type { ApiVersions } from './version.js';

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 120) || 'rule'
  );
}

export function mutatingObjects(
  policy: Policy,
  versions: ApiVersions,
): { policies: KubeObject[]; bindings: KubeObject[] } {
  const policies: KubeObject[] = [];
  const bindings: KubeObject[] = [];
  const native = defaultHooksRule.native;
  if (policy.enforcement['default-hooks'] === 'off' || !native || !('mutating' in native))
    return { policies, bindings };
  const used = new Set<string>();
  policy.defaultHooks.forEach((rule, index) => {
    for (const carrier of CARRIERS) {
      if (!carrier.gatesDeletion || !rule.match.kinds.some((k) => k.group === carrier.group && k.kind === carrier.kind))
        continue;
      const plural = pluralOf(carrier);
      if (plural === undefined) continue;
      let name = `hookkeeper-default-${slug(rule.name)}-${carrier.id}`;
      if (used.has(name)) name = `${name}-${index}`;
      used.add(name);
      const { variables, jsonPatch } = native.mutating(policy, rule, carrier);
      policies.push({
        apiVersion: versions.mutating,
        kind: 'MutatingAdmissionPolicy',
        metadata: { name, labels: { ...LABELS } },
        spec: {
          // As the mutating webhook: creating a Machine never waits on a default hook.
          failurePolicy: 'Ignore',
          // Run again after later mutations, so the default hook survives their edits.
          reinvocationPolicy: 'IfNeeded',
          matchConstraints: {
            matchPolicy: 'Equivalent',
            namespaceSelector: namespaceSelector(rule.match.namespaces),
            ...(rule.match.labelSelector ? { objectSelector: structuredClone(rule.match.labelSelector) } : {}),
            resourceRules: [resourceRule(carrier, plural, rule.operations)],
          },
          // The objectSelector matches the stored labels or the new ones: on UPDATE, only an object the update makes
          // match, not deleting, gets the hook, as the webhook decides (src/rules/default-hooks/rule.ts).
          ...(rule.operations.includes('UPDATE')
            ? {
                matchConditions: [
                  {
                    name: DEFAULT_HOOK_CONDITION_NAME,
                    expression: `request.operation == 'CREATE' || (${newlySelectedCel(rule, false)})`,
                  },
                ],
              }
            : {}),
          variables: variables.map((v) => ({ ...v })),
          mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: jsonPatch } }],
        },
      });
      bindings.push({
        apiVersion: versions.mutating,
        kind: 'MutatingAdmissionPolicyBinding',
        metadata: { name, labels: { ...LABELS } },
        spec: { policyName: name },
      });
    }
  });
  return { policies, bindings };
}
