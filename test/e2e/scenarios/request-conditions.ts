// Which requests the API server sends hookkeeper (src/core/cel/webhook-conditions.ts, as webhook-config/base registers
// them): hookkeeper's own request counter on /metrics shows that a label update and a worker CREATE without hooks
// never reach it, and that a hook removal, a CREATE carrying a hook and a control-plane CREATE do.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../../testing/control-plane/machines.js';
import type { Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { hooksOf, removeHook } from './helpers.js';

/** hookkeeper_admission_requests_total summed over kinds and decisions, for one webhook and operation. */
async function requests(hookkeeper: Hookkeeper, webhook: 'validate' | 'mutate', operation: string): Promise<number> {
  const res = await rawRequest({ url: `${hookkeeper.url}/metrics`, ca: hookkeeper.caPem });
  assert.equal(res.status, 200, res.body);
  let total = 0;
  for (const line of res.body.split('\n'))
    if (
      line.startsWith('hookkeeper_admission_requests_total{') &&
      line.includes(`webhook="${webhook}"`) &&
      line.includes(`operation="${operation}"`)
    )
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

export const requestConditionScenarios: Scenario = (env) => {
  describe('requests the API server does not send hookkeeper', () => {
    test('a label update of a control-plane Machine reaches neither webhook; its hook removal reaches /validate', async () => {
      const e = env();
      const machines = e.machines('machineApi');
      const { object } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'conditions-cp-0', role: 'master' }),
      );
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK]);
      const before = {
        validate: await requests(e.hookkeeper, 'validate', 'UPDATE'),
        mutate: await requests(e.hookkeeper, 'mutate', 'UPDATE'),
      };
      const labelled = await e
        .machines('alice')
        .patch(MACHINE_NAMESPACE, 'conditions-cp-0', [{ op: 'add', path: '/metadata/labels/team', value: 'infra' }]);
      assert.deepEqual(labelled.warnings, []);
      assert.deepEqual(
        {
          validate: await requests(e.hookkeeper, 'validate', 'UPDATE'),
          mutate: await requests(e.hookkeeper, 'mutate', 'UPDATE'),
        },
        before,
      );
      // The counter moves when the API server does call: the etcd operator removes its hook.
      const operator = e.machines('etcdOperator');
      const removed = await operator.patch(
        MACHINE_NAMESPACE,
        'conditions-cp-0',
        removeHook(labelled.object, 'preDrain', ETCD_HOOK.name),
      );
      assert.deepEqual(hooksOf(removed.object, 'preDrain'), []);
      assert.equal(await requests(e.hookkeeper, 'validate', 'UPDATE'), before.validate + 1);
      assert.equal(await requests(e.hookkeeper, 'mutate', 'UPDATE'), before.mutate);
    });

    test("a worker Machine's CREATE without hooks reaches neither webhook; one with a hook reaches /validate, a control-plane Machine's both", async () => {
      const e = env();
      const machines = e.machines('machineApi');
      const count = async (): Promise<{ validate: number; mutate: number }> => ({
        validate: await requests(e.hookkeeper, 'validate', 'CREATE'),
        mutate: await requests(e.hookkeeper, 'mutate', 'CREATE'),
      });
      const before = await count();
      const { object: worker } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'conditions-worker-0', role: 'worker' }),
      );
      assert.deepEqual(hooksOf(worker, 'preDrain'), []);
      assert.deepEqual(await count(), before);
      // A hook is what the validating rules read of a CREATE: this one is sent, and judged (a reserved name).
      const refused = await rejected(() =>
        machines.create(
          MACHINE_NAMESPACE,
          openshiftMachine({
            name: 'conditions-worker-1',
            role: 'worker',
            preDrain: [{ name: ETCD_HOOK.name, owner: 'someone/else' }],
          }),
        ),
      );
      assert.match(refused.message, /reserved for owner/);
      assert.deepEqual(await count(), { ...before, validate: before.validate + 1 });
      const { object: master } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'conditions-cp-1', role: 'master' }),
      );
      assert.deepEqual(hooksOf(master, 'preDrain'), [ETCD_HOOK]);
      assert.deepEqual(await count(), { validate: before.validate + 2, mutate: before.mutate + 1 });
    });
  });
};
