// A deleting Machine that still carries a hook ends its deletion only through its controller: a Machine editor's
// `kubectl patch --type merge -p '{"metadata":{"finalizers":null}}'` is refused; the controller's identity and
// break-glass (warned) are let through, and a hook-less deleting Machine still finishes for anyone.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import {
  capiMachine,
  ETCD_HOOK,
  MACHINE_FINALIZER,
  MACHINE_NAMESPACE,
  openshiftMachine,
} from '../../../testing/control-plane/machines.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { rejected, warningTexts, type ResourceClient } from '../../../testing/control-plane/kube.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { assertOurDenial, metadataOf } from './helpers.js';
import { CAPI_CONTROLLERS, held, MAPI_CONTROLLER } from '../../fixtures/controller-finalizer.js';

const CAPI_NAMESPACE = 'capi-e2e';
const CAPI_FINALIZER = 'machine.cluster.x-k8s.io';
const PRE_TERMINATE = `pre-terminate.delete.hook.machine.cluster.x-k8s.io/${ETCD_HOOK.name}`;
const FINISH = { metadata: { finalizers: null } };

async function gone(machines: ResourceClient, namespace: string, name: string): Promise<void> {
  await pollUntil(`${name} to be gone`, 10_000, async () =>
    (await machines.exists(namespace, name)) ? undefined : true,
  );
}

/** Created with the controller's finalizer, then deleted: it stays, deleting, until the finalizer goes. */
async function deleting(e: E2EEnv, kind: 'openshift' | 'capi', name: string, hooks: boolean): Promise<void> {
  if (kind === 'openshift') {
    const machines = e.machines('machineApi');
    // A master gets the etcd hook (default-hooks); a worker none.
    await machines.create(
      MACHINE_NAMESPACE,
      openshiftMachine({ name, role: hooks ? 'master' : 'worker', finalizers: [MACHINE_FINALIZER] }),
    );
    await machines.delete(MACHINE_NAMESPACE, name);
    return;
  }
  const machines = e.capiMachines('capiManager');
  const body = capiMachine({
    name,
    namespace: CAPI_NAMESPACE,
    ...(hooks ? { annotations: { [PRE_TERMINATE]: ETCD_HOOK.owner } } : {}),
    finalizers: [CAPI_FINALIZER],
  });
  await machines.create(CAPI_NAMESPACE, body);
  await machines.delete(CAPI_NAMESPACE, name);
}

export const controllerFinalizerScenarios: Scenario = (env) => {
  describe("a hook-carrying Machine's finalizers are its controller's", () => {
    before(async () => {
      await env()
        .plane.kubeConfig('admin')
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: CAPI_NAMESPACE } } })
        .catch((err: unknown) => {
          if (!(err instanceof ApiException && err.code === 409)) throw err;
        });
      for (const name of ['fin-held', 'fin-controller', 'fin-glass']) await deleting(env(), 'openshift', name, true);
      await deleting(env(), 'openshift', 'fin-hookless', false);
      for (const name of ['capi-fin-held', 'capi-fin-controller']) await deleting(env(), 'capi', name, true);
    });

    test("a Machine editor's merge patch finalizers: null on a deleting Machine carrying the etcd hook is refused", async () => {
      const machines = env().machines('alice');
      const refusal = await rejected(() => machines.mergePatch(MACHINE_NAMESPACE, 'fin-held', FINISH));
      assertOurDenial(env(), refusal, [held('alice', MACHINE_FINALIZER, MAPI_CONTROLLER)]);
      assert.deepEqual(metadataOf(await machines.get(MACHINE_NAMESPACE, 'fin-held'))['finalizers'], [
        MACHINE_FINALIZER,
      ]);
    });

    test("so is a Cluster API Machine editor's, on a deleting Machine carrying a pre-terminate hook", async () => {
      const machines = env().capiMachines('alice');
      const refusal = await rejected(() => machines.mergePatch(CAPI_NAMESPACE, 'capi-fin-held', FINISH));
      assertOurDenial(env(), refusal, [held('alice', CAPI_FINALIZER, CAPI_CONTROLLERS)]);
      assert.deepEqual(metadataOf(await machines.get(CAPI_NAMESPACE, 'capi-fin-held'))['finalizers'], [CAPI_FINALIZER]);
    });

    test("each controller's identity ends its Machine's deletion, unwarned", async () => {
      const mapi = env().machines('machineApi');
      assert.deepEqual((await mapi.mergePatch(MACHINE_NAMESPACE, 'fin-controller', FINISH)).warnings, []);
      await gone(mapi, MACHINE_NAMESPACE, 'fin-controller');
      const capi = env().capiMachines('capiManager');
      assert.deepEqual((await capi.mergePatch(CAPI_NAMESPACE, 'capi-fin-controller', FINISH)).warnings, []);
      await gone(capi, CAPI_NAMESPACE, 'capi-fin-controller');
    });

    test('break-glass ends it with a warning', async () => {
      const machines = env().machines('admin');
      const { warnings } = await machines.mergePatch(MACHINE_NAMESPACE, 'fin-glass', FINISH);
      assert.deepEqual(warningTexts(warnings), [
        `break-glass: ${env().plane.identities.admin.username} may remove the finalizers of a machine carrying lifecycle hooks; audited`,
      ]);
      await gone(machines, MACHINE_NAMESPACE, 'fin-glass');
    });

    test("a hook-less deleting Machine's last finalizer goes for anyone", async () => {
      const machines = env().machines('alice');
      assert.deepEqual((await machines.mergePatch(MACHINE_NAMESPACE, 'fin-hookless', FINISH)).warnings, []);
      await gone(machines, MACHINE_NAMESPACE, 'fin-hookless');
    });
  });
};
