// explain and evaluate held together: for generated policies, RBAC grants and Machines (either API), every identity
// explain lists as a hook's remover removes that hook through evaluate() on the grounds (`via`) the rule's audit
// annotation names, and every identity of the scenario it does not list (nor covers by a group, nor by "anyone") is
// refused. The reviews are built here, not through explain, and RBAC's answers from the grants as the
// SubjectAccessReviews would give them (src/infrastructure/kube/subject-access-review.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { hookAnnotationKey } from '../../src/core/capi.js';
import { evaluate } from '../../src/core/engine.js';
import { explainMachine } from '../../src/core/explain/explain.js';
import type { ExplainFacts, GrantSubjectFact, HookExplanation, Remover } from '../../src/core/explain/model.js';
import type { OwnerIdentities, Policy, UnverifiedRemoval, WildcardGrants } from '../../src/core/policy.js';
import type {
  Enforcement,
  KubeObject,
  Ownership,
  OwnerAccess,
  ReviewInput,
  Stage,
  UserInfo,
} from '../../src/core/types.js';
import { capiMachine } from '../fixtures/capi.js';
import { machine } from '../fixtures/openshift.js';

const OWNERS = ['team/storage', 'clusteroperator/etcd', 'backup', ''];
const NAMED = OWNERS.slice(0, 3);
const USERS = ['alice', 'bob', 'carol', 'dora', 'root'];
const GROUPS = ['storage-admins', 'backup-admins', 'system:masters'];
const ACCOUNTS = [
  { namespace: 'storage', name: 'operator' },
  { namespace: 'backup', name: 'agent' },
];
/** A group's member as the test asks for it: in that group only; no user above, nor anything the policy names. */
const MEMBER = 'member';
const STRANGER: UserInfo = { username: 'mallory', groups: ['system:authenticated'] };

type Subject = Pick<GrantSubjectFact, 'kind' | 'name' | 'namespace'>;
const SUBJECTS: readonly Subject[] = [
  ...USERS.map((name) => ({ kind: 'User', name })),
  ...GROUPS.map((name) => ({ kind: 'Group', name })),
  ...ACCOUNTS.map((a) => ({ kind: 'ServiceAccount', ...a })),
];

interface HookSpec {
  stage: Stage;
  name: string;
  owner: string;
}

interface Scenario {
  policy: Policy;
  /** Undefined: RBAC could not be listed (explain offline, or a webhook whose grant index is not ready). */
  grants: Record<string, GrantSubjectFact[]> | undefined;
  api: 'openshift' | 'capi';
  hooks: HookSpec[];
}

const grant = (s: Subject, role: string, allNames: boolean): GrantSubjectFact => ({
  ...s,
  binding: { kind: 'ClusterRoleBinding', name: `b-${s.name}-${role}` },
  role: { kind: 'ClusterRole', name: role },
  allNames,
});

const identities: fc.Arbitrary<OwnerIdentities> = fc.record({
  users: fc.subarray(USERS),
  groups: fc.subarray(GROUPS),
  serviceAccounts: fc.subarray(ACCOUNTS),
});

const hooksArb: fc.Arbitrary<HookSpec[]> = fc.uniqueArray(
  fc.record({
    stage: fc.constantFrom<Stage>('preDrain', 'preTerminate'),
    name: fc.constantFrom('example.com/Gate', 'example.com/Drain', 'Backup'),
    owner: fc.constantFrom(...OWNERS),
  }),
  { minLength: 1, maxLength: 3, selector: (h) => `${h.stage}/${h.name}` },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    owners: fc.dictionary(fc.constantFrom(...NAMED), identities),
    named: fc.tuple(...NAMED.map(() => fc.subarray([...SUBJECTS], { maxLength: 3 }))),
    wildcard: fc.subarray([...SUBJECTS], { maxLength: 2 }),
    known: fc.boolean(),
    unverifiedRemoval: fc.constantFrom<UnverifiedRemoval>('deny', 'warn', 'allow'),
    wildcardGrants: fc.constantFrom<WildcardGrants>('deny', 'warn'),
    enforcement: fc.constantFrom<Enforcement>('deny', 'deny', 'warn', 'off'),
    breakGlass: fc.record({
      users: fc.subarray(USERS, { maxLength: 2 }),
      groups: fc.subarray(GROUPS, { maxLength: 1 }),
    }),
    api: fc.constantFrom('openshift' as const, 'capi' as const),
    hooks: hooksArb,
  })
  .map((g): Scenario => {
    // As the grant index reports them (src/infrastructure/kube/owner-grants.ts subjectsFor): named grants, then the holders of a
    // role without resourceNames under every owner, the empty one included.
    const grants: Record<string, GrantSubjectFact[]> = {};
    NAMED.forEach((o, i) => {
      for (const s of g.named[i] ?? []) (grants[o] ??= []).push(grant(s, `hookowner-${o}`, false));
    });
    for (const o of OWNERS) for (const s of g.wildcard) (grants[o] ??= []).push(grant(s, 'cluster-admin', true));
    const policy: Policy = {
      ...DEFAULT_POLICY,
      owners: g.owners,
      unverifiedRemoval: g.unverifiedRemoval,
      wildcardGrants: g.wildcardGrants,
      breakGlass: g.breakGlass,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'owner-only-removal': g.enforcement },
    };
    return { policy, grants: g.known ? grants : undefined, api: g.api, hooks: g.hooks };
  });

function machineOf(s: Scenario, hooks: readonly HookSpec[]): KubeObject {
  if (s.api === 'capi')
    return capiMachine({
      role: 'worker',
      annotations: Object.fromEntries(hooks.map((h) => [hookAnnotationKey(h.stage, h.name), h.owner])),
    });
  const stage = (st: Stage) => hooks.filter((h) => h.stage === st).map(({ name, owner }) => ({ name, owner }));
  return machine({ preDrain: stage('preDrain'), preTerminate: stage('preTerminate') });
}

const account = (a: { namespace?: string; name: string }): UserInfo => ({
  username: `system:serviceaccount:${a.namespace ?? ''}:${a.name}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${a.namespace ?? ''}`, 'system:authenticated'],
});

/** Every identity the scenario names, as a request carries it: each user, a member of each group, each account. */
const EVERYONE: readonly UserInfo[] = [
  ...USERS.map((username) => ({ username, groups: ['system:authenticated'] })),
  ...GROUPS.map((g) => ({ username: MEMBER, groups: [g, 'system:authenticated'] })),
  ...ACCOUNTS.map(account),
  STRANGER,
];

/** The identity a listed remover stands for. */
function userOf(r: Remover): UserInfo {
  if (r.kind === 'ServiceAccount') return account(r);
  if (r.kind === 'Group') return { username: MEMBER, groups: [r.name, 'system:authenticated'] };
  return { username: r.name, groups: ['system:authenticated'] };
}

function covers(r: Remover, user: UserInfo): boolean {
  if (r.kind === 'Anyone') return true;
  if (r.kind === 'Group') return user.groups.includes(r.name);
  return user.username === (r.kind === 'ServiceAccount' ? account(r).username : r.name);
}

/** What SubjectAccessReview answers for `user` and `owner`: wildcard when it holds rights over every owner. */
function accessOf(grants: Record<string, GrantSubjectFact[]>, user: UserInfo, owner: string): OwnerAccess {
  const holds = (g: GrantSubjectFact): boolean =>
    g.kind === 'Group'
      ? user.groups.includes(g.name)
      : g.kind === 'ServiceAccount'
        ? user.username === account(g).username
        : user.username === g.name;
  const mine = (grants[owner] ?? []).filter(holds);
  if (mine.some((g) => g.allNames)) return 'wildcard';
  return mine.length > 0 ? 'allowed' : 'denied';
}

/** The UPDATE that removes exactly `hook`, as `user`, with what the webhook's transport knows of RBAC. */
function removal(s: Scenario, hook: HookSpec, user: UserInfo): ReviewInput {
  const ownership: Ownership = s.grants
    ? {
        granted: new Set(Object.entries(s.grants).flatMap(([o, gs]) => (gs.some((g) => !g.allNames) ? [o] : []))),
        access: { [hook.owner]: accessOf(s.grants, user, hook.owner) },
        grantsKnown: true,
      }
    : { granted: new Set(), access: { [hook.owner]: 'unknown' }, grantsKnown: false };
  const oldObject = machineOf(s, s.hooks);
  const [group = '', version = ''] = String(oldObject['apiVersion']).split('/');
  const meta = oldObject['metadata'] as { name: string; namespace: string };
  return {
    operation: 'UPDATE',
    kind: { group, version, kind: 'Machine' },
    namespace: meta.namespace,
    name: meta.name,
    object: machineOf(
      s,
      s.hooks.filter((h) => h !== hook),
    ),
    oldObject,
    userInfo: user,
    dryRun: false,
    context: { ownership },
  };
}

const VIA: Readonly<Record<string, Remover['via']>> = {
  registry: 'registry',
  rbac: 'rbac',
  wildcard: 'rbac-wildcard',
  'break-glass': 'break-glass',
  unverified: 'anyone',
};

/** evaluate()'s answer for owner-only-removal: refused, or allowed and on what grounds (its audit route). */
function decide(s: Scenario, hook: HookSpec, user: UserInfo): Remover['via'] | 'refused' | 'unrouted' {
  const d = evaluate(s.policy, removal(s, hook, user));
  if (d.denials.some((v) => v.rule === 'owner-only-removal')) return 'refused';
  const notice = d.notices.find((n) => n.rule === 'owner-only-removal');
  // unverifiedRemoval: allow lets anyone remove without a trace.
  if (!notice) return 'anyone';
  const { route } = JSON.parse(notice.audit.value) as { route: string };
  return VIA[route] ?? 'unrouted';
}

const factsOf = (s: Scenario): ExplainFacts => ({
  source: 'cluster',
  grants: s.grants ? { status: 'known', byOwner: s.grants } : { status: 'unknown', reason: 'not listed' },
  serviceAccounts: { status: 'known', found: {} },
  node: { status: 'absent' },
  clusterOperators: {},
});

const who = (u: UserInfo): string => `${u.username} [${u.groups.join(', ')}]`;

/** Every disagreement between explain's removers of `hook` and the rule's decisions. */
function disagreements(s: Scenario, hook: HookSpec, explained: HookExplanation): string[] {
  const out: string[] = [];
  for (const r of explained.removers) {
    if (r.via === 'anyone') continue;
    const got = decide(s, hook, userOf(r));
    if (got !== r.via) out.push(`lists ${r.kind} ${r.name} via ${r.via}; the rule: ${got}`);
  }
  for (const user of EVERYONE) {
    const listed = explained.removers.some((r) => covers(r, user));
    const got = decide(s, hook, user);
    if (listed !== (got !== 'refused')) out.push(`${listed ? 'covers' : 'omits'} ${who(user)}; the rule: ${got}`);
  }
  return out;
}

describe('explain: who may remove a hook, held to what owner-only-removal decides', () => {
  test('every remover listed is allowed on the grounds given; every identity not covered is refused', () => {
    let removers = 0;
    // Fixed seed: the same scenarios every run; a failure names its index and what disagreed.
    for (const [i, s] of fc.sample(scenarioArb, { seed: 36, numRuns: 300 }).entries()) {
      const explanation = explainMachine({ object: machineOf(s, s.hooks), policy: s.policy, facts: factsOf(s) });
      assert.equal(explanation.hooks.length, s.hooks.length, `scenario ${i}`);
      for (const explained of explanation.hooks) {
        const hook = s.hooks.find((h) => h.stage === explained.stage && h.name === explained.name);
        assert.ok(hook, `scenario ${i}: ${explained.path}`);
        removers += explained.removers.length;
        assert.deepEqual(disagreements(s, hook, explained), [], `scenario ${i} ${s.api}, ${explained.path}`);
      }
    }
    assert.ok(removers > 1000, `only ${removers} removers checked`);
  });
});
