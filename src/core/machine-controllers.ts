// The Machine controllers' finalizers, and which removals of them hookkeeper holds for the controller: removing the
// finalizer is how a Machine's controller ends its deletion flow (drain, hooks, instance), so anyone else's removal
// while the Machine carries a hook deletes it past its hooks (docs/ownership.md#the-machine-controllers-finalizers).
import type { HookCarrier } from './carrier-types.js';
import { isDeleting, metadata } from './guards.js';
import { serviceAccountUsername, type MachineGroup, type Policy } from './policy.js';
import type { KubeObject, UserInfo } from './types.js';

/**
 * The finalizer each Machine controller adds and removes last: machine-api-operator's MachineFinalizer
 * (openshift/api machine/v1beta1/types_machine.go), Cluster API's (api/core/v1beta2/machine_types.go).
 */
export const CONTROLLER_FINALIZER: Readonly<Record<MachineGroup, string>> = Object.freeze({
  'machine.openshift.io': 'machine.machine.openshift.io',
  'cluster.x-k8s.io': 'machine.cluster.x-k8s.io',
});

/** The controller finalizer of a carrier's kind: only Machines (carriers that gate their deletion) have one hookkeeper holds. */
export function controllerFinalizerOf(carrier: HookCarrier): string | undefined {
  if (!carrier.gatesDeletion) return undefined;
  return Object.hasOwn(CONTROLLER_FINALIZER, carrier.group)
    ? CONTROLLER_FINALIZER[carrier.group as MachineGroup]
    : undefined;
}

/** The usernames of a carrier's Machine controller, from the policy. */
export function controllerUsernames(policy: Policy, carrier: HookCarrier): string[] {
  const accounts = Object.hasOwn(policy.machineControllers, carrier.group)
    ? policy.machineControllers[carrier.group as MachineGroup]
    : [];
  return accounts.map(serviceAccountUsername);
}

/** By username only: a group (system:serviceaccounts:<namespace>) would let every pod of the namespace through. */
export function isMachineController(user: UserInfo, policy: Policy, carrier: HookCarrier): boolean {
  return controllerUsernames(policy, carrier).includes(user.username);
}

function finalizersOf(object: KubeObject | null): unknown[] {
  const list = object === null ? undefined : metadata(object)['finalizers'];
  return Array.isArray(list) ? list : [];
}

/**
 * The UPDATE removes the controller's finalizer, or leaves a deleting Machine with no finalizer at all (which deletes
 * it at once): the removals only the controller makes at the end of its deletion flow.
 */
export function releasesMachine(
  carrier: HookCarrier,
  object: KubeObject | null,
  oldObject: KubeObject | null,
): boolean {
  const finalizer = controllerFinalizerOf(carrier);
  if (finalizer === undefined || object === null || oldObject === null) return false;
  const before = finalizersOf(oldObject);
  const after = finalizersOf(object);
  if (before.includes(finalizer) && !after.includes(finalizer)) return true;
  return isDeleting(object) && before.length > 0 && after.length === 0;
}

/** The audit's stuck-deletion fix, after its advice: the finalizers are no way round. */
export const FINALIZERS_HELD_FIX = 'removing its finalizers instead is refused to all but its controller';

/**
 * What `explain` and the audit say of a deleting Machine that carries hooks: its finalizers are held for its
 * controller (rule controller-finalizer), so removing them is no way round the hooks; undefined when that rule is off.
 */
export function heldFinalizersNote(policy: Policy, carrier: HookCarrier): string | undefined {
  const finalizer = controllerFinalizerOf(carrier);
  if (finalizer === undefined || policy.enforcement['controller-finalizer'] === 'off') return undefined;
  const controllers = controllerUsernames(policy, carrier).join(', ') || 'none configured';
  return (
    `finalizers held for the controller (controller-finalizer): while hooks remain, only ${controllers} removes ` +
    `finalizer ${finalizer} or the last finalizer; anyone else is refused, break-glass is warned and audited`
  );
}
