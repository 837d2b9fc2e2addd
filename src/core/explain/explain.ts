// explainMachine(): why a Machine is (or would be) held, from the object and the facts a transport gathered. One
// model for `hookkeeper explain` and the audit's stuck-deletion findings; rendering is the transports' job.
import { carrierFor, wellFormed, type Hook, type HookCarrier } from '../carriers.js';
import { withImpliedOwner } from '../implied-owner.js';
import { formatDuration } from '../duration.js';
import { dig, metadata, quote } from '../guards.js';
import { heldFinalizersNote } from '../machine-controllers.js';
import type { Policy } from '../policy.js';
import type { KubeObject } from '../types.js';
import { explainHook, type MachineTarget } from './hook.js';
import type { DeletionStep, ExplainFacts, HookExplanation, MachineExplanation } from './model.js';
import { explainQuorum, quorumSummary } from './quorum.js';
import { deletionStanding } from './standing.js';

/** The order deletion steps run in, Cluster API's and the Machine API's alike (the latter has no volume step). */
const STEP_ORDER: readonly DeletionStep[] = ['preDrain', 'drain', 'volumeDetach', 'preTerminate', 'infrastructure'];

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The carrier of a Machine (either API), or undefined for anything else. */
export function machineCarrier(obj: KubeObject): HookCarrier | undefined {
  const apiVersion = str(obj['apiVersion']) ?? '';
  const slash = apiVersion.indexOf('/');
  const carrier = carrierFor({
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: apiVersion.slice(slash + 1),
    kind: str(obj['kind']) ?? '',
  });
  return carrier?.gatesDeletion ? carrier : undefined;
}

function holdsOf(hook: Hook, step: DeletionStep | undefined): HookExplanation['holds'] {
  if (step === undefined) return 'none';
  if (step === hook.stage) return 'now';
  const at = STEP_ORDER.indexOf(step);
  const mine = STEP_ORDER.indexOf(hook.stage);
  if (at < 0) return 'now';
  return mine > at ? 'next' : 'passed';
}

/** OpenShift's migration fields: which copy is authoritative, and where hooks are edited. */
function authority(obj: KubeObject): { field?: MachineExplanation['authoritativeAPI']; notAuthoritative?: string } {
  const spec = str(dig(obj, ['spec', 'authoritativeAPI']));
  const status = str(dig(obj, ['status', 'authoritativeAPI']));
  if (!spec && !status) return {};
  const name = str(metadata(obj)['name']) ?? '';
  let note: string;
  let notAuthoritative: string | undefined;
  if (status === 'ClusterAPI') {
    note = 'the Cluster API Machine of the same name is authoritative: this copy mirrors its hooks';
    notAuthoritative =
      `this Machine API copy is not authoritative (status.authoritativeAPI: ClusterAPI): remove the hook on the ` +
      `Cluster API Machine ${quote(name)} (hookkeeper explain machines.cluster.x-k8s.io/${name} -n <its namespace>)`;
  } else if (status === 'Migrating') {
    note = 'authority is being handed over between the Machine API and Cluster API copies';
    notAuthoritative =
      'authority is being handed over (status.authoritativeAPI: Migrating): wait until it is MachineAPI or ClusterAPI';
  } else if (status === 'MachineAPI') {
    note = 'this Machine API copy is authoritative: hooks are edited here and mirrored to Cluster API';
  } else {
    note = `status.authoritativeAPI is not set yet: spec.authoritativeAPI asks for ${spec ?? 'nothing'}`;
  }
  return {
    field: { ...(spec ? { spec } : {}), ...(status ? { status } : {}), note },
    ...(notAuthoritative ? { notAuthoritative } : {}),
  };
}

function nodeOf(obj: KubeObject, facts: ExplainFacts): MachineExplanation['node'] {
  const name = str(dig(obj, ['status', 'nodeRef', 'name']));
  if (!name) return { status: 'none', detail: 'status.nodeRef is not set: no Node is linked to this Machine' };
  const fact = facts.node;
  if (fact.status === 'unknown') return { name, status: 'unknown', detail: fact.reason };
  if (fact.status === 'absent') return { name, status: 'absent', detail: `Node ${name} does not exist` };
  return {
    name,
    status: 'present',
    cordoned: fact.unschedulable,
    detail: `Node ${name} exists${fact.unschedulable ? ' and is cordoned (spec.unschedulable)' : ', not cordoned'}`,
  };
}

function summaryOf(deletion: MachineExplanation['deletion'], hooks: readonly HookExplanation[]): string {
  if (!deletion.deleting)
    return `not deleting; ${hooks.length} hook(s) will hold a deletion until their owners remove them`;
  const age = deletion.forSeconds !== undefined ? ` (${formatDuration(deletion.forSeconds * 1000)})` : '';
  const at = deletion.waitingAt;
  const step = at ? ` waits at ${at.step} (${at.evidence.basis})${at.since ? ` since ${at.since}` : ''}` : '';
  const holding = hooks.filter((h) => h.holds === 'now');
  const owners = [...new Set(holding.map((h) => (h.owner === '' ? '(no owner)' : quote(h.owner))))];
  const who = holding.length > 0 ? `; ${holding.length} hook(s) hold it, owner(s) ${owners.join(', ')} must act` : '';
  return `deleting since ${deletion.since ?? '?'}${age};${step}${who}`;
}

export interface ExplainInput {
  object: KubeObject;
  policy: Policy;
  facts: ExplainFacts;
}

/** The explanation of one Machine (Machine API or Cluster API); throws for any other object: a transport's bug. */
export function explainMachine({ object, policy, facts }: ExplainInput): MachineExplanation {
  const carrier = machineCarrier(object);
  if (!carrier)
    throw new Error(`explainMachine: not a Machine: ${String(object['apiVersion'])} ${String(object['kind'])}`);
  const meta = metadata(object);
  const namespace = str(meta['namespace']);
  const name = str(meta['name']) ?? '';
  const uid = str(meta['uid']);
  const resource = `machines.${carrier.group}`;
  // A hook written with an empty value stands for the owner the policy implies for its key, as the rules judge it.
  const written = wellFormed(carrier.read(object).hooks);
  const hooks = written.map((h) => withImpliedOwner(policy, carrier, h));
  const implied = new Set(hooks.filter((h, i) => h !== written[i]));
  const deletion = deletionStanding(object, carrier.format, hooks, facts.nowMs);
  const auth = carrier.format === 'list' ? authority(object) : {};
  const target: MachineTarget = {
    resource,
    ...(namespace ? { namespace } : {}),
    name,
    format: carrier.format,
    ...(auth.notAuthoritative ? { notAuthoritative: auth.notAuthoritative } : {}),
  };
  const explained = hooks.map((h) => {
    const x = explainHook(policy, facts, h, holdsOf(h, deletion.waitingAt?.step), target, { object, carrier });
    return implied.has(h) ? { ...x, ownerImplied: true as const } : x;
  });
  const notes = [...deletion.notes];
  // Removing the finalizers is no way round the hooks: say so where someone looks for one.
  const held = deletion.deleting && hooks.length > 0 ? heldFinalizersNote(policy, carrier) : undefined;
  if (held) notes.push(held);
  const quorum = explainQuorum(policy, carrier, object, facts);
  const summary = summaryOf(deletion, explained);
  if (facts.source === 'file')
    notes.push('offline (-f): the Node, RBAC grants, service accounts and controller health are not known');
  return {
    apiVersion: 'hookkeeper.io/v1alpha1',
    kind: 'MachineExplanation',
    source: facts.source,
    machine: {
      apiVersion: str(object['apiVersion']) ?? '',
      kind: 'Machine',
      resource,
      ...(namespace ? { namespace } : {}),
      name,
      ...(uid ? { uid } : {}),
    },
    ...(auth.field ? { authoritativeAPI: auth.field } : {}),
    deletion,
    node: nodeOf(object, facts),
    hooks: explained,
    ...(quorum ? { quorum } : {}),
    summary: quorum?.state === 'at-risk' ? `${summary}; ${quorumSummary(quorum)}` : summary,
    notes,
  };
}
