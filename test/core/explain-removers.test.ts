// explain's "who may remove this hook" held against the rule that decides it: for generated policies, RBAC grants
// and owners, every identity explain lists removes the hook through evaluate() without owner-only-removal's denial,
// and an identity it does not list (a stranger, or a wildcard holder it leaves out) is refused, unless explain says
// anyone may.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { explainMachine } from '../../src/core/explain/explain.js';
import type { ExplainFacts, GrantSubjectFact, Remover } from '../../src/core/explain/model.js';
import type { OwnerIdentities, Policy, UnverifiedRemoval, WildcardGrants } from '../../src/core/policy.js';
import type { Ownership, OwnerAccess, ReviewInput, UserInfo } from '../../src/core/types.js';
import { reviewInput } from '../fixtures/input.js';
import { machine, type HookSpec } from '../fixtures/openshift.js';

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OWNERS = ['team/storage', 'clusteroperator/etcd', 'backup', ''];
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const some = <T>(r: () => number, xs: readonly T[]): T[] => xs.filter(() => r() < 0.4);

interface Scenario {
  seed: number;
  policy: Policy;
  grants: Record<string, GrantSubjectFact[]>;
  hook: HookSpec;
}

function scenario(seed: number): Scenario {
  const r = rng(seed);
  const owners: Record<string, OwnerIdentities> = {};
  for (const o of some(r, OWNERS.slice(0, 3)))
    owners[o] = {
      users: some(r, ['alice', 'bob']),
      groups: some(r, ['storage-admins']),
      serviceAccounts: some(r, [
        { namespace: 'storage', name: 'operator' },
        { namespace: 'backup', name: 'agent' },
      ]),
    };
  // As the grant index reports them (src/kube/owner-grants.ts subjectsFor): named grants, then a wildcard holder
  // (a role without resourceNames) under every owner, the empty one included.
  const grants: Record<string, GrantSubjectFact[]> = {};
  const subjects: Array<Pick<GrantSubjectFact, 'kind' | 'name' | 'namespace'>> = [
    { kind: 'User', name: 'carol' },
    { kind: 'Group', name: 'backup-admins' },
    { kind: 'ServiceAccount', name: 'mover', namespace: 'backup' },
  ];
  const grant = (s: Pick<GrantSubjectFact, 'kind' | 'name' | 'namespace'>, role: string, allNames: boolean) => ({
    ...s,
    binding: { kind: 'ClusterRoleBinding', name: `b-${s.name}` },
    role: { kind: 'ClusterRole', name: role },
    allNames,
  });
  for (const o of OWNERS.slice(0, 3))
    for (const s of some(r, subjects)) (grants[o] ??= []).push(grant(s, `hookowner-${o}`, false));
  if (r() < 0.5)
    for (const o of OWNERS) (grants[o] ??= []).push(grant({ kind: 'User', name: 'root' }, 'cluster-admin', true));
  const policy: Policy = {
    ...DEFAULT_POLICY,
    owners,
    unverifiedRemoval: pick<UnverifiedRemoval>(r, ['deny', 'warn', 'allow']),
    wildcardGrants: pick<WildcardGrants>(r, ['deny', 'warn']),
    breakGlass: { users: some(r, ['dora']), groups: some(r, ['system:masters']) },
  };
  return { seed, policy, grants, hook: { name: 'example.com/Gate', owner: pick(r, OWNERS) } };
}

/** The identity a remover stands for, as a request carries it. */
function userOf(remover: Remover): UserInfo {
  if (remover.kind === 'ServiceAccount')
    return {
      username: `system:serviceaccount:${remover.namespace ?? ''}:${remover.name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${remover.namespace ?? ''}`, 'system:authenticated'],
    };
  if (remover.kind === 'Group') return { username: 'member', groups: [remover.name, 'system:authenticated'] };
  return { username: remover.name, groups: ['system:authenticated'] };
}

/** What SubjectAccessReview answers for this user and owner, from the same grants explain read. */
function accessOf(s: Scenario, user: UserInfo, owner: string): OwnerAccess {
  const holds = (g: GrantSubjectFact): boolean =>
    g.kind === 'Group'
      ? user.groups.includes(g.name)
      : g.kind === 'ServiceAccount'
        ? user.username === `system:serviceaccount:${g.namespace ?? ''}:${g.name}`
        : user.username === g.name;
  const mine = Object.values(s.grants).flat().filter(holds);
  if (mine.some((g) => g.allNames)) return 'wildcard';
  return (s.grants[owner] ?? []).some((g) => !g.allNames && holds(g)) ? 'allowed' : 'denied';
}

function removal(s: Scenario, user: UserInfo): ReviewInput {
  const ownership: Ownership = {
    granted: new Set(Object.entries(s.grants).flatMap(([o, gs]) => (gs.some((g) => !g.allNames) ? [o] : []))),
    access: { [s.hook.owner]: accessOf(s, user, s.hook.owner) },
    grantsKnown: true,
  };
  const base = reviewInput({
    operation: 'UPDATE',
    object: machine({ preDrain: [], resourceVersion: '2' }),
    oldObject: machine({ preDrain: [s.hook] }),
    user,
  });
  return { ...base, context: { ownership } };
}

const refused = (s: Scenario, user: UserInfo): boolean =>
  evaluate(s.policy, removal(s, user)).denials.some((d) => d.rule === 'owner-only-removal');

const facts = (s: Scenario): ExplainFacts => ({
  source: 'cluster',
  grants: { status: 'known', byOwner: s.grants },
  serviceAccounts: { status: 'known', found: {} },
  node: { status: 'absent' },
  clusterOperators: {},
});

describe('explain: who may remove a hook, against owner-only-removal', () => {
  test('every listed remover may remove it; a stranger may only where anyone may', () => {
    let checked = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const s = scenario(seed);
      const [hook] = explainMachine({
        object: machine({ preDrain: [s.hook] }),
        policy: s.policy,
        facts: facts(s),
      }).hooks;
      assert.ok(hook, `seed ${seed}`);
      for (const remover of hook.removers) {
        if (remover.via === 'anyone') continue;
        const user = userOf(remover);
        assert.equal(
          refused(s, user),
          false,
          `seed ${seed}: explain lists ${remover.kind} ${remover.name} (${remover.via})`,
        );
        checked++;
      }
      const anyone = hook.removers.some((r) => r.via === 'anyone');
      const stranger = { username: 'mallory', groups: ['system:authenticated'] };
      assert.equal(refused(s, stranger), !anyone, `seed ${seed}: a stranger, explain says anyone: ${anyone}`);
      // cluster-admin's wildcard: listed exactly when the rule lets it remove.
      const root = { username: 'root', groups: ['system:authenticated'] };
      if (accessOf(s, root, s.hook.owner) === 'wildcard' && !anyone) {
        const listed = hook.removers.some((r) => r.via === 'rbac-wildcard' && r.name === 'root');
        assert.equal(refused(s, root), !listed, `seed ${seed}: a wildcard holder, listed: ${listed}`);
      }
    }
    assert.ok(checked > 400, `only ${checked} removers checked`);
  });
});
