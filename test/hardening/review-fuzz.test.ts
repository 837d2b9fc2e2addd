// Hostile AdmissionReviews through parseAdmissionReview + handle, as the webhook runs them: arbitrary JSON, the
// wrong type in every field, deep nesting, huge strings, prototype-sensitive keys. Never a throw, never an allow
// of what the policy denies, and the request's uid in every answer when it can be read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { handle, type Handling } from '../../src/admission/handle.js';
import { parseAdmissionReview } from '../../src/admission/parse.js';
import { toAdmissionReview } from '../../src/admission/response.js';
import { MAX_UID_LENGTH } from '../../src/admission/schema.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { ETCD } from '../fixtures/openshift.js';
import { createMasterReview, removeEtcdHookReview, statusUpdateReview } from '../fixtures/hardening-machine.js';
import {
  allPaths,
  applyEdits,
  DECISIVE,
  deepFreeze,
  hostileJson,
  nested,
  nestedText,
  objectPaths,
  prototypeKey,
  unrelatedEdits,
  valueAt,
  viaWire,
  withValueAt,
  WRONG_TYPES,
  type Json,
  type Path,
} from '../helpers/hardening-json.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';
import { applyPatch, type Operation } from '../helpers/json-patch.js';

const WEBHOOKS: readonly Handling[] = ['validate', 'mutate', 'mutate-then-validate'];

interface Answer {
  /** 400 for a body that is not a usable review, else 200 with the decision inside. */
  status: 200 | 400;
  uid?: string;
  allowed?: boolean;
  patch?: string;
}

/** What the webhook answers for one body: the same steps as src/transports/server/admission-request.ts and review.ts after JSON.parse. */
function answer(webhook: Handling, body: unknown): Answer {
  // Frozen: reviewing must never write into the request (mutation writes only into its own copy).
  const parsed = parseAdmissionReview(deepFreeze(body));
  if (!parsed.ok) return { status: 400, ...(parsed.uid ? { uid: parsed.uid } : {}) };
  const out = toAdmissionReview(parsed.review.uid, handle(webhook, DEFAULT_POLICY, parsed.review.input).result);
  JSON.stringify(out); // the answer must serialise too
  return {
    status: 200,
    uid: out.response.uid,
    allowed: out.response.allowed,
    ...(out.response.patch ? { patch: out.response.patch } : {}),
  };
}

/** Whether the answer's patch, applied to the object sent, leaves the etcd hook in preDrain with its owner. */
function restoresEtcdHook(body: unknown, a: Answer): boolean {
  const patch = JSON.parse(Buffer.from(a.patch ?? '', 'base64').toString() || '[]') as Operation[];
  const object = applyPatch(valueAt(body, ['request', 'object']), patch);
  const hooks = valueAt(object, ['spec', 'lifecycleHooks', 'preDrain']);
  return Array.isArray(hooks) && hooks.some((h) => JSON.stringify(h) === JSON.stringify(ETCD));
}

/** The uid an answer must carry: request.uid when it is a non-empty string the API server could have sent. */
function readableUid(body: unknown): string | undefined {
  const uid = valueAt(body, ['request', 'uid']);
  return typeof uid === 'string' && uid !== '' && uid.length <= MAX_UID_LENGTH ? uid : undefined;
}

function checkAll(body: unknown): void {
  for (const webhook of WEBHOOKS) {
    const a = answer(webhook, body);
    const uid = readableUid(body);
    if (uid !== undefined) assert.equal(a.uid, uid, `${webhook}: uid not echoed`);
    // A longer one is refused and never echoed: answers stay bounded.
    else if (typeof valueAt(body, ['request', 'uid']) === 'string')
      assert.equal(a.uid, undefined, `${webhook}: an over-long uid echoed`);
  }
}

const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
function assertPrototypeClean(): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore);
  assert.equal(({} as Record<string, unknown>)['username'], undefined);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
}

const REALISTIC = [statusUpdateReview(), removeEtcdHookReview(), createMasterReview()].map(viaWire);

describe('hostile AdmissionReviews, in process', { timeout: HANG_GUARD_MS }, () => {
  test('arbitrary JSON bodies never throw', () => {
    fc.assert(
      fc.property(hostileJson, (body) => {
        checkAll(viaWire(body));
      }),
      { numRuns: 400 },
    );
    assertPrototypeClean();
  });

  test('every field of realistic reviews, set to every wrong type: no throw, uid echoed when readable', () => {
    for (const review of REALISTIC) {
      for (const path of allPaths(review)) {
        for (const value of [...WRONG_TYPES, undefined]) checkAll(withValueAt(review, path, value));
      }
    }
    assertPrototypeClean();
  });

  test('arbitrary values at arbitrary paths, several at once', () => {
    const review = REALISTIC[1] as Json;
    const paths = allPaths(review);
    const edit = fc.tuple(fc.integer({ min: 0, max: paths.length - 1 }), fc.option(hostileJson, { nil: undefined }));
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        let body: unknown = review;
        for (const [i, value] of edits) body = withValueAt(body, paths[i] as Path, value);
        checkAll(body);
      }),
      { numRuns: 300 },
    );
    assertPrototypeClean();
  });

  test('prototype-sensitive keys added to any object in the review', () => {
    const review = REALISTIC[1] as Json;
    const targets = objectPaths(review);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: targets.length - 1 }), prototypeKey, hostileJson, (i, key, value) => {
        checkAll(withValueAt(review, [...(targets[i] as Path), key], value));
      }),
      { numRuns: 400 },
    );
    assertPrototypeClean();
  });

  test('nesting up to 1,000 levels anywhere, and as deep as the API server allows (10,000) for validation', () => {
    const review = REALISTIC[0] as Json;
    const paths = allPaths(review).filter((p) => p[1] === 'object');
    for (const kind of ['array', 'object'] as const) {
      for (const path of paths.filter((_, i) => i % 7 === 0)) checkAll(withValueAt(review, path, nested(1_000, kind)));
      // The Go JSON decoder in kube-apiserver refuses more than 10,000 levels, and only fields the CRD schema leaves
      // open (providerSpec) can nest; validation reads fixed paths only. Built as text: JSON.stringify cannot go this deep.
      const text = JSON.stringify(review).replace(
        '"ami":{"id":"ami-0c5d3e3a9b1f2e4d6"}',
        `"ami":${nestedText(10_000, kind)}`,
      );
      const deep: unknown = JSON.parse(text);
      const a = answer('validate', deep);
      assert.equal(a.status, 200);
      assert.equal(a.uid, readableUid(deep));
    }
  });
});

describe('what the policy denies stays denied, whatever else changes', { timeout: HANG_GUARD_MS }, () => {
  test('an ordinary user removing the etcd hook is denied by /validate (and by the combined review)', () => {
    const review = REALISTIC[1] as Json;
    fc.assert(
      fc.property(unrelatedEdits(review, DECISIVE), (edits) => {
        const body = applyEdits(review, edits);
        const uid = readableUid(body);
        for (const webhook of ['validate', 'mutate-then-validate'] as const) {
          const a = answer(webhook, body);
          // Only envelope fields (request.name, options, ...) of the wrong type can make it a 400: never an allow either way.
          // The combined review may allow it only with a patch that puts the hook back: a stored object that does not
          // read as a control-plane Machine (its labels gone) makes this UPDATE the one that selects it, which gets
          // the default hook.
          if (
            a.status === 200 &&
            !(webhook === 'mutate-then-validate' && a.allowed === true && restoresEtcdHook(body, a))
          )
            assert.equal(a.allowed, false, `${webhook} allowed it after ${JSON.stringify(edits).slice(0, 300)}`);
          assert.equal(a.uid, uid);
        }
      }),
      { numRuns: 400 },
    );
    assertPrototypeClean();
  });

  test('identities smuggled through prototype keys do not count: still denied', () => {
    const review = REALISTIC[1] as Json;
    const owner = {
      username: 'system:serviceaccount:openshift-etcd-operator:etcd-operator',
      groups: ['system:masters'],
    };
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const body = JSON.parse(
        JSON.stringify(review).replace('"userInfo":{', `"userInfo":{${JSON.stringify(key)}:${JSON.stringify(owner)},`),
      ) as unknown;
      assert.ok(Object.hasOwn(valueAt(body, ['request', 'userInfo']) as object, key));
      assert.equal(answer('validate', body).allowed, false, key);
      const noName = withValueAt(body, ['request', 'userInfo', 'username'], undefined);
      assert.equal(answer('validate', noName).allowed, false, `${key} without username`);
    }
    assertPrototypeClean();
  });

  test('a control-plane Machine CREATE always gets the etcd hook from /mutate', () => {
    const review = REALISTIC[2] as Json;
    const decisive: Path[] = [
      ...DECISIVE,
      ['request', 'namespace'],
      ['request', 'object', 'metadata', 'labels', 'machine.openshift.io/cluster-api-machine-role'],
    ];
    fc.assert(
      fc.property(unrelatedEdits(review, decisive), (edits) => {
        const a = answer('mutate', applyEdits(review, edits));
        if (a.status !== 200) return;
        assert.equal(a.allowed, true);
        const patch = JSON.parse(Buffer.from(a.patch ?? '', 'base64').toString() || '[]') as Array<{ value?: unknown }>;
        assert.ok(
          JSON.stringify(patch).includes(JSON.stringify(ETCD.name)),
          `no etcd hook after ${JSON.stringify(edits).slice(0, 300)}`,
        );
      }),
      { numRuns: 300 },
    );
  });
});
