// The Cluster API profile (webhook-config/components/cluster-api/policy.yaml) through the real API server with the
// upstream Cluster API Machine CRD, in the webhook and native modes: KubeadmControlPlane's kcp-cleanup hook, whose
// value is empty, is owned through impliedOwners, so an unrelated user's removal is refused and the KCP controller's
// service account removes it. The webhook is a hookkeeper serving the profile; native mode is its render. The
// harness proves a mode is in force with probes of the default's etcd hook, so the profile keeps those here.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { DEFAULT_POLICY } from '../../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { packageRoot } from '../../../src/compilers/deploy/render.js';
import { capiMachine } from '../../../testing/control-plane/machines.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { DENIAL_PREFIX, rejected, warningTexts, type PatchOp } from '../../../testing/control-plane/kube.js';
import { renderForPlane, switchMode, type AdmissionMode, type NativePolicies } from '../harness/admission-modes.js';
import { describeEachMode } from '../harness/per-mode.js';
import type { Scenario } from '../harness/suite.js';
import { metadataOf } from './helpers.js';

const NS = 'e2e-capi-profile';
const PROFILE = 'webhook-config/components/cluster-api/policy.yaml';
const KCP_KEY = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup';
const MODES: readonly AdmissionMode[] = ['webhook', 'native'];
const REMOVE_KCP: PatchOp[] = [
  { op: 'test', path: `/metadata/annotations/${KCP_KEY.replace('/', '~1')}`, value: '' },
  { op: 'remove', path: `/metadata/annotations/${KCP_KEY.replace('/', '~1')}` },
];
const DENIAL =
  `metadata.annotations[${KCP_KEY}]: Forbidden: "alice" may not remove preTerminate hook "kcp-cleanup" owned by ` +
  '"controlplane.cluster.x-k8s.io/kcp-cleanup"; only its owner may: ' +
  'system:serviceaccount:capi-kubeadm-control-plane-system:capi-kubeadm-control-plane-manager, ' +
  'system:serviceaccount:k0smotron:k0smotron-controller-manager-control-plane (break-glass: group system:masters)';

/** The profile, with the embedded default's etcd reservation, owner and default hook the mode switch probes. */
export async function profileWithProbes(): Promise<string> {
  const doc = parse(await readFile(join(packageRoot(), PROFILE), 'utf8')) as Record<string, unknown>;
  const owners = doc['owners'] as Record<string, unknown>;
  return stringify({
    ...doc,
    owners: { ...owners, ...DEFAULT_POLICY.owners },
    reservedHooks: DEFAULT_POLICY.reservedHooks,
    defaultHooks: DEFAULT_POLICY.defaultHooks,
  });
}

const annotationsOf = (obj: Record<string, unknown>): Record<string, string> =>
  (metadataOf(obj)['annotations'] ?? {}) as Record<string, string>;

export const capiProfileScenarios: Scenario = (env) => {
  describe('the Cluster API profile: kcp-cleanup has an owner', () => {
    let served: { hookkeeper: Hookkeeper; native: NativePolicies } | undefined;
    const setUp = async (): Promise<{ hookkeeper: Hookkeeper; native: NativePolicies }> => {
      if (served) return served;
      const e = env();
      const yaml = await profileWithProbes();
      const hookkeeper = await startHookkeeper(e.plane, { name: 'hookkeeper-capi-profile', config: yaml });
      served = { hookkeeper, native: await renderForPlane(e.plane, parsePolicy(yaml, PROFILE)) };
      return served;
    };
    let seq = 0;
    /** A control-plane Machine as KubeadmControlPlane makes it, with kcp-cleanup's empty value. */
    const machine = async (): Promise<string> => {
      const name = `kcp-${++seq}`;
      await env()
        .capiMachines('kcpManager')
        .create(NS, capiMachine({ name, namespace: NS, annotations: { [KCP_KEY]: '' } }));
      return name;
    };

    before(async () => {
      await env()
        .plane.kubeConfig('admin')
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: NS } } })
        .catch((err: unknown) => {
          if (!(err instanceof ApiException && err.code === 409)) throw err;
        });
    });
    after(async () => {
      const e = env();
      // Back to the suite's own policy and mode.
      await switchMode(e.plane, e.hookkeeper, e.native, e.mode);
      if (served?.hookkeeper.running()) await served.hookkeeper.stop();
    });

    describeEachMode(MODES, env, setUp, (mode, off) => {
      test('an unrelated user may not remove kcp-cleanup, and is told who may', async (t) => {
        if (off(t)) return;
        const name = await machine();
        const refusal = await rejected(() => env().capiMachines('alice').patch(NS, name, REMOVE_KCP));
        assert.equal(refusal.by, mode === 'webhook' ? 'webhook' : 'policy', refusal.message);
        const text = mode === 'webhook' ? refusal.message.slice(DENIAL_PREFIX.length) : refusal.text;
        assert.ok(text.startsWith(DENIAL), `${text}\nwanted it to start with:\n${DENIAL}`);
        assert.equal(annotationsOf(await env().capiMachines('admin').get(NS, name))[KCP_KEY], '');
      });

      test("the KubeadmControlPlane controller's service account removes it, unwarned", async (t) => {
        if (off(t)) return;
        const name = await machine();
        const { object, warnings } = await env().capiMachines('kcpManager').patch(NS, name, REMOVE_KCP);
        assert.equal(annotationsOf(object)[KCP_KEY], undefined);
        assert.deepEqual(warningTexts(warnings), []);
      });
    });
  });
};
