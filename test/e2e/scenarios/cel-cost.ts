// Big Machines through the real API server, in every admission mode but static (SAME_CEL): one with 1,000 hooks and
// one at the size limit of what the API server can store (found before any admission is registered), created,
// stripped of every hook by their owner and by break-glass, and one hook removed by an ordinary user: each decided as
// the rules say, never refused for CEL cost (per-expression or per-evaluation budget) or any other failure to
// evaluate. The suite's policy bounds hooks per stage (hook-count), so this group runs under one that turns the bound
// off: what every object the API server can store costs, whatever a policy lets in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiException, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ETCD_HOOK, openshiftMachine, type Hook } from '../../../testing/control-plane/machines.js';
import { parsePolicy } from '../../../src/config/load.js';
import { renderForPlane, switchMode, type AdmissionMode } from '../harness/admission-modes.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { OPENSHIFT_MACHINES, rejected, toRejection, type PatchOp } from '../../../testing/control-plane/kube.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf } from './helpers.js';

const NAMESPACE = 'e2e-cel-cost';
/** What the API server says when CEL runs out of budget, and when it could not evaluate at all. */
const COST_OR_ERROR =
  /cost limit exceeded|cost budget|exceeded the cost|CEL|expression|failed calling webhook|Internal error/i;

/** The CRD's longest hook name (256 characters, matching its pattern), made distinct by its index. */
function longName(i: number): string {
  const id = `h${String(i).padStart(5, '0')}`;
  return id + 'x'.repeat(256 - id.length);
}

/** n hooks of the registered etcd owner (the etcd operator may remove them; only it and break-glass may). */
function ownedHooks(n: number, name: (i: number) => string): Hook[] {
  return Array.from({ length: n }, (_, i) => ({ name: name(i), owner: ETCD_HOOK.owner }));
}

const SHORT = (i: number): string => `gate-${String(i).padStart(4, '0')}.example.com/Hold`;

interface Sizes {
  /** The most 256-character hooks a Machine can have and still be stored. */
  maxHooks: number;
  /** The API server's words for one more (etcd's request limit, or the request body limit). */
  refusal: string;
  bytes: number;
}

let sizes: Sizes | undefined;

/**
 * Bare setup (no admission registered): the largest storable Machine, by bisection on its number of hooks. The
 * binding limit is etcd's request size (--max-request-bytes, 1.5 MiB by default; the harness keeps the default), below
 * the API server's 3 MiB request body limit: the stored object also carries managedFields, one entry per hook.
 */
export async function findSizeLimit(env: E2EEnv): Promise<void> {
  const t = Date.now();
  const api = env.plane.kubeConfig('admin').makeApiClient(CustomObjectsApi);
  await env.plane
    .kubeConfig('admin')
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const body = (n: number) =>
    openshiftMachine({ name: `size-probe-${n}`, namespace: NAMESPACE, preDrain: ownedHooks(n, longName) });
  const fits = async (n: number): Promise<string | undefined> => {
    try {
      await api.createNamespacedCustomObject({ ...OPENSHIFT_MACHINES, namespace: NAMESPACE, body: body(n) });
      await api.deleteNamespacedCustomObject({ ...OPENSHIFT_MACHINES, namespace: NAMESPACE, name: `size-probe-${n}` });
      return undefined;
    } catch (err) {
      if (!(err instanceof ApiException)) throw err;
      return toRejection(err).message;
    }
  };
  let lo = 1;
  let hi = 8192;
  let refusal = await fits(hi);
  assert.ok(refusal !== undefined, `a Machine with ${hi} hooks of 256 characters was stored: no limit found`);
  assert.equal(await fits(lo), undefined);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const why = await fits(mid);
    if (why === undefined) lo = mid;
    else [hi, refusal] = [mid, why];
  }
  sizes = { maxHooks: lo, refusal, bytes: JSON.stringify(body(lo)).length };
  process.stderr.write(
    `[e2e] ${env.plane.label}: the largest storable Machine has ${lo} hooks (${sizes.bytes} bytes as sent); one ` +
      `more: ${refusal.slice(0, 160)} (${((Date.now() - t) / 1000).toFixed(1)} s)\n`,
  );
}

function noCostTrouble(what: string, texts: readonly string[]): void {
  for (const text of texts) assert.doesNotMatch(text, COST_OR_ERROR, `${what}: ${text.slice(0, 400)}`);
}

/** A request that must be allowed: a refusal fails the test with the API server's words (a cost failure first). */
async function allowed<T>(what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    const refusal = toRejection(err);
    const shown = `${refusal.message.slice(0, 300)} ... ${refusal.message.slice(-200)}`;
    noCostTrouble(what, [refusal.message]);
    assert.fail(`${what}: refused (HTTP ${refusal.code}): ${shown}`);
  }
}

/** Replaces a stage's whole list: a JSON patch guarded by the list's length so it removes what was read. */
function clearStage(count: number): PatchOp[] {
  return [
    { op: 'test', path: `/spec/lifecycleHooks/preDrain/${count - 1}/owner`, value: ETCD_HOOK.owner },
    { op: 'replace', path: '/spec/lifecycleHooks/preDrain', value: [] },
  ];
}

interface BigCase {
  title: string;
  hooks: () => Hook[];
}

const BIG: readonly BigCase[] = [
  { title: '1,000 hooks', hooks: () => ownedHooks(1000, SHORT) },
  {
    title: 'the most hooks of 256 characters the API server can store',
    hooks: () => {
      if (!sizes) throw new Error('the size limit was not found (see the suite before hook)');
      return ownedHooks(sizes.maxHooks, longName);
    },
  },
];

/** The embedded default policy with hook-count off: no bound on hooks per stage. */
const UNBOUNDED = 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement:\n  hook-count: "off"\n';

/**
 * Static mode loads native mode's policies into the same admission plugins, from disk: the same CEL under the same
 * budgets. Its run here passed (kube-apiserver v1.37.2) and cost two more policy switches and a minute or two of big
 * Machines on two shared cores, proving nothing native mode does not.
 */
const SAME_CEL: ReadonlySet<AdmissionMode> = new Set(['static']);
const SAME_CEL_REASON = 'static mode runs the native policies through the same plugins: native mode proves their cost';

export const celCostScenarios: Scenario = (env) => {
  describe('CEL cost: big Machines through the API server (hook-count off)', () => {
    let unbounded: Hookkeeper | undefined;
    /** Each test, skipped in the modes whose CEL is another's. */
    const costTest = (title: string, fn: () => Promise<void>): void => {
      test(title, async (t) => {
        if (SAME_CEL.has(env().mode)) return t.skip(SAME_CEL_REASON);
        await fn();
      });
    };

    before(async () => {
      const e = env();
      if (SAME_CEL.has(e.mode)) return;
      unbounded = await startHookkeeper(e.plane, { config: UNBOUNDED, name: 'hookkeeper-unbounded' });
      const native = await renderForPlane(e.plane, parsePolicy(UNBOUNDED, 'unbounded.yaml'));
      await switchMode(e.plane, unbounded, native, e.mode);
    });

    after(async () => {
      // Back to the suite's own policy and mode for whatever runs next.
      const e = env();
      if (SAME_CEL.has(e.mode)) return;
      await switchMode(e.plane, e.hookkeeper, e.native, e.mode);
      if (unbounded?.running()) await unbounded.stop();
    });

    BIG.forEach((big, i) => {
      const name = (what: string) => `cost-${i}-${what}`;
      const create = async (e: E2EEnv, what: string): Promise<Hook[]> => {
        const hooks = big.hooks();
        const { object, warnings } = await allowed(`create ${name(what)}`, () =>
          e
            .machines('machineApi')
            .create(NAMESPACE, openshiftMachine({ name: name(what), namespace: NAMESPACE, preDrain: hooks })),
        );
        noCostTrouble('create', warnings);
        assert.equal(hooksOf(object, 'preDrain').length, hooks.length);
        return hooks;
      };

      costTest(`${big.title}: CREATE allowed, every hook stored`, async () => {
        await create(env(), 'create');
      });

      costTest(`${big.title}: UPDATE by the owner removing every hook: allowed, no warning`, async () => {
        const e = env();
        const hooks = await create(e, 'owner');
        const { object, warnings } = await allowed('the owner removing every hook', () =>
          e.machines('etcdOperator').patch(NAMESPACE, name('owner'), clearStage(hooks.length)),
        );
        assert.deepEqual(hooksOf(object, 'preDrain'), []);
        assert.deepEqual(warnings, []);
      });

      costTest(`${big.title}: UPDATE by break-glass removing every hook: allowed, warned`, async () => {
        const e = env();
        const hooks = await create(e, 'break-glass');
        const { object, warnings } = await allowed('break-glass removing every hook', () =>
          e.machines('admin').patch(NAMESPACE, name('break-glass'), clearStage(hooks.length)),
        );
        assert.deepEqual(hooksOf(object, 'preDrain'), []);
        assert.ok(warnings.length > 0, 'break-glass is warned');
        noCostTrouble('break-glass', warnings);
        // The API server relays a few warnings and sums up the rest ("and 993 more warnings").
        for (const w of warnings)
          assert.match(w, /break-glass: e2e-admin may remove preDrain hook |^and \d+ more warnings$/);
      });

      costTest(`${big.title}: UPDATE by an ordinary user removing the last hook: denied by the rule`, async () => {
        const e = env();
        const hooks = await create(e, 'alice');
        const last = hooks[hooks.length - 1] as Hook;
        const refusal = await rejected(() =>
          e.machines('alice').patch(NAMESPACE, name('alice'), [
            { op: 'test', path: `/spec/lifecycleHooks/preDrain/${hooks.length - 1}/name`, value: last.name },
            { op: 'remove', path: `/spec/lifecycleHooks/preDrain/${hooks.length - 1}` },
          ]),
        );
        noCostTrouble('denial', [refusal.message, ...refusal.warnings]);
        assertOurDenial(e, refusal, [
          `spec.lifecycleHooks.preDrain[${hooks.length - 1}]: Forbidden: "alice" may not remove preDrain hook ` +
            `"${last.name}" owned by "clusteroperator/etcd"; only its owner may: ` +
            'system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
            'to let "alice" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove ' +
            '--resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create ' +
            'clusterrolebinding hookowner-clusteroperator-etcd-alice --clusterrole=hookowner-clusteroperator-etcd ' +
            '--user=alice',
        ]);
      });
    });
  });
};
