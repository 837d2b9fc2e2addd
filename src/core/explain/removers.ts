// Who may remove a hook, as owner-only-removal decides it: each identity explain knows of (the owner's registered
// identities, RBAC's subjects for it, break-glass, and anyone: an identity nothing names) is put to the rule in the
// review that removes exactly this hook, with what the webhook would know of RBAC; the route its audit annotation
// names is the remover's `via`. The list is the rule's answer, so it cannot drift from it.
import type { Hook, HookCarrier } from '../carriers.js';
import { dig, isRecord, ownValue } from '../guards.js';
import { copyForWrites } from '../patch.js';
import { registeredIdentities } from '../ownership.js';
import { serviceAccountUsername, type Policy } from '../policy.js';
import { ownerOnlyRemovalRule } from '../../rules/owner-only-removal/rule.js';
import type { RuleContext } from '../../rules/context.js';
import type { KubeObject, OwnerAccess, Ownership, ReviewInput, UserInfo } from '../types.js';
import type { ExplainFacts, Existence, GrantSubjectFact, Remover } from './model.js';

/** The Machine the hook is on, as read (explain.ts). */
export interface HookHolder {
  object: KubeObject;
  carrier: HookCarrier;
}

type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

/** An identity explain knows of, and the grant it was found through (RBAC's subjects). */
interface Candidate {
  kind: SubjectKind;
  name: string;
  namespace?: string;
  grant?: GrantSubjectFact;
}

export const rbacText = (o: { kind: string; name: string; namespace?: string }): string =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

function accountExists(facts: ExplainFacts, namespace: string | undefined, name: string): Existence {
  if (facts.serviceAccounts.status !== 'known' || namespace === undefined) return 'unknown';
  const found = facts.serviceAccounts.found[`${namespace}/${name}`];
  return found === undefined ? 'unknown' : found ? 'present' : 'absent';
}

// RBAC subjects are User, Group or ServiceAccount (the API server refuses other kinds in a binding).
const kindOf = (kind: string): SubjectKind => (kind === 'Group' || kind === 'ServiceAccount' ? kind : 'User');

const AUTHENTICATED = 'system:authenticated';

/** The request's identity for a candidate; a group stands for a member named `nobody`, in that group alone. */
function userOf(c: Candidate, nobody: string): UserInfo {
  if (c.kind === 'ServiceAccount') {
    const namespace = c.namespace ?? '';
    return {
      username: serviceAccountUsername({ namespace, name: c.name }),
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED],
    };
  }
  if (c.kind === 'Group') return { username: nobody, groups: [c.name, AUTHENTICATED] };
  return { username: c.name, groups: [AUTHENTICATED] };
}

/**
 * What SubjectAccessReview answers for `user` about the owner whose subjects these are (the grant index lists rights
 * over every owner under each): wildcard when the user holds such rights, named grant or not.
 */
function accessOf(subjects: readonly GrantSubjectFact[], user: UserInfo): OwnerAccess {
  const held = subjects.filter((s) =>
    s.kind === 'Group'
      ? user.groups.includes(s.name)
      : s.kind === 'ServiceAccount'
        ? user.username === serviceAccountUsername({ namespace: s.namespace ?? '', name: s.name })
        : user.username === s.name,
  );
  if (held.some((s) => s.allNames)) return 'wildcard';
  return held.length > 0 ? 'allowed' : 'denied';
}

/** The same object without the hook, copied only along the path that changes. */
function withoutHook({ object, carrier }: HookHolder, hook: Hook): KubeObject {
  const path = carrier.format === 'list' ? [...carrier.root, hook.stage] : carrier.root;
  const copy = copyForWrites(object, [path]);
  const where = dig(copy, path);
  if (Array.isArray(where)) where.splice(hook.index, 1);
  else if (isRecord(where)) Reflect.deleteProperty(where, hook.id);
  return copy;
}

/** The UPDATE removing exactly this hook, with the grants the webhook's transport would have indexed. */
function removalReview(policy: Policy, facts: ExplainFacts, holder: HookHolder, hook: Hook) {
  const { object, carrier } = holder;
  const apiVersion = typeof object['apiVersion'] === 'string' ? object['apiVersion'] : '';
  const meta = isRecord(object['metadata']) ? object['metadata'] : {};
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const namespace = text(meta['namespace']);
  const name = text(meta['name']);
  const base: ReviewInput = {
    operation: 'UPDATE',
    kind: { group: carrier.group, version: apiVersion.slice(apiVersion.indexOf('/') + 1), kind: carrier.kind },
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
    object: withoutHook(holder, hook),
    oldObject: object,
    userInfo: { username: '', groups: [] },
    dryRun: false,
  };
  const ctx: RuleContext = {
    policy,
    input: base,
    carrier,
    hooks: carrier.read(base.object),
    oldHooks: carrier.read(object),
  };
  const subjects = facts.grants.status === 'known' ? (facts.grants.byOwner[hook.owner] ?? []) : undefined;
  const granted = new Set(subjects?.some((s) => !s.allNames) ? [hook.owner] : []);
  // As the engine applies it: off, the rule does not run; warn, its refusals are warnings.
  const enforcement = policy.enforcement['owner-only-removal'];
  /** The rule's route for `user`'s removal ('none': allowed without one), or undefined: refused. */
  return (user: UserInfo): string | undefined => {
    if (enforcement === 'off') return 'none';
    const ownership: Ownership = subjects
      ? { granted, access: { [hook.owner]: accessOf(subjects, user) }, grantsKnown: true }
      : { granted, access: { [hook.owner]: 'unknown' }, grantsKnown: false };
    const result = ownerOnlyRemovalRule.validate?.({
      ...ctx,
      input: { ...base, userInfo: user, context: { ownership } },
    });
    if (result && result.violations.length > 0) return enforcement === 'deny' ? undefined : 'none';
    const notice = result?.notices?.find((n) => n.rule === 'owner-only-removal');
    return notice ? routeOf(notice.audit.value) : 'none';
  };
}

function routeOf(audit: string): string {
  const value: unknown = JSON.parse(audit);
  return isRecord(value) && typeof value['route'] === 'string' ? value['route'] : 'none';
}

/** The rule's routes as explain names them; the others (unverified, or no route) are anyone's. */
const VIA: Readonly<Record<string, Exclude<Remover['via'], 'anyone'>>> = {
  registry: 'registry',
  rbac: 'rbac',
  wildcard: 'rbac-wildcard',
  'break-glass': 'break-glass',
};
const ORDER: Readonly<Record<Remover['via'], number>> = {
  registry: 0,
  rbac: 1,
  'rbac-wildcard': 1,
  anyone: 2,
  'break-glass': 3,
};

/** The identities explain knows of for this hook: the registry's, RBAC's (an ownerless hook has none), break-glass. */
function candidatesOf(policy: Policy, facts: ExplainFacts, hook: Hook): Candidate[] {
  const out: Candidate[] = [];
  const ids = registeredIdentities(policy, hook.owner);
  if (ids) {
    for (const sa of ids.serviceAccounts) out.push({ kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace });
    for (const u of ids.users) out.push({ kind: 'User', name: u });
    for (const g of ids.groups) out.push({ kind: 'Group', name: g });
  }
  if (facts.grants.status === 'known')
    for (const s of facts.grants.byOwner[hook.owner] ?? [])
      out.push({ kind: kindOf(s.kind), name: s.name, ...(s.namespace ? { namespace: s.namespace } : {}), grant: s });
  for (const u of policy.breakGlass.users) out.push({ kind: 'User', name: u });
  for (const g of policy.breakGlass.groups) out.push({ kind: 'Group', name: g });
  return out;
}

/** Why anyone may: the rule is not enforced, or the owner is unprotected and unverifiedRemoval lets them. */
function why(policy: Policy): string {
  const enforcement = policy.enforcement['owner-only-removal'];
  return enforcement === 'deny'
    ? `unverifiedRemoval: ${policy.unverifiedRemoval}`
    : `owner-only-removal's enforcement: ${enforcement}`;
}

/** A username no candidate is: a group's member, or anyone. */
function nobodyAmong(candidates: readonly Candidate[]): string {
  const taken = new Set(candidates.filter((c) => c.kind === 'User').map((c) => c.name));
  let name = 'someone';
  while (taken.has(name)) name = `${name}-else`;
  return name;
}

/** Everyone the rule lets remove the hook, on the grounds it names: the registry's, RBAC's, anyone, break-glass. */
export function removersOf(policy: Policy, facts: ExplainFacts, holder: HookHolder, hook: Hook): Remover[] {
  const decide = removalReview(policy, facts, holder, hook);
  const candidates = candidatesOf(policy, facts, hook);
  const nobody = nobodyAmong(candidates);
  const found: Remover[] = [];
  for (const c of candidates) {
    const route = decide(userOf(c, nobody));
    const via = route === undefined ? undefined : ownValue(VIA, route);
    // Refused, or allowed as anyone is (said once, below).
    if (!via) continue;
    found.push({
      via,
      kind: c.kind,
      name: c.name,
      ...(c.namespace ? { namespace: c.namespace } : {}),
      ...(c.kind === 'ServiceAccount' ? { exists: accountExists(facts, c.namespace, c.name) } : {}),
      ...(c.grant && (via === 'rbac' || via === 'rbac-wildcard')
        ? { binding: rbacText(c.grant.binding), role: rbacText(c.grant.role) }
        : {}),
    });
  }
  const anyone = decide({ username: nobody, groups: [AUTHENTICATED] });
  if (anyone !== undefined && ownValue(VIA, anyone) === undefined)
    found.push({
      via: 'anyone',
      kind: 'Anyone',
      name: `anyone RBAC lets patch the Machine (${why(policy)})`,
    });
  // One entry per identity and grounds (a registered user RBAC also grants removes as the registry's), in order.
  const unique = [...new Map(found.map((r) => [JSON.stringify(r), r])).values()];
  return unique.sort((a, b) => ORDER[a.via] - ORDER[b.via]);
}
