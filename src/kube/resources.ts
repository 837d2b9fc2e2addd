// The API resources behind the hook carriers (src/core/carriers.ts): carriers know group and kind, listing
// needs version and plural. The audit lists the resource of every carrier found here.
import type { HookCarrier } from '../core/carriers.js';
import type { ResourceRef } from './types.js';

export interface KindResource extends ResourceRef {
  kind: string;
}

/** Served versions to list: machine.openshift.io as OpenShift serves it, cluster.x-k8s.io v1beta1 (served by v1.10 and later). */
export const KNOWN_RESOURCES: readonly KindResource[] = [
  { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine', plural: 'machines', namespaced: true },
  { group: 'machine.openshift.io', version: 'v1beta1', kind: 'MachineSet', plural: 'machinesets', namespaced: true },
  {
    group: 'machine.openshift.io',
    version: 'v1',
    kind: 'ControlPlaneMachineSet',
    plural: 'controlplanemachinesets',
    namespaced: true,
  },
  { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Machine', plural: 'machines', namespaced: true },
  { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'MachineSet', plural: 'machinesets', namespaced: true },
  {
    group: 'cluster.x-k8s.io',
    version: 'v1beta1',
    kind: 'MachineDeployment',
    plural: 'machinedeployments',
    namespaced: true,
  },
];

/** The resources to audit, one per carrier, and a note for each carrier whose resource is not known here. */
export function carrierResources(
  carriers: readonly HookCarrier[],
  known: readonly KindResource[] = KNOWN_RESOURCES,
): { resources: KindResource[]; notes: string[] } {
  const resources: KindResource[] = [];
  const notes: string[] = [];
  for (const c of carriers) {
    const r = known.find((k) => k.group === c.group && k.kind === c.kind);
    if (r) resources.push(r);
    else
      notes.push(`${c.kind}.${c.group}: hookkeeper knows no API version and resource name for this kind; not audited`);
  }
  return { resources, notes };
}
