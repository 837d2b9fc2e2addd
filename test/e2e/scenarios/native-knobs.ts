// Native admission policies under policies other than the suite's (strictOwners, unverifiedRemoval deny and allow,
// rules under warn and off), on the real API server: each request of a focused set is sent as a dry run through the
// webhook of a hookkeeper serving that policy and through the policies render compiles from it (the mode switch of
// the harness, given that policy), and judged by `hookkeeper validate --config` with the same file. Verdicts, the
// denials' words after the API server's prefix, warnings and stored hooks must agree, or a divergence of render
// cover that very request.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiextensionsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { shortWarning } from '../../../src/admission/response.js';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { covering, noteText, type Divergence } from '../../../src/compilers/native/notes.js';
import { renderForPlane, switchMode, type AdmissionMode, type NativePolicies } from '../harness/admission-modes.js';
import { installCrds, readCrds } from '../../../testing/control-plane/crds.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { ResourceClient, type PatchOp } from '../../../testing/control-plane/kube.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import {
  reviewOf,
  rulesOfPolicy,
  send,
  validateVerdict,
  type CorpusCase,
  type OfflineVerdict,
  type Verdict,
} from './corpus.js';
import { NAMESPACE, STORED, VARIANTS, type Request } from './native-knobs-requests.js';
import { diff } from '../../../src/core/patch.js';

/** Where the denial names the grant instead of spelling out kubectl (render's note, words only). */
const ACT_FOR_IT = ' act for it: ';
const NAMED_GRANT = /^grant remove on hookowners\.hookkeeper\.io with resourceName ".*"$/s;

/**
 * Native's words against the webhook's for one violation: the same, or differing only where render declares it
 * (owner-only-removal: a grant named rather than the kubectl commands, for an owner or a user CEL cannot word).
 */
function sameWords(native: string, webhook: string, divergences: readonly Divergence[]): boolean {
  if (native === webhook) return true;
  const declared = divergences.some((d) => d.rule === 'owner-only-removal' && /names the grant/.test(d.text));
  const i = native.indexOf(ACT_FOR_IT);
  const j = webhook.indexOf(ACT_FOR_IT);
  return (
    declared &&
    i >= 0 &&
    j >= 0 &&
    native.slice(0, i) === webhook.slice(0, j) &&
    NAMED_GRANT.test(native.slice(i + ACT_FOR_IT.length)) &&
    webhook.slice(j + ACT_FOR_IT.length).startsWith('kubectl create clusterrole ')
  );
}

type Answer = 'denied' | 'allowed' | 'warned';

function answer(v: Verdict): Answer {
  return !v.allowed ? 'denied' : v.warnings.length > 0 ? 'warned' : 'allowed';
}

function offlineAnswer(v: OfflineVerdict): Answer {
  return !v.allowed ? 'denied' : v.notices.length + v.warned.length > 0 ? 'warned' : 'allowed';
}

interface Run {
  hookkeeper?: Hookkeeper;
  native?: NativePolicies;
  configFile?: string;
  cases: CorpusCase[];
  verdicts: Map<string, Partial<Record<AdmissionMode, Verdict>>>;
  /** How this policy answers each witness (validate with its file). */
  witnessed: Map<string, Answer>;
}

/** This group's ControlPlaneMachineSet CRD (the suite's CRD sets serve none). */
function controlPlaneCrd(e: E2EEnv): string {
  return join(e.plane.repoRoot, 'test', 'e2e', 'crds', 'machine.openshift.io_controlplanemachinesets.yaml');
}

async function storeAll(e: E2EEnv): Promise<void> {
  const { plane } = e;
  await installCrds(
    plane.kubeConfig('admin'),
    plane.server,
    plane.caPem,
    plane.identities.admin.token,
    await readCrds([controlPlaneCrd(e)]),
  );
  await e.plane
    .kubeConfig('admin')
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: NAMESPACE } } });
  for (const { resource, object, deleting } of STORED) {
    const client = new ResourceClient(e.plane.kubeConfig('admin'), resource);
    await client.create(NAMESPACE, object);
    if (deleting) await client.delete(NAMESPACE, String((object['metadata'] as { name: string }).name));
  }
}

/** The requests as the corpus' cases: an UPDATE as the JSON patch from the stored object to the changed one. */
async function casesOf(e: E2EEnv, requests: readonly Request[]): Promise<CorpusCase[]> {
  const out: CorpusCase[] = [];
  for (const r of requests) {
    const base = { id: r.id, source: r.what, resource: r.resource, namespace: NAMESPACE, as: r.as, userNote: r.as };
    if (r.create) {
      const name = String((r.create['metadata'] as { name: string }).name);
      out.push({ ...base, operation: 'CREATE', name, object: structuredClone(r.create) });
      continue;
    }
    if (!r.update) throw new Error(`${r.id}: neither a create nor an update`);
    const stored = await new ResourceClient(e.plane.kubeConfig('admin'), r.resource).get(NAMESPACE, r.update.stored);
    const next = structuredClone(stored);
    r.update.change(next);
    out.push({
      ...base,
      operation: 'UPDATE',
      name: r.update.stored,
      object: next,
      stored,
      patch: diff(stored, next) as PatchOp[],
    });
  }
  return out;
}

function caseOf(run: Run, id: string): CorpusCase {
  const c = run.cases.find((x) => x.id === id);
  if (!c) throw new Error(`no request ${id}`);
  return c;
}

/** The differences between the two modes and validate on one case; none when they agree or render covers them. */
async function differences(
  e: E2EEnv,
  run: Run,
  c: CorpusCase,
  dir: string,
  covered: (line: string) => void,
): Promise<string[]> {
  const native = run.native as NativePolicies;
  const v = run.verdicts.get(c.id) ?? {};
  const web = v.webhook;
  const nat = v.native;
  const where = `${c.id} (${c.source}, as ${c.as})`;
  if (!web || !nat) return [`${where}: no verdict in ${web ? 'native' : 'webhook'} mode`];
  const byUs = (x: Verdict): boolean => x.by === 'webhook' || x.by === 'policy';
  if (!web.allowed && !byUs(web)) {
    // The API server's own refusals (schema, RBAC) come before admission: the same in both modes.
    return nat.allowed === false && nat.by === web.by && nat.text === web.text
      ? []
      : [`${where}: refused by ${web.by} (${web.text ?? ''}) in webhook mode, ${JSON.stringify(nat)} in native mode`];
  }
  const offline = await validateVerdict(e, c, dir, run.configFile);
  const out: string[] = [];
  if (offline.allowed !== web.allowed)
    out.push(
      `${where}: the webhook ${web.allowed ? 'allows' : 'denies'}, validate does not (${offline.rules.join(', ')})`,
    );
  if (nat.allowed !== web.allowed) {
    const rules = [...offline.rules, ...(nat.policy ? rulesOfPolicy(native.objects, nat.policy) : [])];
    const found = covering(native.divergences, rules, reviewOf(e, c));
    if (found.length > 0) covered(`${where}: native differs, covered by render: ${found.map(noteText).join(' | ')}`);
    else
      out.push(
        `${where}: the webhook ${web.allowed ? 'allows' : `denies (${web.text ?? ''})`}, native ` +
          `${nat.allowed ? 'allows' : `denies (${nat.text ?? ''})`}; no divergence of render covers it for ` +
          `${rules.join(', ') || 'any rule'}`,
      );
    return out;
  }
  if (!web.allowed) {
    // The webhook joins every violation; the API server reports a policy's first failing validation.
    const joined = offline.denials.join('; ');
    if (web.text !== joined) out.push(`${where}: the webhook says\n  ${web.text ?? ''}\nvalidate says\n  ${joined}`);
    if (!offline.denials.some((d) => sameWords(nat.text ?? '', d, native.divergences)))
      out.push(
        `${where}: native says\n  ${nat.text ?? ''}\nnone of validate's denials:\n  ${offline.denials.join('\n  ')}`,
      );
    return out;
  }
  if (JSON.stringify(nat.hooks) !== JSON.stringify(web.hooks))
    out.push(`${where}: native stores other hooks: ${JSON.stringify(nat.hooks)} vs ${JSON.stringify(web.hooks)}`);
  // The webhook: the notices' warnings, and `<rule>: <message>` per warned violation, each cut to 120 characters.
  const webExpected = [
    ...new Set([...offline.notices, ...offline.warned.map((w) => `${w.rule}: ${w.message}`)].map(shortWarning)),
  ].sort();
  if (JSON.stringify(web.warnings) !== JSON.stringify(webExpected))
    out.push(`${where}: the webhook warns ${JSON.stringify(web.warnings)}, validate ${JSON.stringify(webExpected)}`);
  // Native: one warning per failing validation, in the webhook's words but uncut (the API server cuts only past
  // 4,096 characters in all), so some of validate's, and some whenever the webhook warns.
  const words = [...offline.notices, ...offline.warned.map((w) => `${w.rule}: ${w.message}`)];
  const strays = nat.warnings.filter((n) => !words.some((w) => sameWords(n, w, native.divergences)));
  if (strays.length > 0 || nat.warnings.length > 0 !== webExpected.length > 0)
    out.push(`${where}: native warns ${JSON.stringify(nat.warnings)}, validate ${JSON.stringify(words)}`);
  return out;
}

export const nativeKnobScenarios: Scenario = (env) => {
  describe('other policies: the webhook, the native policies and validate agree', () => {
    const runs = new Map<string, Run>(
      VARIANTS.map((v) => [v.id, { cases: [], verdicts: new Map(), witnessed: new Map() }]),
    );

    before(async () => {
      await storeAll(env());
    });

    after(async () => {
      // Back to the suite's own policy and mode, for whatever runs next; the variants' hookkeepers stopped.
      const e = env();
      await switchMode(e.plane, e.hookkeeper, e.native, e.mode);
      for (const run of runs.values()) if (run.hookkeeper?.running()) await run.hookkeeper.stop();
      await e.plane
        .kubeConfig('admin')
        .makeApiClient(ApiextensionsV1Api)
        .deleteCustomResourceDefinition({ name: 'controlplanemachinesets.machine.openshift.io' });
    });

    for (const variant of VARIANTS) {
      describe(variant.title, () => {
        const run = runs.get(variant.id) as Run;
        const sendAll = async (mode: AdmissionMode): Promise<void> => {
          const e = env();
          if (!run.hookkeeper || !run.native) {
            const dir = join(e.plane.dir, 'knobs');
            mkdirSync(dir, { recursive: true });
            run.configFile = join(dir, `${variant.id}.yaml`);
            await writeFile(run.configFile, variant.yaml);
            run.native = await renderForPlane(e.plane, parsePolicy(variant.yaml, run.configFile));
            run.hookkeeper = await startHookkeeper(e.plane, { config: variant.yaml, name: `hookkeeper-${variant.id}` });
            run.cases = await casesOf(e, variant.requests);
            const witnessDir = join(e.plane.dir, 'knobs', `${variant.id}-witnesses`);
            mkdirSync(witnessDir, { recursive: true });
            // The policy in force before this one: the previous variant's, or the suite's (the embedded default).
            const previous = VARIANTS[VARIANTS.indexOf(variant) - 1];
            let previousFile: string | undefined;
            if (previous) {
              previousFile = join(witnessDir, `${previous.id}.yaml`);
              await writeFile(previousFile, previous.yaml);
            }
            for (const id of variant.witnesses) {
              const c = caseOf(run, id);
              const mine = offlineAnswer(await validateVerdict(e, c, witnessDir, run.configFile));
              const before = offlineAnswer(await validateVerdict(e, c, witnessDir, previousFile));
              assert.notEqual(mine, before, `witness ${id} is ${mine} under the policy in force before too`);
              run.witnessed.set(id, mine);
            }
          }
          await switchMode(e.plane, run.hookkeeper, run.native, mode);
          for (const [id, expected] of run.witnessed)
            await pollUntil(
              `${mode} mode to answer ${id} as policy ${variant.id} does (${expected})`,
              30_000,
              async () => (answer(await send(e, caseOf(run, id))) === expected ? true : undefined),
              200,
            );
          for (const c of run.cases) {
            const v = run.verdicts.get(c.id) ?? {};
            v[mode] = await send(e, c);
            run.verdicts.set(c.id, v);
          }
        };

        test('every request sent through the webhook of a hookkeeper serving this policy', async () => {
          await sendAll('webhook');
        });

        test('every request sent through the native policies rendered from it, no webhook registered', async () => {
          await sendAll('native');
        });

        test('each request: the same verdict, words and warnings, or a divergence of render covering it', async (t) => {
          const e = env();
          const dir = join(e.plane.dir, 'knobs', variant.id);
          mkdirSync(dir, { recursive: true });
          assert.ok(run.cases.length > 0, 'no request was built');
          const failures: string[] = [];
          for (const c of run.cases) {
            const v = run.verdicts.get(c.id) ?? {};
            const said = (x: Verdict | undefined): string =>
              x ? `${answer(x)}${x.allowed ? '' : ` by ${x.by ?? '?'}`}` : '-';
            t.diagnostic(`${c.id}: webhook mode ${said(v.webhook)}, native mode ${said(v.native)}`);
            failures.push(...(await differences(e, run, c, dir, (line) => t.diagnostic(line))));
          }
          t.diagnostic(`${run.cases.length} requests compared in webhook and native mode and with validate`);
          assert.deepEqual(failures, []);
        });
      });
    }
  });
};
