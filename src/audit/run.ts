// runAudit: every object of every hook-carrying resource, page by page through an injected lister, through
// the engine (evaluate with source audit, as a CREATE by a neutral user), with the facts of the audit's own rules
// (stuck deletions: the clock; orphaned owners: service accounts).
// Only findings are kept, so memory stays flat in the number of objects.
import type { MetricsText } from '../kube/metrics.js';
import { staticAdmissionStatus } from './static-admission.js';
import { hookSchemaNotes } from './hook-schemas.js';
import { hookCrds } from '../native/hook-schema.js';
import type { CrdRead } from '../kube/crds.js';
import { CARRIERS, carrierFor, wellFormed, type Hook, type HookCarrier } from '../core/carriers.js';
import { evaluate } from '../core/engine.js';
import { metadata } from '../core/guards.js';
import type { Policy } from '../core/policy.js';
import type { KubeObject, ReviewContext, ReviewInput, UserInfo, Violation } from '../core/types.js';
import { AppError } from '../errors.js';
import { carrierResources, type KindResource } from '../core/resources.js';
import type { OwnerGrants } from '../kube/owner-grants.js';
import { CrdNotInstalled, resourceName, type Lister } from '../kube/types.js';
import { CLUSTER_STATE } from '../core/registry.js';
import { explainStuck } from './explain.js';
import { deletionFact, serviceAccountFacts, type ServiceAccountExists } from './findings.js';
import {
  auditOwnership,
  listOwnerGrants,
  noteOwners,
  ownerListing,
  wildcardListing,
  type SeenOwners,
} from './owner-grants.js';
import type { AuditFinding, AuditObjectRef, AuditReport, ResourceStatus } from './report.js';
import { migrationRecorder } from './migration.js';

/** Stored objects are judged as if created by nobody in particular: rules about who removes a hook have no request to judge. */
export const AUDIT_USER: UserInfo = Object.freeze({ username: 'hookkeeper-audit', groups: [] });

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

function refOf(obj: KubeObject, r: KindResource): AuditObjectRef {
  const meta = metadata(obj);
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const namespace = str(meta['namespace']);
  const uid = str(meta['uid']);
  return {
    apiVersion: str(obj['apiVersion']) ?? `${r.group}/${r.version}`,
    kind: r.kind,
    ...(namespace ? { namespace } : {}),
    name: str(meta['name']) ?? '',
    ...(uid ? { uid } : {}),
  };
}

/** One resource's pages, the first asked for as soon as the stream is opened. */
interface PageStream {
  next(): Promise<IteratorResult<KubeObject[]>>;
  /** Ends the lister's work on it: a page asked for in advance is abandoned. */
  close(): void;
}

function openPages(lister: Lister, resource: KindResource, namespace: string | undefined): PageStream {
  let pages: AsyncIterator<KubeObject[]> | undefined;
  let first: Promise<IteratorResult<KubeObject[]>>;
  try {
    pages = lister.list(resource, namespace)[Symbol.asyncIterator]();
    first = pages.next();
  } catch (err) {
    first = Promise.reject(err);
  }
  // Awaited in its turn; failing before then is not an unhandled rejection.
  first.catch(() => undefined);
  let opened = false;
  return {
    next() {
      if (opened && pages) return pages.next();
      opened = true;
      return first;
    },
    close() {
      void pages?.return?.()?.catch(() => undefined);
    },
  };
}

function auditFinding(v: Violation, result: 'fail' | 'warn', object: AuditObjectRef): AuditFinding {
  return {
    rule: v.rule,
    result,
    object,
    path: v.path,
    message: v.message,
    ...(v.fix ? { fix: v.fix } : {}),
    ...(v.hook ? { hook: v.hook } : {}),
    ...(v.deletion
      ? {
          deletionTimestamp: v.deletion.deletionTimestamp,
          deletingForSeconds: v.deletion.deletingForSeconds,
          waitingSince: v.deletion.waitingSince,
          waitingForSeconds: v.deletion.waitingForSeconds,
          waitingSinceFrom: v.deletion.waitingSinceFrom,
        }
      : {}),
  };
}

/** The object's own findings (fail, then warn), then those about the cluster's state (stuck deletions, orphaned owners). */
function auditFindings(
  denials: readonly Violation[],
  warnings: readonly Violation[],
  object: AuditObjectRef,
): AuditFinding[] {
  const out: AuditFinding[] = [];
  for (const late of [false, true]) {
    for (const v of denials) if (CLUSTER_STATE.has(v.rule) === late) out.push(auditFinding(v, 'fail', object));
    for (const v of warnings) if (CLUSTER_STATE.has(v.rule) === late) out.push(auditFinding(v, 'warn', object));
  }
  return out;
}

export async function runAudit(deps: AuditDeps): Promise<AuditReport> {
  const started = deps.now();
  const carriers = deps.carriers ?? CARRIERS;
  const planned = deps.resources ? { resources: [...deps.resources], notes: [] } : carrierResources(carriers);
  const notes = [...planned.notes];
  const findings: AuditFinding[] = [];
  const passed: AuditObjectRef[] = [];
  const statuses: ResourceStatus[] = [];
  const accounts = deps.serviceAccountExists
    ? serviceAccountFacts(deps.policy, deps.serviceAccountExists, notes)
    : undefined;
  let total = 0;
  let passCount = 0;
  const stuck = new Set<string>();
  const grants = deps.ownerGrants ? await listOwnerGrants(deps.lister, notes, deps.namespace) : undefined;
  if (grants) deps.onOwnerGrants?.(grants);
  const seenOwners: SeenOwners = new Map();
  const migration = migrationRecorder(deps.policy);

  // Every resource's first page is asked for at once: the kinds a cluster lacks answer 404, and small lists arrive,
  // while the first resource is audited, instead of one round trip after another at the end. A lister holds at most
  // two pages, so memory stays flat in the number of objects.
  const streams = planned.resources.map((r) => openPages(deps.lister, r, deps.namespace));
  try {
    for (const [i, r] of planned.resources.entries()) {
      const pages = streams[i] as PageStream;
      const name = resourceName(r);
      const status: ResourceStatus = {
        resource: name,
        version: r.version,
        kind: r.kind,
        status: 'audited',
        objects: 0,
      };
      statuses.push(status);
      const kind = { group: r.group, version: r.version, kind: r.kind };
      const carrier = carrierFor(kind, carriers);
      try {
        for (let step = await pages.next(); step.done !== true; step = await pages.next()) {
          const page = step.value;
          for (const obj of page) {
            status.objects++;
            total++;
            const ref = refOf(obj, r);
            migration.see(obj, ref);
            const input: ReviewInput = {
              operation: 'CREATE',
              kind,
              ...(ref.namespace ? { namespace: ref.namespace } : {}),
              name: ref.name,
              object: obj,
              oldObject: null,
              userInfo: AUDIT_USER,
              dryRun: false,
              source: 'audit',
            };
            let context: ReviewContext | undefined;
            let hooks: Hook[] = [];
            if (carrier) {
              // The facts of the audit's own rules: the clock, and (most objects carry no hook: no lookup, and no
              // await that would yield once per object) the hook owners' service accounts.
              context = {};
              const deletion = deletionFact(obj, started.getTime(), deps.stuckAfterMs);
              if (deletion) context.deletion = deletion;
              hooks = accounts || grants ? wellFormed(carrier.read(obj).hooks) : [];
              if (accounts && hooks.length > 0) context.serviceAccounts = await accounts(hooks);
              if (grants) {
                context.ownership = auditOwnership(grants, hooks, ref.namespace);
                noteOwners(seenOwners, hooks, ref.namespace);
              }
              input.context = context;
            }
            const decision = evaluate(deps.policy, input, { carriers });
            const found = auditFindings(decision.denials, decision.warnings, ref);
            if (found.some((f) => f.rule === 'stuck-deletion')) {
              stuck.add(`${name}/${ref.namespace ?? ''}/${ref.name}`);
              const facts = { policy: deps.policy, grants, context: context ?? {}, nowMs: started.getTime() };
              explainStuck(found, obj, hooks, facts);
            }
            for (const f of found) findings.push(f);
            if (found.length === 0) {
              passCount++;
              if (deps.recordPasses) passed.push(ref);
            }
          }
          deps.onProgress?.({ resource: name, objects: status.objects, total });
        }
      } catch (err) {
        if (!(err instanceof CrdNotInstalled)) throw err;
        status.status = 'not-installed';
        notes.push(`${name}/${r.version} is not served by this cluster (CRD not installed): skipped`);
      }
    }
  } finally {
    for (const s of streams) s.close();
  }
  if (statuses.length > 0 && statuses.every((s) => s.status === 'not-installed')) {
    throw new AppError(
      'CLUSTER',
      `CRD not installed: this cluster serves none of ${statuses.map((s) => `${s.resource}/${s.version}`).join(', ')}`,
    );
  }
  if (grants) notes.push(...ownerListing(grants, seenOwners), wildcardListing(grants, seenOwners));
  migration.annotate(findings);
  notes.push(...migration.notes());
  const migrated = migration.machines();
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
    findings,
    summary: {
      objects: total,
      passed: passCount,
      fail: findings.filter((f) => f.result === 'fail').length,
      warn: findings.filter((f) => f.result === 'warn').length,
      stuckDeletions: stuck.size,
      orphanedHooks: findings.filter((f) => f.rule === 'orphaned-owner').length,
    },
    ...(deps.recordPasses ? { passed } : {}),
    ...(migrated.length > 0 ? { migration: migrated } : {}),
    ...(staticAdmission ? { staticAdmission } : {}),
  };
}
