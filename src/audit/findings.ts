// What only an audit can see: Machines deleting for too long because a hook is still there, and hooks whose
// owner can no longer remove them because every service account registered for that owner is gone.
import type { Hook, HookCarrier } from '../core/carriers.js';
import { metadata, quote } from '../core/guards.js';
import { describeIdentities, type Policy } from '../core/policy.js';
import type { KubeObject } from '../core/types.js';
import { formatDuration, objectLabel, type AuditFinding, type AuditObjectRef } from './report.js';

function breakGlassText(policy: Policy): string {
  const ids = [...policy.breakGlass.users, ...policy.breakGlass.groups.map((g) => `group ${g}`)];
  return ids.length > 0 ? `a break-glass identity (${ids.join(', ')})` : 'a break-glass identity (none is configured in the policy)';
}

/** One finding per hook still present on a live carrier deleting for longer than stuckAfterMs. */
export function stuckDeletions(object: KubeObject, ref: AuditObjectRef, carrier: HookCarrier, hooks: readonly Hook[], policy: Policy, nowMs: number, stuckAfterMs: number): AuditFinding[] {
  const since = metadata(object)['deletionTimestamp'];
  if (!carrier.live || typeof since !== 'string' || hooks.length === 0) return [];
  const started = Date.parse(since);
  if (Number.isNaN(started) || nowMs - started <= stuckAfterMs) return [];
  const age = nowMs - started;
  return hooks.map((h) => ({
    rule: 'stuck-deletion',
    result: 'fail',
    object: ref,
    path: h.path,
    message: `${objectLabel(ref)} has been deleting for ${formatDuration(age)} (since ${since}): ${h.stage} hook ${quote(h.name)} owned by ${quote(h.owner)} is still there`,
    fix: `the deletion waits for ${quote(h.owner)} to remove hook ${quote(h.name)}: check that controller; if it is gone for good, remove the hook as ${breakGlassText(policy)}`,
    hook: { stage: h.stage, name: h.name, owner: h.owner },
    deletionTimestamp: since,
    deletingForSeconds: Math.floor(age / 1000),
  }));
}

export type ServiceAccountExists = (namespace: string, name: string) => Promise<boolean>;

/**
 * Finds hooks whose registered owner acts only through service accounts that no longer exist. Lookups are
 * cached for the run; a lookup that fails is noted once and the owner given the benefit of the doubt.
 */
export function orphanFinder(policy: Policy, exists: ServiceAccountExists, notes: string[]): (ref: AuditObjectRef, hooks: readonly Hook[]) => Promise<AuditFinding[]> {
  const cache = new Map<string, Promise<boolean>>();
  const lookup = (namespace: string, name: string): Promise<boolean> => {
    const key = `${namespace}/${name}`;
    let found = cache.get(key);
    if (!found) {
      found = exists(namespace, name).catch((err: unknown) => {
        notes.push(`cannot check service account ${key}, so hooks of its owner were not checked for orphans: ${(err as Error).message}`);
        return true;
      });
      cache.set(key, found);
    }
    return found;
  };
  return async (ref, hooks) => {
    const out: AuditFinding[] = [];
    for (const h of hooks) {
      const ids = Object.hasOwn(policy.owners, h.owner) ? policy.owners[h.owner] : undefined;
      // Users and groups cannot be looked up; an owner with any of them may still act.
      if (!ids || ids.serviceAccounts.length === 0 || ids.users.length > 0 || ids.groups.length > 0) continue;
      const present = await Promise.all(ids.serviceAccounts.map((sa) => lookup(sa.namespace, sa.name)));
      if (present.some(Boolean)) continue;
      out.push({
        rule: 'orphaned-owner',
        result: 'fail',
        object: ref,
        path: h.path,
        message: `${h.stage} hook ${quote(h.name)} is owned by ${quote(h.owner)}, but none of its registered service accounts exists any more: ${describeIdentities(ids).join(', ')}`,
        fix: `restore the service account, register the owner's current identity under owners[${quote(h.owner)}] in the hookkeeper policy, or remove the hook as ${breakGlassText(policy)}`,
        hook: { stage: h.stage, name: h.name, owner: h.owner },
      });
    }
    return out;
  };
}

