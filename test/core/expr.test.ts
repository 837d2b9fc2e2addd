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
  lowerAscii,
  matches,
  not,
  or,
  say,
  size,
  startsWith,
  str,
  variable,
  type Env,
  type Expr,
} from '../../src/core/expr/expr.js';
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
  listOf,
  map,
} from '../../src/core/expr/lists.js';
import { operationIs, STORED } from '../../src/core/expr/request.js';
import { HOOK_NAME_PATTERN } from '../../src/core/hook-name.js';
import type { ReviewInput } from '../../src/core/types.js';
import { unconvertibleMessage } from '../../src/core/rules/capi-migration/messages.js';
// The rule's own composition of the list builders: the most a request's metadata asks of them.
import { controllersOf } from '../../src/core/rules/owner-references/rule.js';
import { admissionEnvironment, defineVariables, prepare, Variables } from '../native/evaluator/cel.js';
import { CARRIERS, type HookCarrier } from '../../src/core/carriers.js';
import { celCarrier } from '../../src/core/cel/carrier.js';
import { entryOwnerIn, stageEntries } from '../../src/core/expr/entries.js';
import { hasKey, lookup, stringMap } from '../../src/core/expr/maps.js';
import { stageView, type StageView } from '../../src/core/expr/hooks.js';
import { HookEnv } from '../../src/core/expr/hooks.js';
import { fromCel, toCel } from '../native/evaluator/values.js';

interface TestEnv extends Env {
  object: Record<string, string>;
}
/** A string field of the request's object: the test's one leaf. */
const field = (name: string): Expr<string> =>
  leaf(cel`object.${celIdentifier(name)}`, (env) => (env as TestEnv).object[name] as string);

const celEnv = admissionEnvironment(new Map());
const SAMPLES = ['', 'abc', 'ABC-Äé', 'a/b', 'example.com/Hook', '😀x', 'H'.repeat(64), 'say "hi"\n\\', 'Zz-9_.'];

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
  agree('concat, cond', (s, t) => cond(contains(t, '/'), concat(s, str(' & '), t), concat(str('['), s, str(']'))));
  agree('comparisons', (s, t) => or(eq(s, t), and(le(size(s), int(3)), ge(size(t), int(1)))));
  agree("say: a message's words with its slots, quoting as strings.quote does", (s, t) =>
    say(unconvertibleMessage, { path: str('spec.x'), name: s, key: concat(str('p/'), t), errors: lowerAscii(s) }),
  );
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
