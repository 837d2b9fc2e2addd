// The facts only an audit gathers for its rules (src/rules/stuck-deletion/rule.ts, orphaned-owner.ts): how long a
// Machine has been deleting, by the audit's clock, and whether the service accounts of hook owners still exist.
import type { Hook } from '../../core/carriers.js';
import { metadata } from '../../core/guards.js';
import type { Policy } from '../../core/policy.js';
import { serviceAccountRequests } from '../../rules/orphaned-owner/rule.js';
import type { KubeObject, ReviewContext } from '../../core/types.js';

/** The `deletion` fact: the audit's clock at its start, for an object that is deleting; undefined when it is not. */
export function deletionFact(object: KubeObject, nowMs: number, stuckAfterMs: number): ReviewContext['deletion'] {
  const since = metadata(object)['deletionTimestamp'];
  return typeof since === 'string' ? { nowMs, stuckAfterMs } : undefined;
}

export type ServiceAccountExists = (namespace: string, name: string) => Promise<boolean>;

/**
 * The `serviceAccounts` fact for an object's hooks. Lookups are cached for the run; a lookup that fails is noted
 * once and the owner given the benefit of the doubt (the account counts as existing).
 */
export function serviceAccountFacts(
  policy: Policy,
  exists: ServiceAccountExists,
  notes: string[],
): (hooks: readonly Hook[]) => Promise<Record<string, boolean>> {
  const cache = new Map<string, Promise<boolean>>();
  const lookup = (namespace: string, name: string): Promise<boolean> => {
    const key = `${namespace}/${name}`;
    let found = cache.get(key);
    if (!found) {
      found = exists(namespace, name).catch((err: unknown) => {
        notes.push(
          `cannot check service account ${key}, so hooks of its owner were not checked for orphans: ${(err as Error).message}`,
        );
        return true;
      });
      cache.set(key, found);
    }
    return found;
  };
  return async (hooks) => {
    const out: Record<string, boolean> = {};
    // Hook by hook, as the rule reads them; one hook's accounts at once.
    for (const accounts of serviceAccountRequests(policy, hooks)) {
      const present = await Promise.all(accounts.map((sa) => lookup(sa.namespace, sa.name)));
      accounts.forEach((sa, i) => {
        out[`${sa.namespace}/${sa.name}`] = present[i] === true;
      });
    }
    return out;
  };
}
