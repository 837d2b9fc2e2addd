// runAudit: every object of every hook-carrying resource, page by page through an injected lister (pages.ts),
// through the engine with the facts of the audit's own rules (audit-object.ts), into findings and a summary
// (summary.ts). Only findings are kept, so memory stays flat in the number of objects.
import type { MetricsText } from '../../infrastructure/kube/metrics.js';
import { staticAdmissionStatus } from './static-admission.js';
import { hookSchemaNotes } from './hook-schemas.js';
import { hookCrds } from '../../core/hook-crds.js';
import type { CrdRead } from '../../infrastructure/kube/crds.js';
import { CARRIERS, carrierFor, type HookCarrier } from '../../core/carriers.js';
import type { Policy } from '../../core/policy.js';
import { AppError } from '../../errors.js';
import { carrierResources, type KindResource } from '../../core/resources.js';
import type { OwnerGrants } from '../../infrastructure/kube/owner-grants.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../infrastructure/kube/types.js';
import type { GroupVersionKind, KubeObject } from '../../core/types.js';
import { judgeObject, objectFacts, type AuditFacts, type ObjectFacts } from './audit-object.js';
import { serviceAccountFacts, type ServiceAccountExists } from './findings.js';
import { ownerListing, wildcardListing } from './owner-grants.js';
import { listOwnerGrants } from '../../infrastructure/kube/rbac-snapshot.js';
import { openPages, refOf, type PageStream } from './pages.js';
import type { AuditObjectRef, AuditReport, ResourceStatus } from './report.js';
import { migrationRecorder, type MigrationRecorder } from './migration.js';
import { quorumRecorder, type QuorumRecorder } from './quorum.js';
import { newTally, summarize, tallyObject, type Tally } from './summary.js';

export { AUDIT_USER } from './audit-object.js';

export interface AuditProgress {
  resource: string;
  /** Objects of this resource seen so far. */
  objects: number;
  /** Objects of every resource seen so far. */
  total: number;
}

export interface AuditDeps {
  lister: Lister;
  policy: Policy;
  now: () => Date;
  /** A deleting object held by hooks for longer than this is a stuck deletion. */
  stuckAfterMs: number;
  /** Without it, orphaned owners are not looked for. */
  serviceAccountExists?: ServiceAccountExists;
  /**
   * List the cluster's RBAC once (through `lister`) for the hook-owner grants: unprotected-owner judges from them,
   * and the notes list each audited owner with who may act for it. Without it, no owner is judged unprotected.
   */
  ownerGrants?: boolean;
  /** Called with the grants listed for `ownerGrants` (not when RBAC could not be listed). */
  onOwnerGrants?: (grants: OwnerGrants) => void;
  onProgress?: (p: AuditProgress) => void;
  /** Only this namespace; absent: all namespaces. */
  namespace?: string;
  carriers?: readonly HookCarrier[];
  /** Defaults to the resources of `carriers` (src/core/resources.ts). */
  resources?: readonly KindResource[];
  /** Keep a reference to every object without findings (PolicyReports list them as `pass`). */
  recordPasses?: boolean;
  /** The answering API server's metrics: which static admission manifests it runs. Absent: not looked at. */
  apiServerMetrics?: () => Promise<MetricsText>;
  /** Reads a CRD, to check that the CRDs carrying hooks keep them in their schemas. Absent: not looked at. */
  readCrd?: (name: string) => Promise<CrdRead>;
}

/** What the listing loop adds to as it goes. */
interface RunState {
  facts: AuditFacts;
  tally: Tally;
  migration: MigrationRecorder;
  quorum: QuorumRecorder;
  /** Deleting control-plane Machines without their quorum hook: judged once their resource is listed. */
  held: HeldObject[];
  notes: string[];
}

interface HeldObject {
  resource: string;
  kind: GroupVersionKind;
  object: KubeObject;
  ref: AuditObjectRef;
  known: ObjectFacts;
}

export async function runAudit(deps: AuditDeps): Promise<AuditReport> {
  const started = deps.now();
  const carriers = deps.carriers ?? CARRIERS;
  const planned = deps.resources ? { resources: [...deps.resources], notes: [] } : carrierResources(carriers);
  const notes = [...planned.notes];
  const accounts = deps.serviceAccountExists
    ? serviceAccountFacts(deps.policy, deps.serviceAccountExists, notes)
    : undefined;
  const grants = deps.ownerGrants ? await listOwnerGrants(deps.lister, notes, deps.namespace) : undefined;
  if (grants) deps.onOwnerGrants?.(grants);
  const facts: AuditFacts = {
    policy: deps.policy,
    carriers,
    nowMs: started.getTime(),
    stuckAfterMs: deps.stuckAfterMs,
    accounts,
    grants,
    seenOwners: new Map(),
  };
  const state: RunState = {
    facts,
    tally: newTally(deps.recordPasses),
    migration: migrationRecorder(deps.policy),
    quorum: quorumRecorder(deps.policy),
    held: [],
    notes,
  };
  const statuses = await auditResources(deps, planned.resources, state);
  if (statuses.length > 0 && statuses.every((s) => s.status === 'not-installed')) {
    throw new AppError(
      'CLUSTER',
      `CRD not installed: this cluster serves none of ${statuses.map((s) => `${s.resource}/${s.version}`).join(', ')}`,
    );
  }
  const { tally, migration } = state;
  if (grants) notes.push(...ownerListing(grants, facts.seenOwners), wildcardListing(grants, facts.seenOwners));
  migration.annotate(tally.findings);
  notes.push(...migration.notes());
  const migrated = migration.machines();
  const quorum = state.quorum.clusters();
  const staticAdmission = deps.apiServerMetrics
    ? staticAdmissionStatus(await deps.apiServerMetrics(), deps.policy)
    : undefined;
  if (staticAdmission) notes.push(staticAdmission.note);
  if (deps.readCrd) notes.push(...(await hookSchemaNotes(deps.readCrd, hookCrds(carriers))));
  return {
    apiVersion: 'hookkeeper.io/v1alpha1',
    kind: 'AuditReport',
    startedAt: started.toISOString(),
    finishedAt: deps.now().toISOString(),
    ...(deps.namespace ? { namespace: deps.namespace } : {}),
    stuckAfterSeconds: Math.floor(deps.stuckAfterMs / 1000),
    resources: statuses,
    notes,
    findings: tally.findings,
    summary: summarize(tally),
    ...(tally.passed ? { passed: tally.passed } : {}),
    ...(migrated.length > 0 ? { migration: migrated } : {}),
    ...(staticAdmission ? { staticAdmission } : {}),
    ...(quorum.length > 0 ? { quorum } : {}),
  };
}

/** The held Machines, each with its cluster's control-plane Machines from the lists as its quorum fact. */
function judgeHeld(state: RunState): void {
  const held = state.held.splice(0);
  for (const h of held) {
    const context = { ...h.known.context, quorum: state.quorum.fact(h.kind, h.object) };
    const found = judgeObject(state.facts, h.object, h.ref, h.kind, { ...h.known, context });
    tallyObject(state.tally, h.resource, h.ref, found);
  }
}

/** Audits each resource in turn; returns what became of each. */
async function auditResources(
  deps: AuditDeps,
  resources: readonly KindResource[],
  state: RunState,
): Promise<ResourceStatus[]> {
  const statuses: ResourceStatus[] = [];
  // Every resource's first page is asked for at once: the kinds a cluster lacks answer 404, and small lists arrive,
  // while the first resource is audited, instead of one round trip after another at the end. A lister holds at most
  // two pages, so memory stays flat in the number of objects.
  const streams = resources.map((r) => openPages(deps.lister, r, deps.namespace));
  try {
    for (const [i, r] of resources.entries()) {
      const status: ResourceStatus = {
        resource: resourceName(r),
        version: r.version,
        kind: r.kind,
        status: 'audited',
        objects: 0,
      };
      statuses.push(status);
      await auditResource(deps, r, streams[i] as PageStream, status, state);
    }
  } finally {
    for (const s of streams) s.close();
  }
  return statuses;
}

/** Every object of one resource, page by page; a resource the cluster does not serve is noted and skipped. */
async function auditResource(
  deps: AuditDeps,
  r: KindResource,
  pages: PageStream,
  status: ResourceStatus,
  state: RunState,
): Promise<void> {
  const { facts, tally, migration } = state;
  const name = status.resource;
  const kind = { group: r.group, version: r.version, kind: r.kind };
  const carrier = carrierFor(kind, facts.carriers);
  try {
    for (let step = await pages.next(); step.done !== true; step = await pages.next()) {
      for (const obj of step.value) {
        status.objects++;
        tally.objects++;
        const ref = refOf(obj, r);
        migration.see(obj, ref);
        let known = objectFacts(facts, obj, carrier, ref.namespace);
        if (known instanceof Promise) known = await known;
        if (state.quorum.see(kind, obj)) state.held.push({ resource: name, kind, object: obj, ref, known });
        else tallyObject(tally, name, ref, judgeObject(facts, obj, ref, kind, known));
      }
      deps.onProgress?.({ resource: name, objects: status.objects, total: tally.objects });
    }
    // A cluster's Machines are of one resource (one namespace, one kind): all of them are listed now.
    judgeHeld(state);
  } catch (err) {
    if (!(err instanceof CrdNotInstalled)) throw err;
    status.status = 'not-installed';
    state.notes.push(`${name}/${r.version} is not served by this cluster (CRD not installed): skipped`);
  }
}
