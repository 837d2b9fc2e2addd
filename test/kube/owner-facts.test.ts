// The webhook's owner facts for one review: which owners the index protects in the object's namespace (asked ones
// and the object's hooks' owners), and SubjectAccessReview answers for the asked ones only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAdmissionReview } from '../../src/admission/parse.js';
import type { ReviewInput } from '../../src/core/types.js';
import {
  createAccessReviewer,
  type SarAnswer,
  type AccessSubject,
} from '../../src/infrastructure/kube/subject-access-review.js';
import { ownerFactsGatherer } from '../../src/infrastructure/kube/owner-facts.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { admissionReview } from '../fixtures/openshift.js';

const machine = (namespace: string, hooks: Array<{ name: string; owner: unknown }>) => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'm', namespace },
  spec: { lifecycleHooks: { preDrain: hooks } },
});

function input(o: Partial<ReviewInput> = {}): ReviewInput {
  return {
    operation: 'UPDATE',
    kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
    namespace: 'ns1',
    name: 'm',
    object: machine('ns1', [{ name: 'a/Keep', owner: 'team/keep' }]),
    oldObject: machine('ns1', [
      { name: 'a/Keep', owner: 'team/keep' },
      { name: 'a/Detach', owner: 'team/storage' },
      { name: 'a/Bad', owner: 42 },
      { name: 'a/Anon', owner: '' },
    ]),
    userInfo: { username: 'bob', uid: 'u-bob', groups: ['system:authenticated'] },
    dryRun: false,
    ...o,
  };
}

/** Protected: team/storage in ns1 only, team/keep everywhere, team/unasked everywhere. */
const PROTECTED: Record<string, (ns: string | undefined) => boolean> = {
  'team/storage': (ns) => ns === 'ns1',
  'team/keep': () => true,
  'team/unasked': () => true,
  '': () => true,
};

function setup(asked: readonly string[], answers: Record<string, SarAnswer> = {}, ready = true) {
  const calls: Array<{ subject: AccessSubject; owners: readonly string[]; namespace: string | undefined }> = [];
  const indexAsked: Array<[string, string | undefined]> = [];
  const gather = ownerFactsGatherer({
    index: {
      protectedIn: (owner, ns) => {
        indexAsked.push([owner, ns]);
        return PROTECTED[owner]?.(ns) ?? false;
      },
      ready: () => ready,
    },
    reviewer: {
      review: (subject, owners, namespace) => {
        calls.push({ subject, owners, namespace });
        return Promise.resolve(Object.fromEntries(owners.map((o) => [o, answers[o] ?? 'denied'])));
      },
    },
    ownersToCheck: () => asked,
  });
  return { gather, calls, indexAsked };
}

describe('owner facts for a review', () => {
  test("granted: the asked owners and the hooks' owners (old and new) protected in the namespace; access for the asked", async () => {
    const { gather, calls } = setup(['team/storage', 'team/nobody', 'team/storage'], { 'team/storage': 'allowed' });
    const facts = await gather(input());
    assert.deepEqual([...facts.granted].sort(), ['team/keep', 'team/storage']);
    assert.deepEqual(facts.access, { 'team/storage': 'allowed', 'team/nobody': 'denied' });
    assert.equal(facts.grantsKnown, true);
    assert.deepEqual(calls, [
      {
        subject: { user: 'bob', groups: ['system:authenticated'], uid: 'u-bob' },
        owners: ['team/storage', 'team/nobody'],
        namespace: 'ns1',
      },
    ]);
  });

  test('nothing asked: no SubjectAccessReview, and the facts come without a promise', () => {
    const { gather, calls } = setup([]);
    const facts = gather(input());
    assert.ok(!(facts instanceof Promise));
    assert.deepEqual([...facts.granted].sort(), ['team/keep', 'team/storage']);
    assert.deepEqual(facts.access, {});
    assert.equal(calls.length, 0);
  });

  test('the namespace comes from the object when the request has none; another namespace, other grants', async () => {
    const { gather, calls, indexAsked } = setup(['team/storage']);
    const facts = await gather(
      input({
        namespace: undefined,
        object: machine('ns2', []),
        oldObject: machine('ns2', [{ name: 'a/Detach', owner: 'team/storage' }]),
      }),
    );
    assert.deepEqual([...facts.granted], []);
    assert.equal(calls[0]?.namespace, 'ns2');
    assert.deepEqual(indexAsked, [['team/storage', 'ns2']]);
  });

  test('a kind that carries no hooks: only the asked owners are looked at; the empty owner is never granted', async () => {
    const { gather } = setup(['team/keep', '']);
    const facts = await gather(
      input({ kind: { group: '', version: 'v1', kind: 'Pod' }, object: { metadata: { namespace: 'ns1' } } }),
    );
    assert.deepEqual([...facts.granted], ['team/keep']);
  });

  test('an index that has not listed everything yet says so: a missing owner may still be protected', async () => {
    const { gather } = setup(['team/storage'], {}, false);
    const facts = await gather(input());
    assert.equal(facts.grantsKnown, false);
    const quiet = setup([], {}, false).gather(input());
    assert.ok(!(quiet instanceof Promise));
    assert.equal(quiet.grantsKnown, false);
  });

  test("the SubjectAccessReview sent carries the AdmissionReview's userInfo as the API server sent it", async () => {
    // What the API server's own authorizer would be given for this requester: user, groups, uid and extra. A scoped
    // token (OpenShift puts its scopes in extra) must be asked about as scoped, never as its user's full grants.
    // As JSON text: `__proto__` must be an own key, as JSON.parse makes it (an object literal would set a prototype).
    const extraJson =
      '{"scopes.authorization.openshift.io":["user:info","user:check-access"],' +
      '"authentication.kubernetes.io/credential-id":["JTI=1234"],"__proto__":["an own key"]}';
    const user = {
      username: 'bob',
      uid: 'u-bob',
      groups: ['dev', 'system:authenticated'],
      extra: JSON.parse(extraJson),
    };
    const body = JSON.parse(
      JSON.stringify(
        admissionReview({
          operation: 'UPDATE',
          object: machine('ns1', []),
          oldObject: machine('ns1', [{ name: 'a/Detach', owner: 'team/storage' }]),
          user,
        }),
      ),
    ) as unknown;
    const parsed = parseAdmissionReview(body);
    assert.ok(parsed.ok);
    const sent: unknown[] = [];
    const reviewer = createAccessReviewer({
      logger: silentLogger(),
      post: (_path, sar) => {
        sent.push(JSON.parse(JSON.stringify(sar)));
        return Promise.resolve({ status: 201, body: { status: { allowed: false } } });
      },
    });
    const gather = ownerFactsGatherer({
      index: { protectedIn: () => true, ready: () => true },
      reviewer,
      ownersToCheck: () => ['team/storage'],
    });
    assert.deepEqual((await gather(parsed.review.input)).access, { 'team/storage': 'denied' });
    assert.deepEqual(sent, [
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'bob',
          groups: ['dev', 'system:authenticated'],
          uid: 'u-bob',
          extra: JSON.parse(extraJson),
          resourceAttributes: {
            group: 'hookkeeper.io',
            resource: 'hookowners',
            verb: 'remove',
            name: 'team/storage',
            namespace: 'ns1',
          },
        },
      },
    ]);
  });
});
