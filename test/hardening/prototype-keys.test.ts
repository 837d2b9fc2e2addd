// Prototype-safe lookups: a label, annotation, hook name or owner called "__proto__", "constructor", "prototype" or
// "toString" is an ordinary key. Every lookup of a key from the request or the policy reads own properties only, so
// what Object.prototype holds never stands in for a missing label, a parent's name or a registered owner.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parentRequests } from '../../src/core/children.js';
import { evaluate, mutate } from '../../src/core/engine.js';
import type { ChildRule, ParentNameSource, Policy } from '../../src/core/policy.js';
import type { Decision, KubeObject, ParentFact, ReviewInput } from '../../src/core/types.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { CHILD_USERS, childInput, FOUND, launcherPod, VM_KEY, VM_POLICY, VM_UID } from '../fixtures/children.js';
import { reviewInput } from '../fixtures/input.js';
import { machine, USERS } from '../fixtures/openshift.js';
import { PROTOTYPE_KEYS } from '../helpers/hardening-json.js';

const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'] as const;
assert.ok(KEYS.every((k) => (PROTOTYPE_KEYS as readonly string[]).includes(k)));

/** An object parsed from JSON text, as a request body is: "__proto__" becomes an own key. */
const fromJson = (entries: ReadonlyArray<readonly [string, string]>): Record<string, string> =>
  JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Record<
    string,
    string
  >;

const objectName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
/** Some of the prototype keys, each with a value, as a label or annotation map. */
const protoMap = fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), objectName), {
  selector: ([k]) => k,
  maxLength: KEYS.length,
});

const childRule = VM_POLICY.children[0] as ChildRule;
function childPolicy(nameFrom: ParentNameSource): Policy {
  return {
    ...VM_POLICY,
    children: [
      { ...childRule, match: { kinds: [{ group: '', kind: 'Pod' }] }, parent: { ...childRule.parent, nameFrom } },
    ],
  };
}

function pod(labels: Record<string, string>, annotations: Record<string, string>): KubeObject {
  const p = launcherPod({ name: 'virt-launcher-x' });
  const meta = p['metadata'] as Record<string, unknown>;
  meta['labels'] = labels;
  meta['annotations'] = annotations;
  return p;
}

const own = (map: Record<string, string>, key: string): string | undefined =>
  Object.hasOwn(map, key) && map[key] !== '' ? map[key] : undefined;

describe("child rules read the parent's name from own labels and annotations only", () => {
  test('nameFrom a label or annotation named like a prototype property', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KEYS),
        fc.constantFrom('label', 'annotation'),
        protoMap,
        protoMap,
        (key, from, labelEntries, annotationEntries) => {
          const labels = fromJson(labelEntries);
          const annotations = fromJson(annotationEntries);
          const policy = childPolicy(from === 'label' ? { label: key } : { annotation: key });
          const input = childInput({ object: pod(labels, annotations) });
          const expected = own(from === 'label' ? labels : annotations, key);
          const requests = parentRequests(policy, input);
          assert.deepEqual(
            requests.map((r) => r.name),
            expected === undefined ? [] : [expected],
            `${from} ${key}`,
          );
          for (const r of requests) assert.equal(typeof r.name, 'string');
        },
      ),
      { numRuns: 300 },
    );
  });

  test('name templates with ${label:KEY} and ${annotation:KEY} placeholders', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KEYS),
        fc.constantFrom(...KEYS),
        protoMap,
        protoMap,
        (labelKey, annotationKey, labelEntries, annotationEntries) => {
          const labels = fromJson(labelEntries);
          const annotations = fromJson(annotationEntries);
          const policy = childPolicy({ template: `vm-\${label:${labelKey}}-\${annotation:${annotationKey}}` });
          const l = own(labels, labelKey);
          const a = own(annotations, annotationKey);
          const expected = l === undefined || a === undefined ? [] : [`vm-${l}-${a}`];
          assert.deepEqual(
            parentRequests(policy, childInput({ object: pod(labels, annotations) })).map((r) => r.name),
            expected,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test('parent facts count only as own entries of context.parents, never inherited ones', () => {
    const policy = childPolicy({ label: 'vm.kubevirt.io/name' });
    const object = pod(fromJson([['vm.kubevirt.io/name', 'testvm']]), {});
    const inherited = Object.create({ [VM_KEY]: FOUND(VM_UID) }) as Record<string, ParentFact>;
    const input = childInput({ object, parents: inherited });
    // As with no facts at all (offline): no reference added on the strength of an inherited fact.
    assert.deepEqual(mutate(policy, input).patch, mutate(policy, childInput({ object, parents: {} })).patch);
    assert.equal(mutate(policy, childInput({ object, parents: { [VM_KEY]: FOUND(VM_UID) } })).patch.length > 0, true);
  });
});

describe('label selectors read own labels only', () => {
  test('a default hook selected by a label named like a prototype property', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KEYS),
        fc.constantFrom('Exists', 'DoesNotExist', 'In'),
        protoMap,
        (key, operator, entries) => {
          const rule = DEFAULT_POLICY.defaultHooks[0]!;
          const policy: Policy = {
            ...DEFAULT_POLICY,
            defaultHooks: [
              {
                ...rule,
                match: {
                  ...rule.match,
                  labelSelector: {
                    matchExpressions: [{ key, operator, ...(operator === 'In' ? { values: ['a', 'b'] } : {}) }],
                  },
                },
              },
            ],
          };
          const object = machine();
          (object['metadata'] as Record<string, unknown>)['labels'] = fromJson(entries);
          const labels = fromJson(entries);
          const has = Object.hasOwn(labels, key);
          const expected =
            operator === 'Exists'
              ? has
              : operator === 'DoesNotExist'
                ? !has
                : has && ['a', 'b'].includes(labels[key as string] ?? '');
          const m = mutate(policy, reviewInput({ operation: 'CREATE', object, user: USERS.machineApi }));
          assert.equal(m.patch.length > 0, expected, `${operator} ${key} in ${JSON.stringify(entries)}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('hook names and owners named like prototype properties are ordinary names', () => {
  // Each key's stand-in has the same length and character classes, so naming checks judge both alike.
  const STAND_IN: Record<string, string> = {
    __proto__: '__zzzzz__',
    constructor: 'zonstructor',
    prototype: 'zrototype',
    toString: 'zoString',
    hasOwnProperty: 'zasOwnProperty',
    valueOf: 'zalueOf',
  };
  const rename = (s: string): string => (Object.hasOwn(STAND_IN, s) ? (STAND_IN[s] as string) : s);
  const word = fc.constantFrom(...KEYS, 'Plain', 'team/other');
  const hook = fc.record({ name: word, owner: word });
  const summary = (d: Decision) => ({
    allowed: d.allowed,
    denials: d.denials.map((v) => v.rule).sort(),
    warnings: d.warnings.map((v) => v.rule).sort(),
    notices: d.notices.length,
  });

  test('the decision is the one for the same request with every such name replaced by an ordinary stand-in', () => {
    fc.assert(
      fc.property(
        fc.array(hook, { maxLength: 5 }),
        fc.array(hook, { maxLength: 5 }),
        fc.array(hook, { maxLength: 3 }),
        fc.constantFrom(USERS.alice, USERS.admin, { username: 'constructor', uid: 'u', groups: ['toString'] }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(...KEYS),
        (before, after, terminate, user, strictOwners, deleting, registered) => {
          const build = (f: (s: string) => string): { policy: Policy; input: ReviewInput } => {
            const policy: Policy = {
              ...DEFAULT_POLICY,
              strictOwners,
              reservedHooks: [{ name: f('constructor'), owner: f('toString') }],
              owners: Object.fromEntries([[f(registered), { users: [f('valueOf')], groups: [], serviceAccounts: [] }]]),
            };
            const hooks = (list: typeof before) => list.map((h) => ({ name: f(h.name), owner: f(h.owner) }));
            const ts = deleting ? '2026-11-24T10:00:00Z' : undefined;
            const input = reviewInput({
              operation: 'UPDATE',
              object: machine({
                preDrain: hooks(after),
                preTerminate: hooks(terminate),
                ...(ts ? { deletionTimestamp: ts } : {}),
              }),
              oldObject: machine({
                preDrain: hooks(before),
                preTerminate: hooks(terminate),
                ...(ts ? { deletionTimestamp: ts } : {}),
              }),
              user: { ...user, username: f(user.username), groups: user.groups.map(f) },
            });
            return { policy, input };
          };
          const proto = build((s) => s);
          const plain = build(rename);
          assert.deepEqual(summary(evaluate(proto.policy, proto.input)), summary(evaluate(plain.policy, plain.input)));
          assert.equal(mutate(proto.policy, proto.input).patch.length, mutate(plain.policy, plain.input).patch.length);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('a finalizer removed by a user named like a prototype property is judged by own owner entries only', () => {
    const policy = VM_POLICY;
    for (const key of KEYS) {
      const stored = launcherPod({ name: 'p', finalizers: ['hookkeeper.io/virtualmachine-cleanup'], stored: true });
      const input = childInput({
        operation: 'UPDATE',
        object: launcherPod({ name: 'p', finalizers: [], stored: true }),
        oldObject: stored,
        user: { ...CHILD_USERS.alice, username: key, groups: [key] },
      });
      assert.equal(evaluate(policy, input).allowed, false, key);
    }
  });
});
