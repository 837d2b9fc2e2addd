// `explain` against a live cluster: find the Machine (either API, at the version the cluster prefers), then gather
// what the explanation needs: RBAC grants of its owners, their service accounts, its Node, the etcd ClusterOperator,
// and for a control-plane Machine the Machines of its namespace (its cluster's quorum standing).
// A fact that cannot be read is unknown with the reason; only finding the Machine itself can fail the command.
import { isRecord } from '../../core/guards.js';
import { wellFormed } from '../../core/carriers.js';
import { registeredIdentities } from '../../core/ownership.js';
import type { Policy } from '../../core/policy.js';
import type { KubeObject } from '../../core/types.js';
import { clusterOperatorsFor } from '../../core/explain/known-owners.js';
import { machineCarrier } from '../../core/explain/explain.js';
import type { ConditionFact, ExplainFacts, GrantSubjectFact, Unknown } from '../../core/explain/model.js';
import { listOwnerGrants } from '../../infrastructure/kube/rbac-snapshot.js';
import { AppError, describeError } from '../../errors.js';
import { accessGet, type ApiResponse, type ClusterAccess } from '../../infrastructure/kube/api-requests.js';
import { withDeadline } from '../../infrastructure/kube/deadline.js';
import { clusterError, responseError } from '../../infrastructure/kube/errors.js';
import type { Lister } from '../../infrastructure/kube/types.js';
import { quorumHookOf } from '../../core/quorum.js';
import { qualified, type Target } from './target.js';

/** Each GET's bound: explain asks a handful of questions, one at a time. */
const GET_TIMEOUT_MS = 30_000;

export interface ClusterDeps {
  access: ClusterAccess;
  lister: Lister;
  serviceAccountExists: (namespace: string, name: string) => Promise<boolean>;
}

async function get(access: ClusterAccess, path: string, action: string): Promise<ApiResponse> {
  try {
    return await withDeadline(GET_TIMEOUT_MS, (signal) => accessGet(access)(path, signal));
  } catch (err) {
    throw clusterError(err, { server: access.server, action });
  }
}

/** The version the cluster prefers for a group (discovery), or undefined when it does not serve the group. */
async function preferredVersion(access: ClusterAccess, group: string): Promise<string | undefined> {
  const res = await get(access, `/apis/${group}`, `discover API group ${group}`);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw responseError(res, { server: access.server, action: `discover API group ${group}` });
  const preferred = isRecord(res.body) && isRecord(res.body['preferredVersion']) ? res.body['preferredVersion'] : {};
  return typeof preferred['version'] === 'string' ? preferred['version'] : undefined;
}

/** Machines of one group named `name`: in `namespace`, or (no -n) in any namespace, by a field selector. */
async function machinesNamed(
  access: ClusterAccess,
  group: string,
  version: string,
  name: string,
  namespace: string | undefined,
): Promise<KubeObject[]> {
  const base = `/apis/${group}/${version}`;
  const action = `read ${qualified(group, name)}${namespace ? ` in namespace ${namespace}` : ''}`;
  const path = namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/machines/${encodeURIComponent(name)}`
    : `${base}/machines?${new URLSearchParams({ fieldSelector: `metadata.name=${name}` }).toString()}`;
  const res = await get(access, path, action);
  if (namespace && res.status === 404) return [];
  if (res.status !== 200 || !isRecord(res.body)) throw responseError(res, { server: access.server, action });
  if (namespace) return [res.body];
  return Array.isArray(res.body['items']) ? res.body['items'].filter(isRecord) : [];
}

const where = (o: KubeObject): string => {
  const ns = isRecord(o['metadata']) ? o['metadata']['namespace'] : undefined;
  return typeof ns === 'string' ? ns : '';
};

/** The Machine the target names (in `namespace`, or in any): exactly one, or an error saying what was found. */
export async function findMachine(
  access: ClusterAccess,
  target: Target,
  namespace: string | undefined,
): Promise<KubeObject> {
  const name = target.name ?? '';
  const found: Array<{ group: string; object: KubeObject }> = [];
  const served: string[] = [];
  for (const group of target.groups) {
    const version = await preferredVersion(access, group);
    if (!version) continue;
    served.push(`machines.${group}/${version}`);
    for (const object of await machinesNamed(access, group, version, name, namespace)) found.push({ group, object });
  }
  if (served.length === 0)
    throw new AppError(
      'CLUSTER',
      `CRD not installed: this cluster serves no ${target.groups.map((g) => `machines.${g}`).join(' or ')}`,
    );
  if (found.length > 1)
    throw new AppError(
      'USAGE',
      `"${name}" is ambiguous: ${found.length} Machines have that name; give one of ` +
        found.map((f) => `${qualified(f.group, name)} -n ${where(f.object)}`).join(', '),
    );
  const only = found[0];
  if (!only)
    throw new AppError(
      'INPUT_INVALID',
      `no Machine "${name}" ${namespace ? `in namespace ${namespace}` : 'in any namespace'} (looked in ${served.join(', ')})`,
    );
  return only.object;
}

function unknown(reason: string): Unknown {
  return { status: 'unknown', reason };
}

/** Why a GET did not give the object: the API server's words, shortened. */
function failure(res: ApiResponse): string {
  const message = isRecord(res.body) && typeof res.body['message'] === 'string' ? `: ${res.body['message']}` : '';
  return `HTTP ${res.status}${message}`;
}

async function nodeFact(access: ClusterAccess, obj: KubeObject): Promise<ExplainFacts['node']> {
  const status = isRecord(obj['status']) ? obj['status'] : {};
  const ref = isRecord(status['nodeRef']) ? status['nodeRef'] : {};
  if (typeof ref['name'] !== 'string' || ref['name'] === '') return unknown('no status.nodeRef');
  try {
    const res = await get(access, `/api/v1/nodes/${encodeURIComponent(ref['name'])}`, `read node ${ref['name']}`);
    if (res.status === 404) return { status: 'absent' };
    if (res.status !== 200 || !isRecord(res.body)) return unknown(`cannot read Node ${ref['name']}: ${failure(res)}`);
    const spec = isRecord(res.body['spec']) ? res.body['spec'] : {};
    return { status: 'present', unschedulable: spec['unschedulable'] === true };
  } catch (err) {
    return unknown(describeError(err));
  }
}

function conditionsOf(body: unknown): ConditionFact[] {
  const status = isRecord(body) && isRecord(body['status']) ? body['status'] : {};
  const list = Array.isArray(status['conditions']) ? status['conditions'] : [];
  return list.flatMap((c: unknown) =>
    isRecord(c) && typeof c['type'] === 'string' && typeof c['status'] === 'string'
      ? [
          {
            type: c['type'],
            status: c['status'],
            ...(typeof c['reason'] === 'string' ? { reason: c['reason'] } : {}),
            ...(typeof c['message'] === 'string' ? { message: c['message'] } : {}),
          },
        ]
      : [],
  );
}

async function clusterOperatorFacts(
  access: ClusterAccess,
  names: readonly string[],
): Promise<ExplainFacts['clusterOperators']> {
  const out: Record<string, ExplainFacts['clusterOperators'][string]> = {};
  for (const name of names) {
    const action = `read ClusterOperator ${name}`;
    try {
      const res = await get(
        access,
        `/apis/config.openshift.io/v1/clusteroperators/${encodeURIComponent(name)}`,
        action,
      );
      out[name] =
        res.status === 200
          ? { status: 'found', conditions: conditionsOf(res.body) }
          : res.status === 404
            ? unknown(`ClusterOperator ${name} not found (not an OpenShift cluster?)`)
            : unknown(`cannot ${action}: ${failure(res)}`);
    } catch (err) {
      out[name] = unknown(describeError(err));
    }
  }
  return out;
}

/** At most this many Machines are read from the namespace for the quorum standing (a control plane is a few). */
const QUORUM_LIST_LIMIT = 10_000;

/**
 * A control-plane Machine's quorum fact: the Machines of its namespace, at the version it was read at (a cluster is
 * one namespace's Machines sharing the cluster label; the core picks them). Undefined for a Machine no quorum hook
 * selects; unknown, with the reason, when they cannot be listed.
 */
async function quorumFact(deps: ClusterDeps, policy: Policy, obj: KubeObject): Promise<ExplainFacts['quorum']> {
  const carrier = machineCarrier(obj);
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const meta = isRecord(obj['metadata']) ? obj['metadata'] : {};
  const namespace = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
  if (!carrier || !quorumHookOf(policy, { group: carrier.group, version: '', kind: carrier.kind }, obj))
    return undefined;
  const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
  const resource = { group: carrier.group, version, plural: 'machines', namespaced: true };
  const machines: KubeObject[] = [];
  try {
    for await (const page of deps.lister.list(resource, namespace)) {
      machines.push(...page);
      if (machines.length > QUORUM_LIST_LIMIT)
        return unknown(`more than ${QUORUM_LIST_LIMIT} Machines in namespace ${namespace}: not read for the quorum`);
    }
  } catch (err) {
    return unknown(`cannot list the Machines of namespace ${namespace}: ${describeError(err)}`);
  }
  return { status: 'known', machines };
}

/** Everything the explanation needs from the cluster besides the Machine. */
export async function gatherFacts(
  deps: ClusterDeps,
  policy: Policy,
  obj: KubeObject,
  nowMs: number,
): Promise<{ facts: ExplainFacts; notes: string[] }> {
  const notes: string[] = [];
  const carrier = machineCarrier(obj);
  const hooks = carrier ? wellFormed(carrier.read(obj).hooks) : [];
  const meta = isRecord(obj['metadata']) ? obj['metadata'] : {};
  const namespace = typeof meta['namespace'] === 'string' ? meta['namespace'] : undefined;

  const index = await listOwnerGrants(deps.lister, notes, namespace);
  const byOwner: Record<string, GrantSubjectFact[]> = {};
  if (index) for (const h of hooks) byOwner[h.owner] ??= index.subjectsFor(h.owner, namespace);
  const grants: ExplainFacts['grants'] = index
    ? { status: 'known', byOwner }
    : unknown(notes.at(-1) ?? 'RBAC not listed');

  // The service accounts that could remove a hook: registered ones, and those RBAC grants name.
  const accounts = new Set<string>();
  for (const h of hooks)
    for (const sa of registeredIdentities(policy, h.owner)?.serviceAccounts ?? [])
      accounts.add(`${sa.namespace}/${sa.name}`);
  for (const subjects of Object.values(byOwner))
    for (const s of subjects) if (s.kind === 'ServiceAccount' && s.namespace) accounts.add(`${s.namespace}/${s.name}`);
  const found: Record<string, boolean> = {};
  for (const key of accounts) {
    const [ns = '', name = ''] = key.split('/');
    try {
      found[key] = await deps.serviceAccountExists(ns, name);
    } catch (err) {
      notes.push(`cannot check service account ${key}: ${describeError(err)}`);
    }
  }
  const quorum = await quorumFact(deps, policy, obj);
  return {
    facts: {
      source: 'cluster',
      nowMs,
      grants,
      serviceAccounts: { status: 'known', found },
      node: await nodeFact(deps.access, obj),
      clusterOperators: await clusterOperatorFacts(deps.access, clusterOperatorsFor(hooks)),
      ...(quorum ? { quorum } : {}),
    },
    notes,
  };
}
