// The native and static variants of figure 5: the policy hookkeeper serves, compiled by the built CLI's
// `admission-policy render` for the API server's own version, created in the API server as `kubectl apply -f -`
// would, and removed again; or written by `render --static` and copied into the API server's static directory.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '../src/core/types.js';
import { STATIC_DIRS, STATIC_FILE } from '../src/compilers/native/static-layout.js';
import { apiVersionsFor } from '../src/compilers/native/version.js';
import type { StaticText } from '../testing/control-plane/static-admission.js';
import type { Api } from './api.js';
import { REPO } from './servers.js';

export interface NativePolicies {
  objects: KubeObject[];
  /** What render said native mode does differently from the webhook (its `note:` lines). */
  notes: string[];
  command: string;
  k8sVersion: string;
}

const describe = (o: KubeObject): string => {
  const meta = o['metadata'] as { name?: string; namespace?: string } | undefined;
  return `${String(o['kind'])} ${meta?.namespace ? `${meta.namespace}/` : ''}${meta?.name ?? '?'}`;
};

/** The built CLI's `admission-policy render ARGS` (the embedded default policy, as the bench's webhook serves). */
function render(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const cli = [join(REPO, 'dist', 'transports', 'cli', 'main.js'), 'admission-policy', 'render'];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...cli, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`admission-policy render ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** `hookkeeper admission-policy render -o json --k8s-version V`. */
export async function renderNative(api: Api): Promise<NativePolicies> {
  const { gitVersion } = await api.get<{ gitVersion: string }>('/version');
  const { stdout, stderr } = await render(['-o', 'json', '--k8s-version', gitVersion]);
  const list = JSON.parse(stdout) as { apiVersion?: string; kind?: string; items?: KubeObject[] };
  if (list.kind !== 'List' || !Array.isArray(list.items) || list.items.length === 0)
    throw new Error(`admission-policy render printed no v1 List of objects: ${stdout.slice(0, 300)}`);
  return {
    objects: list.items,
    notes: stderr
      .split('\n')
      .filter((l) => l.startsWith('note: '))
      .map((l) => l.slice('note: '.length)),
    command: `node dist/transports/cli/main.js admission-policy render -o json --k8s-version ${gitVersion}`,
    k8sVersion: gitVersion,
  };
}

export interface StaticSet {
  /** The plugins' files as render wrote them. */
  files: StaticText[];
  command: string;
}

/**
 * `hookkeeper admission-policy render --static OUT --k8s-version V --webhook-name hookkeeper-e2e` (self-protection
 * over the webhook configurations the bench registers; it matches no Machine request), read back from OUT.
 */
export async function renderStatic(native: NativePolicies, out: string): Promise<StaticSet> {
  const args = ['--static', out, '--k8s-version', native.k8sVersion, '--webhook-name', 'hookkeeper-e2e'];
  await render(args);
  const files = await Promise.all(
    Object.values(STATIC_DIRS).map(async (dir) => {
      const path = `${dir}/${STATIC_FILE}`;
      return { path, text: await readFile(join(out, dir, STATIC_FILE), 'utf8') };
    }),
  );
  return {
    files,
    command: `node dist/transports/cli/main.js admission-policy render ${args.join(' ').replace(out, '$TMP/static')}`,
  };
}

const HINT =
  'native admission policies and static manifests need kube-apiserver 1.36 or newer here (HOOKKEEPER_E2E_BIN_DIR or HOOKKEEPER_K8S_VERSION)';

/** Fails before anything is measured when the API server does not serve every kind render printed. */
export async function assertServed(api: Api, native: NativePolicies): Promise<void> {
  for (const o of native.objects)
    await api.collectionPath(o).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}: ${HINT}`, { cause: err });
    });
}

/** Creates the objects in order (params, policies, bindings), and the namespace of any namespaced one first. */
export async function installNative(api: Api, native: NativePolicies): Promise<void> {
  const namespaces = new Set(
    native.objects.flatMap((o) => {
      const ns = (o['metadata'] as { namespace?: string } | undefined)?.namespace;
      return ns ? [ns] : [];
    }),
  );
  for (const ns of namespaces) {
    const res = await api.call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`creating namespace ${ns}: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
  }
  for (const o of native.objects) {
    const path = await api.collectionPath(o);
    const res = await api.call('POST', path, o);
    if (res.status !== 201)
      throw new Error(
        `creating ${describe(o)} (rendered for ${native.k8sVersion}): HTTP ${res.status}: ${res.body.slice(0, 500)}` +
          (res.status === 404 ? ` (${HINT})` : ''),
      );
  }
}

/** Deletes the objects, bindings first (the reverse of apply order). */
export async function removeNative(api: Api, native: NativePolicies): Promise<void> {
  for (const o of [...native.objects].reverse()) {
    const name = (o['metadata'] as { name: string }).name;
    await api.expect(200, 'DELETE', `${await api.collectionPath(o)}/${name}`);
  }
}

const FLOOR_NAME = 'bench-native-floor';
const MACHINE_RULES = [
  {
    apiGroups: ['machine.openshift.io', 'cluster.x-k8s.io'],
    apiVersions: ['*'],
    resources: ['machines'],
    operations: ['CREATE', 'UPDATE'],
  },
];

/**
 * The least any policy costs: one ValidatingAdmissionPolicy whose one validation is `true` and one
 * MutatingAdmissionPolicy whose matchCondition is `false` (it never patches), each bound to Machines, in the API
 * versions render chose for this API server.
 */
export function nativeFloor(native: NativePolicies): NativePolicies {
  const versions = apiVersionsFor(native.k8sVersion.replace(/^v/, ''));
  const meta = (name: string): Record<string, unknown> => ({ name, labels: { 'app.kubernetes.io/name': 'bench' } });
  const objects: KubeObject[] = [
    {
      apiVersion: versions.validating,
      kind: 'ValidatingAdmissionPolicy',
      metadata: meta(FLOOR_NAME),
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: MACHINE_RULES },
        validations: [{ expression: 'true' }],
      },
    },
    {
      apiVersion: versions.validating,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: meta(FLOOR_NAME),
      spec: { policyName: FLOOR_NAME, validationActions: ['Deny'] },
    },
    {
      apiVersion: versions.mutating,
      kind: 'MutatingAdmissionPolicy',
      metadata: meta(FLOOR_NAME),
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: MACHINE_RULES },
        matchConditions: [{ name: 'never', expression: 'false' }],
        reinvocationPolicy: 'Never',
        // Never evaluated (the condition is false), but it must type as a list of JSONPatch.
        mutations: [
          {
            patchType: 'JSONPatch',
            jsonPatch: { expression: "[JSONPatch{op: 'test', path: '/kind', value: 'Machine'}]" },
          },
        ],
      },
    },
    {
      apiVersion: versions.mutating,
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: meta(FLOOR_NAME),
      spec: { policyName: FLOOR_NAME },
    },
  ];
  return { objects, notes: [], command: 'bench/native.ts nativeFloor', k8sVersion: native.k8sVersion };
}
