// The manifests under webhook-config/: every file parses, and the choices that keep a cluster safe are in them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { HOOKOWNERS } from '../../src/core/ownership.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';

type Doc = Record<string, unknown> & {
  kind?: string;
  metadata?: { name?: string; annotations?: Record<string, string> };
};
interface Webhook {
  name: string;
  admissionReviewVersions?: string[];
  sideEffects?: string;
  timeoutSeconds?: number;
  failurePolicy?: string;
  matchPolicy?: string;
  reinvocationPolicy?: string;
  clientConfig?: { service?: { name: string; namespace: string; path: string; port: number } };
  namespaceSelector?: { matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  rules?: { apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[]; scope?: string }[];
}

const root = join(packageRoot(), 'webhook-config');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(e.name) ? [path] : [];
  });
}

function load(file: string): Doc[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  if (!Array.isArray(docs)) return [];
  for (const doc of docs)
    assert.deepEqual(
      doc.errors.map((e) => e.message),
      [],
      relative(root, file),
    );
  return docs.map((d) => d.toJS() as Doc).filter((d) => d !== null);
}

const base = yamlFiles(join(root, 'base')).flatMap(load);
const byKind = (kind: string): Doc => {
  const found = base.find((d) => d.kind === kind);
  assert.ok(found, `base has a ${kind}`);
  return found;
};

test('every YAML file under webhook-config parses, and every path a kustomization names exists', () => {
  const files = yamlFiles(root);
  assert.ok(files.length >= 15);
  for (const file of files) {
    const docs = load(file);
    if (!file.endsWith('kustomization.yaml')) continue;
    const k = docs[0] as { resources?: string[]; components?: string[]; patches?: { path?: string }[] };
    for (const path of [
      ...(k.resources ?? []),
      ...(k.components ?? []),
      ...(k.patches ?? []).flatMap((p) => (p.path ? [p.path] : [])),
    ]) {
      assert.ok(existsSync(join(dirname(file), path)), `${relative(root, file)} names ${path}`);
    }
  }
});

test('each webhook configuration has the fields the API server requires, and stays out of hookkeeper only (where it runs)', () => {
  const configs = yamlFiles(root)
    .flatMap(load)
    .filter((d) => /^(Validating|Mutating)WebhookConfiguration$/.test(d.kind ?? '') && Array.isArray(d['webhooks']));
  assert.equal(configs.length, 2);
  for (const config of configs) {
    for (const w of config['webhooks'] as Webhook[]) {
      const where = `${config.kind}/${w.name}`;
      assert.deepEqual(w.admissionReviewVersions, ['v1'], where);
      assert.equal(w.sideEffects, 'None', where);
      assert.ok(typeof w.timeoutSeconds === 'number' && w.timeoutSeconds > 0 && w.timeoutSeconds <= 10, where);
      assert.equal(w.matchPolicy, 'Equivalent', where);
      assert.deepEqual(
        w.namespaceSelector?.matchExpressions,
        [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['hookkeeper'] }],
        where,
      );
      assert.equal(w.clientConfig?.service?.name, 'hookkeeper', where);
      assert.equal(w.clientConfig?.service?.namespace, 'hookkeeper', where);
      assert.equal(w.clientConfig?.service?.port, 443, where);
      assert.ok((w.rules ?? []).length > 0, where);
    }
  }
});

test('validating: fails closed on UPDATE of every guarded kind, open on CREATE', () => {
  const [update, create, ...rest] = byKind('ValidatingWebhookConfiguration')['webhooks'] as Webhook[];
  assert.equal(rest.length, 0);
  assert.equal(update?.name, 'machines.hookkeeper.io');
  assert.equal(update?.failurePolicy, 'Fail');
  assert.equal(create?.name, 'machine-creates.hookkeeper.io');
  assert.equal(create?.failurePolicy, 'Ignore');
  for (const [w, op] of [
    [update, 'UPDATE'],
    [create, 'CREATE'],
  ] as const) {
    assert.equal(w?.clientConfig?.service?.path, '/validate');
    assert.deepEqual(
      w?.rules?.map((r) => [r.apiGroups, r.apiVersions, r.resources, r.operations]),
      [
        [['machine.openshift.io'], ['v1beta1'], ['machines', 'machinesets'], [op]],
        [['machine.openshift.io'], ['v1'], ['controlplanemachinesets'], [op]],
        [
          ['cluster.x-k8s.io'],
          ['v1beta1', 'v1beta2'],
          ['machines', 'machinesets', 'machinedeployments', 'clusters'],
          [op],
        ],
      ],
    );
  }
});

test('mutating: fails open on Machine CREATE and the UPDATE that makes a Machine match, and is reinvoked', () => {
  const [w] = byKind('MutatingWebhookConfiguration')['webhooks'] as Webhook[];
  assert.equal(w?.name, 'machines.hookkeeper.io');
  assert.equal(w?.failurePolicy, 'Ignore');
  assert.equal(w?.reinvocationPolicy, 'IfNeeded');
  assert.equal(w?.clientConfig?.service?.path, '/mutate');
  assert.deepEqual(
    w?.rules?.map((r) => [r.apiGroups, r.resources, r.operations]),
    [
      [['machine.openshift.io'], ['machines'], ['CREATE', 'UPDATE']],
      [['cluster.x-k8s.io'], ['machines'], ['CREATE', 'UPDATE']],
    ],
  );
  // Which UPDATEs: test/native/match.test.ts holds the condition to src/rules/default-hooks/cel.ts.
  assert.deepEqual(
    (w as { matchConditions?: Array<{ name: string }> } | undefined)?.matchConditions?.map((c) => c.name),
    ['create-or-newly-selected'],
  );
});

test('the Deployment runs hardened, probes over HTTPS and mounts Secret hookkeeper-tls where serve reads it', () => {
  const spec = byKind('Deployment')['spec'] as { replicas: number; template: { spec: Record<string, unknown> } };
  assert.equal(spec.replicas, 2);
  const pod = spec.template.spec as {
    securityContext: Record<string, unknown>;
    containers: Record<string, unknown>[];
    volumes: {
      projected: {
        sources: { secret?: { name: string; items: { key: string; path: string }[] }; configMap?: { name: string } }[];
      };
    }[];
  };
  assert.equal(pod.securityContext['runAsNonRoot'], true);
  assert.deepEqual(pod.securityContext['seccompProfile'], { type: 'RuntimeDefault' });
  const [c] = pod.containers;
  assert.deepEqual(c?.['args'], [
    'serve',
    '--config',
    '/etc/hookkeeper/policy.yaml',
    '--tls-cert',
    '/etc/hookkeeper/tls/tls.crt',
    '--tls-key',
    '/etc/hookkeeper/tls/tls.key',
  ]);
  assert.deepEqual(c?.['securityContext'], {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
  });
  assert.deepEqual(c?.['lifecycle'], { preStop: { sleep: { seconds: 5 } } });
  assert.deepEqual((c?.['readinessProbe'] as { httpGet: unknown }).httpGet, {
    path: '/readyz',
    port: 'https',
    scheme: 'HTTPS',
  });
  assert.deepEqual((c?.['livenessProbe'] as { httpGet: unknown }).httpGet, {
    path: '/healthz',
    port: 'https',
    scheme: 'HTTPS',
  });
  const sources = pod.volumes.flatMap((v) => v.projected.sources);
  assert.deepEqual(sources.find((s) => s.secret)?.secret, {
    name: 'hookkeeper-tls',
    items: [
      { key: 'tls.crt', path: 'tls/tls.crt' },
      { key: 'tls.key', path: 'tls/tls.key' },
    ],
  });
  assert.equal(sources.find((s) => s.configMap)?.configMap?.name, 'hookkeeper-policy');
  assert.equal((byKind('PodDisruptionBudget')['spec'] as { minAvailable: number }).minAvailable, 1);
});

test('RBAC only reads (and asks SubjectAccessReviews, which store nothing)', () => {
  const rules = byKind('ClusterRole')['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  for (const rule of rules) {
    const review = rule.apiGroups.join() === 'authorization.k8s.io' && rule.resources.join() === 'subjectaccessreviews';
    assert.deepEqual(
      rule.verbs.filter((v) => !['get', 'list', 'watch'].includes(v)),
      review ? ['create'] : [],
    );
  }
});

test('the base ships the CRD that makes hookowners.hookkeeper.io nameable by kubectl, cluster-scoped, storing nothing', () => {
  const crd = byKind('CustomResourceDefinition');
  const spec = crd['spec'] as {
    group: string;
    scope: string;
    names: { kind: string; plural: string };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: { description: string } };
    }[];
  };
  assert.equal((crd['metadata'] as { name: string }).name, `${HOOKOWNERS.resource}.${HOOKOWNERS.group}`);
  assert.deepEqual(
    [spec.group, spec.scope, spec.names.kind, spec.names.plural],
    [HOOKOWNERS.group, 'Cluster', 'HookOwner', HOOKOWNERS.resource],
  );
  assert.deepEqual(
    spec.versions.map((v) => [v.name, v.served, v.storage]),
    [['v1alpha1', true, true]],
  );
  assert.match(spec.versions[0]?.schema.openAPIV3Schema.description ?? '', /hookkeeper stores nothing/);
});

test('each overlay wires up the certificate its way', () => {
  const overlay = (name: string): Doc[] => yamlFiles(join(root, 'overlays', name)).flatMap(load);
  const annotations = (docs: Doc[], kind: string): Record<string, string> | undefined =>
    docs.find((d) => d.kind === kind)?.metadata?.annotations;

  const openshift = overlay('openshift');
  assert.equal(
    annotations(openshift, 'Service')?.['service.beta.openshift.io/serving-cert-secret-name'],
    'hookkeeper-tls',
  );
  for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
    assert.equal(annotations(openshift, kind)?.['service.beta.openshift.io/inject-cabundle'], 'true', kind);
  }

  const certManager = overlay('cert-manager');
  const serving = certManager.find((d) => d.kind === 'Certificate' && d.metadata?.name === 'hookkeeper-tls');
  assert.equal((serving?.['spec'] as { secretName: string }).secretName, 'hookkeeper-tls');
  assert.ok((serving?.['spec'] as { dnsNames: string[] }).dnsNames.includes('hookkeeper.hookkeeper.svc'));
  for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
    assert.equal(annotations(certManager, kind)?.['cert-manager.io/inject-ca-from'], 'hookkeeper/hookkeeper-tls', kind);
  }

  const selfManaged = overlay('self-managed').find((d) => d.kind === 'Kustomization') as {
    secretGenerator: { name: string; type?: string }[];
  };
  assert.deepEqual(selfManaged.secretGenerator.find((g) => g.name === 'hookkeeper-tls')?.type, 'kubernetes.io/tls');
});
