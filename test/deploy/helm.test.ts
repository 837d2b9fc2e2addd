// charts/hookkeeper with a real helm: lint, render in each certificate mode, the values, clear errors for bad values,
// and each certificate mode equal to its webhook-config/ overlay (the base is this chart, rendered). Skips without helm unless CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCerts } from '../../src/infrastructure/certs/store.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import {
  mutatingObjectSelector,
  mutatingWebhookCondition,
  validatingUpdateCondition,
} from '../../src/core/cel/webhook-conditions.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { findKustomize, kustomizeBuild, NO_KUSTOMIZE } from '../helpers/kustomize.js';
import { chartDir, findHelm, helmSkip, helmTemplate, requireHelm, runHelm } from '../helpers/helm.js';

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}
type Webhook = Record<string, unknown> & {
  name: string;
  failurePolicy: string;
  clientConfig: { caBundle?: string; service?: { name: string; namespace: string; path: string; port: number } };
  namespaceSelector: unknown;
};
type PodSpec = Record<string, unknown> & {
  securityContext: Record<string, unknown>;
  containers: (Record<string, unknown> & { image?: string; args: string[] })[];
};

const helm = findHelm();
const skip = helmSkip(helm);
const chart = chartDir(packageRoot());

function render(args: readonly string[] = [], options: { release?: string; namespace?: string } = {}): Doc[] {
  return helmTemplate<Doc>(requireHelm(helm), chart, { ...options, args });
}

/** The stderr of a `helm template` that must fail. */
function renderError(args: readonly string[]): string {
  const res = runHelm(requireHelm(helm), ['template', 'hookkeeper', chart, '--namespace', 'hookkeeper', ...args]);
  assert.notEqual(res.status, 0, `helm template ${args.join(' ')} succeeded:\n${res.stdout}`);
  return res.stderr;
}

function one(docs: Doc[], kind: string, name?: string): Doc {
  const found = docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
  assert.equal(found.length, 1, `${kind} ${name ?? ''}: ${found.length} rendered`);
  return found[0] as Doc;
}

const webhooks = (d: Doc): Webhook[] => d['webhooks'] as Webhook[];
const podSpec = (d: Doc): PodSpec => (d['spec'] as { template: { spec: PodSpec } }).template.spec;

/** `hookkeeper certs` output in a temp dir, as the self-managed mode takes it. */
async function selfManagedArgs(t: {
  after: (fn: () => Promise<void>) => void;
}): Promise<{ args: string[]; caBundle: string; crt: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-helm-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { caBundle } = await runCerts({ out: dir, service: 'hookkeeper', namespace: 'hookkeeper', ips: [] });
  return {
    caBundle,
    crt: await readFile(join(dir, 'tls.crt'), 'utf8'),
    key: await readFile(join(dir, 'tls.key'), 'utf8'),
    args: [
      '--set',
      'certificates.mode=self-managed',
      '--set',
      `certificates.selfManaged.caBundle=${caBundle}`,
      '--set-file',
      `certificates.selfManaged.tlsCrt=${join(dir, 'tls.crt')}`,
      '--set-file',
      `certificates.selfManaged.tlsKey=${join(dir, 'tls.key')}`,
    ],
  };
}

test('helm lint --strict passes in every certificate mode', { skip }, async (t) => {
  const selfManaged = await selfManagedArgs(t);
  for (const args of [
    [],
    ['--set', 'certificates.mode=openshift', '--set', 'namespace.create=true'],
    selfManaged.args,
  ]) {
    const res = runHelm(requireHelm(helm), ['lint', '--strict', chart, '--namespace', 'hookkeeper', ...args]);
    assert.equal(res.status, 0, `helm lint ${args.join(' ')}:\n${res.stdout}${res.stderr}`);
    assert.match(res.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  }
});

/**
 * What must not differ between the chart and the base: every field but metadata labels (the chart adds Helm's),
 * annotations unless asked for (each certificate mode adds its own), the container image (a value), and the pod
 * labels, which the chart widens with app.kubernetes.io/instance. Every label map equal to the object's own pod
 * selector reads "<selector>".
 */
function comparable(doc: Doc, options: { annotations?: boolean } = {}): unknown {
  const copy = structuredClone(doc) as Doc & {
    spec?: { selector?: { matchLabels?: unknown } | Record<string, string> };
  };
  delete copy.metadata.labels;
  if (!options.annotations) delete copy.metadata.annotations;
  const spec = copy.spec as Record<string, unknown> | undefined;
  const selector =
    doc.kind === 'Service'
      ? spec?.['selector']
      : (spec?.['selector'] as { matchLabels?: unknown } | undefined)?.matchLabels;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    if (selector !== undefined && JSON.stringify(value) === JSON.stringify(selector)) return '<selector>';
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
  };
  const out = walk(copy) as Doc;
  // base64 is base64 however it is wrapped (kustomize folds Secret data and the caBundle it copies from it).
  const unwrap = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/\s/g, '') : v);
  if (out.kind === 'Secret')
    out['data'] = Object.fromEntries(
      Object.entries(out['data'] as Record<string, string>).map(([k, v]) => [k, unwrap(v)]),
    );
  for (const w of (out['webhooks'] as Webhook[] | undefined) ?? []) {
    if (w.clientConfig.caBundle !== undefined) w.clientConfig.caBundle = unwrap(w.clientConfig.caBundle) as string;
  }
  if (out.kind === 'Deployment') {
    for (const c of podSpec(out).containers) {
      delete c['image'];
      delete c['imagePullPolicy'];
    }
  }
  return out;
}

// webhook-config/base is this chart rendered (scripts/render-kustomize.ts), held to it by
// test/deploy/kustomize-base.test.ts; the overlays are written by hand, so each is compared with its mode below.

test(
  'each certificate mode renders what its webhook-config/ overlay builds, annotations and certificates included',
  { skip: skip || (findKustomize() ? false : NO_KUSTOMIZE) },
  async (t) => {
    const kustomize = findKustomize() ?? [];
    const copy = await mkdtemp(join(tmpdir(), 'hookkeeper-helm-overlays-'));
    t.after(() => rm(copy, { recursive: true, force: true }));
    await cp(join(packageRoot(), 'webhook-config'), copy, { recursive: true });
    const certs = join(copy, 'overlays', 'self-managed', 'certs');
    const { caBundle } = await runCerts({ out: certs, service: 'hookkeeper', namespace: 'hookkeeper', ips: [] });
    const modes: Record<string, string[]> = {
      openshift: ['--set', 'certificates.mode=openshift'],
      'cert-manager': ['--set', 'certificates.mode=cert-manager'],
      'self-managed': [
        '--set',
        'certificates.mode=self-managed',
        '--set',
        `certificates.selfManaged.caBundle=${caBundle}`,
        '--set-file',
        `certificates.selfManaged.tlsCrt=${join(certs, 'tls.crt')}`,
        '--set-file',
        `certificates.selfManaged.tlsKey=${join(certs, 'tls.key')}`,
      ],
    };
    const key = (d: Doc): string => `${d.kind} ${d.metadata.namespace ?? ''}/${d.metadata.name}`;
    for (const [mode, args] of Object.entries(modes)) {
      const overlay = kustomizeBuild<Doc>(kustomize, join(copy, 'overlays', mode));
      const chartDocs = render(['--set', 'namespace.create=true', ...args]);
      assert.deepEqual(chartDocs.map(key).sort(), overlay.map(key).sort(), `${mode}: the same objects`);
      for (const o of overlay) {
        const c = chartDocs.find((d) => key(d) === key(o));
        assert.ok(c);
        // The base's Namespace is the one object whose annotations neither side sets.
        assert.deepEqual(
          comparable(c, { annotations: true }),
          comparable(o, { annotations: true }),
          `${mode}: ${key(o)} differs from overlays/${mode}`,
        );
      }
    }
  },
);

test(
  'cert-manager mode (the default): a private CA issues Secret hookkeeper-tls and the cainjector fills both caBundles',
  { skip },
  () => {
    const docs = render();
    assert.deepEqual(
      docs.filter((d) => d.kind === 'Issuer').map((d) => d.metadata.name),
      ['hookkeeper-selfsigned', 'hookkeeper-ca'],
    );
    const tls = one(docs, 'Certificate', 'hookkeeper-tls');
    assert.deepEqual(tls['spec'], {
      secretName: 'hookkeeper-tls',
      commonName: 'hookkeeper.hookkeeper.svc',
      dnsNames: [
        'hookkeeper',
        'hookkeeper.hookkeeper',
        'hookkeeper.hookkeeper.svc',
        'hookkeeper.hookkeeper.svc.cluster.local',
      ],
      duration: '2160h',
      renewBefore: '720h',
      usages: ['server auth', 'digital signature'],
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      issuerRef: { kind: 'Issuer', name: 'hookkeeper-ca' },
    });
    assert.equal((one(docs, 'Certificate', 'hookkeeper-ca')['spec'] as { isCA: boolean }).isCA, true);
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const config = one(docs, kind);
      assert.equal(config.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'hookkeeper/hookkeeper-tls', kind);
      for (const w of webhooks(config)) assert.equal(w.clientConfig.caBundle, undefined);
    }
    assert.equal(
      docs.some((d) => d.kind === 'Secret'),
      false,
    );
  },
);

test('openshift mode: service-ca annotations, no fixed runAsUser, nothing else changed', { skip }, () => {
  const docs = render(['--set', 'certificates.mode=openshift']);
  assert.equal(
    one(docs, 'Service').metadata.annotations?.['service.beta.openshift.io/serving-cert-secret-name'],
    'hookkeeper-tls',
  );
  for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
    assert.deepEqual(
      one(docs, kind).metadata.annotations,
      { 'service.beta.openshift.io/inject-cabundle': 'true' },
      kind,
    );
  }
  assert.equal(
    docs.some((d) => ['Issuer', 'Certificate', 'Secret'].includes(d.kind)),
    false,
  );
  const deployment = one(docs, 'Deployment');
  assert.equal(podSpec(deployment).securityContext['runAsUser'], undefined);
  const certManagerDeployment = one(render(), 'Deployment');
  delete podSpec(certManagerDeployment).securityContext['runAsUser'];
  assert.deepEqual(deployment, certManagerDeployment);
});

test(
  'self-managed mode: the caBundle in every webhook, and Secret hookkeeper-tls from the given PEM files',
  { skip },
  async (t) => {
    const { args, caBundle, crt, key } = await selfManagedArgs(t);
    const docs = render(args);
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const config = one(docs, kind);
      assert.equal(config.metadata.annotations, undefined, kind);
      for (const w of webhooks(config)) assert.equal(w.clientConfig.caBundle, caBundle, `${kind} ${w.name}`);
    }
    const secret = one(docs, 'Secret', 'hookkeeper-tls');
    assert.equal(secret['type'], 'kubernetes.io/tls');
    assert.deepEqual(secret['data'], {
      'tls.crt': Buffer.from(crt).toString('base64'),
      'tls.key': Buffer.from(key).toString('base64'),
    });
    // Without the PEM files, the Secret is yours to create under the name the pods mount.
    const withoutSecret = render(args.slice(0, 4));
    assert.equal(
      withoutSecret.some((d) => d.kind === 'Secret'),
      false,
    );
    assert.ok(JSON.stringify(one(withoutSecret, 'Deployment')).includes('"name":"hookkeeper-tls"'));
  },
);

test(
  'values: image, replicas, resources, scheduling, failurePolicy per webhook, extra RBAC and arguments',
  { skip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-helm-values-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const values = join(dir, 'values.yaml');
    await writeFile(
      values,
      [
        'image: {repository: registry.example.com/platform/hookkeeper, tag: "1.2.3", pullPolicy: Always}',
        'imagePullSecrets: [{name: pull}]',
        'replicas: 3',
        'resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 512Mi}}',
        'priorityClassName: system-cluster-critical',
        'nodeSelector: {node-role.kubernetes.io/control-plane: ""}',
        'tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]',
        'extraArgs: [--log-level, debug]',
        'rbac: {extraRules: [{apiGroups: [kubevirt.io], resources: [virtualmachines], verbs: [get, list, watch]}]}',
        'failurePolicy: {validating: Ignore, validatingCreates: Fail, mutating: Fail}',
        '',
      ].join('\n'),
    );
    const docs = render(['--values', values]);
    const deployment = one(docs, 'Deployment');
    assert.equal((deployment['spec'] as { replicas: number }).replicas, 3);
    const pod = podSpec(deployment);
    assert.deepEqual(pod['imagePullSecrets'], [{ name: 'pull' }]);
    assert.equal(pod['priorityClassName'], 'system-cluster-critical');
    assert.deepEqual(pod['nodeSelector'], { 'node-role.kubernetes.io/control-plane': '' });
    assert.deepEqual(pod['tolerations'], [
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const container = pod.containers[0];
    assert.ok(container);
    assert.equal(container.image, 'registry.example.com/platform/hookkeeper:1.2.3');
    assert.equal(container['imagePullPolicy'], 'Always');
    assert.deepEqual(container['resources'], {
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { memory: '512Mi' },
    });
    assert.deepEqual(container.args.slice(-2), ['--log-level', 'debug']);
    assert.deepEqual((one(docs, 'ClusterRole')['rules'] as unknown[]).at(-1), {
      apiGroups: ['kubevirt.io'],
      resources: ['virtualmachines'],
      verbs: ['get', 'list', 'watch'],
    });
    const failurePolicies = (kind: string): Record<string, string> =>
      Object.fromEntries(webhooks(one(docs, kind)).map((w) => [w.name, w.failurePolicy]));
    assert.deepEqual(failurePolicies('ValidatingWebhookConfiguration'), {
      'machines.hookkeeper.io': 'Ignore',
      'machine-creates.hookkeeper.io': 'Fail',
    });
    assert.deepEqual(failurePolicies('MutatingWebhookConfiguration'), { 'machines.hookkeeper.io': 'Fail' });
    // The default tag is the chart's appVersion, which is the package's version.
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
    assert.equal(
      podSpec(one(render(), 'Deployment')).containers[0]?.image,
      `registry.invalid/hookkeeper:${pkg.version}`,
    );
  },
);

test('one replica gets no PodDisruptionBudget (minAvailable 1 would block every drain of its node)', { skip }, () => {
  assert.equal(
    render(['--set', 'replicas=1']).some((d) => d.kind === 'PodDisruptionBudget'),
    false,
  );
  assert.equal(one(render(), 'PodDisruptionBudget').metadata.name, 'hookkeeper');
});

test(
  'another release name and namespace: names, the service endpoint, the certificate and the namespaceSelector follow',
  { skip },
  () => {
    const docs = render(['--set', 'namespace.create=true'], { release: 'guard', namespace: 'platform-guard' });
    assert.equal(one(docs, 'Namespace').metadata.name, 'platform-guard');
    // A CRD's name is its resource's (hookowners.hookkeeper.io), whatever the release.
    assert.equal(one(docs, 'CustomResourceDefinition').metadata.name, 'hookowners.hookkeeper.io');
    for (const d of docs) {
      if (d.kind === 'Namespace' || d.kind === 'CustomResourceDefinition') continue;
      assert.match(d.metadata.name, /^guard-hookkeeper(-|$)/, `${d.kind} ${d.metadata.name}`);
      if (
        ![
          'ClusterRole',
          'ClusterRoleBinding',
          'ValidatingWebhookConfiguration',
          'MutatingWebhookConfiguration',
        ].includes(d.kind)
      ) {
        assert.equal(d.metadata.namespace, 'platform-guard', `${d.kind} ${d.metadata.name}`);
      }
    }
    for (const w of webhooks(one(docs, 'ValidatingWebhookConfiguration'))) {
      assert.deepEqual(w.clientConfig.service, {
        name: 'guard-hookkeeper',
        namespace: 'platform-guard',
        path: '/validate',
        port: 443,
      });
      assert.deepEqual(w.namespaceSelector, {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['platform-guard'] }],
      });
    }
    assert.equal(
      one(docs, 'MutatingWebhookConfiguration').metadata.annotations?.['cert-manager.io/inject-ca-from'],
      'platform-guard/guard-hookkeeper-tls',
    );
    assert.ok(
      (one(docs, 'Certificate', 'guard-hookkeeper-tls')['spec'] as { dnsNames: string[] }).dnsNames.includes(
        'guard-hookkeeper.platform-guard.svc',
      ),
    );
    assert.deepEqual(one(docs, 'ClusterRoleBinding')['subjects'], [
      { kind: 'ServiceAccount', name: 'guard-hookkeeper', namespace: 'platform-guard' },
    ]);
  },
);

test('fullnameOverride names every object but the hookowners CRD', { skip }, () => {
  const docs = render(['--set', 'fullnameOverride=hk']).filter((d) => d.kind !== 'CustomResourceDefinition');
  assert.deepEqual([...new Set(docs.map((d) => d.metadata.name.replace(/-(policy|tls|ca|selfsigned)$/, '')))], ['hk']);
  assert.equal(webhooks(one(docs, 'ValidatingWebhookConfiguration'))[0]?.clientConfig.service?.name, 'hk');
});

test('the hookowners CRD (one per cluster) is left out with rbac.hookOwnersCrd=false', { skip }, () => {
  const crd = one(render(), 'CustomResourceDefinition');
  assert.deepEqual(
    [crd.metadata.name, (crd['spec'] as { scope: string; names: { kind: string } }).names.kind],
    ['hookowners.hookkeeper.io', 'HookOwner'],
  );
  assert.ok(!render(['--set', 'rbac.hookOwnersCrd=false']).some((d) => d.kind === 'CustomResourceDefinition'));
});

test(
  "the policy value is the file serve loads: the default and an inline one pass hookkeeper's own policy checks",
  { skip },
  async (t) => {
    const policyOf = (docs: Doc[]): string =>
      (one(docs, 'ConfigMap', 'hookkeeper-policy')['data'] as Record<string, string>)['policy.yaml'] ?? '';
    parsePolicy(policyOf(render()), 'chart default');
    const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-helm-policy-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'policy.yaml');
    await writeFile(
      file,
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwners: true\nbreakGlass: {users: [admin], groups: []}\n',
    );
    const policy = parsePolicy(policyOf(render(['--set-file', `policy=${file}`])), 'inline');
    assert.equal(policy.strictOwners, true);
    assert.deepEqual(policy.breakGlass.users, ['admin']);
  },
);

test('bad values fail the render with a message that names the value', { skip }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-helm-bad-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const notYaml = join(dir, 'not-yaml');
  await writeFile(notYaml, 'apiVersion: [unclosed\n');
  const notPolicy = join(dir, 'not-policy');
  await writeFile(notPolicy, 'apiVersion: v1\nkind: ConfigMap\n');
  const pem = join(dir, 'pem');
  await writeFile(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const cases: Array<[string[], RegExp]> = [
    [
      ['--set', 'certificates.mode=vault'],
      /at '\/certificates\/mode': value must be one of 'openshift', 'cert-manager', 'self-managed'/,
    ],
    [
      ['--set', 'certificates.mode=self-managed'],
      /certificates\.selfManaged\.caBundle is required when certificates\.mode is self-managed/,
    ],
    [
      [
        '--set',
        'certificates.mode=self-managed',
        '--set',
        `certificates.selfManaged.caBundle=${Buffer.from('hello').toString('base64')}`,
      ],
      /caBundle must be the base64 of a PEM CA certificate/,
    ],
    [
      ['--set', 'certificates.mode=self-managed', '--set', 'certificates.selfManaged.caBundle=not base64!'],
      /at '\/certificates\/selfManaged\/caBundle': 'not base64!' does not match pattern/,
    ],
    [
      [
        '--set',
        'certificates.mode=self-managed',
        '--set',
        `certificates.selfManaged.caBundle=${Buffer.from(readFileSync(pem)).toString('base64')}`,
        '--set-file',
        `certificates.selfManaged.tlsCrt=${pem}`,
      ],
      /tlsCrt and tlsKey go together/,
    ],
    [
      ['--set', 'failurePolicy.validating=Sometimes'],
      /at '\/failurePolicy\/validating': value must be one of 'Fail', 'Ignore'/,
    ],
    [['--set', 'replicas=0'], /at '\/replicas': minimum: got 0, want 1/],
    [['--set', 'image.repository='], /at '\/image\/repository': minLength/],
    [['--set', 'imageName=x'], /additional properties 'imageName' not allowed/],
    [['--set-file', `policy=${notYaml}`], /policy is not a YAML mapping/],
    [['--set', 'policy=- a list'], /policy is not a YAML mapping/],
    [['--kube-version', '1.29.0'], /chart requires kubeVersion: >=1\.30\.0-0/],
    [
      ['--set-file', `policy=${notPolicy}`],
      /policy must be a YAML mapping with apiVersion: hookkeeper\.io\/v1alpha1 and kind: Policy/,
    ],
  ];
  for (const [args, message] of cases) assert.match(renderError(args), message, args.join(' '));
});

test(
  "the mutating webhook's condition: the default policy's rules, or any labels change for a policy with its own defaultHooks",
  { skip },
  () => {
    const condition = (docs: Doc[]): unknown =>
      webhooks(one(docs, 'MutatingWebhookConfiguration'))[0]?.['matchConditions'];
    assert.deepEqual(condition(render()), [mutatingWebhookCondition(DEFAULT_POLICY)]);
    // A policy leaving defaultHooks alone keeps the default's.
    assert.deepEqual(
      condition(render(['--set', 'policy=apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwners: true'])),
      [mutatingWebhookCondition(DEFAULT_POLICY)],
    );
    const own = render(['--set', 'policy=apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\ndefaultHooks: []']);
    assert.deepEqual(condition(own), [mutatingWebhookCondition()]);
    // The objectSelector goes with the default policy's condition only.
    const selector = (docs: Doc[]): unknown =>
      webhooks(one(docs, 'MutatingWebhookConfiguration'))[0]?.['objectSelector'];
    const machines = [
      { group: 'machine.openshift.io', kind: 'Machine' },
      { group: 'cluster.x-k8s.io', kind: 'Machine' },
    ];
    assert.deepEqual(selector(render()), mutatingObjectSelector(DEFAULT_POLICY, machines));
    assert.equal(selector(own), undefined);
  },
);

test(
  "the validating webhook's UPDATE condition: the default policy's, the policy-free one for own defaultHooks or children, every live UPDATE under a denying missing-default-hook",
  { skip },
  () => {
    const updateCondition = (docs: Doc[]): unknown =>
      (webhooks(one(docs, 'ValidatingWebhookConfiguration'))[0]?.['matchConditions'] as Array<{ name: string }>).find(
        (c) => c.name === 'changes-what-rules-read',
      );
    const policy = (body: string): string[] => [
      '--set',
      `policy=apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n${body}`,
    ];
    assert.deepEqual(updateCondition(render()), validatingUpdateCondition(DEFAULT_POLICY));
    assert.deepEqual(updateCondition(render(policy('strictOwners: true'))), validatingUpdateCondition(DEFAULT_POLICY));
    assert.deepEqual(updateCondition(render(policy('defaultHooks: []'))), validatingUpdateCondition());
    assert.deepEqual(updateCondition(render(policy('children: []'))), validatingUpdateCondition());
    assert.deepEqual(
      updateCondition(render(policy('enforcement:\n  missing-default-hook: deny'))),
      validatingUpdateCondition(undefined, true),
    );
  },
);
