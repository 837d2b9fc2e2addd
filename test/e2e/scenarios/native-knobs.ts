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
import { CoreV1Api } from '@kubernetes/client-node';
import jsonpatch from 'fast-json-patch';
import { shortWarning } from '../../../src/admission/response.js';
import { parsePolicy } from '../../../src/config/load.js';
import { HOOK_ANNOTATION_PREFIX } from '../../../src/core/capi.js';
import type { KubeObject } from '../../../src/core/types.js';
import { covering, noteText, type Divergence } from '../../../src/native/notes.js';
import {
  capiMachine,
  ETCD_HOOK,
  openshiftMachine,
  openshiftMachineSet,
  type Hook,
} from '../../fixtures/e2e-objects.js';
import { renderForPlane, switchMode, type AdmissionMode, type NativePolicies } from '../harness/admission-modes.js';
import { startHookkeeper, type Hookkeeper } from '../harness/hookkeeper.js';
import { pollUntil } from '../harness/processes.js';
import type { IdentityName } from '../harness/identities.js';
import {
  CAPI_MACHINES,
  OPENSHIFT_MACHINES,
  OPENSHIFT_MACHINESETS,
  ResourceClient,
  type PatchOp,
  type Resource,
} from '../harness/kube.js';
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

const NAMESPACE = 'e2e-knobs';
/** Registered for bob in both policies; granted to nobody through RBAC. */
const KNOB = 'team/knob';
/** Registered nowhere, granted nowhere. */
const UNKNOWN = 'team/knob-unknown';
const DRAIN = HOOK_ANNOTATION_PREFIX.preDrain;

/** The policy text both policies start from: the default's reserved hook, default hook and break-glass, plus KNOB. */
function policyText(extra: readonly string[]): string {
  return [
    'apiVersion: hookkeeper.io/v1alpha1',
    'kind: Policy',
    'owners:',
    '  clusteroperator/etcd:',
    '    serviceAccounts: [{namespace: openshift-etcd-operator, name: etcd-operator}]',
    `  ${KNOB}:`,
    '    users: [bob]',
    ...extra,
  ].join('\n');
}

/** Stored once, before either policy is in force: what the UPDATE cases change. */
const STORED: ReadonlyArray<{ resource: Resource; object: KubeObject; deleting?: boolean }> = [
  {
    resource: OPENSHIFT_MACHINES,
    object: openshiftMachine({
      name: 'knob-owned',
      namespace: NAMESPACE,
      preDrain: [
        { name: 'KnobGate', owner: KNOB },
        { name: 'UnknownGate', owner: UNKNOWN },
      ],
    }),
  },
  {
    resource: OPENSHIFT_MACHINES,
    object: openshiftMachine({
      name: 'knob-deleting',
      namespace: NAMESPACE,
      finalizers: ['example.com/hold'],
      preDrain: [{ name: 'KnobGate', owner: KNOB }],
    }),
    deleting: true,
  },
  {
    resource: CAPI_MACHINES,
    object: capiMachine({
      name: 'knob-capi',
      namespace: NAMESPACE,
      annotations: { [`${DRAIN}/KnobGate`]: KNOB, [`${DRAIN}/UnknownGate`]: UNKNOWN, [`${DRAIN}/NoOwner`]: '' },
    }),
  },
  {
    resource: OPENSHIFT_MACHINESETS,
    object: {
      ...openshiftMachineSet({
        name: 'knob-set',
        preDrain: [
          { name: 'KnobGate', owner: KNOB },
          { name: 'UnknownGate', owner: UNKNOWN },
        ],
      }),
      metadata: { name: 'knob-set', namespace: NAMESPACE },
    },
  },
];

type Change = (o: KubeObject) => void;

/** One request: a CREATE of `create`, or an UPDATE applying `change` to the stored object `stored`. */
interface Request {
  id: string;
  what: string;
  as: IdentityName;
  resource: Resource;
  create?: KubeObject;
  update?: { stored: string; change: Change };
}

interface Variant {
  id: string;
  title: string;
  yaml: string;
  requests: readonly Request[];
  /**
   * Requests this policy decides otherwise than the suite's policy and the other variant (validate checks it): a
   * mode counts as switched once each is answered as this policy answers it, since the API server loads webhook
   * configurations and each admission policy on its own and, for a while, may still enforce the previous policy's.
   */
  witnesses: readonly string[];
}

const machine = (name: string, preDrain: Hook[], preTerminate?: Hook[]): KubeObject =>
  openshiftMachine({ name, namespace: NAMESPACE, preDrain, ...(preTerminate ? { preTerminate } : {}) });

const machineSet = (name: string, preDrain: Hook[]): KubeObject => ({
  ...openshiftMachineSet({ name, preDrain }),
  metadata: { name, namespace: NAMESPACE },
});

function listAt(o: KubeObject, root: readonly string[]): Hook[] {
  let node: unknown = o;
  for (const key of root) node = (node as Record<string, unknown>)[key];
  return node as Hook[];
}
const PRE_DRAIN = ['spec', 'lifecycleHooks', 'preDrain'];
const TEMPLATE_PRE_DRAIN = ['spec', 'template', 'spec', 'lifecycleHooks', 'preDrain'];

const without =
  (name: string, root = PRE_DRAIN): Change =>
  (o) => {
    const list = listAt(o, root);
    list.splice(
      list.findIndex((h) => h.name === name),
      1,
    );
  };
const reowned =
  (name: string, owner: string): Change =>
  (o) => {
    const hook = listAt(o, PRE_DRAIN).find((h) => h.name === name);
    if (hook) hook.owner = owner;
  };
const added =
  (hook: Hook, root = PRE_DRAIN): Change =>
  (o) => {
    listAt(o, root).push(hook);
  };
const annotationRemoved =
  (key: string): Change =>
  (o) => {
    delete (o['metadata'] as { annotations: Record<string, string> }).annotations[key];
  };

/** Removals and re-owning by owners, non-owners and break-glass; what both policies judge differently. */
const removals = (p: string): Request[] => [
  {
    id: `${p}-remove-knob-alice`,
    what: "alice removes a registered owner's hook",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('KnobGate') },
  },
  {
    id: `${p}-remove-knob-bob`,
    what: 'bob removes the hook of the owner he is registered for',
    as: 'bob',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('KnobGate') },
  },
  {
    id: `${p}-remove-knob-admin`,
    what: "a break-glass admin removes a registered owner's hook",
    as: 'admin',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('KnobGate') },
  },
  {
    id: `${p}-remove-unknown-alice`,
    what: "alice removes an unknown owner's hook",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('UnknownGate') },
  },
  {
    id: `${p}-remove-unknown-admin`,
    what: "a break-glass admin removes an unknown owner's hook",
    as: 'admin',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: without('UnknownGate') },
  },
  {
    id: `${p}-reown-unknown-alice`,
    what: "alice re-owns an unknown owner's hook to a registered owner",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: reowned('UnknownGate', KNOB) },
  },
  {
    id: `${p}-reown-knob-bob`,
    what: "bob re-owns his owner's hook to an unknown owner",
    as: 'bob',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: reowned('KnobGate', UNKNOWN) },
  },
  {
    id: `${p}-capi-remove-unknown-alice`,
    what: "alice removes an unknown owner's Cluster API hook annotation",
    as: 'alice',
    resource: CAPI_MACHINES,
    update: { stored: 'knob-capi', change: annotationRemoved(`${DRAIN}/UnknownGate`) },
  },
  {
    id: `${p}-capi-remove-empty-alice`,
    what: 'alice removes a Cluster API hook annotation of no owner',
    as: 'alice',
    resource: CAPI_MACHINES,
    update: { stored: 'knob-capi', change: annotationRemoved(`${DRAIN}/NoOwner`) },
  },
  {
    id: `${p}-capi-remove-knob-bob`,
    what: "bob removes his owner's Cluster API hook annotation",
    as: 'bob',
    resource: CAPI_MACHINES,
    update: { stored: 'knob-capi', change: annotationRemoved(`${DRAIN}/KnobGate`) },
  },
  {
    id: `${p}-deleting-add`,
    what: "alice adds a registered owner's hook to a deleting Machine",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-deleting', change: added({ name: 'LateGate', owner: KNOB }) },
  },
  {
    id: `${p}-set-remove-knob`,
    what: "the controllers remove a registered owner's hook from a MachineSet template",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    update: { stored: 'knob-set', change: without('KnobGate', TEMPLATE_PRE_DRAIN) },
  },
  {
    id: `${p}-reown-knob-admin`,
    what: "a break-glass admin re-owns a registered owner's hook to an unknown owner",
    as: 'admin',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-owned', change: reowned('KnobGate', UNKNOWN) },
  },
  {
    id: `${p}-move-unknown-alice`,
    what: "alice moves an unknown owner's hook from preDrain to preTerminate",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: {
      stored: 'knob-owned',
      change: (o) => {
        without('UnknownGate')(o);
        (o['spec'] as { lifecycleHooks: Record<string, Hook[]> }).lifecycleHooks['preTerminate'] = [
          { name: 'UnknownGate', owner: UNKNOWN },
        ];
      },
    },
  },
  {
    id: `${p}-relabel-alice`,
    what: "alice changes a label of a Machine carrying an unknown owner's hook",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: {
      stored: 'knob-owned',
      change: (o) => {
        (o['metadata'] as { labels: Record<string, string> }).labels['touched'] = 'yes';
      },
    },
  },
  {
    id: `${p}-deleting-remove-knob-alice`,
    what: "alice removes a registered owner's hook from a deleting Machine",
    as: 'alice',
    resource: OPENSHIFT_MACHINES,
    update: { stored: 'knob-deleting', change: without('KnobGate') },
  },
  {
    id: `${p}-capi-reown-unknown-alice`,
    what: "alice re-owns an unknown owner's Cluster API hook annotation to a registered owner",
    as: 'alice',
    resource: CAPI_MACHINES,
    update: {
      stored: 'knob-capi',
      change: (o) => {
        (o['metadata'] as { annotations: Record<string, string> }).annotations[`${DRAIN}/UnknownGate`] = KNOB;
      },
    },
  },
];

/** Creates with owners registered, unknown and empty, reserved names and one name of two owners. */
const creates = (p: string): Request[] => [
  {
    id: `${p}-create-knob`,
    what: "a Machine with a registered owner's hook",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(`${p}-create-knob`, [{ name: 'KnobGate', owner: KNOB }]),
  },
  {
    id: `${p}-create-unknown`,
    what: "a Machine with an unknown owner's hook",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(`${p}-create-unknown`, [{ name: 'UnknownGate', owner: UNKNOWN }]),
  },
  {
    id: `${p}-create-reserved`,
    what: 'a Machine claiming the reserved etcd hook name for a registered owner',
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(`${p}-create-reserved`, [{ name: ETCD_HOOK.name, owner: KNOB }]),
  },
  {
    id: `${p}-create-two-owners`,
    what: 'a Machine naming one hook with two registered owners across stages',
    as: 'machineApi',
    resource: OPENSHIFT_MACHINES,
    create: machine(
      `${p}-create-two-owners`,
      [{ name: 'Shared', owner: KNOB }],
      [{ name: 'Shared', owner: ETCD_HOOK.owner }],
    ),
  },
  {
    id: `${p}-capi-create-empty`,
    what: 'a Cluster API Machine with a hook annotation of no owner',
    as: 'machineApi',
    resource: CAPI_MACHINES,
    create: capiMachine({
      name: `${p}-capi-create-empty`,
      namespace: NAMESPACE,
      annotations: { [`${DRAIN}/NoOwner`]: '' },
    }),
  },
  {
    id: `${p}-capi-create-long-prefix`,
    what: 'a Cluster API Machine with a key that only starts with the hook prefix',
    as: 'machineApi',
    resource: CAPI_MACHINES,
    create: capiMachine({
      name: `${p}-capi-create-long-prefix`,
      namespace: NAMESPACE,
      annotations: { [`${DRAIN}.example.com/Gate`]: KNOB },
    }),
  },
  {
    id: `${p}-set-create-unknown`,
    what: "a MachineSet template with an unknown owner's hook",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    create: machineSet(`${p}-set-create-unknown`, [{ name: 'UnknownGate', owner: UNKNOWN }]),
  },
  {
    id: `${p}-set-create-reserved`,
    what: 'a MachineSet template claiming the reserved etcd hook name',
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    create: machineSet(`${p}-set-create-reserved`, [{ name: ETCD_HOOK.name, owner: KNOB }]),
  },
  {
    id: `${p}-set-add-unknown`,
    what: "the controllers add an unknown owner's hook to a MachineSet template",
    as: 'machineApi',
    resource: OPENSHIFT_MACHINESETS,
    update: { stored: 'knob-set', change: added({ name: 'LateGate', owner: UNKNOWN }, TEMPLATE_PRE_DRAIN) },
  },
];

export const VARIANTS: readonly Variant[] = [
  {
    id: 'strict',
    title: 'strictOwners, unverifiedRemoval: deny, single-owner: warn, deletion-freeze: off',
    yaml: policyText([
      'strictOwners: true',
      'unverifiedRemoval: deny',
      'enforcement:',
      '  single-owner: warn',
      '  deletion-freeze: "off"',
    ]),
    requests: [...creates('s'), ...removals('s')],
    witnesses: ['s-create-unknown', 's-capi-create-empty', 's-remove-unknown-alice'],
  },
  {
    id: 'lenient',
    title: 'unverifiedRemoval: allow, owner-only-removal: warn, hook-naming: warn',
    yaml: policyText(['unverifiedRemoval: allow', 'enforcement:', '  owner-only-removal: warn', '  hook-naming: warn']),
    requests: [...creates('l'), ...removals('l')],
    witnesses: ['l-capi-create-long-prefix', 'l-remove-unknown-alice'],
  },
];

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

async function storeAll(e: E2EEnv): Promise<void> {
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

/** The requests as the corpus' cases: UPDATEs as JSON patches from the stored object (guarded by its hooks). */
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
      patch: jsonpatch.compare(stored, next) as PatchOp[],
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
  // Native: one warning per failing validation, in the engine's words (no rule id; the API server cuts only past
  // 4,096 characters in all), so some of validate's, and some whenever the webhook warns.
  const words = [...offline.notices, ...offline.warned.map((w) => w.message)];
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
            for (const id of variant.witnesses) {
              const c = caseOf(run, id);
              const mine = offlineAnswer(await validateVerdict(e, c, witnessDir, run.configFile));
              const others = [offlineAnswer(await validateVerdict(e, c, witnessDir))];
              for (const other of VARIANTS.filter((o) => o !== variant)) {
                const file = join(witnessDir, `${other.id}.yaml`);
                await writeFile(file, other.yaml);
                others.push(offlineAnswer(await validateVerdict(e, c, witnessDir, file)));
              }
              assert.ok(!others.includes(mine), `witness ${id} is ${mine} under the suite's or another policy too`);
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
            t.diagnostic(
              `${c.id}: webhook ${v.webhook ? answer(v.webhook) : '-'}, native ${v.native ? answer(v.native) : '-'}`,
            );
            failures.push(...(await differences(e, run, c, dir, (line) => t.diagnostic(line))));
          }
          t.diagnostic(`${run.cases.length} requests compared in webhook and native mode and with validate`);
          assert.deepEqual(failures, []);
        });
      });
    }
  });
};
