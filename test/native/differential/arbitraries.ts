// fast-check generators for the differential test: policies with random knobs, and reviews of every hook carrier
// by every kind of identity, built so that removals, re-owning, limits and stored violations come up often.
import fc from 'fast-check';
import { HOOK_ANNOTATION_PREFIX } from '../../../src/core/capi.js';
import { CARRIERS, MACHINE_STAGES, STAGES, type HookCarrier } from '../../../src/core/carriers.js';
import { WILDCARD_PROBE_OWNER } from '../../../src/core/ownership.js';
import { RULES } from '../../../src/core/registry.js';
import type { Enforcement, KubeObject, ReviewInput, Stage, TwinFact } from '../../../src/core/types.js';
import type { AuthzQuestion } from '../evaluator/cel.js';

export const ETCD_SA = 'system:serviceaccount:openshift-etcd-operator:etcd-operator';

/** The migration's synchronizer as the embedded default names it (policy.migration.synchronizers). */
export const SYNC_SA = 'system:serviceaccount:openshift-cluster-api:capi-controllers';

/** Owners of every kind: registered (by service account, user, group), granted through RBAC, unprotected, empty. */
export const OWNERS = {
  etcd: 'clusteroperator/etcd',
  storage: 'team/storage',
  net: 'team/net',
  granted: 'rbac.example.com/granted',
  unprotected: 'team/unprotected',
  other: 'someone/else',
  empty: '',
  short: 'ab',
  atLimit: `o/${'x'.repeat(510)}`,
  pastLimit: `o/${'x'.repeat(511)}`,
  control: 'team/tab\t-bell\x07-soh\x01',
} as const;

/** Who asks: each owner's identity, break-glass, an RBAC-granted user, wildcard rights, and anyone else. */
export const IDENTITIES = [
  { username: ETCD_SA, groups: ['system:serviceaccounts', 'system:serviceaccounts:openshift-etcd-operator'] },
  { username: 'bob', groups: ['system:authenticated'] },
  { username: 'nina', groups: ['netops', 'system:authenticated'] },
  { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
  { username: 'glass', groups: ['system:authenticated'] },
  { username: 'carol', groups: ['system:authenticated'] },
  { username: 'root', groups: ['system:authenticated'] },
  { username: 'alice', groups: ['system:authenticated'] },
  { username: 'Mallory.Upper', groups: ['system:authenticated'] },
  { username: SYNC_SA, groups: ['system:serviceaccounts', 'system:serviceaccounts:openshift-cluster-api'] },
  // The Machine controllers of the default machineControllers: only they end a hook-carrying Machine's deletion.
  {
    username: 'system:serviceaccount:openshift-machine-api:machine-api-controllers',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-api'],
  },
  { username: 'system:serviceaccount:capi-system:capi-manager', groups: ['system:serviceaccounts'] },
] as const;

/** The cluster's RBAC in this test: carol holds a named grant, root holds wildcard rights (cluster-admin). */
export function authorize(username: string): (q: AuthzQuestion) => boolean {
  return (q) =>
    q.group === 'hookkeeper.io' &&
    q.resource === 'hookowners' &&
    q.verb === 'remove' &&
    (username === 'root' || (username === 'carol' && q.name === OWNERS.granted));
}

/** What the webhook's RBAC facts say about one owner for that user (the transport's SubjectAccessReviews). */
export function accessOf(username: string, owner: string): 'allowed' | 'wildcard' | 'denied' {
  const ask = authorize(username);
  const q = (name: string): AuthzQuestion => ({
    group: 'hookkeeper.io',
    resource: 'hookowners',
    verb: 'remove',
    namespace: '',
    name,
  });
  if (!ask(q(owner))) return 'denied';
  return ask(q(WILDCARD_PROBE_OWNER)) ? 'wildcard' : 'allowed';
}

const LIST_NAMES = [
  'EtcdQuorumOperator',
  'drain-guard',
  'MigrateVolumes',
  'abc',
  'ab',
  'a'.repeat(64),
  'a'.repeat(256),
  'a'.repeat(257),
  // Valid on Machine API, no Cluster API key (capi-migration): a DNS prefix.
  'storage.example.com/MigrateVolumes',
  'bad name!',
  'ünïcode',
  '-lead',
  'x.y_z-9',
];
const CAPI_NAMES = [
  'EtcdQuorumOperator',
  'drain-guard',
  'migrate.volumes',
  'a'.repeat(63),
  'a'.repeat(64),
  'UPPER',
  'bad name',
  'has/slash',
  '',
  '-lead',
  'ünï',
];

const ADMISSION_RULES = RULES.filter(
  (r) => r.sources.includes('admission') && r.native !== undefined && !('webhookOnly' in r.native),
).map((r) => r.id);

/** A policy file's content (parsePolicy checks it), with random knobs. */
export const policyDocument = fc
  .record({
    strictOwners: fc.boolean(),
    unverifiedRemoval: fc.constantFrom('allow', 'warn', 'deny'),
    wildcardGrants: fc.constantFrom('deny', 'warn'),
    enforcement: fc.record(
      Object.fromEntries(
        ADMISSION_RULES.map((id) => [id, fc.constantFrom<Enforcement>('deny', 'deny', 'warn', 'off')]),
      ),
    ),
    breakGlassUser: fc.boolean(),
    maxHooksPerStage: fc.constantFrom(2, 3, 64),
    extraDefaultHooks: fc.subarray(['capi-machine', 'openshift-machineset', 'openshift-update'] as const),
    // The embedded default's synchronizer, or none (the migration's mirror route off).
    synchronizer: fc.boolean(),
    // Keys whose empty value stands for an owner: a registered one, one only RBAC grants, an unprotected one.
    impliedOwners: fc.subarray(
      [
        ['drain-guard', OWNERS.storage],
        ['migrate.volumes', OWNERS.granted],
        ['EtcdQuorumOperator', OWNERS.unprotected],
      ].flatMap(([name, owner]) =>
        MACHINE_STAGES.map((st) => ({ hook: `${HOOK_ANNOTATION_PREFIX[st]}/${name}`, owner })),
      ),
    ),
  })
  .map((k) => ({
    apiVersion: 'hookkeeper.io/v1alpha1',
    kind: 'Policy',
    enforcement: k.enforcement,
    strictOwners: k.strictOwners,
    unverifiedRemoval: k.unverifiedRemoval,
    wildcardGrants: k.wildcardGrants,
    maxHooksPerStage: k.maxHooksPerStage,
    ...(k.synchronizer ? {} : { migration: { synchronizers: [] } }),
    impliedOwners: k.impliedOwners,
    reservedHooks: [{ name: 'EtcdQuorumOperator', owner: OWNERS.etcd }],
    owners: {
      [OWNERS.etcd]: { serviceAccounts: [{ namespace: 'openshift-etcd-operator', name: 'etcd-operator' }] },
      [OWNERS.storage]: { users: ['bob'] },
      [OWNERS.net]: { groups: ['netops'] },
    },
    breakGlass: { groups: ['system:masters'], ...(k.breakGlassUser ? { users: ['glass'] } : {}) },
    defaultHooks: [
      {
        name: 'etcd-quorum-protection',
        match: {
          kinds: [{ group: 'machine.openshift.io', kind: 'Machine' }],
          namespaces: ['openshift-machine-api'],
          labelSelector: {
            matchExpressions: [
              { key: 'machine.openshift.io/cluster-api-machine-role', operator: 'In', values: ['master', 'arbiter'] },
            ],
          },
        },
        operations: k.extraDefaultHooks.includes('openshift-update') ? ['CREATE', 'UPDATE'] : ['CREATE'],
        stage: 'preDrain',
        hook: { name: 'EtcdQuorumOperator', owner: OWNERS.etcd },
      },
      ...(k.extraDefaultHooks.includes('capi-machine')
        ? [
            {
              name: 'capi-etcd',
              match: {
                kinds: [{ group: 'cluster.x-k8s.io', kind: 'Machine' }],
                labelSelector: { matchExpressions: [{ key: 'cluster.x-k8s.io/control-plane', operator: 'Exists' }] },
              },
              operations: ['CREATE'],
              stage: 'preDrain',
              hook: { name: 'EtcdQuorumOperator', owner: OWNERS.etcd },
            },
          ]
        : []),
      ...(k.extraDefaultHooks.includes('openshift-machineset')
        ? [
            {
              name: 'storage-drain',
              match: { kinds: [{ group: 'machine.openshift.io', kind: 'MachineSet' }], namespaces: ['team-a'] },
              operations: ['CREATE'],
              stage: 'preTerminate',
              hook: { name: 'MigrateVolumes', owner: OWNERS.storage },
            },
          ]
        : []),
    ],
  }));

interface RawHook {
  stage: Stage;
  name: string;
  owner: string;
}

const ownerArb = fc.constantFrom(...Object.values(OWNERS));
// Cluster API providers write their hooks with an empty value (impliedOwners): more often there.
const capiOwnerArb = fc.constantFrom(...Object.values(OWNERS), OWNERS.empty, OWNERS.empty);
const hookArb = (names: readonly string[], owner = ownerArb): fc.Arbitrary<RawHook> =>
  fc.record({ stage: fc.constantFrom(...STAGES), name: fc.constantFrom(...names), owner });
const hooksOf = (carrier: HookCarrier): fc.Arbitrary<RawHook> =>
  carrier.format === 'list' ? hookArb(LIST_NAMES) : hookArb(CAPI_NAMES, capiOwnerArb);

/** A hook list as a carrier holds it: list entries, or annotations (a key only starting with the prefix, too). */
function place(carrier: HookCarrier, hooks: readonly RawHook[], bareKey: boolean): unknown {
  if (carrier.format === 'list') {
    const out: Record<string, unknown> = {};
    for (const stage of STAGES) {
      const list = hooks.filter((h) => h.stage === stage).map((h) => ({ name: h.name, owner: h.owner }));
      if (list.length > 0) out[stage] = list;
    }
    return out;
  }
  const out: Record<string, string> = { 'example.com/other': 'kept' };
  for (const h of hooks) out[`${HOOK_ANNOTATION_PREFIX[h.stage]}/${h.name}`] = h.owner;
  if (bareKey) out[`${HOOK_ANNOTATION_PREFIX.preDrain}-extra`] = OWNERS.unprotected;
  return out;
}

function setPath(object: KubeObject, keys: readonly string[], value: unknown): void {
  let at = object;
  for (const key of keys.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as KubeObject;
  }
  at[keys.at(-1) as string] = value;
}

const KINDS: Record<string, { version: string; versions?: string[] }> = {
  'openshift-machine': { version: 'v1beta1' },
  'openshift-machineset': { version: 'v1beta1' },
  'openshift-controlplanemachineset': { version: 'v1' },
  'capi-machine': { version: 'v1beta1', versions: ['v1beta1', 'v1beta2'] },
  'capi-machineset': { version: 'v1beta1', versions: ['v1beta1', 'v1beta2'] },
  'capi-machinedeployment': { version: 'v1beta1', versions: ['v1beta1', 'v1beta2'] },
};

function objectOf(
  carrier: HookCarrier,
  version: string,
  namespace: string,
  hooks: readonly RawHook[],
  labels: Record<string, string>,
  opts: { bareKey: boolean; deleting: boolean; finalizers: boolean },
): KubeObject {
  const object: KubeObject = {
    apiVersion: `${carrier.group}/${version}`,
    kind: carrier.kind,
    metadata: {
      name: 'm-0',
      namespace,
      labels,
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      // The controller's finalizer of the carrier's API (controller-finalizer holds it on a Machine with hooks).
      ...(opts.finalizers ? { finalizers: [`machine.${carrier.group}`] } : {}),
    },
    spec: { providerID: 'aws:///eu-1/i-1' },
  };
  const placed = place(carrier, hooks, opts.bareKey);
  if (carrier.format === 'list' || Object.keys(placed as object).length > 0) setPath(object, carrier.root, placed);
  return object;
}

const isMachineAPIMachine = (c: HookCarrier): boolean => c.group === 'machine.openshift.io' && c.kind === 'Machine';

/** spec.authoritativeAPI and status.authoritativeAPI as a TechPreview Machine API Machine carries them. */
function authoritativeAPI(object: KubeObject, api: { status: string | undefined; spec: string | undefined }): void {
  if (api.spec !== undefined) setPath(object, ['spec', 'authoritativeAPI'], api.spec);
  if (api.status !== undefined) setPath(object, ['status', 'authoritativeAPI'], api.status);
}

/**
 * The other copy of a Machine as the webhook's transport would find it (src/infrastructure/kube/twin-context.ts): with the stored
 * hooks, the new ones (the removal already made there) or none; or a failed lookup. Other kinds have no twin.
 */
function twinOf(
  carrier: HookCarrier,
  kind: string,
  hooks: readonly RawHook[],
  api: { status: string | undefined; spec: string | undefined },
): TwinFact | undefined {
  if (carrier.kind !== 'Machine' || kind === 'absent') return undefined;
  if (kind === 'failed') return { found: false, reason: 'Timeout', message: 'no answer within 1500 ms' };
  const other = CARRIERS.find((o) => o.kind === 'Machine' && o.group !== carrier.group) as HookCarrier;
  const opts = { bareKey: false, deleting: false, finalizers: false };
  const namespace = isMachineAPIMachine(other) ? 'openshift-machine-api' : 'openshift-cluster-api';
  const object = objectOf(other, KINDS[other.id]?.version ?? 'v1beta1', namespace, hooks, {}, opts);
  if (isMachineAPIMachine(other)) authoritativeAPI(object, api);
  return { found: true, object };
}

/** The synchronizer's UPDATE of one copy of a migrated Machine, in that copy's namespace. */
function migrationCase(side: 'MachineAPI' | 'ClusterAPI') {
  const group = side === 'MachineAPI' ? 'machine.openshift.io' : 'cluster.x-k8s.io';
  return {
    carrier: CARRIERS.find((o) => o.kind === 'Machine' && o.group === group) as HookCarrier,
    namespace: side === 'MachineAPI' ? 'openshift-machine-api' : 'openshift-cluster-api',
    user: IDENTITIES.find((u) => u.username === SYNC_SA) as (typeof IDENTITIES)[number],
    operation: 'UPDATE' as const,
  };
}

/**
 * Owner references as a Machine carries them (its MachineSet's, with or without controller: true; a second
 * controller only here, as the API server itself refuses one). Each kind/name once per list: where a controller's
 * kind/name comes twice the engines' ratchets differ (the webhook compares violation keys, the CEL any stored
 * controller), a divergence the API server's own check makes unreachable; not covered here.
 */
const refsArb = fc
  .uniqueArray(fc.tuple(fc.constantFrom('MachineSet', 'Cluster'), fc.constantFrom('a', 'b', 'c')), {
    maxLength: 3,
    selector: ([kind, name]) => `${kind}/${name}`,
  })
  .chain((refs) =>
    fc.tuple(
      fc.constant(refs),
      fc.array(fc.constantFrom(true, false, undefined), { minLength: refs.length, maxLength: refs.length }),
    ),
  )
  .map(([refs, controllers]) =>
    refs.map(([kind, name], i) => ({
      apiVersion: 'machine.openshift.io/v1beta1',
      kind,
      name,
      uid: `uid-${kind}-${name}`,
      ...(controllers[i] === undefined ? {} : { controller: controllers[i] }),
    })),
  );

/** A review and the identity's RBAC, from which the test builds both engines' inputs. */
export interface Case {
  policy: number;
  input: ReviewInput;
}

/** How the new hooks derive from the stored ones: kept, removed, re-owned, renamed; plus some added. */
const editArb = fc.constantFrom('keep', 'keep', 'remove', 'reown', 'rename');

export function caseArb(policies: number): fc.Arbitrary<Case> {
  return fc
    .record({
      policy: fc.nat({ max: policies - 1 }),
      carrier: fc.constantFrom(...CARRIERS.filter((c) => KINDS[c.id] !== undefined)),
      v2: fc.boolean(),
      namespace: fc.constantFrom('openshift-machine-api', 'openshift-cluster-api', 'team-a', 'default'),
      role: fc.constantFrom('master', 'worker', 'arbiter', undefined),
      capiControlPlane: fc.boolean(),
      user: fc.constantFrom(...IDENTITIES),
      operation: fc.constantFrom('CREATE', 'UPDATE', 'UPDATE'),
      stored: fc.array(fc.tuple(editArb, ownerArb), { maxLength: 5 }),
      added: fc.array(fc.boolean(), { maxLength: 3 }),
      bareKey: fc.boolean(),
      deleting: fc.constantFrom(false, false, true),
      finalizers: fc.boolean(),
      // The stored object had the finalizer the update removes (a live Machine's, or a deleting one's last).
      storedFinalizers: fc.boolean(),
      relabel: fc.boolean(),
      // The Machine API CRDs' list-map key refuses a name twice in a stage: rare here, and declared where it matters.
      duplicates: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
      dryRun: fc.boolean(),
      // Owner references: none (half the reviews) or a list; the stored object's the same, none or its own.
      refs: fc.option(refsArb, { freq: 2 }),
      storedRefs: fc.oneof(fc.constant('same' as const), fc.option(refsArb)),
      // The migration: the Machine API copy's authoritativeAPI (status, spec), and the twin the transport found.
      authoritative: fc.constantFrom(undefined, 'MachineAPI', 'ClusterAPI', 'Migrating'),
      specAuthoritative: fc.constantFrom(undefined, 'MachineAPI', 'ClusterAPI'),
      twin: fc.constantFrom('absent', 'failed', 'stored', 'new', 'new', 'empty'),
      // One review in four is the synchronizer's UPDATE of a Machine in its API's migration namespace.
      migrating: fc.constantFrom<'no' | 'MachineAPI' | 'ClusterAPI'>(
        'no',
        'no',
        'no',
        'no',
        'no',
        'no',
        'MachineAPI',
        'ClusterAPI',
      ),
    })
    .map((c) => (c.migrating === 'no' ? c : { ...c, ...migrationCase(c.migrating) }))
    .chain((c) =>
      fc
        .tuple(
          fc.array(hooksOf(c.carrier), {
            minLength: c.stored.length,
            maxLength: c.stored.length,
          }),
          fc.array(hooksOf(c.carrier), {
            minLength: c.added.length,
            maxLength: c.added.length,
          }),
        )
        .map(([storedHooks, addedHooks]): Case => {
          const kind = KINDS[c.carrier.id] as { version: string; versions?: string[] };
          const unique = (hooks: RawHook[]): RawHook[] =>
            c.duplicates || c.carrier.format !== 'list'
              ? hooks
              : hooks.filter((h, i) => hooks.findIndex((o) => o.stage === h.stage && o.name === h.name) === i);
          const version = c.v2 && kind.versions ? 'v1beta2' : kind.version;
          const labels: Record<string, string> = {};
          if (c.role) labels['machine.openshift.io/cluster-api-machine-role'] = c.role;
          if (c.capiControlPlane) labels['cluster.x-k8s.io/control-plane'] = '';
          const stored = unique(storedHooks);
          const newHooks: RawHook[] = [];
          stored.forEach((h, i) => {
            const [edit, owner] = c.stored[i] as [string, string];
            if (edit === 'keep') newHooks.push(h);
            else if (edit === 'reown') newHooks.push({ ...h, owner });
            else if (edit === 'rename') newHooks.push({ ...h, name: `${h.name}x` });
          });
          const hooks = unique([...newHooks, ...addedHooks]);
          // Only a stored object can be deleting: the API server clears deletionTimestamp on CREATE.
          const deleting = c.deleting && c.operation === 'UPDATE';
          const opts = { bareKey: c.bareKey, deleting, finalizers: c.finalizers };
          const object = objectOf(c.carrier, version, c.namespace, hooks, labels, opts);
          const oldLabels = c.relabel ? {} : labels;
          const oldObject =
            c.operation === 'UPDATE'
              ? objectOf(c.carrier, version, c.namespace, stored, oldLabels, {
                  ...opts,
                  finalizers: c.finalizers || deleting || c.storedFinalizers,
                })
              : null;
          const setRefs = (o: KubeObject | null, refs: unknown[] | null) => {
            if (o && refs) (o['metadata'] as KubeObject)['ownerReferences'] = refs;
          };
          setRefs(object, c.refs);
          setRefs(oldObject, c.storedRefs === 'same' ? c.refs : c.storedRefs);
          const migration = { status: c.authoritative, spec: c.specAuthoritative };
          for (const o of [object, oldObject]) if (o && isMachineAPIMachine(c.carrier)) authoritativeAPI(o, migration);
          const twinHooks = c.twin === 'stored' ? stored : c.twin === 'new' ? hooks : [];
          const twin = c.operation === 'UPDATE' ? twinOf(c.carrier, c.twin, twinHooks, migration) : undefined;
          return {
            policy: c.policy,
            input: {
              operation: c.operation,
              kind: { group: c.carrier.group, version, kind: c.carrier.kind },
              namespace: c.namespace,
              name: 'm-0',
              object,
              oldObject,
              userInfo: { username: c.user.username, groups: [...c.user.groups] },
              dryRun: c.dryRun,
              ...(twin ? { context: { twin } } : {}),
            },
          };
        }),
    );
}

/**
 * A Machine with a stage past one CHUNK of native naming checks (1,200 hooks: src/rules/hook-naming/cel.ts), with a few
 * bad names anywhere in it, stored or new: what only the later slices of the check see.
 */
export function largeStageArb(chunk: number): fc.Arbitrary<ReviewInput> {
  return fc
    .record({
      size: fc.integer({ min: chunk - 10, max: 2 * chunk + 50 }),
      bad: fc.array(fc.tuple(fc.nat(), fc.constantFrom('ab', 'bad name!', 'a'.repeat(257))), { maxLength: 3 }),
      storedBad: fc.array(fc.nat(), { maxLength: 2 }),
      operation: fc.constantFrom('CREATE', 'UPDATE'),
      stage: fc.constantFrom(...STAGES),
    })
    .map(({ size, bad, storedBad, operation, stage }): ReviewInput => {
      const hooks = Array.from({ length: size }, (_, i) => ({ stage, name: `Hook${i}`, owner: OWNERS.storage }));
      const stored = hooks.map((h) => ({ ...h }));
      for (const [at, name] of bad) (hooks[at % size] as RawHook).name = name;
      // Stored violations are ratcheted: kept in the new object too, where no bad name replaced them.
      for (const at of storedBad) {
        const name = `bad stored ${at % size}`;
        (stored[at % size] as RawHook).name = name;
        if ((hooks[at % size] as RawHook).name.startsWith('Hook')) (hooks[at % size] as RawHook).name = name;
      }
      const carrier = CARRIERS[0] as HookCarrier;
      const opts = { bareKey: false, deleting: false, finalizers: true };
      const object = objectOf(carrier, 'v1beta1', 'team-a', hooks, { role: 'worker' }, opts);
      return {
        operation,
        kind: { group: carrier.group, version: 'v1beta1', kind: carrier.kind },
        namespace: 'team-a',
        name: 'm-0',
        object,
        oldObject:
          operation === 'UPDATE' ? objectOf(carrier, 'v1beta1', 'team-a', stored, { role: 'worker' }, opts) : null,
        userInfo: { username: 'bob', groups: ['system:authenticated'] },
        dryRun: false,
      };
    });
}
