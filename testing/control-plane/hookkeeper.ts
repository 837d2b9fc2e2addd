// startHookkeeper(): `hookkeeper serve` as a real subprocess with a CA of its own (so a scenario can stop and
// restart it), registered with the API server through the rendered webhook configurations, and waited for
// until the API server really enforces it.
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  caBundle,
  createCertificateAuthority,
  issueServingCertificate,
  type CertKeyPem,
} from '../../src/infrastructure/certs/pki.js';
import type { KubeObject } from '../../src/core/types.js';
import { renderWebhookConfigurations } from '../../src/compilers/deploy/render.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from './machines.js';
import type { ControlPlane } from './control-plane.js';
import { createRaw, rawRequest } from './http.js';
import { OPENSHIFT_MACHINES, rejected, ResourceClient } from './kube.js';
import { mentionsPortInUse, PortInUse, withFreePorts } from './ports.js';
import { GiveUp, pollUntil, spawnManaged, tail, type ManagedProcess } from './processes.js';

export interface HookkeeperOptions {
  /** A policy file's content (an object is written as JSON); none: the embedded default policy. */
  config?: string | Record<string, unknown>;
  /** A fixed port; none: a free one. */
  port?: number;
  /** Names its files and log in the plane's dir, so several can run side by side (default "hookkeeper"). */
  name?: string;
  /** Further `serve` flags, e.g. ['--kubeconfig', FILE]. */
  args?: readonly string[];
  /** Run the built CLI (dist/, what the image runs; `npm run build` first) instead of src/ through tsx, as the bench does. */
  built?: boolean;
}

export interface Hookkeeper {
  port: number;
  /** https://127.0.0.1:PORT, the base of the webhooks' clientConfig.url. */
  url: string;
  caPem: string;
  /** The CA itself (key included), so a scenario can issue a rotated serving certificate from it. */
  ca: CertKeyPem;
  /** The --tls-cert and --tls-key files (the serving pair is read from them, and re-read on change). */
  certFile: string;
  keyFile: string;
  logFile: string;
  /** Of the running process (undefined when stopped): a reload must not restart it. */
  pid(): number | undefined;
  running(): boolean;
  /** SIGTERM (graceful drain) and wait for the exit. */
  stop(): Promise<void>;
  /** Start again on the same port, with the same certificate and policy; resolves once /readyz answers. */
  start(): Promise<void>;
}

export async function startHookkeeper(plane: ControlPlane, options: HookkeeperOptions = {}): Promise<Hookkeeper> {
  const name = options.name ?? 'hookkeeper';
  const dir = join(plane.dir, name);
  mkdirSync(dir, { recursive: true });
  const ca = await createCertificateAuthority({ commonName: 'hookkeeper-e2e-webhook-ca', days: 1 });
  const serving = await issueServingCertificate(ca, {
    commonName: '127.0.0.1',
    dnsNames: ['localhost'],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, serving.certPem);
  await writeFile(keyFile, serving.keyPem, { mode: 0o600 });
  let configFile: string | undefined;
  if (options.config !== undefined) {
    configFile = join(dir, 'policy.yaml');
    await writeFile(
      configFile,
      typeof options.config === 'string' ? options.config : JSON.stringify(options.config, null, 2),
    );
  }
  const logFile = join(plane.dir, `${name}.log`);
  // The child reads its policy and credentials from flags only: a developer's HOOKKEEPER_CONFIG or KUBECONFIG must
  // not leak in, nor the runner's ~/.kube/config (serve consults the cluster it names for hook-owner grants).
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir };
  delete env['HOOKKEEPER_CONFIG'];
  delete env['KUBECONFIG'];
  delete env['HOOKKEEPER_LOG_LEVEL'];

  let current: ManagedProcess | undefined;
  const launch = async (port: number): Promise<void> => {
    const t = Date.now();
    const entry = options.built
      ? [join(plane.repoRoot, 'dist', 'transports', 'cli', 'main.js')]
      : ['--import', 'tsx', join(plane.repoRoot, 'src', 'transports', 'cli', 'main.ts')];
    const child = spawnManaged(
      name,
      process.execPath,
      [
        ...entry,
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--tls-cert',
        certFile,
        '--tls-key',
        keyFile,
        '--shutdown-grace',
        '2',
        '--log-level',
        'info',
        ...(configFile ? ['--config', configFile] : []),
        ...(options.args ?? []),
      ],
      { logFile, env, cwd: plane.repoRoot },
    );
    plane.adopt(child);
    current = child;
    try {
      await pollUntil(`${name} /readyz`, 30_000, async () => {
        const exit = child.exit();
        if (exit !== null) throw new GiveUp(`${name} exited (code ${exit.code}, signal ${exit.signal})`);
        return (await rawRequest({ url: `https://127.0.0.1:${port}/readyz`, ca: ca.certPem, timeoutMs: 2_000 }))
          .status === 200
          ? true
          : undefined;
      });
    } catch (err) {
      await child.stop();
      if (mentionsPortInUse(tail(logFile, 20))) throw new PortInUse(`${name}: port already in use`);
      throw err;
    }
    process.stderr.write(
      `[e2e] ${plane.label}: ${name} ready on 127.0.0.1:${port} after ${((Date.now() - t) / 1000).toFixed(1)} s\n`,
    );
  };

  const port =
    options.port ??
    (await withFreePorts(1, async ([p = 0]) => {
      await launch(p);
      return p;
    }));
  if (options.port !== undefined) await launch(port);

  return {
    port,
    url: `https://127.0.0.1:${port}`,
    caPem: ca.certPem,
    ca,
    certFile,
    keyFile,
    logFile,
    pid: () => (current !== undefined && current.exit() === null ? current.pid : undefined),
    running: () => current !== undefined && current.exit() === null,
    async stop() {
      await current?.stop();
    },
    async start() {
      if (current && current.exit() === null) throw new Error('hookkeeper is already running');
      await launch(port);
    },
  };
}

/** Creates the validating and mutating configurations rendered from webhook-config/base, pointing at hookkeeper. */
export async function registerWebhooks(plane: ControlPlane, hookkeeper: Hookkeeper): Promise<void> {
  const [validating, mutating] = renderWebhookConfigurations({
    caBundle: caBundle(hookkeeper.caPem),
    url: hookkeeper.url,
    // hookkeeper runs outside the cluster here; kube-system is left to scenarios that register webhooks of their own
    // there (cert-rotation), so every denial they see is theirs.
    namespace: 'kube-system',
    name: 'hookkeeper-e2e',
  });
  if (!validating || !mutating) throw new Error('renderWebhookConfigurations returned fewer than two configurations');
  // Sent as rendered, with no client model in between that could drop a field it does not know.
  const token = plane.identities.admin.token;
  await createRaw(
    plane.server,
    plane.caPem,
    token,
    '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    validating,
  );
  await createRaw(
    plane.server,
    plane.caPem,
    token,
    '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
    mutating,
  );
}

/** A worker Machine (which no default-hook rule touches) claiming the reserved etcd hook name: only our webhook denies it. */
function validatingProbe(): KubeObject {
  return openshiftMachine({
    name: 'probe-reserved-hook',
    role: 'worker',
    preDrain: [{ name: ETCD_HOOK.name, owner: 'someone' }],
  });
}

/**
 * Registration is asynchronous (the API server's webhook informers): poll with dry-run creates until the
 * validating webhook denies its probe and the mutating webhook patches its probe. Dry runs persist nothing.
 */
export async function waitForEnforcement(plane: ControlPlane, timeoutMs = 30_000): Promise<void> {
  const t = Date.now();
  const machines = new ResourceClient(plane.kubeConfig('admin'), OPENSHIFT_MACHINES);
  await pollUntil(
    'the validating webhook to deny its probe',
    timeoutMs,
    async () => {
      const refusal = await rejected(() =>
        machines.create(MACHINE_NAMESPACE, validatingProbe(), { dryRun: true }),
      ).catch(() => undefined);
      return refusal?.by === 'webhook' ? true : undefined;
    },
    200,
  );
  await pollUntil(
    'the mutating webhook to inject the etcd hook into its probe',
    timeoutMs,
    async () => {
      const { object } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'probe-control-plane', role: 'master' }),
        { dryRun: true },
      );
      const preDrain =
        (object['spec'] as { lifecycleHooks?: { preDrain?: Array<{ name: string }> } }).lifecycleHooks?.preDrain ?? [];
      return preDrain.some((h) => h.name === ETCD_HOOK.name) ? true : undefined;
    },
    200,
  );
  process.stderr.write(`[e2e] ${plane.label}: webhooks enforced after ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
}
