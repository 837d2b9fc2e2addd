// The identities the API server hands the webhook, and RBAC answering before admission does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AuthenticationV1Api } from '@kubernetes/client-node';
import { MACHINE_NAMESPACE, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { IDENTITY_NAMES } from '../../../testing/control-plane/identities.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';

export const identityScenarios: Scenario = (env) => {
  describe('identities', () => {
    test('each static token authenticates as the user and groups hookkeeper will see in userInfo', async () => {
      const { plane } = env();
      for (const name of IDENTITY_NAMES) {
        const review = await plane
          .kubeConfig(name)
          .makeApiClient(AuthenticationV1Api)
          .createSelfSubjectReview({ body: {} });
        const id = plane.identities[name];
        assert.equal(review.status?.userInfo?.username, id.username, name);
        assert.deepEqual(review.status?.userInfo?.groups, [...id.groups, 'system:authenticated'], name);
      }
    });

    test('RBAC refuses alice a create before any webhook is asked', async () => {
      const refusal = await rejected(() =>
        env()
          .machines('alice')
          .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'alice-may-not-create' })),
      );
      assert.equal(refusal.by, 'rbac', refusal.message);
      assert.equal(refusal.code, 403);
    });
  });
};
