// Quorum protection through the real API server with the upstream OpenShift Machine CRD: three control-plane Machines
// of one cluster carry the etcd hook; one is deleting (held by a finalizer) after the etcd operator removed its hook;
// break-glass removing the hook from a second is refused naming the first, and allowed, warned and audited, once the
// request names it in hookkeeper.io/quorum-acknowledged. The webhook is a hookkeeper run as its ServiceAccount
// (--kubeconfig: it lists the cluster's Machines); in native mode the declared divergence holds (CEL sees one object,
// so break-glass passes). Then the same under the Cluster API profile with kcp-cleanup, webhook mode.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { DEFAULT_POLICY } from '../../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { QUORUM_ACK_ANNOTATION } from '../../../src/core/quorum.js';
import type { KubeObject } from '../../../src/core/types.js';
import { packageRoot } from '../../../src/compilers/deploy/render.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { DENIAL_PREFIX, rejected, warningTexts, type PatchOp } from '../../../testing/control-plane/kube.js';
import {
  capiMachine,
  ETCD_HOOK,
  MACHINE_NAMESPACE,
  openshiftMachine,
} from '../../../testing/control-plane/machines.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { renderForPlane, switchMode, type AdmissionMode, type NativePolicies } from '../harness/admission-modes.js';
import { describeEachMode } from '../harness/per-mode.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { hooksOf, metadataOf, removeHook } from './helpers.js';

const MODES: readonly AdmissionMode[] = ['webhook', 'both', 'native'];
/** Held by a finalizer nobody's controller removes, so the Machine stays deleting until the group lets it go. */
const HOLD = 'e2e.hookkeeper.io/hold';
const CLUSTER_LABEL = 'machine.openshift.io/cluster-api-cluster';
const KCP_KEY = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup';
const CAPI_NS = 'e2e-quorum-capi';

interface Served {
  hookkeeper: Hookkeeper;
  native: NativePolicies;
}

/** A control-plane Machine of `cluster` with the etcd hook, as the installer and the etcd operator leave it. */
function master(name: string, cluster: string, finalizers?: string[]): KubeObject {
  const m = openshiftMachine({ name, role: 'master', preDrain: [ETCD_HOOK], ...(finalizers ? { finalizers } : {}) });
  const meta = metadataOf(m);
  meta['labels'] = { ...(meta['labels'] as Record<string, string>), [CLUSTER_LABEL]: cluster };
  return m;
}

/** Adds the acknowledgment to a patch: the annotations map when the Machine has none, else the one key. */
function acknowledge(obj: KubeObject, names: string): PatchOp[] {
  const annotations = metadataOf(obj)['annotations'];
  return annotations && typeof annotations === 'object'
    ? [{ op: 'add', path: `/metadata/annotations/${QUORUM_ACK_ANNOTATION.replace('/', '~1')}`, value: names }]
    : [{ op: 'add', path: '/metadata/annotations', value: { [QUORUM_ACK_ANNOTATION]: names } }];
}

interface AuditEvent {
  verb?: string;
  stage?: string;
  objectRef?: { namespace?: string; name?: string };
  responseStatus?: { code?: number };
  annotations?: Record<string, string>;
}

/** The audit annotations of the successful patch of Machine `name`, once the API server has logged it. */
async function auditAnnotationsOf(e: E2EEnv, namespace: string, name: string): Promise<Record<string, string>> {
  return pollUntil(`the audit event of the patch of ${name}`, 30_000, async () => {
    const lines = (await readFile(e.plane.auditLog, 'utf8')).split('\n').filter((l) => l !== '');
    const event = lines
      .map((l) => JSON.parse(l) as AuditEvent)
      .find(
        (ev) =>
          ev.verb === 'patch' &&
          ev.stage === 'ResponseComplete' &&
          ev.objectRef?.namespace === namespace &&
          ev.objectRef.name === name &&
          ev.responseStatus?.code === 200,
      );
    return event ? (event.annotations ?? {}) : undefined;
  });
}

export const quorumScenarios: Scenario = (env) => {
  describe('quorum protection: no two control-plane Machines of a cluster without the etcd hook', () => {
    let served: Served | undefined;
    const hookkeepers: Hookkeeper[] = [];
    const setUp = async (): Promise<Served> => {
      if (served) return served;
      const e = env();
      const hookkeeper = await startHookkeeper(e.plane, {
        name: 'hookkeeper-quorum',
        args: ['--kubeconfig', await e.plane.kubeConfigFile('hookkeeper')],
      });
      hookkeepers.push(hookkeeper);
      served = { hookkeeper, native: await renderForPlane(e.plane) };
      return served;
    };
    const made: string[] = [];
    after(async () => {
      const e = env();
      await switchMode(e.plane, e.hookkeeper, e.native, e.mode);
      for (const h of hookkeepers) if (h.running()) await h.stop();
      // Let the held Machines go (none carries a hook any more), then delete the rest.
      const admin = e.machines('admin');
      for (const name of made) {
        if (!(await admin.exists(MACHINE_NAMESPACE, name))) continue;
        const m = await admin.get(MACHINE_NAMESPACE, name);
        if (Array.isArray(metadataOf(m)['finalizers']))
          await admin.patch(MACHINE_NAMESPACE, name, [{ op: 'remove', path: '/metadata/finalizers' }]);
        if (await admin.exists(MACHINE_NAMESPACE, name))
          await admin.delete(MACHINE_NAMESPACE, name).catch(() => undefined);
      }
    });

    describeEachMode(MODES, env, setUp, (mode, off) => {
      // Names and cluster per mode: the modes' Machines are separate clusters, so none sees another's deletion.
      const cluster = `e2e-quorum-${mode}`;
      const [first, second, third] = [0, 1, 2].map((i) => `quorum-${mode}-${i}`) as [string, string, string];
      const remove = async (
        as: 'admin' | 'etcdOperator',
        name: string,
        extra: (m: KubeObject) => PatchOp[] = () => [],
      ) => {
        const client = env().machines(as);
        const m = await client.get(MACHINE_NAMESPACE, name);
        return client.patch(MACHINE_NAMESPACE, name, [...removeHook(m, 'preDrain', ETCD_HOOK.name), ...extra(m)]);
      };

      test('the etcd operator removes its hook from a deleting control-plane Machine: allowed, unwarned', async (t) => {
        if (off(t)) return;
        const machineApi = env().machines('machineApi');
        await machineApi.create(MACHINE_NAMESPACE, master(first, cluster, [HOLD]));
        made.push(first);
        for (const name of [second, third]) {
          await machineApi.create(MACHINE_NAMESPACE, master(name, cluster));
          made.push(name);
        }
        await env().machines('admin').delete(MACHINE_NAMESPACE, first);
        const { object, warnings } = await remove('etcdOperator', first);
        assert.ok(typeof metadataOf(object)['deletionTimestamp'] === 'string', 'the first Machine is deleting');
        assert.deepEqual(hooksOf(object, 'preDrain'), []);
        assert.deepEqual(warningTexts(warnings), []);
      });

      test('break-glass removing it from a second Machine meanwhile: refused naming the first (native: allowed)', async (t) => {
        if (off(t)) return;
        const admin = env().plane.identities.admin.username;
        const breakGlass = `break-glass: ${admin} may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited`;
        if (mode === 'native') {
          // The declared divergence: CEL sees one object, so native mode allows break-glass, warned as ever.
          const { object, warnings } = await remove('admin', second);
          assert.deepEqual(hooksOf(object, 'preDrain'), []);
          assert.deepEqual(warningTexts(warnings), [breakGlass]);
          return;
        }
        const refusal = await rejected(() => remove('admin', second));
        assert.equal(refusal.by, 'webhook', refusal.message);
        assert.equal(
          refusal.message,
          `${DENIAL_PREFIX}spec.lifecycleHooks.preDrain[0]: Forbidden: removing quorum hook "EtcdQuorumOperator" from ` +
            `control-plane Machine ${second} is refused while control-plane Machine ${first} of cluster ${cluster} is ` +
            'deleting without it (etcd-quorum): two control-plane Machines deleting unprotected at once can lose etcd ' +
            `quorum. Wait until that deletion ends, or, knowing that, set annotation ${QUORUM_ACK_ANNOTATION}=${first} ` +
            `on ${second} in the same request`,
        );
        assert.deepEqual(hooksOf(await env().machines('admin').get(MACHINE_NAMESPACE, second), 'preDrain'), [
          ETCD_HOOK,
        ]);
        // Naming another Machine acknowledges nothing.
        await rejected(() => remove('admin', second, (m) => acknowledge(m, third)));
      });

      test('with the acknowledgment naming the deleting Machine: allowed, warned and audited', async (t) => {
        if (off(t)) return;
        const e = env();
        const admin = e.plane.identities.admin.username;
        const { object, warnings } = await remove('admin', third, (m) => acknowledge(m, first));
        assert.deepEqual(hooksOf(object, 'preDrain'), []);
        const breakGlass = `break-glass: ${admin} may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited`;
        const acknowledged = `quorum acknowledged: EtcdQuorumOperator removed while ${first} is deleting without it; audited`;
        // Native mode never runs the rule: break-glass's warning alone.
        assert.deepEqual(
          warningTexts(warnings).sort(),
          (mode === 'native' ? [breakGlass] : [breakGlass, acknowledged]).sort(),
        );
        if (mode === 'native') return;
        const annotations = await auditAnnotationsOf(e, MACHINE_NAMESPACE, third);
        const ack = Object.entries(annotations).find(([k]) => k.endsWith('/quorum-acknowledged-hook-removal'));
        assert.ok(ack, JSON.stringify(annotations));
        assert.deepEqual(JSON.parse(ack[1]), {
          quorum: 'etcd-quorum',
          cluster,
          hook: ETCD_HOOK.name,
          user: admin,
          acknowledged: [first],
        });
      });
    });
  });

  describe('quorum protection under the Cluster API profile: kcp-cleanup', () => {
    let served: Served | undefined;
    const setUp = async (): Promise<Served> => {
      if (served) return served;
      const e = env();
      const doc = parse(
        await readFile(join(packageRoot(), 'webhook-config/components/cluster-api/policy.yaml'), 'utf8'),
      ) as Record<string, unknown>;
      // The harness proves a mode is in force with probes of the default's etcd hook, so the profile keeps those.
      const yaml = stringify({
        ...doc,
        owners: { ...(doc['owners'] as Record<string, unknown>), ...DEFAULT_POLICY.owners },
        reservedHooks: DEFAULT_POLICY.reservedHooks,
        defaultHooks: DEFAULT_POLICY.defaultHooks,
      });
      const hookkeeper = await startHookkeeper(e.plane, {
        name: 'hookkeeper-quorum-capi',
        config: yaml,
        args: ['--kubeconfig', await e.plane.kubeConfigFile('hookkeeper')],
      });
      served = { hookkeeper, native: await renderForPlane(e.plane, parsePolicy(yaml, 'cluster-api/policy.yaml')) };
      return served;
    };
    after(async () => {
      const e = env();
      await switchMode(e.plane, e.hookkeeper, e.native, e.mode);
      if (served?.hookkeeper.running()) await served.hookkeeper.stop();
      const admin = e.capiMachines('admin');
      for (const name of ['cp-0', 'cp-1']) {
        if (!(await admin.exists(CAPI_NS, name))) continue;
        await admin.patch(CAPI_NS, name, [{ op: 'remove', path: '/metadata/finalizers' }]).catch(() => undefined);
        if (await admin.exists(CAPI_NS, name)) await admin.delete(CAPI_NS, name).catch(() => undefined);
      }
    });
    const removeKcp: PatchOp[] = [
      { op: 'test', path: `/metadata/annotations/${KCP_KEY.replace('/', '~1')}`, value: '' },
      { op: 'remove', path: `/metadata/annotations/${KCP_KEY.replace('/', '~1')}` },
    ];

    describeEachMode(['webhook'], env, setUp, (_mode, off) => {
      test("KCP strips a deleting Machine's kcp-cleanup; break-glass is refused it on another", async (t) => {
        if (off(t)) return;
        const e = env();
        await e.plane
          .kubeConfig('admin')
          .makeApiClient(CoreV1Api)
          .createNamespace({ body: { metadata: { name: CAPI_NS } } });
        const kcp = e.capiMachines('kcpManager');
        // capiMachine makes control-plane Machines of one cluster.
        const controlPlane = (name: string, finalizers?: string[]) =>
          capiMachine({
            name,
            namespace: CAPI_NS,
            annotations: { [KCP_KEY]: '' },
            ...(finalizers ? { finalizers } : {}),
          });
        await kcp.create(CAPI_NS, controlPlane('cp-0', [HOLD]));
        await kcp.create(CAPI_NS, controlPlane('cp-1'));
        await e.capiMachines('admin').delete(CAPI_NS, 'cp-0');
        await kcp.patch(CAPI_NS, 'cp-0', removeKcp);
        const refusal = await rejected(() => e.capiMachines('admin').patch(CAPI_NS, 'cp-1', removeKcp));
        assert.equal(refusal.by, 'webhook', refusal.message);
        assert.match(
          refusal.message,
          /removing quorum hook "kcp-cleanup" from control-plane Machine cp-1 is refused while control-plane Machine cp-0 of cluster \S+ is deleting without it \(control-plane-quorum\)/,
        );
        const { warnings } = await e
          .capiMachines('admin')
          .patch(CAPI_NS, 'cp-1', [
            ...removeKcp,
            { op: 'add', path: `/metadata/annotations/${QUORUM_ACK_ANNOTATION.replace('/', '~1')}`, value: 'cp-0' },
          ]);
        assert.ok(
          warningTexts(warnings).some((w) =>
            w.includes('quorum acknowledged: kcp-cleanup removed while cp-0 is deleting'),
          ),
          JSON.stringify(warnings),
        );
      });
    });
  });
};
