// Which namespaces are guarded (issue 29): the webhooks leave open only the namespace hookkeeper runs in (the suite
// registers them as if it ran in kube-system), and the native policies none; so a Machine in a namespace named
// hookkeeper, which every install used to leave open, is guarded in every mode.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { ETCD_HOOK, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf, removeHook } from './helpers.js';
import { ALICE_REMOVAL_DENIAL } from './owner-only-removal.js';

const NAMESPACE = 'hookkeeper';

export const namespaceScenarios: Scenario = (env) => {
  describe('guarded namespaces', () => {
    before(async () => {
      const plane = env().plane;
      const found = await rawRequest({
        url: `${plane.server}/api/v1/namespaces/${NAMESPACE}`,
        ca: plane.caPem,
        token: plane.identities.admin.token,
      });
      if (found.status === 404)
        await plane
          .kubeConfig('admin')
          .makeApiClient(CoreV1Api)
          .createNamespace({ body: { metadata: { name: NAMESPACE } } });
    });

    test('in namespace hookkeeper, alice removing the etcd hook is denied, and the hook stays', async () => {
      const e = env();
      const name = 'guarded-in-hookkeeper';
      await e
        .machines('machineApi')
        .create(NAMESPACE, openshiftMachine({ name, namespace: NAMESPACE, role: 'master', preDrain: [ETCD_HOOK] }));
      const alice = e.machines('alice');
      const current = await alice.get(NAMESPACE, name);
      const refusal = await rejected(() =>
        alice.patch(NAMESPACE, name, removeHook(current, 'preDrain', ETCD_HOOK.name)),
      );
      assertOurDenial(e, refusal, [ALICE_REMOVAL_DENIAL]);
      assert.deepEqual(hooksOf(await alice.get(NAMESPACE, name), 'preDrain'), [ETCD_HOOK]);
    });
  });
};
