// startControlPlane(): a real etcd + kube-apiserver on loopback with throw-away certs, static-token identities,
// RBAC and CRDs, ready for requests; stop() ends every process it started and removes its temp dir.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthorizationV1Api, CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { createCertificateAuthority, issueServingCertificate } from '../../src/infrastructure/certs/pki.js';
import { installCrds, readCrds, type CrdSet } from './crds.js';
import { rawRequest } from './http.js';
import {
  IDENTITY_NAMES,
  kubeConfigFor,
  makeIdentities,
  RBAC_CHECKS,
  rbacObjects,
  shippedRbac,
  tokensCsv,
  writeKubeConfig,
  type Identity,
  type IdentityName,
} from './identities.js';
import { mentionsPortInUse, PortInUse, withFreePorts } from './ports.js';
import { forgetDir, GiveUp, pollUntil, removeIfAborted, spawnManaged, tail, type ManagedProcess } from './processes.js';
import type { ControlPlaneSettings } from './settings.js';
import { prepareStaticAdmission } from './static-admission.js';

export interface ControlPlane {
  label: string;
  repoRoot: string;
  /** Temp dir: certs, tokens.csv, etcd data, every process's log. */
  dir: string;
  /** https://127.0.0.1:PORT */
  server: string;
  /** PEM CA of the API server's serving certificate. */
  caPem: string;
  /** The directory of static admission manifests kube-apiserver watches, when started with staticAdmission. */
  staticAdmissionRoot?: string;
  /** The API server's audit log (JSON lines): Machine writes at Metadata level, their audit annotations included. */
  auditLog: string;
  identities: Record<IdentityName, Identity>;
  kubeConfig(name: IdentityName): KubeConfig;
  /** That identity's kubeconfig as a file in dir, for `--kubeconfig FILE` (written on first use). */
  kubeConfigFile(name: IdentityName): Promise<string>;
  /** Registers another process (hookkeeper) to be stopped, first, on teardown and reported on failure. */
  adopt(process: ManagedProcess): void;
  /** Keep the temp dir at teardown: something failed and its logs are evidence. */
  markFailed(): void;
  /** The last lines of every log, for a failure report. */
  logTails(lines?: number): string;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  settings: ControlPlaneSettings;
  crds: CrdSet;
  /** Another release than the main line's (an exact tag, e.g. v1.36.5): built and cached by the same script. */
  k8sVersion?: string;
  /** More kube-apiserver flags (feature gates, an admission configuration file). */
  apiserverArgs?: readonly string[];
  /**
   * An AuthorizationConfiguration (apiserver.config.k8s.io/v1) for --authorization-config, in place of
   * --authorization-mode=RBAC (the two flags exclude each other): e.g. a webhook authorizer in front of RBAC.
   */
  authorizationConfig?: Record<string, unknown>;
  /**
   * Start kube-apiserver with static admission manifests from staticAdmissionRoot, empty until applyStaticSet writes a
   * set (static-admission.ts): the gate is added on 1.36; an older release is refused.
   */
  staticAdmission?: boolean;
}

/**
 * Machine writes, and changes to admission objects and CRDs (static self-protection), at Metadata level (annotations,
 * no bodies): small, and all that the scenarios read.
 */
const AUDIT_POLICY = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    {
      level: 'Metadata',
      verbs: ['update', 'patch'],
      resources: [
        { group: 'machine.openshift.io', resources: ['machines'] },
        { group: 'cluster.x-k8s.io', resources: ['machines'] },
      ],
    },
    {
      level: 'Metadata',
      verbs: ['update', 'patch', 'delete'],
      resources: [
        { group: 'admissionregistration.k8s.io' },
        { group: 'apiextensions.k8s.io', resources: ['customresourcedefinitions'] },
      ],
    },
    { level: 'None' },
  ],
};

function log(message: string): void {
  process.stderr.write(`[e2e] ${message}\n`);
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** scripts/build-control-plane.sh prints the bin dir; on a cold machine it compiles for ~11 minutes first. */
async function binDir(settings: ControlPlaneSettings, k8sVersion?: string): Promise<string> {
  if (settings.binDir && k8sVersion === undefined) return settings.binDir;
  const script = join(settings.repoRoot, 'scripts', 'build-control-plane.sh');
  const env = k8sVersion === undefined ? process.env : { ...process.env, HOOKKEEPER_K8S_VERSION: k8sVersion };
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { cwd: settings.repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const dir = out.trim();
      if (code === 0 && dir !== '') resolve(dir);
      else reject(new Error(`${script} exited with ${code}; see its output above`));
    });
  });
}

async function writeCertificates(dir: string): Promise<string> {
  const ca = await createCertificateAuthority({ commonName: 'hookkeeper-e2e-apiserver-ca', days: 1 });
  const serving = await issueServingCertificate(ca, {
    commonName: '127.0.0.1',
    dnsNames: ['localhost'],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const sa = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  await Promise.all([
    writeFile(join(dir, 'apiserver-ca.crt'), ca.certPem),
    writeFile(join(dir, 'apiserver.crt'), serving.certPem),
    writeFile(join(dir, 'apiserver.key'), serving.keyPem, { mode: 0o600 }),
    writeFile(join(dir, 'sa.pub'), sa.publicKey),
    writeFile(join(dir, 'sa.key'), sa.privateKey, { mode: 0o600 }),
  ]);
  return ca.certPem;
}

/** Polls until ready; if the process dies first, fails with its log (PortInUse when it could not bind, so the caller retries). */
async function startUntilReady(
  p: ManagedProcess,
  what: string,
  timeoutMs: number,
  ready: () => Promise<boolean>,
): Promise<void> {
  try {
    await pollUntil(what, timeoutMs, async () => {
      const exit = p.exit();
      if (exit !== null) throw new GiveUp(`${p.name} exited (code ${exit.code}, signal ${exit.signal})`);
      return (await ready()) ? true : undefined;
    });
  } catch (err) {
    await p.stop();
    // A port taken between picking it and the child binding it: the caller retries once with fresh ports.
    if (mentionsPortInUse(tail(p.logFile, 20))) throw new PortInUse(`${p.name}: port already in use`);
    throw err;
  }
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { settings, crds } = options;
  const label = crds.name;
  const started = Date.now();
  const bin = await binDir(settings, options.k8sVersion);
  log(`${label}: control-plane binaries in ${bin} (${seconds(started)})`);

  const dir = mkdtempSync(join(tmpdir(), `hookkeeper-e2e-${label.replace(/\W+/g, '-')}-`));
  removeIfAborted(dir);
  const processes: ManagedProcess[] = [];
  let failed = false;
  let stopping: Promise<void> | undefined;

  const logTails = (lines = 40): string => {
    const files = [...new Map(processes.map((p) => [p.logFile, p.name])).entries()];
    return files.map(([file, name]) => `---- ${name}: last ${lines} lines of ${file}\n${tail(file, lines)}`).join('\n');
  };
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Newest first: hookkeeper, then kube-apiserver, then etcd.
      for (const p of [...processes].reverse()) await p.stop();
      if (settings.keep) {
        log(`${label}: kept ${dir}`);
      } else if (failed) {
        // The logs and certs are the evidence; etcd's preallocated WAL (~120 MB) is not.
        rmSync(join(dir, 'etcd'), { recursive: true, force: true });
        log(`${label}: kept the logs in ${dir}`);
      } else {
        rmSync(dir, { recursive: true, force: true });
      }
      forgetDir(dir);
    })();
    return stopping;
  };

  try {
    const caPem = await writeCertificates(dir);
    const identities = makeIdentities();
    await writeFile(join(dir, 'tokens.csv'), tokensCsv(identities), { mode: 0o600 });
    await writeFile(join(dir, 'audit-policy.json'), JSON.stringify(AUDIT_POLICY));
    const authorization = options.authorizationConfig
      ? `--authorization-config=${join(dir, 'authorization-config.json')}`
      : '--authorization-mode=RBAC';
    if (options.authorizationConfig)
      await writeFile(join(dir, 'authorization-config.json'), JSON.stringify(options.authorizationConfig));
    const staticRoot = options.staticAdmission ? join(dir, 'static-admission') : undefined;
    const staticArgs = staticRoot ? await prepareStaticAdmission(staticRoot, join(bin, 'kube-apiserver')) : [];

    const fsyncFlag = await etcdSupportsNoFsync(join(bin, 'etcd'));
    const etcdPort = await withFreePorts(2, async ([client = 0, peer = 0]) => {
      const t = Date.now();
      const etcd = spawnManaged(
        'etcd',
        join(bin, 'etcd'),
        [
          '--name',
          'default',
          '--data-dir',
          join(dir, 'etcd'),
          '--log-level',
          'warn',
          '--listen-client-urls',
          `http://127.0.0.1:${client}`,
          '--advertise-client-urls',
          `http://127.0.0.1:${client}`,
          '--listen-peer-urls',
          `http://127.0.0.1:${peer}`,
          '--initial-advertise-peer-urls',
          `http://127.0.0.1:${peer}`,
          '--initial-cluster',
          `default=http://127.0.0.1:${peer}`,
          // Throw-away data: skipping fsync makes every write far cheaper.
          ...(fsyncFlag ? ['--unsafe-no-fsync'] : []),
        ],
        { logFile: join(dir, 'etcd.log'), cwd: dir },
      );
      processes.push(etcd);
      await startUntilReady(etcd, 'etcd /health', 30_000, async () => {
        const res = await rawRequest({ url: `http://127.0.0.1:${client}/health`, timeoutMs: 2_000 });
        return res.status === 200 && (JSON.parse(res.body) as { health?: string }).health === 'true';
      });
      log(`${label}: etcd healthy on 127.0.0.1:${client} after ${seconds(t)}`);
      return client;
    });

    const server = await withFreePorts(1, async ([port = 0]) => {
      const t = Date.now();
      const apiserver = spawnManaged(
        'kube-apiserver',
        join(bin, 'kube-apiserver'),
        [
          `--etcd-servers=http://127.0.0.1:${etcdPort}`,
          '--bind-address=127.0.0.1',
          `--secure-port=${port}`,
          // Loopback advertise address with no endpoint reconciler: nothing needs the kubernetes Service endpoints.
          '--advertise-address=127.0.0.1',
          '--endpoint-reconciler-type=none',
          `--tls-cert-file=${join(dir, 'apiserver.crt')}`,
          `--tls-private-key-file=${join(dir, 'apiserver.key')}`,
          `--cert-dir=${dir}`,
          `--token-auth-file=${join(dir, 'tokens.csv')}`,
          authorization,
          '--service-account-issuer=https://kubernetes.default.svc',
          `--service-account-key-file=${join(dir, 'sa.pub')}`,
          `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
          '--service-cluster-ip-range=10.0.0.0/24',
          '--allow-privileged=true',
          // No controller-manager creates the default ServiceAccount that this admission plugin waits for.
          '--disable-admission-plugins=ServiceAccount',
          // On in OpenShift: setting blockOwnerDeletion needs update on the owner's finalizers (child-resource rules).
          '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
          // Where admission's audit annotations land (route of a hook removal, a policy's Audit action).
          `--audit-policy-file=${join(dir, 'audit-policy.json')}`,
          `--audit-log-path=${join(dir, 'audit.log')}`,
          '--audit-log-format=json',
          '--v=1',
          ...staticArgs,
          ...(options.apiserverArgs ?? []),
        ],
        { logFile: join(dir, 'kube-apiserver.log'), cwd: dir },
      );
      processes.push(apiserver);
      const url = `https://127.0.0.1:${port}`;
      await startUntilReady(
        apiserver,
        'kube-apiserver /readyz',
        90_000,
        async () =>
          (await rawRequest({ url: `${url}/readyz`, ca: caPem, token: identities.admin.token, timeoutMs: 5_000 }))
            .status === 200,
      );
      log(`${label}: kube-apiserver ready on ${url} after ${seconds(t)}`);
      return url;
    });

    const configs = Object.fromEntries(
      IDENTITY_NAMES.map((n) => [n, kubeConfigFor(server, caPem, n, identities[n])]),
    ) as Record<IdentityName, KubeConfig>;
    const admin = configs.admin;
    const t = Date.now();
    await grantRbac(admin, identities, settings.repoRoot);
    await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'openshift-machine-api' } } });
    await installCrds(admin, server, caPem, identities.admin.token, await readCrds(crds.files));
    log(
      `${label}: RBAC, namespace and ${crds.files.length} CRD files installed after ${seconds(t)}; control plane up in ${seconds(started)}`,
    );

    return {
      label,
      repoRoot: settings.repoRoot,
      dir,
      server,
      caPem,
      auditLog: join(dir, 'audit.log'),
      ...(staticRoot ? { staticAdmissionRoot: staticRoot } : {}),
      identities,
      kubeConfig: (name) => configs[name],
      kubeConfigFile: (name) => writeKubeConfig(join(dir, `kubeconfig-${name}.json`), configs[name]),
      adopt: (p) => {
        processes.push(p);
      },
      markFailed: () => {
        failed = true;
      },
      logTails,
      stop,
    };
  } catch (err) {
    failed = true;
    log(`${label}: control plane failed to start: ${err instanceof Error ? err.message : String(err)}\n${logTails()}`);
    await stop();
    throw err;
  }
}

async function etcdSupportsNoFsync(etcd: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(etcd, ['--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      text += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      text += c;
    });
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(text.includes('--unsafe-no-fsync')));
  });
}

/** RBAC is enforced before admission: without these grants alice would get RBAC's 403, never the webhook's. */
async function grantRbac(
  admin: KubeConfig,
  identities: Record<IdentityName, Identity>,
  repoRoot: string,
): Promise<void> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const ours = rbacObjects(identities);
  const shipped = await shippedRbac(repoRoot);
  for (const body of [...ours.roles, ...shipped.roles]) await rbac.createClusterRole({ body });
  for (const body of [...ours.bindings, ...shipped.bindings]) await rbac.createClusterRoleBinding({ body });
  // The RBAC authorizer reads through informers: wait until it sees the new bindings.
  const authz = admin.makeApiClient(AuthorizationV1Api);
  for (const check of RBAC_CHECKS) {
    const id = identities[check.identity];
    await pollUntil(`RBAC to let ${id.username} ${check.verb} ${check.resource}`, 30_000, async () => {
      const review = await authz.createSubjectAccessReview({
        body: {
          spec: {
            user: id.username,
            groups: [...id.groups],
            resourceAttributes: {
              group: check.group,
              resource: check.resource.split('/')[0] ?? '',
              verb: check.verb,
              ...(check.resource.includes('/') ? { subresource: check.resource.split('/')[1] ?? '' } : {}),
              ...(check.namespace ? { namespace: check.namespace } : {}),
            },
          },
        },
      });
      return review.status?.allowed ? true : undefined;
    });
  }
}
