// Hook ownership: who may act for a hook's owner (the policy's registry, an RBAC grant of remove on
// hookowners.hookkeeper.io/<owner>, break-glass), which hooks a request removes, and the grant that would allow it.
import { wellFormed, type Hook, type HookCarrier, type RawHook } from './carriers.js';
import { defaultHookSelects } from './default-hook-selection.js';
import { ownValue } from './guards.js';
import { actsFor } from './identity.js';
import { withImpliedOwner } from './implied-owner.js';
import type { OwnerIdentities, Policy } from './policy.js';
import type { KubeObject, Ownership, ReviewInput, UserInfo } from './types.js';
import { grantCommandMessage } from './messages/ownership.js';

export { HOOKOWNERS } from './messages/ownership.js';

/**
 * Owners one request asks the API server about (one SubjectAccessReview each, and one more for the wildcard probe
 * once an owner is allowed). A request removing hooks of more owners gets no answer for the rest: 'unknown', which
 * never allows a protected owner's hook to go.
 */
export const MAX_OWNERS_CHECKED = 16;

/**
 * Reserved: no grant may name it, no policy may register it. RBAC is asked about it beside a real owner; an identity
 * allowed for both holds rights over every owner name (wildcard: cluster-admin, `*`, no resourceNames), not ownership.
 */
export const WILDCARD_PROBE_OWNER = 'hookkeeper.io/wildcard-probe';

/** The identities the policy registers for an owner, if any (own keys only: an owner may be called "constructor"). */
export function registeredIdentities(policy: Policy, owner: string): OwnerIdentities | undefined {
  return ownValue(policy.owners, owner);
}

/** The requester is an identity the policy registers for `owner`. */
export function registeredActor(policy: Policy, user: UserInfo, owner: string): boolean {
  const ids = registeredIdentities(policy, owner);
  return ids !== undefined && actsFor(user, ids);
}

/**
 * The request is the owner's own: an identity the policy registers for it, or one RBAC allows through a grant naming
 * it (the input's ownership fact). Wildcard rights are not ownership, and an owner RBAC was not asked about is not
 * known to be the requester's; break-glass is not the owner either.
 */
export function byOwner(policy: Policy, input: ReviewInput, owner: string): boolean {
  if (registeredActor(policy, input.userInfo, owner)) return true;
  const ownership = input.context?.ownership;
  return owner !== '' && ownership !== undefined && ownValue(ownership.access, owner) === 'allowed';
}

/**
 * An owner is protected when the policy registers it or an RBAC grant names it. An empty owner (kubeadm's
 * kcp-cleanup) has no name to register or grant, so it is never protected.
 */
export function isProtected(policy: Policy, ownership: Ownership | undefined, owner: string): boolean {
  if (owner === '') return false;
  return registeredIdentities(policy, owner) !== undefined || (ownership?.granted.has(owner) ?? false);
}

/**
 * RBAC was consulted but its grants are not known (the index has not listed): an owner the registry does not cover
 * may be protected, so removing its hook cannot be judged and is never allowed as an unprotected owner's.
 */
export function grantsUnknown(ownership: Ownership | undefined, owner: string): boolean {
  return owner !== '' && ownership !== undefined && !ownership.grantsKnown;
}

/** A hook of the stored object that the new object lacks (`now` undefined) or gives another owner. */
export interface HookChange {
  old: Hook;
  now: Hook | undefined;
}

const idKey = (h: Hook): string => `${h.stage}\u0000${h.id}`;

/**
 * The hooks an UPDATE removes or re-owns, stage by stage; reordering is neither. Hooks are compared by identity
 * (Hook.id: an annotation key, a list's name), each stored hook on its own: one kept hook never stands for
 * another of the same name. A list naming one hook twice (which its CRD refuses) keeps a stored entry only where
 * the new list has as many entries of that name and owner.
 */
export function changedHooks(hooks: readonly RawHook[], oldHooks: readonly RawHook[]): HookChange[] {
  const first = new Map<string, Hook>();
  const left = new Map<string, number>();
  for (const h of wellFormed(hooks)) {
    if (!first.has(idKey(h))) first.set(idKey(h), h);
    const kept = `${idKey(h)}\u0000${h.owner}`;
    left.set(kept, (left.get(kept) ?? 0) + 1);
  }
  const out: HookChange[] = [];
  for (const old of wellFormed(oldHooks)) {
    const kept = `${idKey(old)}\u0000${old.owner}`;
    const n = left.get(kept) ?? 0;
    if (n > 0) left.set(kept, n - 1);
    else out.push({ old, now: first.get(idKey(old)) });
  }
  return out;
}

/**
 * changedHooks, each stored hook with the owner the policy implies for it when its value is empty: who may remove
 * or re-own it is judged by that owner (src/core/implied-owner.ts).
 */
export function ownedChanges(
  policy: Policy,
  carrier: HookCarrier,
  hooks: readonly RawHook[],
  oldHooks: readonly RawHook[],
): HookChange[] {
  return changedHooks(hooks, oldHooks).map((c) => ({ ...c, old: withImpliedOwner(policy, carrier, c.old) }));
}

/** The hooks a request adds: well-formed hooks the stored object did not have in that stage with that owner. */
export function addedHooks(hooks: readonly RawHook[], oldHooks: readonly RawHook[]): Hook[] {
  const key = (h: Hook): string => `${idKey(h)}\u0000${h.owner}`;
  const before = new Set(wellFormed(oldHooks).map(key));
  return wellFormed(hooks).filter((h) => !before.has(key(h)));
}

/**
 * The hooks a request adds that the squatting check judges: on an UPDATE of any carrier, and on a template's CREATE
 * (where a squat on the Machines it makes is arranged); never a Machine's CREATE, which its controller makes from a
 * template already judged, and which the default hooks are added to. A hook a default-hook rule adds on this very
 * request (a Machine newly selected) is the policy's own, not a squat.
 */
export function judgedAdditions(policy: Policy, input: ReviewInput, carrier: HookCarrier): Hook[] {
  if (input.object === null) return [];
  if (input.operation === 'CREATE' ? carrier.live : input.operation !== 'UPDATE') return [];
  const added = addedHooks(carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
  if (added.length === 0 || policy.enforcement['default-hooks'] === 'off') return added;
  const own = policy.defaultHooks.filter((r) => defaultHookSelects(r, input, carrier, input.object as KubeObject));
  return added.filter(
    (h) => !own.some((r) => r.stage === h.stage && r.hook.name === h.name && r.hook.owner === h.owner),
  );
}

/** A word as a POSIX shell reads it back unchanged: bare when it is plain, else single-quoted. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9._/:=@+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Most of an object name the suggested commands spend on the owner or user (RBAC names are path segments). */
const MAX_NAME_PART = 100;

/** A name part for RBAC objects: a path segment (no "/" or "%", never "." or ".."), in lower case. */
function namePart(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, MAX_NAME_PART)
    .replace(/^[-.]+|[-.]+$/g, '');
}

/** The ClusterRole the suggested grant creates for an owner. */
export function grantRoleName(owner: string): string {
  const part = namePart(owner);
  return part === '' ? 'hookowner' : `hookowner-${part}`;
}

/** The kubectl flag naming a subject: a service account's username becomes --serviceaccount=<namespace>:<name>. */
function subjectFlag(username: string): string {
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return sa ? `--serviceaccount=${shellWord(`${sa[1]}:${sa[2]}`)}` : `--user=${shellWord(username)}`;
}

/**
 * The commands that let `user` act for `owner` everywhere (a Role and RoleBinding in a namespace grant it for that
 * namespace's Machines): `kubectl create clusterrole ... --resource-name=<owner>` and its binding. Without a user,
 * the binding names a service account to fill in. kubectl prints "'remove' is not a standard resource verb": a
 * warning, and RBAC matches any verb.
 */
export function grantCommand(owner: string, user?: UserInfo): string {
  const role = grantRoleName(owner);
  const subject = user ? subjectFlag(user.username) : '--serviceaccount=<namespace>:<name>';
  const binding = user ? `${role}-${namePart(user.username) || 'user'}` : role;
  return grantCommandMessage.toJs({ role, ownerWord: shellWord(owner), binding, subject });
}
