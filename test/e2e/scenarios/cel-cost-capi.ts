// The CEL cost proof for Cluster API carriers (cel-cost.ts proves OpenShift's lists), with upstream's Machine CRD, in
// the webhook and native modes (static runs native mode's CEL, as in cel-cost.ts). Under the most the policy schema
// allows for annotations: the Cluster API profile with impliedOwners filled to MAX_IMPLIED_OWNERS (each one more
// conditional in the CEL of every rule that reads owners) and maxHooksPerStage at its limit, a cluster.x-k8s.io
// Machine filled to hook-count's bounds in both stages with the longest hook keys, created, every hook removed by
// break-glass and by their owner, one refused to an ordinary user in the rule's words: never refused for CEL cost.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { HOOK_ANNOTATION_PREFIX } from '../../../src/core/capi.js';
import {
  MAX_HOOKS_PER_STAGE_LIMIT,
  MAX_IMPLIED_OWNERS,
  POLICY_OWNER_HOOKS_PER_STAGE,
} from '../../../src/core/policy.js';
import { capiMachine } from '../../../testing/control-plane/machines.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { DENIAL_PREFIX, rejected, type PatchOp } from '../../../testing/control-plane/kube.js';
import { renderForPlane, switchMode, type AdmissionMode, type NativePolicies } from '../harness/admission-modes.js';
import { describeEachMode } from '../harness/per-mode.js';
import type { Scenario } from '../harness/suite.js';
import { profileWithProbes } from './capi-profile.js';
import { allowed, noCostTrouble } from './cel-cost.js';
import { metadataOf } from './helpers.js';

const NS = 'e2e-cel-cost-capi';
const MODES: readonly AdmissionMode[] = ['webhook', 'native'];
const STAGES = ['preDrain', 'preTerminate'] as const;
type Stage = (typeof STAGES)[number];
/** The profile's owner of kcp-cleanup, whose service account e2e calls kcpManager. */
const KCP_OWNER = 'controlplane.cluster.x-k8s.io/kcp-cleanup';
/** The API server's bound on a object's annotations, keys and values summed (apimachinery TotalAnnotationSizeLimitB). */
const ANNOTATIONS_LIMIT = 256 * 1024;

/** The longest hook name a key takes (a qualified name's name part: 63 characters), distinct by letter and index. */
function longName(letter: string, i: number): string {
  const id = `${letter}${String(i).padStart(4, '0')}`;
  return id + 'x'.repeat(63 - id.length);
}
const key = (stage: Stage, name: string): string => `${HOOK_ANNOTATION_PREFIX[stage]}/${name}`;
/** Names are distinct across stages too (single-owner wants one owner for a name in both). */
const LETTERS = {
  preDrain: { implied: 'a', unprotected: 'b', named: 'c' },
  preTerminate: { implied: 'd', unprotected: 'e', named: 'f' },
} as const;

interface Filled {
  policy: string;
  annotations: Record<string, string>;
  /** The implied key the policy lists last: the deepest in impliedOwnerCel's chain of conditionals. */
  deepest: { stage: Stage; name: string };
}

/**
 * The profile (with the mode switch's probes) at the most the schema allows, and a Machine at hook-count's bounds
 * per stage: MAX_HOOKS_PER_STAGE_LIMIT hooks with empty values (the policy's implied keys among them; the rest walk
 * the whole chain and come out unowned) and POLICY_OWNER_HOOKS_PER_STAGE valued with the owner the profile names.
 */
async function filled(): Promise<Filled> {
  const doc = parse(await profileWithProbes()) as Record<string, unknown>;
  const profiles = doc['impliedOwners'] as Array<{ hook: string; owner: string }>;
  const fillers = MAX_IMPLIED_OWNERS - profiles.length;
  const impliedPerStage = { preDrain: Math.ceil(fillers / 2), preTerminate: Math.floor(fillers / 2) };
  const implied = STAGES.flatMap((stage) =>
    Array.from({ length: impliedPerStage[stage] }, (_, i) => ({ stage, name: longName(LETTERS[stage].implied, i) })),
  );
  const annotations: Record<string, string> = {};
  for (const stage of STAGES) {
    const n = impliedPerStage[stage];
    for (let i = 0; i < n; i++) annotations[key(stage, longName(LETTERS[stage].implied, i))] = '';
    for (let i = 0; i < MAX_HOOKS_PER_STAGE_LIMIT - n; i++)
      annotations[key(stage, longName(LETTERS[stage].unprotected, i))] = '';
    for (let i = 0; i < POLICY_OWNER_HOOKS_PER_STAGE; i++)
      annotations[key(stage, longName(LETTERS[stage].named, i))] = KCP_OWNER;
  }
  const policy = stringify({
    ...doc,
    impliedOwners: [...profiles, ...implied.map((h) => ({ hook: key(h.stage, h.name), owner: KCP_OWNER }))],
    maxHooksPerStage: MAX_HOOKS_PER_STAGE_LIMIT,
  });
  return { policy, annotations, deepest: implied[implied.length - 1] as Filled['deepest'] };
}

const annotationsOf = (obj: Record<string, unknown>): Record<string, string> =>
  (metadataOf(obj)['annotations'] ?? {}) as Record<string, string>;
const pointer = (k: string): string => `/metadata/annotations/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;

export const capiCelCostScenarios: Scenario = (env) => {
  describe('CEL cost: a Cluster API Machine at the bounds, impliedOwners full', () => {
    let fill: Filled | undefined;
    let served: { hookkeeper: Hookkeeper; native: NativePolicies } | undefined;
    const setUp = async (): Promise<{ hookkeeper: Hookkeeper; native: NativePolicies }> => {
      if (served) return served;
      const e = env();
      fill = await filled();
      const bytes = Object.entries(fill.annotations).reduce((n, [k, v]) => n + k.length + v.length, 0);
      // What the API server stores bounds nothing here: hook-count's bounds bind first, with the longest keys.
      assert.ok(bytes <= ANNOTATIONS_LIMIT, `${bytes} bytes of annotations`);
      process.stderr.write(
        `[e2e] ${e.plane.label}: a Cluster API Machine at the bounds: ${Object.keys(fill.annotations).length} ` +
          `hooks, ${bytes} bytes of annotations (the API server stores ${ANNOTATIONS_LIMIT})\n`,
      );
      const hookkeeper = await startHookkeeper(e.plane, { name: 'hookkeeper-cel-cost-capi', config: fill.policy });
      served = { hookkeeper, native: await renderForPlane(e.plane, parsePolicy(fill.policy, 'cel-cost-capi.yaml')) };
      return served;
    };

    before(async () => {
      await env()
        .plane.kubeConfig('admin')
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: NS } } })
        .catch((err: unknown) => {
          if (!(err instanceof ApiException && err.code === 409)) throw err;
        });
    });
    after(async () => {
      const e = env();
      if (!served) return;
      await switchMode(e.plane, e.hookkeeper, e.native, e.mode);
      if (served.hookkeeper.running()) await served.hookkeeper.stop();
    });

    describeEachMode(MODES, env, setUp, (mode, off) => {
      const created = async (name: string): Promise<Filled> => {
        const f = fill as Filled;
        const { object, warnings } = await allowed(`create ${name}`, () =>
          env()
            .capiMachines('kcpManager')
            .create(NS, capiMachine({ name, namespace: NS, annotations: f.annotations })),
        );
        noCostTrouble('create', warnings);
        assert.deepEqual(annotationsOf(object), f.annotations);
        return f;
      };
      /** Every annotation gone at once, guarded by one the request read. */
      const clear = (f: Filled): PatchOp[] => [
        { op: 'test', path: pointer(key(f.deepest.stage, f.deepest.name)), value: '' },
        { op: 'replace', path: '/metadata/annotations', value: {} },
      ];

      test('break-glass removes every hook: allowed, warned', async (t) => {
        if (off(t)) return;
        const name = `${mode}-break-glass`;
        const f = await created(name);
        const { object, warnings } = await allowed('break-glass removing every hook', () =>
          env().capiMachines('admin').patch(NS, name, clear(f)),
        );
        assert.deepEqual(annotationsOf(object), {});
        assert.ok(warnings.length > 0, 'break-glass is warned');
        noCostTrouble('break-glass', warnings);
      });

      test('an ordinary user may not remove the deepest implied hook; the owner removes every hook', async (t) => {
        if (off(t)) return;
        const name = `${mode}-owner`;
        const f = await created(name);
        const { stage, name: hook } = f.deepest;
        const refusal = await rejected(() =>
          env()
            .capiMachines('alice')
            .patch(NS, name, [
              { op: 'test', path: pointer(key(stage, hook)), value: '' },
              { op: 'remove', path: pointer(key(stage, hook)) },
            ]),
        );
        noCostTrouble('denial', [refusal.message, ...refusal.warnings]);
        assert.equal(refusal.by, mode === 'webhook' ? 'webhook' : 'policy', refusal.message);
        const text = mode === 'webhook' ? refusal.message.slice(DENIAL_PREFIX.length) : refusal.text;
        const words =
          `metadata.annotations[${key(stage, hook)}]: Forbidden: "alice" may not remove ${stage} hook "${hook}" ` +
          `owned by "${KCP_OWNER}"; only its owner may: ` +
          'system:serviceaccount:capi-kubeadm-control-plane-system:capi-kubeadm-control-plane-manager, ' +
          'system:serviceaccount:k0smotron:k0smotron-controller-manager-control-plane (break-glass: group system:masters)';
        assert.ok(text.startsWith(words), `${text}\nwanted it to start with:\n${words}`);

        const { object, warnings } = await allowed('the owner removing every hook', () =>
          env().capiMachines('kcpManager').patch(NS, name, clear(f)),
        );
        assert.deepEqual(annotationsOf(object), {});
        // Its own hooks go unwarned; the unprotected ones (nothing verifies their removal) are warned.
        noCostTrouble('the owner', warnings);
        assert.deepEqual(
          warnings.filter((w) => /hook "[adcf]\d{4}/.test(w)),
          [],
        );
      });
    });
  });
};
