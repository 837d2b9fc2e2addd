// A default hook another mutating admission removes (issue 34, item 5): a cluster-admin's own MutatingAdmissionPolicy
// that strips spec.lifecycleHooks from new Machines must not get a control-plane Machine stored without its etcd
// hook. Where the strip mutates last (static mode; native mode when the API server runs it after hookkeeper's
// policy), default-hook-kept, a validation (run after every mutating plugin), refuses the CREATE; where hookkeeper
// mutates last (webhook and both: its webhook is reinvoked after every policy), the hook is there at validation. The
// policy lives only for this group and is gone (its absence seen) before the next group runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../../src/core/types.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { found, toRejection, type Rejection } from '../../../testing/control-plane/kube.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { webhookRuns } from '../harness/admission-modes.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf } from './helpers.js';

const STRIP = 'zz-e2e-strip-lifecycle-hooks';
/** Only Machines carrying this label are stripped, so no other group's Machine could meet the policy. */
const STRIP_LABEL = 'e2e.hookkeeper.io/strip-lifecycle-hooks';
const PROBE_HOOK = { name: 'example.com/StripProbe', owner: 'probe-team' };
const STRIPPED = `spec.lifecycleHooks.preDrain: Required value: default hook "${ETCD_HOOK.name}" owned by "${ETCD_HOOK.owner}" is missing at the end of mutating admission (policy rule "etcd-quorum-protection"); a mutating webhook or admission policy removed it`;

/** The cluster-admin's policy: on CREATE of a labelled Machine, remove spec.lifecycleHooks, after any reinvocation. */
function stripPolicy(apiVersion: string): KubeObject[] {
  return [
    {
      apiVersion,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: STRIP },
      spec: {
        failurePolicy: 'Fail',
        reinvocationPolicy: 'IfNeeded',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['machine.openshift.io'],
              apiVersions: ['*'],
              resources: ['machines'],
              operations: ['CREATE'],
            },
          ],
        },
        matchConditions: [
          {
            name: 'labelled',
            expression: `has(object.metadata.labels) && '${STRIP_LABEL}' in object.metadata.labels`,
          },
        ],
        mutations: [
          {
            patchType: 'JSONPatch',
            jsonPatch: {
              expression:
                "has(object.spec) && has(object.spec.lifecycleHooks) ? [JSONPatch{op: 'remove', path: '/spec/lifecycleHooks'}] : []",
            },
          },
        ],
      },
    },
    { apiVersion, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: STRIP }, spec: { policyName: STRIP } },
  ];
}

function labelled(machine: KubeObject): KubeObject {
  const meta = machine['metadata'] as { labels: Record<string, string> };
  meta.labels[STRIP_LABEL] = 'true';
  return machine;
}

async function admin(e: E2EEnv, method: string, path: string, body?: unknown): Promise<number> {
  const res = await rawRequest({
    url: `${e.plane.server}${path}`,
    method,
    ca: e.plane.caPem,
    token: e.plane.identities.admin.token,
    ...(body === undefined ? {} : { body }),
    timeoutMs: 30_000,
  });
  if (res.status >= 300 && res.status !== 404) throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body}`);
  return res.status;
}

/** Whether the strip policy is in force: a dry-run CREATE of a labelled worker with a hook comes back without it. */
async function strips(e: E2EEnv): Promise<boolean> {
  const probe = labelled(openshiftMachine({ name: 'strip-probe', role: 'worker', preDrain: [PROBE_HOOK] }));
  const { object } = await e.machines('admin').create(MACHINE_NAMESPACE, probe, { dryRun: true });
  return hooksOf(object, 'preDrain').length === 0;
}

export const strippedDefaultHookScenarios: Scenario = (env) => {
  describe('a default hook removed by another mutating admission policy', () => {
    let base = '';
    before(async () => {
      const e = env();
      const version = e.native.objects.find((o) => o['kind'] === 'MutatingAdmissionPolicy')?.['apiVersion'];
      assert.equal(typeof version, 'string', 'the native render has no MutatingAdmissionPolicy');
      base = `/apis/${String(version)}`;
      const [policy, binding] = stripPolicy(String(version));
      await admin(e, 'POST', `${base}/mutatingadmissionpolicies`, policy);
      await admin(e, 'POST', `${base}/mutatingadmissionpolicybindings`, binding);
      await pollUntil('the strip policy in force', 30_000, async () => ((await strips(e)) ? true : undefined));
    });

    after(async () => {
      const e = env();
      await admin(e, 'DELETE', `${base}/mutatingadmissionpolicybindings/${STRIP}`);
      await admin(e, 'DELETE', `${base}/mutatingadmissionpolicies/${STRIP}`);
      await pollUntil('the strip policy gone', 30_000, async () => ((await strips(e)) ? undefined : true));
    });

    test('a control-plane Machine whose etcd hook the policy strips is never stored without it', async () => {
      const e = env();
      const create = (dryRun: boolean) =>
        e
          .machines('machineApi')
          .create(MACHINE_NAMESPACE, labelled(openshiftMachine({ name: 'cp-stripped', role: 'master' })), { dryRun });
      // Whoever mutates last decides what validation sees. Webhook and both: hookkeeper's mutating webhook runs after
      // every admission policy and, reinvoked after the strip (IfNeeded), adds the hook again. Static: the strip, an
      // API object, runs after hookkeeper's static policy in each round. Native: both are API objects, in no order
      // the API server promises (seen either way). The promise holds either way: refused, or admitted with the hook.
      const refused = e.mode === 'static' ? true : webhookRuns(e.mode) ? false : undefined;
      // A dry run is admitted as the real request is.
      for (const dryRun of [true, false]) {
        let refusal: Rejection | undefined;
        let accepted: KubeObject | undefined;
        try {
          accepted = (await create(dryRun)).object;
        } catch (err) {
          refusal = toRejection(err);
        }
        const what = `${e.mode}, dry run: ${String(dryRun)}`;
        if (refused !== undefined) assert.equal(refusal !== undefined, refused, `${what}: ${refusal?.message}`);
        if (refusal) assertOurDenial(e, refusal, [STRIPPED]);
        else assert.deepEqual(hooksOf(accepted ?? {}, 'preDrain'), [ETCD_HOOK], `${what}: admitted without the hook`);
      }
      if (refused) assert.equal(await found(() => e.machines('admin').get(MACHINE_NAMESPACE, 'cp-stripped')), false);
    });

    test('a worker Machine the policy strips is stored as the policy leaves it', async () => {
      const e = env();
      const worker = labelled(openshiftMachine({ name: 'worker-stripped', role: 'worker', preDrain: [PROBE_HOOK] }));
      const { object } = await e.machines('machineApi').create(MACHINE_NAMESPACE, worker);
      assert.deepEqual(hooksOf(object, 'preDrain'), []);
    });

    test('a control-plane Machine the policy does not select is stored with the etcd hook, as always', async () => {
      const e = env();
      const { object } = await e
        .machines('machineApi')
        .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'cp-kept', role: 'master' }));
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK]);
    });
  });
};
