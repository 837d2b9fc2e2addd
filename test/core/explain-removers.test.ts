// explain's "who may remove this hook" held against the rule that decides it: for generated policies, RBAC grants
// and owners, every identity explain lists removes the hook through evaluate() without owner-only-removal's denial,
// and an identity it does not list (a stranger, or a wildcard holder it leaves out) is refused, unless explain says
// anyone may.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { explainMachine } from '../../src/core/explain/explain.js';
import type { ExplainFacts, GrantSubjectFact, Remover } from '../../src/core/explain/model.js';
import type { OwnerIdentities, Policy, UnverifiedRemoval, WildcardGrants } from '../../src/core/policy.js';
import type { Ownership, OwnerAccess, ReviewInput, UserInfo } from '../../src/core/types.js';
import { reviewInput } from '../fixtures/input.js';
import { machine, type HookSpec } from '../fixtures/openshift.js';

const OWNERS = ['team/storage', 'clusteroperator/etcd', 'backup', ''];
const NAMED = OWNERS.slice(0, 3);

interface Scenario {
  policy: Policy;
  grants: Record<string, GrantSubjectFact[]>;
  hook: HookSpec;
}

type Subject = Pick<GrantSubjectFact, 'kind' | 'name' | 'namespace'>;
const SUBJECTS: readonly Subject[] = [
  { kind: 'User', name: 'carol' },
  { kind: 'Group', name: 'backup-admins' },
  { kind: 'ServiceAccount', name: 'mover', namespace: 'backup' },
];

const grant = (s: Subject, role: string, allNames: boolean): GrantSubjectFact => ({
  ...s,
  binding: { kind: 'ClusterRoleBinding', name: `b-${s.name}` },
  role: { kind: 'ClusterRole', name: role },
  allNames,
});

const identities: fc.Arbitrary<OwnerIdentities> = fc.record({
  users: fc.subarray(['alice', 'bob']),
  groups: fc.subarray(['storage-admins']),
  serviceAccounts: fc.subarray([
    { namespace: 'storage', name: 'operator' },
    { namespace: 'backup', name: 'agent' },
  ]),
});

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    owners: fc.dictionary(fc.constantFrom(...NAMED), identities),
    named: fc.tuple(...NAMED.map(() => fc.subarray([...SUBJECTS]))),
    wildcard: fc.boolean(),
    unverifiedRemoval: fc.constantFrom<UnverifiedRemoval>('deny', 'warn', 'allow'),
    wildcardGrants: fc.constantFrom<WildcardGrants>('deny', 'warn'),
    breakGlass: fc.record({ users: fc.subarray(['dora']), groups: fc.subarray(['system:masters']) }),
    owner: fc.constantFrom(...OWNERS),
  })
  .map((g) => {
    // As the grant index reports them (src/infrastructure/kube/owner-grants.ts subjectsFor): named grants, then a wildcard holder
    // (a role without resourceNames) under every owner, the empty one included.
    const grants: Record<string, GrantSubjectFact[]> = {};
    NAMED.forEach((o, i) => {
      for (const s of g.named[i] ?? []) (grants[o] ??= []).push(grant(s, `hookowner-${o}`, false));
    });
    if (g.wildcard)
      for (const o of OWNERS) (grants[o] ??= []).push(grant({ kind: 'User', name: 'root' }, 'cluster-admin', true));
    const policy: Policy = {
      ...DEFAULT_POLICY,
      owners: g.owners,
      unverifiedRemoval: g.unverifiedRemoval,
      wildcardGrants: g.wildcardGrants,
      breakGlass: g.breakGlass,
    };
    return { policy, grants, hook: { name: 'example.com/Gate', owner: g.owner } };
  });

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
    // Fixed seed: the same 400 scenarios every run; a failure names its index.
    for (const [seed, s] of fc.sample(scenarioArb, { seed: 1, numRuns: 400 }).entries()) {
      const [hook] = explainMachine({
        object: machine({ preDrain: [s.hook] }),
        policy: s.policy,
        facts: facts(s),
      }).hooks;
      assert.ok(hook, `scenario ${seed}`);
      for (const remover of hook.removers) {
        if (remover.via === 'anyone') continue;
        const user = userOf(remover);
        assert.equal(
          refused(s, user),
          false,
          `scenario ${seed}: explain lists ${remover.kind} ${remover.name} (${remover.via})`,
        );
        checked++;
      }
      const anyone = hook.removers.some((r) => r.via === 'anyone');
      const stranger = { username: 'mallory', groups: ['system:authenticated'] };
      assert.equal(refused(s, stranger), !anyone, `scenario ${seed}: a stranger, explain says anyone: ${anyone}`);
      // cluster-admin's wildcard: listed exactly when the rule lets it remove.
      const root = { username: 'root', groups: ['system:authenticated'] };
      if (accessOf(s, root, s.hook.owner) === 'wildcard' && !anyone) {
        const listed = hook.removers.some((r) => r.via === 'rbac-wildcard' && r.name === 'root');
        assert.equal(refused(s, root), !listed, `scenario ${seed}: a wildcard holder, listed: ${listed}`);
      }
    }
    assert.ok(checked > 400, `only ${checked} removers checked`);
  });
});
