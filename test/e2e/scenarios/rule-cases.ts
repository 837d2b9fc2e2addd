// The rules' own cases (src/rules/<id>/cases.yaml) replayed through the API server in each admission mode: every
// case a dry-run request, sent as the case's identity (impersonated, with its groups), against the case's old object
// stored once before any admission is registered (as the differential corpus stores its own). The API server's
// verdict must be the case's, its denial and warnings hold the case's fragments and the hooks it stores are the
// case's, as `hookkeeper test` compares them; in native and static mode a case that says `native: differs` must get
// the other verdict. Cases the suite cannot replay are listed with the reason, never dropped silently.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiException, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { Policy } from '../../../src/core/policy.js';
import { quorumLookup } from '../../../src/core/quorum.js';
import type { KubeObject } from '../../../src/core/types.js';
import { diff } from '../../../src/core/patch.js';
import type { LoadedCase } from '../../../src/transports/policy-test/load.js';
import type { Observed } from '../../../src/transports/policy-test/report.js';
import { compare, hooksOf, reviewOf, userInfoOf } from '../../../src/transports/policy-test/run.js';
import { NATIVE_DIFFERS } from '../../../src/transports/policy-test/schema.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import {
  parseWarnings,
  toRejection,
  warningTexts,
  type Rejecter,
  type Resource,
} from '../../../testing/control-plane/kube.js';
import { applyPatch } from '../../helpers/json-patch.js';
import { DEFAULT_POLICY_FILE, loadRuleCases } from '../../rules/rule-cases.js';
import { CORPUS_LABEL } from '../harness/reset.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { ensureNamespace, SERVER_SET_METADATA, servedResources } from './corpus.js';

/** The suite's policy is the embedded default: only cases under the file that is it can be replayed. */
const SUITE_POLICY = DEFAULT_POLICY_FILE;
/** A group every impersonated identity is given, bound to a role that may write Machines (and nothing else). */
const WRITERS = 'e2e:rule-cases';

interface Replay {
  /** `<rule> <case name>`. */
  id: string;
  c: LoadedCase;
  resource?: Resource;
  namespace: string;
  name: string;
  /** CREATE: the body; UPDATE: the stored object with the case's change applied. */
  object: KubeObject;
  patch?: unknown[];
  skip?: string;
}

let replays: Replay[] | undefined;

const metaOf = (o: KubeObject): Record<string, unknown> => (o['metadata'] ?? {}) as Record<string, unknown>;

/** The case's object as a request body: the fields the API server sets dropped, a name of the suite's, labelled. */
function body(o: KubeObject, name: string): KubeObject {
  const out = structuredClone(o);
  const meta = metaOf(out);
  // The deletion mark too: the API server sets it, on DELETE (the case's stored object is deleted to get it).
  for (const key of SERVER_SET_METADATA) delete meta[key];
  meta['name'] = name;
  // Kept by the harness's reset between modes, as the corpus's stored objects are.
  const labels = typeof meta['labels'] === 'object' && meta['labels'] !== null ? meta['labels'] : {};
  meta['labels'] = { ...labels, [CORPUS_LABEL]: '' };
  out['metadata'] = meta;
  return out;
}

/** Why a case cannot go through this suite's API server as it is written, if it cannot. */
function unreplayable(c: LoadedCase, policyFile: string | undefined, policy: Policy | undefined): string | undefined {
  if (policyFile !== SUITE_POLICY || !policy)
    return `it runs under ${policyFile ?? 'no policy'}, not the suite's embedded default`;
  // Only where serve would list the cluster's Machines: the owner's removal or a worker's goes through.
  if (c.quorum && quorumLookup(policy, reviewOf(c, policy)))
    return "its clusterMachines (or their failed list) are what serve would find; the suite's hookkeeper runs without a cluster, so lists none (test/e2e/scenarios/quorum.ts walks quorum protection with one that lists)";
  if (c.grants && c.grants.length > 0)
    return "its RBAC grants of hookowners would need bindings and a webhook that consults the cluster; the suite's hookkeeper runs without one";
  if (c.operation === 'DELETE') return 'hookkeeper registers no DELETE';
  return undefined;
}

/** Bare setup: the cases read, their namespaces made, UPDATE cases' old objects stored (deleting ones deleted). */
export async function ruleCasesSetup(env: E2EEnv): Promise<void> {
  const admin = env.plane.kubeConfig('admin');
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'e2e-rule-cases' },
      rules: [{ apiGroups: ['machine.openshift.io', 'cluster.x-k8s.io'], resources: ['*'], verbs: ['*'] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'e2e-rule-cases' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'e2e-rule-cases' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: WRITERS }],
    },
  });
  const served = await servedResources(env);
  const api = admin.makeApiClient(CustomObjectsApi);
  const out: Replay[] = [];
  for (const { rule, loaded } of await loadRuleCases(env.plane.repoRoot)) {
    assert.deepEqual(loaded.problems, [], `${loaded.file} does not load`);
    for (const c of loaded.cases) {
      const subject = (c.object ?? c.oldObject) as KubeObject;
      const ns = metaOf(subject)['namespace'];
      const namespace = typeof ns === 'string' && ns !== '' ? ns : 'default';
      const name = `rule-case-${out.length}`;
      const r: Replay = { id: `${rule}: ${c.name}`, c, namespace, name, object: body(subject, name) };
      out.push(r);
      r.skip = unreplayable(c, loaded.policyFile, loaded.policy);
      if (r.skip) continue;
      r.resource = served.get(`${c.kind.group}/${c.kind.version}/${c.kind.kind}`);
      if (!r.resource) {
        r.skip = `${c.kind.group}/${c.kind.version} ${c.kind.kind} is not served by these CRDs`;
        continue;
      }
      await ensureNamespace(env, namespace);
      if (c.operation !== 'UPDATE' || !c.oldObject || !c.object) continue;
      const old = body(c.oldObject, name);
      r.patch = diff(old, body(c.object, name));
      const target = { ...r.resource, namespace };
      try {
        await api.createNamespacedCustomObject({ ...target, body: old });
        if (typeof metaOf(c.oldObject)['deletionTimestamp'] === 'string')
          await api.deleteNamespacedCustomObject({ ...target, name });
        const stored = (await api.getNamespacedCustomObject({ ...target, name })) as KubeObject;
        r.object = applyPatch(stored, r.patch as never, { lenient: true });
      } catch (err) {
        r.skip = `its old object cannot be stored: ${err instanceof ApiException ? toRejection(err).message : String(err)}`;
      }
    }
  }
  replays = out;
}

interface Answer {
  allowed: boolean;
  by?: Rejecter;
  text: string;
  warnings: string[];
  object?: KubeObject;
}

/** One case as a server-side dry run, impersonating its identity (the groups the API server adds included). */
async function send(env: E2EEnv, r: Replay): Promise<Answer> {
  const user = userInfoOf(r.c.identity);
  const resource = r.resource as Resource;
  const base = `${env.plane.server}/apis/${resource.group}/${resource.version}/namespaces/${r.namespace}/${resource.plural}`;
  const update = r.c.operation === 'UPDATE';
  const res = await rawRequest({
    url: `${base}${update ? `/${r.name}` : ''}?dryRun=All`,
    method: update ? 'PATCH' : 'POST',
    ca: env.plane.caPem,
    token: env.plane.identities.admin.token,
    body: update ? r.patch : r.object,
    ...(update ? { contentType: 'application/json-patch+json' } : {}),
    headers: { 'Impersonate-User': user.username, 'Impersonate-Group': [...user.groups, WRITERS] },
    timeoutMs: 15_000,
  });
  const header = res.headers['warning'];
  const warnings = warningTexts(parseWarnings(Array.isArray(header) ? header.join(', ') : header));
  if (res.status >= 200 && res.status < 300)
    return { allowed: true, text: '', warnings, object: JSON.parse(res.body) as KubeObject };
  const status = JSON.parse(res.body) as { message?: string };
  const rejection = toRejection(
    new ApiException(res.status, status.message ?? '', res.body, typeof header === 'string' ? { warning: header } : {}),
  );
  return { allowed: false, by: rejection.by, text: rejection.text, warnings };
}

function replaysOrFail(): Replay[] {
  if (!replays) throw new Error('the rule cases were not set up (see the suite before hook)');
  return replays;
}

/** Per mode: every replayable case sent and held to what it expects. */
export const ruleCaseScenarios: Scenario = (env) => {
  describe("the rules' cases (src/rules/*/cases.yaml) through the API server", () => {
    test('every case the suite can replay gets the verdict, words and hooks it expects', async (t) => {
      const e = env();
      const all = replaysOrFail();
      const native = e.mode === 'native' || e.mode === 'static';
      const failures: string[] = [];
      let replayed = 0;
      let beforeAdmission = 0;
      for (const r of all) {
        if (r.skip) {
          t.diagnostic(`skipped ${r.id}: ${r.skip}`);
          continue;
        }
        const a = await send(e, r);
        const differs = native && r.c.native === NATIVE_DIFFERS;
        const where = `${r.id} (${r.c.operation} as ${userInfoOf(r.c.identity).username})`;
        if (!a.allowed && a.by !== 'webhook' && a.by !== 'policy') {
          // The API server's own refusal (schema, RBAC) comes before admission: nothing of ours to compare.
          beforeAdmission++;
          t.diagnostic(`not judged by admission: ${where}: refused by ${a.by ?? 'other'}: ${a.text}`);
          if (r.c.expect.allowed) failures.push(`${where}: expected allowed, refused by ${a.by ?? 'other'}: ${a.text}`);
          continue;
        }
        replayed++;
        if (differs) {
          if (a.allowed === r.c.expect.allowed)
            failures.push(`${where}: the case says native: ${NATIVE_DIFFERS}, yet ${e.mode} mode gives its verdict`);
          continue;
        }
        const hooks = a.object ? hooksOf(r.c, a.object) : undefined;
        const got: Observed = {
          allowed: a.allowed,
          messages: a.allowed ? [] : [a.text],
          warnings: a.warnings,
          ...(hooks ? { hooks } : {}),
        };
        for (const f of compare(r.c, got)) failures.push(`${where}: ${f.message}`);
      }
      const skipped = all.filter((r) => r.skip).length;
      t.diagnostic(
        `${e.mode} mode: ${all.length} cases, ${replayed} judged by admission, ${beforeAdmission} refused before it, ` +
          `${skipped} not replayable`,
      );
      assert.ok(replayed * 2 > all.length, `only ${replayed} of ${all.length} cases were judged by admission`);
      assert.deepEqual(failures, []);
    });
  });
};
