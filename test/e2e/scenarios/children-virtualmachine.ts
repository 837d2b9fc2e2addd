// Worked example 1 (docs/child-resources.md): virt-launcher Pods of a KubeVirt VirtualMachine, policy
// test/fixtures/children-virtualmachine-policy.yaml: the VM becomes a further owner (its VMI controls the Pod),
// the finalizer only virt-controller removes is added, and a Pod for a missing or deleting VM is refused.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { shortWarning } from '../../../src/admission/response.js';
import type { KubeObject } from '../../../src/core/types.js';
import { launcherPod, VM_FINALIZER, VMI_UID } from '../../fixtures/children.js';
import { placed, virtualMachine } from '../../fixtures/e2e-children.js';
import { rejected, type Resource } from '../../../testing/control-plane/kube.js';
import { PODS } from '../../../testing/control-plane/objects.js';
import type { E2EEnv } from '../harness/suite.js';
import { finalizerRemovalTests, finalizersOf, nameOf } from './children-finalizer.js';
import { CHILD_DENIAL_PREFIX, waitForChildWebhooks, type ChildEnv, type ChildExample } from './children-setup.js';
import { metadataOf } from './helpers.js';

const NAMESPACE = 'children-vm-e2e';
export const VIRTUAL_MACHINES: Resource = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };

export const VM_EXAMPLE: ChildExample = {
  id: 'vm',
  policyFile: 'children-virtualmachine-policy.yaml',
  namespace: NAMESPACE,
  parent: VIRTUAL_MACHINES,
  controller: 'virtController',
};

/** The reference virt-controller writes: the VMI controls its launcher Pod. */
const VMI_REF = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  name: 'testvm',
  uid: VMI_UID,
  controller: true,
  blockOwnerDeletion: true,
};

/** A launcher Pod for `vm` as virt-controller sends it (generateName), optionally with its references set. */
function pod(vm: string, o: { ownerReferences?: unknown[]; finalizers?: string[]; name?: string } = {}): KubeObject {
  const ownerReferences = o.ownerReferences ?? [{ ...VMI_REF, name: vm }];
  return placed(
    launcherPod({
      vm,
      namespace: NAMESPACE,
      ownerReferences,
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
      ...(o.name ? { name: o.name } : {}),
    }),
    NAMESPACE,
  );
}

export function virtualMachineScenarios(env: () => E2EEnv, ctx: () => ChildEnv): void {
  describe('worked example 1: VirtualMachine and its virt-launcher Pods', () => {
    let vmUid = '';
    const vmRef = (): Record<string, unknown> => ({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      name: 'testvm',
      uid: vmUid,
      controller: false,
      blockOwnerDeletion: false,
    });

    before(async () => {
      const x = ctx();
      vmUid = await x.createParent(virtualMachine({ name: 'testvm', namespace: NAMESPACE }));
      // Enforced once a Pod for a VM that does not exist is refused by the example's webhook.
      await waitForChildWebhooks(
        x,
        async () =>
          (
            await rejected(() =>
              x.objects('virtController', PODS).create(NAMESPACE, pod('probe-missing-vm'), { dryRun: true }),
            ).catch(() => undefined)
          )?.by === 'webhook',
      );
    });

    test('virt-controller creates a launcher Pod: the VM is added as a non-controller owner with its uid, and the finalizer', async () => {
      const x = ctx();
      const { object, warnings } = await x.objects('virtController', PODS).create(NAMESPACE, pod('testvm'));
      const stored = await x.objects('virtController', PODS).get(NAMESPACE, nameOf(object));
      assert.deepEqual(metadataOf(stored)['ownerReferences'], [VMI_REF, vmRef()]);
      assert.deepEqual(finalizersOf(stored), [VM_FINALIZER]);
      assert.deepEqual(warnings, [
        shortWarning(
          `VirtualMachine "testvm" in namespace "${NAMESPACE}" is a non-controller owner: ` +
            `VirtualMachineInstance "testvm" already controls Pod "${nameOf(object)}" (rule "virtualmachine-pods")`,
        ),
      ]);
    });

    test('a Pod already carrying the reference and the finalizer is stored as sent: no second reference or finalizer', async () => {
      const x = ctx();
      const { object } = await x
        .objects('virtController', PODS)
        .create(NAMESPACE, pod('testvm', { ownerReferences: [VMI_REF, vmRef()], finalizers: [VM_FINALIZER] }));
      assert.deepEqual(metadataOf(object)['ownerReferences'], [VMI_REF, vmRef()]);
      assert.deepEqual(finalizersOf(object), [VM_FINALIZER]);
    });

    test('a Pod for a VirtualMachine that does not exist is denied by our webhook (onMissingParent: deny)', async () => {
      const x = ctx();
      const pods = x.objects('virtController', PODS);
      const refusal = await rejected(() =>
        pods.create(NAMESPACE, pod('no-such-vm', { name: 'virt-launcher-no-such-vm-4xk8q' })),
      );
      assert.equal(refusal.by, 'webhook', refusal.message);
      assert.equal(
        refusal.message,
        `${CHILD_DENIAL_PREFIX}metadata.labels[vm.kubevirt.io/name]: Not found: parent VirtualMachine "no-such-vm" in namespace ` +
          `"${NAMESPACE}" does not exist (policy rule "virtualmachine-pods": onMissingParent deny)`,
      );
      assert.equal(await pods.exists(NAMESPACE, 'virt-launcher-no-such-vm-4xk8q'), false);
    });

    test('a Pod for a VirtualMachine being deleted is denied by our webhook (onDeletingParent: deny)', async () => {
      const x = ctx();
      const vms = x.objects('admin', VIRTUAL_MACHINES);
      // No controller removes this finalizer: the VM stays, deleting.
      await x.createParent(
        virtualMachine({ name: 'leaving-vm', namespace: NAMESPACE, finalizers: ['e2e.hookkeeper.io/hold'] }),
      );
      await vms.delete(NAMESPACE, 'leaving-vm');
      const pods = x.objects('virtController', PODS);
      // hookkeeper's cache learns of the deletion through its watch: dry runs until it has.
      await waitForChildWebhooks(
        x,
        async () =>
          (await rejected(() => pods.create(NAMESPACE, pod('leaving-vm'), { dryRun: true })).catch(() => undefined))
            ?.by === 'webhook',
      );
      const refusal = await rejected(() => pods.create(NAMESPACE, pod('leaving-vm')));
      assert.equal(
        refusal.message,
        `${CHILD_DENIAL_PREFIX}metadata.labels[vm.kubevirt.io/name]: Forbidden: parent VirtualMachine "leaving-vm" in namespace ` +
          `"${NAMESPACE}" is being deleted, so a new child would be orphaned or collected at once (policy rule "virtualmachine-pods": onDeletingParent deny)`,
      );
    });

    finalizerRemovalTests(env, ctx, {
      child: PODS,
      kind: 'Pod',
      async create(x) {
        return (await x.objects('virtController', PODS).create(NAMESPACE, pod('testvm'))).object;
      },
    });
  });
}
