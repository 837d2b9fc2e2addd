// The API resources behind the hook carriers (carriers.ts): carriers know group and kind, listing and matching need
// version and plural. A pure table below both its readers: the audit lists these resources, native policies match them.
import type { HookCarrier } from './carriers.js';

/** An API resource as a request names it. */
export interface ResourceRef {
  group: string;
  version: string;
  /** Plural resource name, as in the API path (machines). */
  plural: string;
  namespaced: boolean;
}

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
  { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Cluster', plural: 'clusters', namespaced: true },
];

/** Kinds more than one known group has (Machine and MachineSet: machine.openshift.io and cluster.x-k8s.io). */
const SHARED_KINDS: ReadonlySet<string> = new Set(
  KNOWN_RESOURCES.filter((r) => KNOWN_RESOURCES.some((o) => o.kind === r.kind && o.group !== r.group)).map(
    (r) => r.kind,
  ),
);

/**
 * A kind as text names it: with its group ("Machine.machine.openshift.io") when another known group has a kind of
 * that name, else alone. Kind.group is the form kubectl resolves (`kubectl get Machine.machine.openshift.io`) and
 * this file's notes already use; only shared kinds carry it, so other lines stay as short as kubectl's own.
 */
export function kindLabel(apiVersion: string, kind: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash === -1 || !SHARED_KINDS.has(kind) ? kind : `${kind}.${apiVersion.slice(0, slash)}`;
}

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
