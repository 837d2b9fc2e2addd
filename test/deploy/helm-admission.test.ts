// charts/hookkeeper's admission.mode with a real helm: webhook (the default) renders no native policy, native the
// shipped render of the embedded default policy and no webhook, both the two with every webhook at failurePolicy
// Ignore; admission.nativePolicies takes a render of your own, and values that would install other rules than the
// webhook's, or objects render never prints, fail with a message. Skips without helm unless CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { cli } from '../helpers/cli.js';
import { chartDir, findHelm, helmSkip, helmTemplate, requireHelm, runHelm } from '../helpers/helm.js';

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}
type Webhook = Record<string, unknown> & { name: string; failurePolicy: string };

const helm = findHelm();
const skip = helmSkip(helm);
const chart = chartDir(packageRoot());

function render(args: readonly string[] = []): Doc[] {
  return helmTemplate<Doc>(requireHelm(helm), chart, { args });
}

/** The stderr of a `helm template` that must fail. */
function renderError(args: readonly string[]): string {
  const res = runHelm(requireHelm(helm), ['template', 'hookkeeper', chart, '--namespace', 'hookkeeper', ...args]);
  assert.notEqual(res.status, 0, `helm template ${args.join(' ')} succeeded:\n${res.stdout}`);
  return res.stderr;
}

function one(docs: Doc[], kind: string): Doc {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `${kind}: ${found.length} rendered`);
  return found[0] as Doc;
}

const webhooks = (d: Doc): Webhook[] => d['webhooks'] as Webhook[];

/** The native policies the chart ships, as generated (the chart adds its labels). */
function shippedPolicies(): Doc[] {
  const file = join(chart, 'files', 'admission-policies.yaml');
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => d !== null);
}

const NATIVE_KINDS = new Set([
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

const byKey = (a: Doc, b: Doc): number => `${a.kind} ${a.metadata.name}`.localeCompare(`${b.kind} ${b.metadata.name}`);

/**
 * The rendered native objects (admission policies, bindings, params ConfigMaps named hookkeeper-*), sorted: helm
 * orders a release's objects by kind, which the API server does not mind (a binding may name a policy created later).
 */
function nativeObjects(docs: Doc[]): Doc[] {
  return docs
    .filter(
      (d) =>
        NATIVE_KINDS.has(d.kind) ||
        (d.kind === 'ConfigMap' &&
          d.metadata.name.startsWith('hookkeeper-') &&
          d.metadata.name !== 'hookkeeper-policy'),
    )
    .sort(byKey);
}

/** The objects of a render as the chart must install them (sorted as nativeObjects sorts), the chart's labels over their own. */
function asInstalled(rendered: Doc[], docs: Doc[]): Doc[] {
  // The hookowners CRD carries exactly the chart's labels.
  const chartLabels = one(docs, 'CustomResourceDefinition').metadata.labels;
  assert.ok(chartLabels?.['helm.sh/chart']);
  return rendered
    .map((d) => {
      const copy = structuredClone(d);
      copy.metadata.labels = { ...copy.metadata.labels, ...chartLabels };
      return copy;
    })
    .sort(byKey);
}

test('admission.mode webhook (the default) renders no native policy', { skip }, () => {
  assert.deepEqual(nativeObjects(render()), []);
});

test(
  'admission.mode native: the shipped native policies and the hookowners CRD, nothing of the webhook',
  { skip },
  () => {
    const docs = render(['--set', 'admission.mode=native']);
    assert.deepEqual(nativeObjects(docs), asInstalled(shippedPolicies(), docs));
    assert.deepEqual(
      docs.filter((d) => nativeObjects([d]).length === 0).map((d) => d.kind),
      ['CustomResourceDefinition'],
    );
    const lint = runHelm(requireHelm(helm), ['lint', '--strict', chart, '--set', 'admission.mode=native']);
    assert.equal(lint.status, 0, lint.stdout + lint.stderr);
  },
);

test(
  'admission.mode both: the webhook mode objects with every failurePolicy Ignore, plus the shipped native policies',
  { skip },
  () => {
    const webhook = render();
    const both = render(['--set', 'admission.mode=both']);
    assert.deepEqual(nativeObjects(both), asInstalled(shippedPolicies(), both));
    const rest = both.filter((d) => !nativeObjects([d]).length);
    const key = (d: Doc): string => `${d.kind} ${d.metadata.name}`;
    assert.deepEqual(rest.map(key), webhook.map(key));
    for (const d of webhook) {
      const b = rest.find((x) => key(x) === key(d));
      assert.ok(b);
      if (!d.kind.endsWith('WebhookConfiguration')) {
        assert.deepEqual(b, d, key(d));
        continue;
      }
      for (const w of webhooks(b)) assert.equal(w.failurePolicy, 'Ignore', `${key(d)} ${w.name}`);
      const unset = (x: Doc): unknown => webhooks(x).map((w) => ({ ...w, failurePolicy: undefined }));
      assert.deepEqual(unset(b), unset(d), `${key(d)}: only failurePolicy changed`);
    }
    // Even when the values ask for Fail: in both mode the native policies are what fails closed.
    const forced = render(['--set', 'admission.mode=both', '--set', 'failurePolicy.validating=Fail']);
    assert.equal(webhooks(one(forced, 'ValidatingWebhookConfiguration'))[0]?.failurePolicy, 'Ignore');
    const lint = runHelm(requireHelm(helm), ['lint', '--strict', chart, '--set', 'admission.mode=both']);
    assert.equal(lint.status, 0, lint.stdout + lint.stderr);
  },
);

test(
  'admission.nativePolicies: a render of your own policy (here for Kubernetes 1.35) is installed instead, labelled',
  { skip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-helm-native-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const policyFile = join(dir, 'policy.yaml');
    await writeFile(policyFile, 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwners: true\n');
    const rendered = await cli([
      'admission-policy',
      'render',
      '--config',
      policyFile,
      '--k8s-version',
      '1.35',
      '-o',
      'yaml',
    ]);
    assert.equal(rendered.code, 0, rendered.stderr);
    const nativeFile = join(dir, 'native.yaml');
    await writeFile(nativeFile, rendered.stdout);
    const own = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJS() as Doc | null)
      .filter((d): d is Doc => d !== null);
    assert.notDeepEqual(own, shippedPolicies(), 'the test needs a render that differs from the shipped one');
    for (const mode of ['native', 'both']) {
      const docs = render([
        '--set',
        `admission.mode=${mode}`,
        '--set-file',
        `policy=${policyFile}`,
        '--set-file',
        `admission.nativePolicies=${nativeFile}`,
        '--kube-version',
        '1.35.0',
      ]);
      assert.deepEqual(nativeObjects(docs), asInstalled(own, docs), mode);
    }
  },
);

test(
  'admission values that would install the wrong rules, or none, fail the render and say why',
  { skip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-helm-native-bad-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const own = join(dir, 'policy.yaml');
    await writeFile(own, 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwners: true\n');
    const secret = join(dir, 'secret.yaml');
    await writeFile(secret, 'apiVersion: v1\nkind: Secret\nmetadata: {name: hookkeeper-x}\n');
    const unnamed = join(dir, 'unnamed.yaml');
    await writeFile(
      unnamed,
      readFileSync(join(chart, 'files', 'admission-policies.yaml'), 'utf8').replace(
        /name: hookkeeper-/,
        'name: other-',
      ),
    );
    const cases: Array<[string[], RegExp]> = [
      [
        ['--set', 'admission.mode=sideways'],
        /at '\/admission\/mode': value must be one of 'webhook', 'native', 'both'/,
      ],
      [['--set', 'admission.nativeRender=x'], /additional properties 'nativeRender' not allowed/],
      [
        ['--set-file', `admission.nativePolicies=${secret}`],
        /admission\.nativePolicies is set, but admission\.mode is webhook, which installs no native policy/,
      ],
      [
        ['--set', 'admission.mode=native', '--set-file', `policy=${own}`],
        /policy sets more than apiVersion and kind: render your own with `hookkeeper admission-policy render --config POLICY-FILE/,
      ],
      [
        ['--set', 'admission.mode=both', '--set-file', `policy=${own}`],
        /pass --set-file admission\.nativePolicies=native\.yaml/,
      ],
      [
        ['--set', 'admission.mode=native', '--kube-version', '1.35.0'],
        /MutatingAdmissionPolicy admissionregistration\.k8s\.io\/v1, Kubernetes 1\.36 or newer, and this is v1\.35\.0/,
      ],
      [
        ['--set', 'admission.mode=native', '--set-file', `admission.nativePolicies=${secret}`],
        /admission\.nativePolicies holds a Secret: only what `hookkeeper admission-policy render` prints/,
      ],
      [
        ['--set', 'admission.mode=native', '--set-file', `admission.nativePolicies=${unnamed}`],
        /admission\.nativePolicies: \w+ "other-[^"]*" is not named hookkeeper-\*/,
      ],
      [
        ['--set', 'admission.mode=native', '--set', 'admission.nativePolicies=a: [b'],
        /admission\.nativePolicies is not YAML/,
      ],
    ];
    for (const [args, message] of cases) assert.match(renderError(args), message, args.join(' '));
  },
);
