// The expression builder's two compilations agree: each builder's JavaScript gives, for the same values, what its CEL
// gives under the admission CEL evaluator (test/native/evaluator, Kubernetes' libraries), on strings chosen where the
// two languages differ (code points against UTF-16 units, non-ASCII case, quoting).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cel, celIdentifier } from '../../src/core/cel/text.js';
import {
  and,
  concat,
  cond,
  constant,
  contains,
  eq,
  ge,
  gt,
  int,
  le,
  leaf,
  minus,
  byteSize,
  keptFor,
  lowerAscii,
  lowerKey,
  matches,
  not,
  oneOf,
  or,
  say,
  size,
  startsWith,
  str,
  variable,
  FALSE,
  TRUE,
  type Bool,
  type Env,
  type Expr,
} from '../../src/core/expr/expr.js';
import { changeCheck } from '../../src/core/expr/change-check.js';
import { identityVariables } from '../../src/core/cel/changed-hooks.js';
import { strictOwners } from '../../src/rules/owner-only-removal/strict-owners.js';
import type { OwnerView } from '../../src/core/expr/owners.js';
import { celCarrier } from '../../src/core/cel/carrier.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { WILDCARD_PROBE_OWNER } from '../../src/core/ownership.js';
import { ownersToCheck } from '../../src/rules/owner-only-removal/owners-to-check.js';
import { templateHookRemovedMessage } from '../../src/rules/template-hook-removed/messages.js';
import { admit, compilePolicies } from '../native/evaluator/admission.js';
import { labelsMatch, namespaceIn } from '../../src/core/expr/selector.js';
import {
  all,
  at,
  count,
  emptyList,
  every,
  exists,
  filter,
  firstWhere,
  includes,
  indexesWhere,
  listOf,
  map,
  split,
} from '../../src/core/expr/lists.js';
import { firstBroken } from '../../src/core/expr/constraint-check.js';
import { fieldIsString, isMap, stringField } from '../../src/core/expr/fields.js';
import { metadataHas, metadataList, objectHas, objectList, operationIs, STORED } from '../../src/core/expr/request.js';
import { breakGlassHolder, GROUPS, USERNAME } from '../../src/core/expr/identity.js';
import { carriesHooks, HookEnv, stageView, type StageView } from '../../src/core/expr/hooks.js';
import { CARRIERS, carrierFor, type HookCarrier } from '../../src/core/carriers.js';
import type { Policy } from '../../src/core/policy.js';
import { HOOK_NAME_PATTERN } from '../../src/core/hook-name.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import { unconvertibleMessage } from '../../src/rules/capi-migration/messages.js';
// The rule's own composition of the list builders: the most a request's metadata asks of them.
import { controllersOf } from '../../src/rules/owner-references/rule.js';
import { admissionEnvironment, defineVariables, prepare, Variables } from '../native/evaluator/cel.js';
import { entryOwnerIn, stageEntries } from '../../src/core/expr/entries.js';
import { hasKey, lookup, stringMap } from '../../src/core/expr/maps.js';
import { fromCel, toCel } from '../native/evaluator/values.js';

interface TestEnv extends Env {
  object: Record<string, string>;
}
/** A string field of the request's object: the test's one leaf. */
const field = (name: string): Expr<string> =>
  leaf(cel`object.${celIdentifier(name)}`, (env) => (env as TestEnv).object[name] as string);

const celEnv = admissionEnvironment(new Map());
const SAMPLES = [
  '',
  'abc',
  'ABC-Äé',
  'a/b',
  'example.com/Hook',
  '😀x',
  'H'.repeat(64),
  'say "hi"\n\\',
  'Zz-9_.',
  // The two letters Go lowers to ASCII (U+0130, KELVIN SIGN), and ones it lowers to other letters.
  'İ\u212aΩ/ẞ//',
];

function agree<T>(title: string, build: (s: Expr<string>, t: Expr<string>) => Expr<T>): void {
  test(title, () => {
    const e = build(field('s'), field('t'));
    for (const s of SAMPLES)
      for (const t of ['', 'a/b', 'Hook']) {
        const object = { s, t };
        const js = e.js({ memo: new Map(), object } as TestEnv);
        const viaCel = fromCel(
          celEnv.evaluate(prepare(e.cel), { object: toCel(object), oldObject: null, request: {} }),
        ) as T;
        assert.deepEqual(js, viaCel, `${e.cel} for s=${JSON.stringify(s)}, t=${JSON.stringify(t)}`);
      }
  });
}

describe('expression builders: the same value in JavaScript and in CEL', () => {
  agree('size counts code points', (s) => size(s));
  agree('contains, startsWith', (s) => and(contains(s, '/'), not(startsWith(s, 'example'))));
  agree("matches: RE2's partial match of hookkeeper's name pattern", (s) => matches(s, HOOK_NAME_PATTERN));
  agree('lowerAscii lower-cases A-Z only', (s) => lowerAscii(s));
  agree('lowerKey lower-cases A-Z and the two letters Go lowers to ASCII', (s) => lowerKey(s));
  agree('byteSize counts UTF-8 bytes', (s) => byteSize(s));
  agree("split cuts at each separator, as Go's strings.Split", (s) => split(s, '/'));
  agree('split: its parts counted and read', (s) =>
    concat(at(split(s, '/'), 0), str('|'), at(split(s, '/'), minus(count(split(s, '/')), int(1)))),
  );
  agree("firstBroken: the first constraint's message that does not hold, the last one's otherwise", (s, t) =>
    firstBroken([
      { holds: ge(size(s), int(3)), message: str('short') },
      { holds: not(contains(s, '/')), message: concat(str('slash in '), s) },
      { holds: matches(s, '^[a-z]*$'), message: str('pattern') },
      { holds: eq(s, t), message: str('last') },
    ]),
  );
  agree('concat, cond', (s, t) => cond(contains(t, '/'), concat(s, str(' & '), t), concat(str('['), s, str(']'))));
  agree('comparisons', (s, t) => or(eq(s, t), and(le(size(s), int(3)), ge(size(t), int(1)))));
  agree('not over a comparison negates the comparison', (s, t) => and(not(eq(s, t)), not(le(size(s), int(3)))));
  agree("say: a message's words with its slots, quoting as strings.quote does", (s, t) =>
    say(unconvertibleMessage, { path: str('spec.x'), name: s, key: concat(str('p/'), t), errors: lowerAscii(s) }),
  );
});

describe('and, or, not: constant terms folded, in both compilations', () => {
  test('a FALSE term makes and() FALSE, a TRUE term makes or() TRUE, whatever else they hold', () => {
    // A term that must not be evaluated, nor compiled into the CEL (an error in it is absorbed in CEL too).
    const boom = leaf<boolean>(cel`1 / 0 == 1`, () => assert.fail('evaluated'));
    assert.equal(and(boom, FALSE, field('s') as unknown as Bool), FALSE);
    assert.equal(or(boom, TRUE), TRUE);
    // The route list reads a route that cannot hold as FALSE (owner-only-removal/routes.ts): nested, still constant.
    assert.equal(and(TRUE, or(FALSE, FALSE)), FALSE);
    assert.equal(or(FALSE, and(TRUE, TRUE)), TRUE);
    assert.equal(and(boom, TRUE).cel, '1 / 0 == 1');
  });

  test('not() of a constant is the other constant, so a route no input can reach folds away', () => {
    assert.equal(not(TRUE), FALSE);
    assert.equal(not(FALSE), TRUE);
    // The addition routes' first: no owner the policy names, no grant CEL can see (addition-routes.ts).
    assert.equal(not(or(FALSE, FALSE, FALSE)), TRUE);
  });
});

test('firstBroken names the first constraint that does not hold, each evaluated alone', () => {
  const s = field('s');
  const constraints = [
    { holds: ge(size(s), int(3)), message: str('short') },
    { holds: not(contains(s, '/')), message: str('slash') },
    { holds: matches(s, '^[a-z]*$'), message: str('pattern') },
  ];
  const first = firstBroken(constraints);
  for (const value of SAMPLES) {
    const env = { memo: undefined, object: { s: value } } as TestEnv;
    const broken = constraints.find((c) => !c.holds.js(env));
    if (broken) assert.equal(first.js(env), broken.message.js(env), value);
  }
});

test('keptFor: its term in CEL, computed in JavaScript once for each value x takes', () => {
  const s = field('s');
  let evaluations = 0;
  const term = lowerKey(s);
  const kept = keptFor(
    s,
    leaf(term.cel, (env) => (evaluations++, term.js(env))),
  );
  assert.equal(kept.cel, term.cel);
  const env = { memo: undefined, object: { s: 'İK' } } as TestEnv;
  assert.deepEqual([kept.js(env), kept.js(env), evaluations], ['ik', 'ik', 1]);
  env.object = { s: 'ABC' };
  assert.deepEqual([kept.js(env), evaluations], ['abc', 2]);
});

describe('variables', () => {
  test('declared once under their name, read as variables.<name>, evaluated once per environment', () => {
    let evaluations = 0;
    const counted = leaf(cel`true`, () => (evaluations++, true));
    const v = variable('migrating', counted);
    assert.deepEqual(v.declaration, { name: 'migrating', expression: 'true' });
    assert.equal(v.cel, 'variables.migrating');
    const env: Env = { memo: new Map() };
    assert.equal(and(v, v, v).js(env), true);
    assert.equal(evaluations, 1);
    v.js({ memo: new Map() });
    assert.equal(evaluations, 2);
  });

  test('a constant: declared and read as a variable in CEL, its value in JavaScript (nothing kept)', () => {
    const c = constant('reserved', stringMap([['EtcdQuorumOperator', 'clusteroperator/etcd']]));
    assert.deepEqual(c.declaration, { name: 'reserved', expression: '{"EtcdQuorumOperator": "clusteroperator/etcd"}' });
    assert.equal(c.cel, 'variables.reserved');
    const env: Env = { memo: undefined };
    assert.equal(lookup(c, str('EtcdQuorumOperator')).js(env), 'clusteroperator/etcd');
    assert.equal(env.memo, undefined);
  });
});

describe('selectors: the policy’s label selectors and namespaces, the same in JavaScript and in CEL', () => {
  const selector = {
    matchLabels: { role: 'master' },
    matchExpressions: [
      { key: 'zone', operator: 'In' as const, values: ['a', 'b'] },
      { key: 'tier', operator: 'NotIn' as const, values: ['x'] },
      { key: 'keep', operator: 'Exists' as const },
      { key: 'skip', operator: 'DoesNotExist' as const },
    ],
  };
  const labelSets: Array<Record<string, string> | undefined> = [
    undefined,
    {},
    { role: 'master', zone: 'a', keep: '' },
    { role: 'master', zone: 'c', keep: '' },
    { role: 'master', zone: 'b', keep: 'y', tier: 'x' },
    { role: 'master', zone: 'b', keep: 'y', tier: 'y' },
    { role: 'master', zone: 'a', keep: '', skip: '1' },
    { role: 'worker', zone: 'a', keep: '' },
  ];
  test('labelsMatch, every operator, on the object and the stored object', () => {
    for (const labels of labelSets)
      for (const base of ['object', 'oldObject'] as const) {
        const e = labelsMatch(selector, base);
        const object = { metadata: { name: 'm', ...(labels ? { labels } : {}) } };
        const input = { object, oldObject: object, namespace: 'ns' } as unknown as ReviewInput;
        const viaCel = celEnv.evaluate(prepare(e.cel), { object, oldObject: object, request: { namespace: 'ns' } });
        assert.equal(e.js({ memo: undefined, input } as Env), viaCel, `${JSON.stringify(labels)} on ${base}`);
      }
  });
  test('namespaceIn', () => {
    for (const namespace of ['a', 'b', 'c']) {
      const e = namespaceIn(['a', 'b']);
      const input = { object: { metadata: {} }, oldObject: null, namespace } as unknown as ReviewInput;
      const viaCel = celEnv.evaluate(prepare(e.cel), { object: null, oldObject: null, request: { namespace } });
      assert.equal(e.js({ memo: undefined, input } as Env), viaCel, namespace);
    }
  });
});

/** The request's object, stored object and operation, as each engine reads them. */
interface Request {
  object: Record<string, unknown>;
  oldObject: Record<string, unknown> | null;
  operation: 'CREATE' | 'UPDATE';
}

/** Both engines give the same value, or both fail (CEL's error, a JavaScript throw), on every request. */
function agreeOnRequests<T>(title: string, e: Expr<T>, requests: readonly Request[]): void {
  test(title, () => {
    for (const r of requests) {
      const where = `${e.cel} on ${JSON.stringify(r)}`;
      const env = { memo: undefined, input: { ...r, namespace: 'ns' } } as unknown as Env;
      const activation = {
        object: toCel(r.object),
        oldObject: toCel(r.oldObject),
        request: { operation: r.operation },
      };
      let js: { value: unknown } | { error: true };
      let viaCel: { value: unknown } | { error: true };
      try {
        js = { value: e.js(env) };
      } catch {
        js = { error: true };
      }
      try {
        viaCel = { value: fromCel(celEnv.evaluate(prepare(e.cel), activation)) };
      } catch {
        viaCel = { error: true };
      }
      assert.deepEqual(js, viaCel, where);
    }
  });
}

const REFS: readonly unknown[][] = [
  [],
  [{ kind: 'MachineSet', name: 'a', controller: true }],
  [
    { kind: 'MachineSet', name: 'a', controller: true },
    { kind: 'MachineSet', name: 'b', controller: false },
    { kind: 'Other', name: 'c' },
    { kind: 'Other', name: 'd', controller: 'true' },
    { kind: '😀', name: 'x/y', controller: true },
    { kind: 'MachineSet', name: 'a', controller: true },
  ],
];
const objectWith = (refs: unknown[] | undefined, items: string[] = []) => ({
  metadata: { name: 'm', ...(refs ? { ownerReferences: refs } : {}) },
  items,
});
const ITEMS: readonly string[][] = [[], ['a'], ['a', 'B', 'a'], ['😀', 'x/y', 'ab', 'a']];
const REQUESTS: Request[] = [undefined, ...REFS].flatMap((refs, k) =>
  ITEMS.flatMap((items) => [
    { object: objectWith(refs, items), oldObject: null, operation: 'CREATE' as const },
    {
      object: objectWith(refs, items),
      oldObject: objectWith(REFS[(k + 1) % REFS.length], items),
      operation: 'UPDATE' as const,
    },
  ]),
);
const items = leaf<readonly string[]>(
  cel`object.items`,
  (env) => (env as unknown as { input: Request }).input.object['items'] as string[],
);

describe('list builders and the leaves they read: the same value in JavaScript and in CEL, or an error in both', () => {
  agreeOnRequests(
    'filter and map over metadata lists; fields of a map read by has() and string()',
    controllersOf('object'),
    REQUESTS,
  );
  agreeOnRequests(
    'the stored object, on UPDATE only',
    cond(and(operationIs('UPDATE'), STORED), controllersOf('oldObject'), emptyList<string>()),
    REQUESTS,
  );
  agreeOnRequests(
    'count, exists',
    and(
      gt(count(items), int(1)),
      exists(items, 'o', (o) => eq(o, str('a'))),
    ),
    REQUESTS,
  );
  agreeOnRequests(
    'all with an index',
    all(items, 'i', 'x', (i, x) => or(le(i, int(1)), eq(x, at(items, 0)))),
    REQUESTS,
  );
  agreeOnRequests('at: an error in both out of range', at(items, 1), REQUESTS);
  agreeOnRequests(
    'firstWhere: the first element passing, an error in both when none does',
    firstWhere(items, 'i', 'x', (i, x) => and(gt(i, int(0)), eq(x, at(items, 0)))),
    REQUESTS,
  );
  const owners = stringMap([
    ['a', 'one'],
    ['B', 'two'],
    ['a', 'shadowed'],
  ]);
  test('a literal map keeps the first of two entries with one key, in both engines', () => {
    const first = lookup(owners, str('a'));
    assert.deepEqual([first.js({ memo: undefined }), fromCel(celEnv.evaluate(prepare(first.cel), {}))], ['one', 'one']);
  });
  agreeOnRequests(
    'a literal map read by key; a missing key an error in both',
    listOf(cond(hasKey(owners, at(items, 0)), lookup(owners, at(items, 0)), str('-')), lookup(owners, at(items, 0))),
    REQUESTS,
  );
  agreeOnRequests(
    'a list literal, and every element passing',
    and(
      every(items, 'x', (x) => not(hasKey(owners, x))),
      every(listOf(str('B'), at(items, 0)), 'x', (x) => hasKey(owners, x)),
    ),
    REQUESTS,
  );
  agreeOnRequests(
    'map of a map',
    map(items, 'x', (x) => lowerAscii(x)),
    REQUESTS,
  );
});

/** Who asks and the object's finalizers, as each engine reads them. */
interface Asked {
  username: string;
  groups: string[];
  finalizers?: unknown[];
}
const ASKED: Asked[] = [
  { username: 'alice', groups: [] },
  { username: 'bob', groups: ['ops', 'system:masters'], finalizers: ['a', 'b'] },
  { username: '', groups: ['Ops'], finalizers: [] },
  { username: 'Alice', groups: ['dev'], finalizers: [1, { a: 'a' }, 'a/b'] },
  { username: 'system:serviceaccount:ns:ctl', groups: ['system:serviceaccounts'], finalizers: ['😀'] },
];
const POLICY_BREAK_GLASS = { breakGlass: { users: ['alice', 'system:serviceaccount:ns:ctl'], groups: ['ops'] } };

function agreeOnAsking(title: string, e: Bool): void {
  test(title, () => {
    for (const a of ASKED) {
      const object = { metadata: { name: 'm', ...(a.finalizers ? { finalizers: a.finalizers } : {}) } };
      const userInfo = { username: a.username, groups: a.groups };
      const input = { object, oldObject: null, operation: 'UPDATE', userInfo } as unknown as ReviewInput;
      const viaCel = celEnv.evaluate(prepare(e.cel), { object: toCel(object), oldObject: null, request: { userInfo } });
      assert.equal(e.js({ memo: undefined, input } as Env), viaCel, `${e.cel} for ${JSON.stringify(a)}`);
    }
  });
}

describe('who asks and membership: the same in JavaScript and in CEL', () => {
  const finalizers = cond(metadataHas('object', 'finalizers'), metadataList('object', 'finalizers'), emptyList());
  agreeOnAsking(
    'oneOf, under not(): a set of names, case and all',
    and(not(oneOf(USERNAME, ['alice', 'system:serviceaccount:ns:ctl'])), oneOf(USERNAME, ['', 'bob'])),
  );
  agreeOnAsking('oneOf an empty set', oneOf(USERNAME, []));
  agreeOnAsking(
    'includes, under not(): by equality, an element of another type is not it',
    or(and(includes(finalizers, str('a')), not(includes(finalizers, str('b')))), includes(finalizers, str('😀'))),
  );
  agreeOnAsking(
    "breakGlassHolder: the policy's users or a member of its groups",
    breakGlassHolder(POLICY_BREAK_GLASS as unknown as Policy),
  );
  agreeOnAsking(
    'the groups',
    exists(GROUPS, 'g', (g) => startsWith(g, 'system:')),
  );
});

describe("carriesHooks: a carrier's hooks, read by the engine or from the request, and in CEL", () => {
  const mapi = carrierFor({ group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' }) as HookCarrier;
  const capi = carrierFor({ group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Machine' }) as HookCarrier;
  const hook = { name: 'h', owner: 'o' };
  const objects: Array<[HookCarrier, Record<string, unknown>]> = [
    [mapi, { metadata: {} }],
    [mapi, { metadata: {}, spec: {} }],
    [mapi, { metadata: {}, spec: { lifecycleHooks: {} } }],
    [mapi, { metadata: {}, spec: { lifecycleHooks: { preDrain: [] } } }],
    [mapi, { metadata: {}, spec: { lifecycleHooks: { preDrain: [], preTerminate: [hook] } } }],
    [mapi, { metadata: {}, spec: { lifecycleHooks: { preDrain: [hook] } } }],
    [capi, { metadata: {} }],
    [capi, { metadata: { annotations: { other: 'x' } } }],
    [capi, { metadata: { annotations: { 'pre-drain.delete.hook.machine.cluster.x-k8s.io/h': 'o' } } }],
    [capi, { metadata: { annotations: { 'pre-terminate.delete.hook.machine.cluster.x-k8s.io': '' } } }],
  ];
  test('the same answer from the engine’s reading, the request and CEL', () => {
    for (const [carrier, object] of objects) {
      const e = carriesHooks(carrier);
      const input = { object, oldObject: null, operation: 'UPDATE' } as unknown as ReviewInput;
      const viaCel = celEnv.evaluate(prepare(e.cel), { object: toCel(object), oldObject: null, request: {} });
      const read = new HookEnv(carrier.read(object), carrier.read(null), input, DEFAULT_POLICY);
      const where = `${carrier.id} ${JSON.stringify(object)}`;
      assert.equal(e.js(read), viaCel, `engine's reading: ${where}`);
      assert.equal(e.js({ memo: undefined, input } as Env), viaCel, `the request: ${where}`);
    }
  });
});

/** A stage as written, malformed entries included: what default-hooks' decision reads before it rewrites one. */
const ENTRY_LISTS: readonly unknown[][] = [
  [],
  [{ name: 'a', owner: 'x' }],
  [
    { name: 'b', owner: 'y' },
    { name: 'a', owner: 'z' },
    { name: 'a', owner: 'x' },
  ],
  [{ name: 'a' }, { owner: 'x' }, { name: 1, owner: 'x' }, 'a', null, { name: 'a', owner: null }],
  [
    { name: 'a', owner: 'x' },
    { name: 'b', owner: 7 },
  ],
];
const ENTRY_REQUESTS: Request[] = [
  ...ENTRY_LISTS.map((entries) => ({ object: { spec: { entries } }, oldObject: null, operation: 'CREATE' as const })),
  { object: { spec: {} }, oldObject: null, operation: 'CREATE' },
];

describe("a list's maps, read where their shape is checked first: the same in JavaScript and in CEL", () => {
  const entries = cond(objectHas(['spec', 'entries']), objectList(['spec', 'entries']), emptyList());
  const wellFormed = all(entries, 'i', 'h', (_i, h) =>
    and(isMap(h), fieldIsString(h, 'name'), fieldIsString(h, 'owner')),
  );
  const named = indexesWhere(entries, 'i', 'h', (_i, h) =>
    and(isMap(h), fieldIsString(h, 'name'), eq(stringField(h, 'name'), str('a'))),
  );
  agreeOnRequests('objectList, isMap, fieldIsString', wellFormed, ENTRY_REQUESTS);
  agreeOnRequests('indexesWhere: the indexes of the elements passing, in order', named, ENTRY_REQUESTS);
  agreeOnRequests(
    'at a computed index, stringField: an error in both where there is none',
    stringField(at(entries, at(named, 0)), 'owner'),
    ENTRY_REQUESTS,
  );
  agreeOnRequests(
    'stringField of a map without it: an error in both',
    stringField(at(entries, 0), 'owner'),
    ENTRY_REQUESTS,
  );
});

// changeCheck and the ownership leaves (src/core/expr/owners.ts): the webhook reads RBAC's answers from the review's
// ownership fact, native mode asks the authorizer once per owner; both must decide each changed hook alike.
const OWNED_POLICY: Policy = {
  ...DEFAULT_POLICY,
  owners: { 'team/a': { users: ['alice'], groups: [], serviceAccounts: [] } },
  breakGlass: { users: ['root'], groups: [] },
};
const SET = carrierFor({ group: 'machine.openshift.io', version: 'v1beta1', kind: 'MachineSet' }) as HookCarrier;
const setWith = (preDrain: { name: string; owner: string }[]): KubeObject => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'MachineSet',
  metadata: { name: 'workers', namespace: 'ns' },
  spec: { template: { spec: { lifecycleHooks: { preDrain } } } },
});
const STORED_HOOKS = [
  { name: 'A', owner: 'team/a' },
  { name: 'X', owner: 'team/x' },
  { name: 'Y', owner: 'team/y' },
  { name: 'Free', owner: 'free' },
  { name: 'Empty', owner: '' },
  { name: 'X2', owner: 'team/x' },
];
/** RBAC as the API server would answer: per user, the owners a grant names; '*' for rights over every owner. */
const RBAC: Record<string, readonly string[]> = { alice: [], bob: ['team/x'], carol: ['*'], root: [] };
const allows = (user: string, owner: string): boolean =>
  (RBAC[user] ?? []).includes('*') || (RBAC[user] ?? []).includes(owner);

function changeInputs(): ReviewInput[] {
  const out: ReviewInput[] = [];
  const keeps = [[0, 1, 2, 3, 4, 5], [1, 2], [0, 3], [], [5]];
  for (const user of Object.keys(RBAC))
    for (const kept of keeps)
      out.push({
        operation: 'UPDATE',
        kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'MachineSet' },
        namespace: 'ns',
        name: 'workers',
        // A kept hook re-owned by the request is changed too.
        object: setWith(kept.map((k) => (k === 2 ? { name: 'Y', owner: 'team/z' } : STORED_HOOKS[k]!))),
        oldObject: setWith(STORED_HOOKS),
        userInfo: { username: user, groups: [] },
        dryRun: false,
      });
  return out;
}

/** The ownership fact as the transport gathers it: one answer per owner it asks about. */
function withFacts(input: ReviewInput): ReviewInput {
  const access = Object.fromEntries(
    ownersToCheck(OWNED_POLICY, input, new Set()).map((o) => [
      o,
      allows(input.userInfo.username, o)
        ? allows(input.userInfo.username, WILDCARD_PROBE_OWNER)
          ? ('wildcard' as const)
          : ('allowed' as const)
        : ('denied' as const),
    ]),
  );
  return { ...input, context: { ownership: { granted: new Set(), access, grantsKnown: true } } };
}

/** Validations and their variables as one Warn-bound policy of the admission evaluator, every failure reported. */
function warnPolicy(
  variables: readonly { name: string; expression: unknown }[],
  validations: readonly { expression: unknown; messageExpression: unknown }[],
  operations: readonly string[],
) {
  const name = 'expr-test';
  return compilePolicies([
    {
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations }] },
        variables: variables.map((v) => ({ name: v.name, expression: String(v.expression) })),
        validations: validations.map((v) => ({
          expression: String(v.expression),
          messageExpression: String(v.messageExpression),
        })),
      },
    },
    {
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Warn'] },
    },
  ]);
}

function changeCheckAgrees(title: string, passes: (o: OwnerView) => Bool): void {
  test(title, () => {
    const check = changeCheck({
      rule: 'template-hook-removed',
      carriers: (c) => !c.live,
      passes,
      message: (c) => say(templateHookRemovedMessage, { kind: str('MachineSet'), ...c }),
      fix: () => '',
      key: 'k',
      family: 'template',
      gate: 'g',
      reason: 'Forbidden',
    });
    if (!('validating' in check.native)) throw new Error('a validating form');
    const view = celCarrier(SET);
    const native = check.native.validating({ policy: OWNED_POLICY, view, k8sMinor: 36 });
    const compiled = warnPolicy([...view.variables, ...native.variables], native.validations, ['UPDATE']);
    for (const input of changeInputs()) {
      const hooks = SET.read(input.object);
      const oldHooks = SET.read(input.oldObject);
      const webhook = check.validate({ policy: OWNED_POLICY, input: withFacts(input), carrier: SET, hooks, oldHooks });
      const viaCel = admit(compiled, input, { authorize: (q) => allows(input.userInfo.username, q.name) });
      const where = `${input.userInfo.username} keeping ${JSON.stringify(SET.read(input.object).hooks.map((h) => h.name))}`;
      // Native mode names each failing owner's first hook (and the first of the rest): every one the webhook's.
      const messages = webhook.violations.map((v) => v.message);
      assert.equal(viaCel.warnings.length > 0, messages.length > 0, where);
      for (const w of viaCel.warnings) assert.ok(messages.includes(w.message), `${where}: ${w.message}`);
      // Each owner RBAC is asked about has a validation of its own: faulted by one engine, named by the other.
      const ownerIn = (m: string) => /(?: of "([^"]*)")?: /.exec(m)?.[1] ?? '';
      for (const owner of ownersToCheck(OWNED_POLICY, input, new Set()))
        assert.equal(
          viaCel.warnings.some((w) => ownerIn(w.message) === owner),
          messages.some((m) => ownerIn(m) === owner),
          `${where}: owner ${owner}`,
        );
    }
  });
}

describe('changeCheck: each changed hook judged by its owner, RBAC read from the review in JavaScript and asked in CEL', () => {
  changeCheckAgrees('acting for the owner by the registry or by a grant naming it', (o) => or(o.actsFor, o.rbacNamed));
  changeCheckAgrees('an owner named in the predicate', (o) => or(o.actsFor, eq(o.owner, str('free'))));
  changeCheckAgrees('a grant naming the owner, not the registry', (o) => o.rbacNamed);
  test('TRUE and FALSE terms leave and/or as the other terms, in both compilations', () => {
    const a = leaf<boolean>(cel`a`, () => true);
    assert.equal(or(FALSE, a), a);
    assert.equal(and(TRUE, a, TRUE), a);
    assert.equal(or(FALSE, FALSE), FALSE);
    assert.equal(and(TRUE), TRUE);
  });
});

// strictOwners as a hookCheck over ownerProtected and RBAC_NOTE (src/core/expr/owners.ts): a registered owner in both
// engines; a grant only in JavaScript, as CEL cannot list RBAC (the divergence owner-only-removal declares).
describe('ownerProtected, RBAC_NOTE: the registry in both engines, RBAC grants in JavaScript only', () => {
  const STRICT: Policy = { ...OWNED_POLICY, strictOwners: true };
  const view = celCarrier(SET);
  if (!('validating' in strictOwners.native)) throw new Error('a validating form');
  const native = strictOwners.native.validating({ policy: STRICT, view, k8sMinor: 36 });
  const compiled = warnPolicy([...view.variables, ...identityVariables(STRICT)], native.validations, [
    'CREATE',
    'UPDATE',
  ]);
  const inputs: ReviewInput[] = changeInputs().flatMap((i) => [
    // Each stored hook added anew, and each kept one stored as it was.
    { ...i, operation: 'CREATE' as const, oldObject: null },
    { ...i, object: i.oldObject, oldObject: i.object },
  ]);
  const judge = (input: ReviewInput, granted: readonly string[] | undefined) => {
    const ownership = granted && { granted: new Set(granted), access: {}, grantsKnown: true };
    const judged = ownership ? { ...input, context: { ownership } } : input;
    const [hooks, oldHooks] = [SET.read(input.object), SET.read(input.oldObject)];
    return strictOwners.validate({ policy: STRICT, input: judged, carrier: SET, hooks, oldHooks }).violations;
  };
  test('no grants: the same hooks refused, in the same words', () => {
    for (const input of inputs) {
      const messages = judge(input, undefined).map((v) => v.message);
      const viaCel = admit(compiled, input, { authorize: () => false }).warnings.map((w) => w.message);
      // Native mode names each stage's first refused hook: the webhook's first of that stage.
      assert.deepEqual(viaCel, messages.length > 0 ? [messages[0]] : [], JSON.stringify(input.object));
    }
  });
  test("a grant protects an owner in the webhook's judgement only", () => {
    const input = inputs.find((i) => i.operation === 'CREATE') as ReviewInput;
    const refused = (granted: readonly string[] | undefined) => judge(input, granted).map((v) => v.hook?.owner);
    // Y is stored re-owned to team/z.
    assert.deepEqual(refused(undefined), ['team/x', 'team/z', 'free', '', 'team/x']);
    assert.deepEqual(refused(['team/x', 'free']), ['team/z', '']);
    // hookCheck's key option: the key strictOwners' violations had before it was a hookCheck.
    assert.equal(judge(input, ['team/x', 'free'])[0]?.key, 'unregistered:preDrain:"Y":"team/z"');
    assert.doesNotMatch(judge(input, [])[0]?.message ?? '(RBAC', /\(RBAC/);
    assert.match(judge(input, undefined)[0]?.message ?? '', /\(RBAC not consulted\)/);
  });
});

/**
 * Both engines on a carrier's own leaves: JavaScript reads the hooks as the engine does (HookEnv), CEL the carrier's
 * variables as native render declares them, on the same request.
 */
function agreeOnCarrier(
  title: string,
  carrier: HookCarrier,
  exprs: readonly Expr<unknown>[],
  requests: readonly Request[],
) {
  test(title, () => {
    const view = celCarrier(carrier);
    class CarrierVariables extends Variables {}
    defineVariables(
      CarrierVariables,
      view.variables.map((v) => v.name),
    );
    const env = admissionEnvironment(new Map(view.variables.map((v) => [v.name, 'dyn'])), CarrierVariables);
    for (const r of requests) {
      const input = { ...r, namespace: 'ns' } as unknown as ReviewInput;
      const hookEnv = new HookEnv(
        carrier.read(input.object),
        carrier.read(input.operation === 'UPDATE' ? input.oldObject : null),
        input,
        DEFAULT_POLICY,
      );
      const base: Record<string, unknown> = {
        object: toCel(r.object),
        oldObject: toCel(r.oldObject),
        request: { operation: r.operation },
      };
      base['variables'] = new CarrierVariables(
        new Map(view.variables.map((v) => [v.name, () => env.evaluate(prepare(v.expression), base)])),
      );
      for (const e of exprs)
        assert.deepEqual(
          e.js(hookEnv),
          fromCel(env.evaluate(prepare(e.cel), base)),
          `${e.cel} on ${JSON.stringify(r)}`,
        );
    }
  });
}

const MACHINE = CARRIERS.find((c) => c.id === 'openshift-machine') as HookCarrier;
const CAPI_MACHINE = CARRIERS.find((c) => c.id === 'capi-machine') as HookCarrier;
// Entries the CRD would refuse are here too: `validate` reads them, and both engines must count them alike.
const LIST_STAGES: readonly unknown[] = [
  {
    preDrain: [
      { name: 'a', owner: 'etcd' },
      { name: 'b', owner: 'team' },
    ],
    preTerminate: [{ name: 'c', owner: 'etcd' }],
  },
  { preDrain: ['x', { name: 'd', owner: 5 }, { name: 'e' }, { owner: 'etcd' }, null, { name: 'f', owner: 'etcd' }] },
  {},
];
const listMachine = (hooks: unknown) => ({ metadata: { name: 'm' }, spec: { lifecycleHooks: hooks } });
const ANNOTATIONS: readonly Record<string, unknown>[] = [
  {
    'pre-drain.delete.hook.machine.cluster.x-k8s.io/a': 'etcd',
    'pre-drain.delete.hook.machine.cluster.x-k8s.io/b': null,
    'pre-drain.delete.hook.machine.cluster.x-k8s.io': 'team',
    'pre-terminate.delete.hook.machine.cluster.x-k8s.io/c': 'etcd',
    other: 'etcd',
  },
  { 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/d': '' },
  {},
];
const capiMachine = (annotations: Record<string, unknown>) => ({ metadata: { name: 'm', annotations } });
const requestsOf = (objects: readonly Record<string, unknown>[]): Request[] =>
  objects.flatMap((object, k) => [
    { object, oldObject: null, operation: 'CREATE' as const },
    { object, oldObject: objects[(k + 1) % objects.length] as Record<string, unknown>, operation: 'UPDATE' as const },
  ]);

describe("a stage's entries, malformed ones included: counted alike in JavaScript and in CEL", () => {
  for (const [carrier, objects] of [
    [MACHINE, LIST_STAGES.map(listMachine)],
    [CAPI_MACHINE, ANNOTATIONS.map(capiMachine)],
  ] as const) {
    for (const s of celCarrier(carrier).stages) {
      const [now, stored] = [stageEntries(carrier, s, false), stageEntries(carrier, s, true)];
      // The empty owner names nobody, even when a caller lists it.
      const named = (list: typeof now) => count(filter(list, 'h', (e) => entryOwnerIn(carrier, e, ['etcd', ''])));
      agreeOnCarrier(
        `${carrier.id} ${s.stage}: every entry now and stored (none on CREATE), those of named owners, the rest`,
        carrier,
        [count(now), count(stored), named(now), named(stored), minus(count(now), named(now))],
        requestsOf(objects),
      );
    }
  }
});

describe("a stage's index by identity, and the identities a name may have: the same in JavaScript and in CEL", () => {
  // Well-formed hooks only: a list naming one hook twice fails CEL's index (a declared divergence), and the CRDs
  // refuse malformed entries.
  const bare = 'pre-drain.delete.hook.machine.cluster.x-k8s.io';
  for (const [carrier, objects] of [
    [MACHINE, [LIST_STAGES[0], { preDrain: [{ name: 'c', owner: 'team' }] }, {}].map(listMachine)],
    [CAPI_MACHINE, ANNOTATIONS.map(capiMachine)],
  ] as const) {
    const stages = celCarrier(carrier).stages.map((s) => stageView(carrier, s));
    const names = listOf(...['a', 'b', 'c', 'x', bare, `${bare}/a`].map(str));
    const exprs = stages.flatMap((s) =>
      [s.index, s.oldIndex].map((index) => map(names, 'n', (n) => cond(hasKey(index, n), lookup(index, n), str('-')))),
    );
    // Each name's identities in the other stage, found or not in its index.
    const [drain, term] = stages as [StageView, StageView];
    const paired = map(names, 'n', (n) =>
      map(drain.named(n), 'c', (c) => cond(hasKey(drain.index, c), lookup(drain.index, c), concat(str('none:'), c))),
    );
    agreeOnCarrier(
      `${carrier.id}: index, oldIndex (none on CREATE), named`,
      carrier,
      [...exprs, paired, map(names, 'n', (n) => count(term.named(n)))],
      requestsOf(objects),
    );
  }
});
