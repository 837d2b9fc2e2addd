// The other policies native mode is held to the webhook under (test/e2e/scenarios/native-knobs.ts), the objects
// stored before either is in force, and the requests sent under each: removals and re-owning by owners, non-owners
// and break-glass, strict-owner creates, reserved and shared names, deletion, Cluster API annotations, MachineSet and
// ControlPlaneMachineSet templates.
import { HOOK_ANNOTATION_PREFIX } from '../../../src/core/capi.js';
import type { KubeObject } from '../../../src/core/types.js';
import {
  capiMachine,
  controlPlaneMachineSet,
  ETCD_HOOK,
  openshiftMachine,
  openshiftMachineSet,
  type Hook,
} from '../../../testing/control-plane/machines.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import {
  CAPI_MACHINES,
  OPENSHIFT_MACHINES,
  OPENSHIFT_MACHINESETS,
  type Resource,
} from '../../../testing/control-plane/kube.js';

/** Served by test/e2e/crds/machine.openshift.io_controlplanemachinesets.yaml, which this group installs. */
export const CONTROL_PLANE_MACHINESETS: Resource = {
  group: 'machine.openshift.io',
  version: 'v1',
  plural: 'controlplanemachinesets',
};

export const NAMESPACE = 'e2e-knobs';
/** Registered for bob in both policies; granted to nobody through RBAC. */
const KNOB = 'team/knob';
/** Registered nowhere, granted nowhere. */
const UNKNOWN = 'team/knob-unknown';
const DRAIN = HOOK_ANNOTATION_PREFIX.preDrain;

/** The policy text both policies start from: the default's reserved hook, default hook and break-glass, plus KNOB. */
function policyText(extra: readonly string[]): string {
  return [
    'apiVersion: hookkeeper.io/v1alpha1',
    'kind: Policy',
    'owners:',
    '  clusteroperator/etcd:',
    '    serviceAccounts: [{namespace: openshift-etcd-operator, name: etcd-operator}]',
    `  ${KNOB}:`,
    '    users: [bob]',
    ...extra,
  ].join('\n');
}

/** Stored once, before either policy is in force: what the UPDATE cases change. */
export const STORED: ReadonlyArray<{ resource: Resource; object: KubeObject; deleting?: boolean }> = [
  {
    resource: OPENSHIFT_MACHINES,
    object: openshiftMachine({
      name: 'knob-owned',
      namespace: NAMESPACE,
      preDrain: [
        { name: 'KnobGate', owner: KNOB },
        { name: 'UnknownGate', owner: UNKNOWN },
      ],
    }),
  },
  {
    resource: OPENSHIFT_MACHINES,
    object: openshiftMachine({
      name: 'knob-deleting',
      namespace: NAMESPACE,
      finalizers: ['example.com/hold'],
      preDrain: [{ name: 'KnobGate', owner: KNOB }],
    }),
    deleting: true,
  },
  {
    resource: CAPI_MACHINES,
    object: capiMachine({
      name: 'knob-capi',
      namespace: NAMESPACE,
      annotations: { [`${DRAIN}/KnobGate`]: KNOB, [`${DRAIN}/UnknownGate`]: UNKNOWN, [`${DRAIN}/NoOwner`]: '' },
    }),
  },
  {
    resource: OPENSHIFT_MACHINESETS,
    object: {
      ...openshiftMachineSet({
        name: 'knob-set',
        preDrain: [
          { name: 'KnobGate', owner: KNOB },
          { name: 'UnknownGate', owner: UNKNOWN },
        ],
      }),
      metadata: { name: 'knob-set', namespace: NAMESPACE },
    },
  },
  {
    resource: CONTROL_PLANE_MACHINESETS,
    object: controlPlaneMachineSet({
      name: 'knob-cpms',
      namespace: NAMESPACE,
      preDrain: [
        { name: 'KnobGate', owner: KNOB },
        { name: 'UnknownGate', owner: UNKNOWN },
      ],
    }),
  },
];

type Change = (o: KubeObject) => void;

/** One request: a CREATE of `create`, or an UPDATE applying `change` to the stored object `stored`. */
export interface Request {
  id: string;
  what: string;
  as: IdentityName;
  resource: Resource;
  create?: KubeObject;
  update?: { stored: string; change: Change };
}

export interface Variant {
  id: string;
  title: string;
  yaml: string;
  requests: readonly Request[];
  /**
   * Requests this policy decides otherwise than the policy in force before it (the previous variant's, or the
   * suite's for the first; validate checks it): a mode counts as switched once each is answered as this policy
   * answers it, since the API server loads webhook configurations and each admission policy on its own and, for a
   * while, may still enforce the previous policy's objects of the same names.
   */
  witnesses: readonly string[];
}

const machine = (name: string, preDrain: Hook[], preTerminate?: Hook[]): KubeObject =>
  openshiftMachine({ name, namespace: NAMESPACE, preDrain, ...(preTerminate ? { preTerminate } : {}) });

const machineSet = (name: string, preDrain: Hook[]): KubeObject => ({
  ...openshiftMachineSet({ name, preDrain }),
  metadata: { name, namespace: NAMESPACE },
});

function listAt(o: KubeObject, root: readonly string[]): Hook[] {
  let node: unknown = o;
  for (const key of root) node = (node as Record<string, unknown>)[key];
  return node as Hook[];
}
const PRE_DRAIN = ['spec', 'lifecycleHooks', 'preDrain'];
const TEMPLATE_PRE_DRAIN = ['spec', 'template', 'spec', 'lifecycleHooks', 'preDrain'];
const CPMS_PRE_DRAIN = [
  'spec',
  'template',
  'machines_v1beta1_machine_openshift_io',
  'spec',
  'lifecycleHooks',
  'preDrain',
];

const without =
  (name: string, root = PRE_DRAIN): Change =>
  (o) => {
    const list = listAt(o, root);
    list.splice(
      list.findIndex((h) => h.name === name),
      1,
    );
  };
const reowned =
  (name: string, owner: string): Change =>
  (o) => {
    const hook = listAt(o, PRE_DRAIN).find((h) => h.name === name);
    if (hook) hook.owner = owner;
  };
const added =
  (hook: Hook, root = PRE_DRAIN): Change =>
  (o) => {
    listAt(o, root).push(hook);
  };
const annotationRemoved =
  (key: string): Change =>
  (o) => {
    delete (o['metadata'] as { annotations: Record<string, string> }).annotations[key];
  };

/** Removals and re-owning by owners, non-owners and break-glass; what both policies judge differently. */
const removals = (p: string): Request[] => [
  {
    id: `${p}-remove-knob-alice`,
    what: "alice removes a registered owner's hook",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('KnobGate') },
  },
  {
    id: `${p}-remove-knob-bob`,
    what: 'bob removes the hook of the owner he is registered for',
    as: 'bob',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('KnobGate') },
  },
  {
    id: `${p}-remove-knob-admin`,
    what: "a break-glass admin removes a registered owner's hook",
    as: 'admin',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('KnobGate') },
  },
  {
    id: `${p}-remove-unknown-alice`,
    what: "alice removes an unknown owner's hook",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('UnknownGate') },
  },
  {
    id: `${p}-remove-unknown-admin`,
    what: "a break-glass admin removes an unknown owner's hook",
    as: 'admin',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('UnknownGate') },
  },
  {
    id: `${p}-reown-unknown-alice`,
    what: "alice re-owns an unknown owner's hook to a registered owner",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: reowned('UnknownGate', KNOB) },
  },
  {
    id: `${p}-reown-knob-bob`,
    what: "bob re-owns his owner's hook to an unknown owner",
    as: 'bob',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: reowned('KnobGate', UNKNOWN) },
  },
  {
    id: `${p}-capi-remove-unknown-alice`,
    what: "alice removes an unknown owner's Cluster API hook annotation",
    as: 'alice',
    resource: CAPI_MACHINES,
    update: { stored: 'knob-capi', change: annotationRemoved(`${DRAIN}/UnknownGate`) },
  },
  {
    id: `${p}-capi-remove-empty-alice`,
    what: 'alice removes a Cluster API hook annotation of no owner',
    as: 'alice',
    resource: CAPI_MACHINES,
    update: { stored: 'knob-capi', change: annotationRemoved(`${DRAIN}/NoOwner`) },
  },
  {
    id: `${p}-capi-remove-knob-bob`,
    what: "bob removes his owner's Cluster API hook annotation",
    as: 'bob',
    resource: CAPI_MACHINES,
    update: { stored: 'knob-capi', change: annotationRemoved(`${DRAIN}/KnobGate`) },
  },
  {
    id: `${p}-deleting-add`,
    what: "alice adds a registered owner's hook to a deleting Machine",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-deleting', change: added({ name: 'LateGate', owner: KNOB }) },
  },
  {
    id: `${p}-set-remove-knob`,
    what: "the controllers remove a registered owner's hook from a MachineSet template",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    update: { stored: 'knob-set', change: without('KnobGate', TEMPLATE_PRE_DRAIN) },
  },
  {
    id: `${p}-reown-knob-admin`,
    what: "a break-glass admin re-owns a registered owner's hook to an unknown owner",
    as: 'admin',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: reowned('KnobGate', UNKNOWN) },
  },
  {
    id: `${p}-move-unknown-alice`,
    what: "alice moves an unknown owner's hook from preDrain to preTerminate",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: {
      stored: 'knob-owned',
      change: (o) => {
        without('UnknownGate')(o);
        (o['spec'] as { lifecycleHooks: Record<string, Hook[]> }).lifecycleHooks['preTerminate'] = [
          { name: 'UnknownGate', owner: UNKNOWN },
        ];
      },
    },
  },
  {
    id: `${p}-relabel-alice`,
    what: "alice changes a label of a Machine carrying an unknown owner's hook",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: {
      stored: 'knob-owned',
      change: (o) => {
        (o['metadata'] as { labels: Record<string, string> }).labels['touched'] = 'yes';
      },
    },
  },
  {
    id: `${p}-deleting-remove-knob-alice`,
    what: "alice removes a registered owner's hook from a deleting Machine",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-deleting', change: without('KnobGate') },
  },
  {
    id: `${p}-capi-reown-unknown-alice`,
    what: "alice re-owns an unknown owner's Cluster API hook annotation to a registered owner",
    as: 'alice',
    resource: CAPI_MACHINES,
    update: {
      stored: 'knob-capi',
      change: (o) => {
        (o['metadata'] as { annotations: Record<string, string> }).annotations[`${DRAIN}/UnknownGate`] = KNOB;
      },
    },
  },
];

/** Creates with owners registered, unknown and empty, reserved names and one name of two owners. */
const creates = (p: string): Request[] => [
  {
    id: `${p}-create-knob`,
    what: "a Machine with a registered owner's hook",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(`${p}-create-knob`, [{ name: 'KnobGate', owner: KNOB }]),
  },
  {
    id: `${p}-create-unknown`,
    what: "a Machine with an unknown owner's hook",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(`${p}-create-unknown`, [{ name: 'UnknownGate', owner: UNKNOWN }]),
  },
  {
    id: `${p}-create-reserved`,
    what: 'a Machine claiming the reserved etcd hook name for a registered owner',
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(`${p}-create-reserved`, [{ name: ETCD_HOOK.name, owner: KNOB }]),
  },
  {
    id: `${p}-create-two-owners`,
    what: 'a Machine naming one hook with two registered owners across stages',
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(
      `${p}-create-two-owners`,
      [{ name: 'Shared', owner: KNOB }],
      [{ name: 'Shared', owner: ETCD_HOOK.owner }],
    ),
  },
  {
    id: `${p}-capi-create-empty`,
    what: 'a Cluster API Machine with a hook annotation of no owner',
    as: 'machineApi',
    resource: CAPI_MACHINES,
    create: capiMachine({
      name: `${p}-capi-create-empty`,
      namespace: NAMESPACE,
      annotations: { [`${DRAIN}/NoOwner`]: '' },
    }),
  },
  {
    id: `${p}-capi-create-long-prefix`,
    what: 'a Cluster API Machine with a key that only starts with the hook prefix',
    as: 'machineApi',
    resource: CAPI_MACHINES,
    create: capiMachine({
      name: `${p}-capi-create-long-prefix`,
      namespace: NAMESPACE,
      annotations: { [`${DRAIN}.example.com/Gate`]: KNOB },
    }),
  },
  {
    id: `${p}-set-create-unknown`,
    what: "a MachineSet template with an unknown owner's hook",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    create: machineSet(`${p}-set-create-unknown`, [{ name: 'UnknownGate', owner: UNKNOWN }]),
  },
  {
    id: `${p}-set-create-reserved`,
    what: 'a MachineSet template claiming the reserved etcd hook name',
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    create: machineSet(`${p}-set-create-reserved`, [{ name: ETCD_HOOK.name, owner: KNOB }]),
  },
  {
    id: `${p}-set-add-unknown`,
    what: "the controllers add an unknown owner's hook to a MachineSet template",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    update: { stored: 'knob-set', change: added({ name: 'LateGate', owner: UNKNOWN }, TEMPLATE_PRE_DRAIN) },
  },
];

const cpms = (name: string, preDrain: Hook[], preTerminate?: Hook[]): KubeObject =>
  controlPlaneMachineSet({ name, namespace: NAMESPACE, preDrain, ...(preTerminate ? { preTerminate } : {}) });

/** ControlPlaneMachineSet templates (as admin: the suite's RBAC gives no one else this resource). */
const controlPlaneTemplates = (p: string): Request[] => [
  {
    id: `${p}-cpms-create-unknown`,
    what: "a ControlPlaneMachineSet template with an unknown owner's hook",
    as: 'admin',
    resource: CONTROL_PLANE_MACHINESETS,
    create: cpms(`${p}-cpms-create-unknown`, [{ name: 'UnknownGate', owner: UNKNOWN }]),
  },
  {
    id: `${p}-cpms-create-reserved`,
    what: 'a ControlPlaneMachineSet template claiming the reserved etcd hook name',
    as: 'admin',
    resource: CONTROL_PLANE_MACHINESETS,
    create: cpms(`${p}-cpms-create-reserved`, [{ name: ETCD_HOOK.name, owner: KNOB }]),
  },
  {
    id: `${p}-cpms-create-two-owners`,
    what: 'a ControlPlaneMachineSet template naming one hook with two owners across stages',
    as: 'admin',
    resource: CONTROL_PLANE_MACHINESETS,
    create: cpms(
      `${p}-cpms-create-two-owners`,
      [{ name: 'Shared', owner: KNOB }],
      [{ name: 'Shared', owner: ETCD_HOOK.owner }],
    ),
  },
  {
    id: `${p}-cpms-add-unknown`,
    what: "an unknown owner's hook added to a ControlPlaneMachineSet template",
    as: 'admin',
    resource: CONTROL_PLANE_MACHINESETS,
    update: { stored: 'knob-cpms', change: added({ name: 'LateGate', owner: UNKNOWN }, CPMS_PRE_DRAIN) },
  },
  {
    id: `${p}-cpms-remove-knob`,
    what: "a registered owner's hook removed from a ControlPlaneMachineSet template",
    as: 'admin',
    resource: CONTROL_PLANE_MACHINESETS,
    update: { stored: 'knob-cpms', change: without('KnobGate', CPMS_PRE_DRAIN) },
  },
];

export const VARIANTS: readonly Variant[] = [
  {
    // Every other rule that reads a CREATE's hooks off: strictOwners alone must get the webhook sent a CREATE.
    id: 'strict',
    title: 'strictOwners, unverifiedRemoval: deny, hook-naming, hook-count, single-owner and deletion-freeze: off',
    yaml: policyText([
      'strictOwners: true',
      'unverifiedRemoval: deny',
      'enforcement:',
      '  hook-naming: "off"',
      '  hook-count: "off"',
      '  single-owner: "off"',
      '  deletion-freeze: "off"',
    ]),
    requests: [...creates('s'), ...removals('s'), ...controlPlaneTemplates('s')],
    witnesses: ['s-create-unknown', 's-capi-create-empty', 's-remove-unknown-alice'],
  },
  {
    id: 'lenient',
    title: 'unverifiedRemoval: allow, owner-only-removal: warn, hook-naming: warn',
    yaml: policyText(['unverifiedRemoval: allow', 'enforcement:', '  owner-only-removal: warn', '  hook-naming: warn']),
    requests: [...creates('l'), ...removals('l'), ...controlPlaneTemplates('l')],
    witnesses: ['l-capi-create-long-prefix', 'l-remove-unknown-alice'],
  },
  {
    // strictOwners and unverifiedRemoval belong to owner-only-removal: with the rule off neither applies.
    id: 'off',
    title:
      'owner-only-removal: off (strictOwners, unverifiedRemoval: deny set), hook-naming: off, deletion-freeze: warn',
    yaml: policyText([
      'strictOwners: true',
      'unverifiedRemoval: deny',
      'enforcement:',
      '  owner-only-removal: "off"',
      '  hook-naming: "off"',
      '  deletion-freeze: warn',
    ]),
    requests: [...creates('o'), ...removals('o'), ...controlPlaneTemplates('o')],
    witnesses: ['o-remove-knob-alice', 'o-capi-create-long-prefix', 'o-deleting-add'],
  },
];
