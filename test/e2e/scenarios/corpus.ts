// The differential corpus: every review the rule unit tests build of a Machine or a kind that templates Machines
// (OpenShift and Cluster API), as recorded in test/fixtures/review-corpus.jsonl (./fixtures/review-corpus.ts), replayed
// through the API server
// as a real identity in each admission mode (dry-run requests against old objects stored once, before any admission),
// and judged by `hookkeeper validate`.
// The webhook, the native policies (alone and with the webhook) and validate must give the same verdict; where native
// cannot decide as the webhook does, a divergence of render must cover that request: its rule decided it, and its
// predicate holds for it.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CoreV1Api, CustomObjectsApi, ApiException } from '@kubernetes/client-node';
import YAML from 'yaml';
import type { KubeObject, ReviewInput } from '../../../src/core/types.js';
import { covering, noteText } from '../../../src/compilers/native/notes.js';
import { STATIC_SUFFIX } from '../../../src/compilers/native/static-layout.js';
import type { ObjectResult, ValidateReport } from '../../../src/transports/validate/report.js';
import { MACHINE_GROUPS, readCorpus, type RecordedReview } from '../../fixtures/review-corpus.js';
import { cli } from '../../helpers/cli.js';
import type { AdmissionMode } from '../harness/admission-modes.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import {
  ResourceClient,
  toRejection,
  warningTexts,
  type PatchOp,
  type Rejecter,
  type Resource,
} from '../../../testing/control-plane/kube.js';
import { CORPUS_LABEL } from '../harness/reset.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { applyPatch } from '../../helpers/json-patch.js';
import { diff } from '../../../src/core/patch.js';

/**
 * Where UPDATE cases' old objects are stored (labelled CORPUS_LABEL; no other group lists this namespace). Only CREATE
 * cases keep their fixture's namespace: the default-hook rules select by it, on CREATE.
 */
const STORED_NAMESPACE = 'e2e-corpus';
/** Who may create Machines in the suite's RBAC: a CREATE by anyone else is sent as the machine-api controllers. */
const CREATORS: ReadonlySet<IdentityName> = new Set(['machineApi', 'admin']);

/** The metadata the API server sets (or keeps from the stored object), so no request body can carry it. */
export const SERVER_SET_METADATA: readonly string[] = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

function sanitize(obj: KubeObject, name: string, stored: boolean): KubeObject {
  const out = structuredClone(obj);
  const meta = (out['metadata'] ?? {}) as Record<string, unknown>;
  for (const key of SERVER_SET_METADATA) delete meta[key];
  meta['name'] = name;
  if (stored) meta['namespace'] = STORED_NAMESPACE;
  if (stored) meta['labels'] = { ...(meta['labels'] ?? {}), [CORPUS_LABEL]: '' };
  out['metadata'] = meta;
  delete out['status'];
  return out;
}

export interface CorpusCase {
  id: string;
  /** The unit test that built it. */
  source: string;
  operation: 'CREATE' | 'UPDATE';
  resource: Resource;
  namespace: string;
  name: string;
  as: IdentityName;
  /** The unit test's user, when another identity sends it. */
  userNote: string;
  /** CREATE: the body. UPDATE: the new object (stored old + patch), for validate. */
  object: KubeObject;
  /** UPDATE: the JSON patch from the fixture's old object to its new one, and the stored old object. */
  patch?: PatchOp[];
  stored?: KubeObject;
  /** Why the case could not be replayed (its old object cannot be stored, say). */
  skip?: string;
}

interface Pending {
  c: CorpusCase;
  old: KubeObject;
  deleting: boolean;
}

/** One mode's answer to one case. */
export interface Verdict {
  allowed: boolean;
  by?: Rejecter;
  text?: string;
  /** Name of the ValidatingAdmissionPolicy that refused. */
  policy?: string;
  warnings: string[];
  /** The hooks as the API server would store them (allowed requests): mutation must agree too. */
  hooks?: unknown;
}

interface Corpus {
  cases: CorpusCase[];
  verdicts: Map<string, Partial<Record<AdmissionMode, Verdict>>>;
  /** Reviews recorded, and how many were of a kind or version these CRDs do not serve. */
  recorded: number;
  unserved: number;
}

let corpus: Corpus | undefined;

function identityFor(env: E2EEnv, user: RecordedReview['user']): IdentityName {
  const username = user?.username ?? 'alice';
  const groups = user?.groups ?? [];
  for (const [name, id] of Object.entries(env.plane.identities))
    if (id.username === username) return name as IdentityName;
  if (groups.includes('system:masters')) return 'admin';
  if (username.startsWith('system:serviceaccount:')) return 'machineApi';
  return 'alice';
}

/** The Machine resources the API server serves, by group/version/kind, from its discovery. */
export async function servedResources(env: E2EEnv): Promise<Map<string, Resource>> {
  const served = new Map<string, Resource>();
  const get = (path: string) =>
    rawRequest({ url: `${env.plane.server}${path}`, ca: env.plane.caPem, token: env.plane.identities.admin.token });
  for (const group of MACHINE_GROUPS) {
    const res = await get(`/apis/${group}`);
    if (res.status !== 200) continue;
    for (const { version } of (JSON.parse(res.body) as { versions: Array<{ version: string }> }).versions) {
      const { resources } = JSON.parse((await get(`/apis/${group}/${version}`)).body) as {
        resources: Array<{ name: string; kind: string }>;
      };
      for (const r of resources)
        if (!r.name.includes('/')) served.set(`${group}/${version}/${r.kind}`, { group, version, plural: r.name });
    }
  }
  return served;
}

export async function ensureNamespace(env: E2EEnv, name: string): Promise<void> {
  await env.plane
    .kubeConfig('admin')
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name } } })
    .catch((err: unknown) => {
      if (!(err instanceof ApiException && err.code === 409)) throw err;
    });
}

function metaOf(obj: KubeObject): Record<string, unknown> {
  return (obj['metadata'] ?? {}) as Record<string, unknown>;
}

/** Stores an UPDATE case's old object as given (no admission is registered yet) and marks it deleting if it was. */
async function storeOld(env: E2EEnv, c: CorpusCase, old: KubeObject, deleting: boolean): Promise<void> {
  const api = env.plane.kubeConfig('admin').makeApiClient(CustomObjectsApi);
  const target = { ...c.resource, namespace: c.namespace };
  try {
    await api.createNamespacedCustomObject({ ...target, body: old });
    if (deleting) {
      if (((metaOf(old)['finalizers'] as unknown[] | undefined) ?? []).length === 0) {
        c.skip = 'its old object is deleting with no finalizer: the API server would have removed it';
        return;
      }
      await api.deleteNamespacedCustomObject({ ...target, name: c.name });
    }
    c.stored = (await api.getNamespacedCustomObject({ ...target, name: c.name })) as KubeObject;
    c.object = applyPatch(c.stored, c.patch ?? [], { lenient: true });
  } catch (err) {
    const why = err instanceof ApiException ? toRejection(err).message : String(err);
    c.skip = `its old object cannot be stored or patched: ${why}`;
  }
}

/** Bare setup: the reviews collected, turned into requests, UPDATE cases' old objects stored. */
export async function corpusSetup(env: E2EEnv): Promise<void> {
  const t = Date.now();
  const reviews = readCorpus(env.plane.repoRoot);
  const served = await servedResources(env);
  const seen = new Set<string>();
  const cases: CorpusCase[] = [];
  const olds: Pending[] = [];
  let unserved = 0;
  for (const r of reviews) {
    const group = r.group ?? 'machine.openshift.io';
    const body = r.object ?? r.oldObject;
    const kind = r.kind ?? 'Machine';
    // Machines and the kinds that template them (MachineSet, MachineDeployment, ControlPlaneMachineSet).
    if (!body || !MACHINE_GROUPS.has(group)) continue;
    if (r.operation !== 'CREATE' && r.operation !== 'UPDATE') continue;
    const version = String(body['apiVersion']).split('/')[1] ?? '';
    const resource = served.get(`${group}/${version}/${kind}`);
    if (!resource) {
      unserved++;
      continue;
    }
    let as = identityFor(env, r.user);
    const original = as;
    if (r.operation === 'CREATE' && !CREATORS.has(as)) as = 'machineApi';
    const key = JSON.stringify([r.operation, r.object, r.oldObject, as]);
    if (seen.has(key)) continue;
    seen.add(key);
    const id = `${r.operation === 'CREATE' ? 'c' : 'u'}${cases.length}`;
    const name = `corpus-${id}`;
    const fixtureNamespace = metaOf(body)['namespace'];
    const namespace =
      r.operation === 'UPDATE' ? STORED_NAMESPACE : typeof fixtureNamespace === 'string' ? fixtureNamespace : 'default';
    const username = r.user?.username ?? 'alice';
    const userNote =
      as !== original
        ? `${username}, sent as ${as}: RBAC lets only controllers create Machines`
        : username === env.plane.identities[as].username
          ? username
          : `${username}, sent as ${as}`;
    if (r.operation === 'CREATE') {
      cases.push({
        id,
        source: r.source,
        operation: 'CREATE',
        resource,
        namespace,
        name,
        as,
        userNote,
        object: sanitize(r.object ?? {}, name, false),
      });
    } else {
      const old = sanitize(r.oldObject ?? {}, name, true);
      const next = sanitize(r.object ?? {}, name, true);
      const c: CorpusCase = {
        id,
        source: r.source,
        operation: 'UPDATE',
        resource,
        namespace,
        name,
        as,
        userNote,
        object: next,
        patch: diff(old, next) as PatchOp[],
      };
      cases.push(c);
      olds.push({ c, old, deleting: typeof metaOf(r.oldObject ?? {})['deletionTimestamp'] === 'string' });
    }
  }
  for (const ns of new Set(cases.map((c) => c.namespace))) await ensureNamespace(env, ns);
  for (const { c, old, deleting } of olds) await storeOld(env, c, old, deleting);
  corpus = { cases, verdicts: new Map(), recorded: reviews.length, unserved };
  process.stderr.write(
    `[e2e] ${env.plane.label}: corpus of ${cases.length} requests from ${reviews.length} recorded reviews ` +
      `(${unserved} of a kind or version these CRDs do not serve) in ${((Date.now() - t) / 1000).toFixed(1)} s\n`,
  );
}

function corpusOrFail(): Corpus {
  if (!corpus) throw new Error('the corpus was not set up (see the suite before hook)');
  return corpus;
}

/**
 * What a mutation could change, as it would be stored: the spec (a Machine's lifecycle hooks, a template's) and the
 * hook annotations of a Cluster API object.
 */
function hooksIn(obj: KubeObject): unknown {
  const annotations = (metaOf(obj)['annotations'] ?? {}) as Record<string, string>;
  return {
    spec: obj['spec'] ?? {},
    annotations: Object.fromEntries(Object.entries(annotations).filter(([k]) => k.includes('.hook.machine.'))),
  };
}

const POLICY_NAME = /ValidatingAdmissionPolicy '([^']+)'/;

/** One case sent as a server-side dry run by its identity, and how the API server answered. */
export async function send(env: E2EEnv, c: CorpusCase): Promise<Verdict> {
  const client = new ResourceClient(env.plane.kubeConfig(c.as), c.resource);
  try {
    const { object, warnings } =
      c.operation === 'CREATE'
        ? await client.create(c.namespace, c.object, { dryRun: true })
        : await client.patch(c.namespace, c.name, c.patch ?? [], { dryRun: true });
    return { allowed: true, warnings: warningTexts(warnings), hooks: hooksIn(object) };
  } catch (err) {
    const r = toRejection(err);
    const policy = POLICY_NAME.exec(r.message)?.[1];
    return {
      allowed: false,
      by: r.by,
      text: r.text,
      ...(policy ? { policy } : {}),
      warnings: warningTexts(r.warnings),
    };
  }
}

/** Per mode: every case sent (dry run) as its identity; the verdicts kept for the comparison after the last mode. */
export const corpusScenarios: Scenario = (env) => {
  describe('the differential corpus of rule fixtures', () => {
    test('every Machine review of the rule unit tests, sent through the API server as a real identity', async () => {
      const e = env();
      const { cases, verdicts } = corpusOrFail();
      assert.ok(cases.length > 0, 'the corpus is empty');
      for (const c of cases) {
        if (c.skip) continue;
        const v = verdicts.get(c.id) ?? {};
        v[e.mode] = await send(e, c);
        verdicts.set(c.id, v);
      }
    });
  });
};

/** validate's answer on a case, in the terms the API server would relay the webhook's. */
export interface OfflineVerdict {
  allowed: boolean;
  /** The rules that decided it (denying findings; default-hooks when it patched). */
  rules: string[];
  /** The denying findings' messages, in order (the webhook joins them with "; "). */
  denials: string[];
  /** The findings under warn (the webhook warns `<rule>: <message>`) and the notices (warned as they are). */
  warned: Array<{ rule: string; message: string }>;
  notices: string[];
}

/**
 * validate's verdict on the case, as the API server would relay the webhook's, and the rules that decided it (not
 * capi-migration: it judges by the migration's namespace, and the replay stores UPDATE cases in one of its own); under the policy file `config` when given (else the embedded default, the suite's).
 */
export async function validateVerdict(
  env: E2EEnv,
  c: CorpusCase,
  dir: string,
  config?: string,
): Promise<OfflineVerdict> {
  const id = env.plane.identities[c.as];
  const groups = [...id.groups, 'system:authenticated'].flatMap((g) => ['--as-group', g]);
  const file = join(dir, `${c.id}.yaml`);
  await writeFile(file, YAML.stringify(c.object));
  const args = ['validate', '--output', 'json', '--as', id.username, ...groups];
  if (config !== undefined) args.push('--config', config);
  if (c.stored) {
    const old = join(dir, `${c.id}.old.yaml`);
    await writeFile(old, YAML.stringify(c.stored));
    args.push('--old', old);
  }
  const run = await cli([...args, file]);
  assert.ok(run.code === 0 || run.code === 1, `validate exited ${run.code}: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as ValidateReport;
  const result = report.results[0] as ObjectResult;
  const admission = result.findings.filter((f) => f.rule !== 'capi-migration');
  const deny = admission.filter((f) => f.severity === 'deny');
  // A patch is the default-hooks rule at work: what decides a request that only its mutation makes valid.
  const rules = [...deny.map((f) => f.rule), ...(result.patch.length > 0 ? ['default-hooks'] : [])];
  return {
    allowed: deny.length === 0,
    rules: [...new Set(rules)],
    denials: deny.map((f) => f.message),
    warned: admission.filter((f) => f.severity === 'warn').map((f) => ({ rule: f.rule, message: f.message })),
    notices: result.notices,
  };
}

/** The case as the engine's review input (the identity it was sent as), for divergences' predicates. */
export function reviewOf(env: E2EEnv, c: CorpusCase): ReviewInput {
  const [group = '', version = ''] = String(c.object['apiVersion']).split('/');
  const id = env.plane.identities[c.as];
  return {
    operation: c.operation,
    kind: { group, version, kind: String(c.object['kind']) },
    namespace: c.namespace,
    name: c.name,
    object: c.object,
    oldObject: c.stored ?? null,
    userInfo: { username: id.username, groups: [...id.groups, 'system:authenticated'] },
    dryRun: true,
  };
}

/**
 * The rules a rendered ValidatingAdmissionPolicy enforces, from its validations' fallback messages; a static
 * manifest's name is the rendered one with the static suffix.
 */
export function rulesOfPolicy(objects: readonly KubeObject[], name: string): string[] {
  const rendered = name.endsWith(STATIC_SUFFIX) ? name.slice(0, -STATIC_SUFFIX.length) : name;
  const policy = objects.find(
    (o) =>
      o['kind'] === 'ValidatingAdmissionPolicy' && (o['metadata'] as { name?: string } | undefined)?.name === rendered,
  );
  const validations = (policy?.['spec'] as { validations?: Array<{ message?: string }> } | undefined)?.validations;
  return [...new Set((validations ?? []).flatMap((v) => /^hookkeeper ([a-z-]+):/.exec(v.message ?? '')?.[1] ?? []))];
}

/** After every mode: one test per case, the modes and validate compared. */
export const corpusComparison: Scenario = (env) => {
  describe('the differential corpus: every admission mode and hookkeeper validate agree', () => {
    test('cases: replayed and skipped', (t) => {
      const { cases, recorded, unserved } = corpusOrFail();
      const skipped = cases.filter((c) => c.skip);
      t.diagnostic(
        `${recorded} reviews recorded, ${unserved} of kinds or versions not served, ${cases.length} distinct requests, ` +
          `${skipped.length} not replayable`,
      );
      for (const c of skipped) t.diagnostic(`${c.id} (${c.source}): ${c.skip}`);
      // Most cases must be replayable, or the corpus proves nothing.
      assert.ok(skipped.length * 4 < cases.length, `${skipped.length} of ${cases.length} cases could not be replayed`);
    });

    // The cases exist only after the suite's before hook: one test walks them, each failure named.
    test('every case: the same verdict in every mode and from validate', async (t) => {
      const e = env();
      const { cases, verdicts } = corpusOrFail();
      const dir = join(e.plane.dir, 'corpus', 'validate');
      mkdirSync(dir, { recursive: true });
      const failures: string[] = [];
      let compared = 0;
      for (const c of cases) {
        if (c.skip) continue;
        const v = verdicts.get(c.id) ?? {};
        const where = `${c.id} ${c.operation} as ${c.userNote} (${c.source})`;
        const missing = e.modes.filter((m) => v[m] === undefined);
        if (missing.length > 0) {
          failures.push(`${where}: no verdict in ${missing.join(', ')}`);
          continue;
        }
        compared++;
        // The first mode (the webhook, unless the suite was narrowed) is what the others are held to.
        const [first, ...others] = e.modes;
        const base = v[first as AdmissionMode] as Verdict;
        const byUs = (x: Verdict) => x.by === 'webhook' || x.by === 'policy';
        // The API server's own refusals (schema, RBAC) come before admission: the same in every mode.
        if (!base.allowed && !byUs(base)) {
          for (const m of others)
            if (v[m]?.allowed !== false || v[m]?.by !== base.by || v[m]?.text !== base.text)
              failures.push(`${where}: refused by ${base.by} in ${first} mode, ${JSON.stringify(v[m])} in ${m}`);
          continue;
        }
        const offline = await validateVerdict(e, c, dir);
        if (offline.allowed !== base.allowed)
          failures.push(
            `${where}: ${first} mode ${base.allowed ? 'allows' : 'denies'}, validate does not (${offline.rules.join(', ')})`,
          );
        for (const m of others) {
          const other = v[m] as Verdict;
          if (other.allowed === base.allowed) {
            if (other.allowed && JSON.stringify(other.hooks) !== JSON.stringify(base.hooks))
              failures.push(
                `${where}: ${m} stores other hooks: ${JSON.stringify(other.hooks)} vs ${JSON.stringify(base.hooks)}`,
              );
            continue;
          }
          // What decided: validate's rules (the webhook's), or the rules of the policy that refused.
          const rules = [...offline.rules, ...(other.policy ? rulesOfPolicy(e.native.objects, other.policy) : [])];
          const covered = covering(e.native.divergences, rules, reviewOf(e, c));
          if (covered.length > 0)
            t.diagnostic(`${where}: ${m} differs, covered by render: ${covered.map(noteText).join(' | ')}`);
          else
            failures.push(
              `${where}: ${first} ${base.allowed ? 'allows' : `denies (${base.text ?? ''})`}, ${m} ` +
                `${other.allowed ? 'allows' : `denies (${other.text ?? ''})`}; no divergence of render covers this request ` +
                `for ${rules.join(', ') || 'any rule'}`,
            );
        }
      }
      t.diagnostic(`${compared} cases compared across ${e.modes.join(', ')} and validate`);
      assert.deepEqual(failures, []);
    });
  });
};
