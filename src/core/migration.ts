// OpenShift's Machine API to Cluster API migration: each Machine exists as machine.openshift.io (policy.migration's
// machineAPINamespace) and cluster.x-k8s.io (clusterAPINamespace), the same name, and a synchronization controller
// mirrors the authoritative copy onto the other: a preDrain {name, owner} is the annotation
// "pre-drain.delete.hook.machine.cluster.x-k8s.io/<name>: <owner>". When an owner removes its hook on the
// authoritative copy, the synchronizer removes the mirror: that removal is the owner's, carried over, and is allowed
// here only when the twin (looked up by the transport) shows the hook gone from the authoritative copy. That proof
// holds only if no one but the owner could have made a copy without the hook (issue #34.4): a CREATE of a copy that
// leaves out hooks its existing twin carries is judged too (twinHooksLeftOut, rules/twin-create.ts).
import { CAPI_GROUP, hookAnnotationKey } from './capi.js';
import { carrierFor, wellFormed, type Hook, type HookCarrier, type RawHook } from './carriers.js';
import { dig } from './guards.js';
import { controllerUsernames } from './machine-controllers.js';
import { addedHooks, changedHooks, type HookChange } from './ownership.js';
import { serviceAccountUsername, type Policy } from './policy.js';
import { KNOWN_RESOURCES } from './resources.js';
import type { KubeObject, ReviewInput, TwinFact, UserInfo } from './types.js';

export const MAPI_GROUP = 'machine.openshift.io';

/** Which API's copy of a migrated Machine is authoritative. */
export type MachineAPISide = 'MachineAPI' | 'ClusterAPI';

/** status.authoritativeAPI's values (the TechPreview Machine CRD's enum). */
const SIDES: readonly string[] = ['MachineAPI', 'ClusterAPI'];

/** The copy a review is about, from its kind and namespace: a Machine in its API's migration namespace, else none. */
export function migrationSide(
  policy: Policy,
  input: Pick<ReviewInput, 'kind' | 'namespace'>,
): MachineAPISide | undefined {
  const { group, kind } = input.kind;
  if (kind !== 'Machine') return undefined;
  if (group === MAPI_GROUP && input.namespace === policy.migration.machineAPINamespace) return 'MachineAPI';
  if (group === CAPI_GROUP && input.namespace === policy.migration.clusterAPINamespace) return 'ClusterAPI';
  return undefined;
}

export function isSynchronizer(policy: Policy, user: UserInfo): boolean {
  return policy.migration.synchronizers.some((sa) => serviceAccountUsername(sa) === user.username);
}

/**
 * The authoritative side a Machine API Machine names. status.authoritativeAPI is what the migration controller has
 * settled; while it says Migrating, authority is being handed to the side spec.authoritativeAPI names (a cancelled
 * migration names the side it returns to), so that side counts and the other is the one being mirrored onto. Absent
 * or unknown values name no side: nothing is mirrored.
 */
export function authoritativeSide(machineAPIObject: KubeObject | null): MachineAPISide | undefined {
  const status = dig(machineAPIObject, ['status', 'authoritativeAPI']);
  const value = status === 'Migrating' ? dig(machineAPIObject, ['spec', 'authoritativeAPI']) : status;
  return typeof value === 'string' && SIDES.includes(value) ? (value as MachineAPISide) : undefined;
}

/** The other copy's API resource, with its name and namespace: what the transport GETs. */
export interface TwinRequest {
  apiVersion: string;
  kind: string;
  resource: string;
  namespaced: true;
  namespace: string;
  name: string;
  /** "<apiVersion>/<kind>/<namespace>/<name>", for logs. */
  key: string;
}

/** The Machine's name: the request's, else (a CREATE that names it) the object's. */
export function reviewName(input: ReviewInput): string | undefined {
  if (input.name) return input.name;
  const name = dig(input.object, ['metadata', 'name']);
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * Whether a CREATE is judged against its twin: a Machine in its API's migration namespace, while the mirror route is
 * on (some synchronizer), made by neither a synchronizer nor the kind's machine controller, who copy or make Machines
 * and are trusted with hooks already. The validating webhook's CREATE condition sends exactly these (and those
 * carrying hooks): src/core/cel/webhook-conditions.ts.
 */
export function createJudgedAgainstTwin(
  policy: Policy,
  input: Pick<ReviewInput, 'operation' | 'kind' | 'namespace' | 'userInfo'>,
): boolean {
  const carrier = carrierFor(input.kind);
  const judged = input.operation === 'CREATE' && carrier ? twinJudgedOnCreate(policy, carrier) : undefined;
  return (
    judged !== undefined && judged.namespace === input.namespace && !judged.trusted.includes(input.userInfo.username)
  );
}

/**
 * Whether CREATEs of `carrier` are ever judged against a twin under `policy`, and where and whose: a Machine kind of
 * either API, in that API's migration namespace, by anyone but the synchronizers and the kind's machine controllers.
 */
export function twinJudgedOnCreate(
  policy: Policy,
  carrier: HookCarrier,
): { namespace: string; trusted: string[] } | undefined {
  if (carrier.kind !== 'Machine' || policy.migration.synchronizers.length === 0) return undefined;
  const namespace =
    carrier.group === MAPI_GROUP
      ? policy.migration.machineAPINamespace
      : carrier.group === CAPI_GROUP
        ? policy.migration.clusterAPINamespace
        : undefined;
  if (namespace === undefined) return undefined;
  const trusted = [
    ...policy.migration.synchronizers.map(serviceAccountUsername),
    ...controllerUsernames(policy, carrier),
  ];
  return { namespace, trusted };
}

/** An UPDATE by a synchronizer that removes or adds (not re-owns) a hook: either may mirror the authoritative copy. */
function mayMirror(policy: Policy, input: ReviewInput): boolean {
  if (input.operation !== 'UPDATE' || !isSynchronizer(policy, input.userInfo)) return false;
  const carrier = carrierFor(input.kind);
  if (!carrier || input.object === null || input.oldObject === null) return false;
  const [hooks, oldHooks] = [carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks];
  const changes = changedHooks(hooks, oldHooks);
  return changes.some((c) => c.now === undefined) || newHooks(hooks, oldHooks).length > 0;
}

/**
 * The twin to look up before this review, if any: an UPDATE by a synchronizer that removes or adds a hook of a
 * Machine in one of the two migration namespaces, or a CREATE there judged against its twin. Everyone else's
 * review costs no lookup.
 */
export function twinRequest(policy: Policy, input: ReviewInput): TwinRequest | undefined {
  const side = migrationSide(policy, input);
  const name = reviewName(input);
  if (side === undefined || name === undefined) return undefined;
  if (input.operation === 'CREATE' ? !createJudgedAgainstTwin(policy, input) : !mayMirror(policy, input))
    return undefined;
  const group = side === 'MachineAPI' ? CAPI_GROUP : MAPI_GROUP;
  const resource = KNOWN_RESOURCES.find((r) => r.group === group && r.kind === 'Machine');
  if (!resource) return undefined;
  const apiVersion = `${group}/${resource.version}`;
  const namespace = side === 'MachineAPI' ? policy.migration.clusterAPINamespace : policy.migration.machineAPINamespace;
  return {
    apiVersion,
    kind: 'Machine',
    resource: resource.plural,
    namespaced: true,
    namespace,
    name,
    key: `${apiVersion}/Machine/${namespace}/${name}`,
  };
}

/** The hooks a request adds where the stored object had none of that identity: additions, not re-ownings. */
function newHooks(hooks: readonly RawHook[], oldHooks: readonly RawHook[]): Hook[] {
  const before = new Set(wellFormed(oldHooks).map((h) => `${h.stage}\u0000${h.id}`));
  return addedHooks(hooks, oldHooks).filter((h) => !before.has(`${h.stage}\u0000${h.id}`));
}

/** A hook as the migration maps it: its Cluster API annotation key (a Machine API {name} becomes "<prefix>/<name>"). */
const mirrorKey = (carrier: HookCarrier, h: Pick<Hook, 'stage' | 'name' | 'id'>): string =>
  `${h.stage}\u0000${carrier.format === 'list' ? hookAnnotationKey(h.stage, h.name) : h.id}`;

/** The authoritative twin's hooks, keyed as the migration maps them, when this review is a synchronizer's mirror. */
function authoritativeHooks(policy: Policy, input: ReviewInput): { carrier: HookCarrier; twin: Hook[] } | undefined {
  const side = migrationSide(policy, input);
  if (side === undefined || input.operation !== 'UPDATE' || !isSynchronizer(policy, input.userInfo)) return undefined;
  const twin: TwinFact | undefined = input.context?.twin;
  if (!twin?.found) return undefined;
  const machineAPIObject = side === 'MachineAPI' ? input.oldObject : twin.object;
  const authoritative = authoritativeSide(machineAPIObject);
  if (authoritative === undefined || authoritative === side) return undefined;
  const twinCarrier = twinCarrierOf(side);
  const carrier = carrierFor(input.kind);
  if (!twinCarrier || !carrier) return undefined;
  const hooks = wellFormed(twinCarrier.read(twin.object).hooks);
  return { carrier, twin: hooks.map((h) => ({ ...h, id: mirrorKey(twinCarrier, h) })) };
}

/**
 * Whether a synchronizer's removals on this copy are mirrors, hook by hook: a predicate over the request's hook
 * changes, or undefined when none can be (another user, another object, no twin found, this copy authoritative).
 * A mirror removes a hook (never re-owns one) that the authoritative twin no longer has in that stage, under any owner.
 */
export function mirroredRemovals(policy: Policy, input: ReviewInput): ((change: HookChange) => boolean) | undefined {
  const found = authoritativeHooks(policy, input);
  if (!found) return undefined;
  const onAuthoritative = new Set(found.twin.map((h) => h.id));
  return (change) => change.now === undefined && !onAuthoritative.has(mirrorKey(found.carrier, change.old));
}

/**
 * Whether a synchronizer's additions on this copy are mirrors, under the same conditions as its removals: a hook
 * the authoritative twin has in that stage, with the same owner (the owner put it there, or its squat was judged).
 */
export function mirroredAdditions(policy: Policy, input: ReviewInput): ((hook: Hook) => boolean) | undefined {
  const found = authoritativeHooks(policy, input);
  if (!found) return undefined;
  const onAuthoritative = new Set(found.twin.map((h) => `${h.id}\u0000${h.owner}`));
  const added = new Set(
    newHooks(found.carrier.read(input.object).hooks, found.carrier.read(input.oldObject).hooks).map((h) => h.path),
  );
  // A mirror adds (never re-owns) a hook the twin has, with its owner.
  return (hook) => added.has(hook.path) && onAuthoritative.has(`${mirrorKey(found.carrier, hook)}\u0000${hook.owner}`);
}

/** The twin's carrier: the other API's Machine. */
function twinCarrierOf(side: MachineAPISide): HookCarrier | undefined {
  return carrierFor({ group: side === 'MachineAPI' ? CAPI_GROUP : MAPI_GROUP, version: '', kind: 'Machine' });
}

/** What a CREATE judged against its twin leaves out: the twin's hooks it lacks, or why the twin could not be read. */
export interface TwinLeftOut {
  /** The twin, "<group>/Machine <namespace>/<name>", for the messages. */
  twin: string;
  /** The twin's hooks the new copy does not carry with the same name, stage and owner (a re-owned hook counts). */
  hooks: Hook[];
  /** The lookup failed (not NotFound): nothing shows what the copy must carry. */
  unread?: string;
}

/**
 * A CREATE judged against its twin (createJudgedAgainstTwin), with the twin the transport read: the hooks of the twin
 * the new copy leaves out, as the migration maps them. Undefined when not judged, when nothing was looked up (no
 * cluster: then no mirror is ever verified either), or when there is no twin.
 */
export function twinHooksLeftOut(policy: Policy, input: ReviewInput): TwinLeftOut | undefined {
  if (!createJudgedAgainstTwin(policy, input)) return undefined;
  const twin = input.context?.twin;
  const side = migrationSide(policy, input);
  const carrier = carrierFor(input.kind);
  if (twin === undefined || side === undefined || !carrier) return undefined;
  const twinCarrier = twinCarrierOf(side);
  if (!twinCarrier) return undefined;
  const namespace = side === 'MachineAPI' ? policy.migration.clusterAPINamespace : policy.migration.machineAPINamespace;
  const described = `${twinCarrier.group}/Machine ${namespace}/${reviewName(input) ?? ''}`;
  if (!twin.found) return twin.reason === 'NotFound' ? undefined : { twin: described, hooks: [], unread: twin.reason };
  const carried = new Set(
    wellFormed(carrier.read(input.object).hooks).map((h) => `${mirrorKey(carrier, h)}\u0000${h.owner}`),
  );
  const hooks = wellFormed(twinCarrier.read(twin.object).hooks).filter(
    (h) => !carried.has(`${mirrorKey(twinCarrier, h)}\u0000${h.owner}`),
  );
  return { twin: described, hooks };
}

/** A Machine API Machine's migration fields, as `audit` reports them; undefined when status names no API. */
export interface MigrationState {
  /** status.authoritativeAPI as stored: MachineAPI, ClusterAPI or Migrating. */
  status: string;
  /** spec.authoritativeAPI, where set: the side asked for. */
  spec?: string;
  /** The side hookkeeper treats as authoritative (authoritativeSide); absent when none is. */
  authoritative?: MachineAPISide;
}

export function migrationState(machineAPIObject: KubeObject): MigrationState | undefined {
  const status = dig(machineAPIObject, ['status', 'authoritativeAPI']);
  if (typeof status !== 'string' || status === '') return undefined;
  const spec = dig(machineAPIObject, ['spec', 'authoritativeAPI']);
  const authoritative = authoritativeSide(machineAPIObject);
  return {
    status,
    ...(typeof spec === 'string' ? { spec } : {}),
    ...(authoritative ? { authoritative } : {}),
  };
}
