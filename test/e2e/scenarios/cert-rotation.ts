// Certificate rotation: a hookkeeper of its own, its pair mounted the way the kubelet mounts a Secret, is
// handed a new certificate from the same CA and serves it without a restart; a bad pair is refused and the old one
// kept. Its Machine lives in kube-system, which the suite registers its main webhooks to skip (as the namespace
// hookkeeper runs in), so every denial seen is this one's.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { caBundle, issueServingCertificate, type CertKeyPem } from '../../../src/infrastructure/certs/pki.js';
import { renderWebhookConfigurations } from '../../../src/compilers/deploy/render.js';
import { ETCD_HOOK, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { createRaw, rawRequest } from '../../../testing/control-plane/http.js';
import { rejected, WEBHOOK_NAME } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { MountedPair } from '../../helpers/mounted-pair.js';
import { hooksOf, removeHook } from './helpers.js';
import { ALICE_REMOVAL_DENIAL } from './owner-only-removal.js';

const NAME = 'hookkeeper-e2e-cert-rotation';
const ROTATION_WEBHOOK = 'cert-rotation.hookkeeper.io';
const NAMESPACE = 'kube-system';
const LABEL = { 'e2e.hookkeeper.io/scenario': 'cert-rotation' };
const MACHINE = 'cp-cert-rotation';
const VALIDATING = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const RELOAD_SECONDS = 1;
const DENIAL = `admission webhook "${ROTATION_WEBHOOK}" denied the request: ${ALICE_REMOVAL_DENIAL}`;

/** The serial of the certificate a fresh TLS handshake gets (verified against the CA, as the API server does). */
function servedSerial(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, timeout: 2_000 }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial);
    });
    socket.on('timeout', () => socket.destroy(new Error(`TLS handshake with 127.0.0.1:${port} timed out`)));
    socket.on('error', reject);
  });
}

function serialOf(certPem: string): string {
  return new X509Certificate(certPem).serialNumber;
}

/** hookkeeper_reloads_total{source="tls",result=...} from /metrics; 0 while the series does not exist yet. */
async function tlsReloads(hookkeeper: Hookkeeper, result: 'success' | 'failure'): Promise<number> {
  const res = await rawRequest({ url: `${hookkeeper.url}/metrics`, ca: hookkeeper.caPem });
  assert.equal(res.status, 200, res.body);
  const line = res.body
    .split('\n')
    .find(
      (l) =>
        l.startsWith('hookkeeper_reloads_total{') && l.includes('source="tls"') && l.includes(`result="${result}"`),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function issue(hookkeeper: Hookkeeper): Promise<CertKeyPem> {
  return issueServingCertificate(hookkeeper.ca, {
    commonName: '127.0.0.1',
    dnsNames: ['localhost'],
    ips: ['127.0.0.1'],
    days: 1,
  });
}

/** The main validating webhook for Machine UPDATEs, renamed and scoped to this scenario's labelled objects in kube-system. */
function rotationWebhookConfiguration(hookkeeper: Hookkeeper): Record<string, unknown> {
  const [validating] = renderWebhookConfigurations({
    caBundle: caBundle(hookkeeper.caPem),
    url: hookkeeper.url,
    name: NAME,
  });
  const webhook = validating?.webhooks.find((w) => w.name === WEBHOOK_NAME);
  if (!validating || !webhook) throw new Error(`the rendered validating configuration has no ${WEBHOOK_NAME}`);
  return {
    ...validating,
    webhooks: [
      {
        ...webhook,
        name: ROTATION_WEBHOOK,
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
        objectSelector: { matchLabels: LABEL },
      },
    ],
  };
}

async function aliceRemovalRefusal(e: E2EEnv, dryRun = false): Promise<string> {
  const alice = e.machines('alice');
  const current = await alice.get(NAMESPACE, MACHINE);
  const refusal = await rejected(() =>
    alice.patch(NAMESPACE, MACHINE, removeHook(current, 'preDrain', ETCD_HOOK.name), { dryRun }),
  );
  assert.equal(refusal.by, 'webhook', refusal.message);
  return refusal.message;
}

export const certRotationScenarios: Scenario = (env) => {
  describe('serving certificate rotation without a restart', () => {
    let hookkeeper: Hookkeeper | undefined;
    let mounted: MountedPair | undefined;
    let pid: number | undefined;
    let registered = false;

    before(async () => {
      const e = env();
      hookkeeper = await startHookkeeper(e.plane, {
        name: 'hookkeeper-cert-rotation',
        args: ['--reload-interval', String(RELOAD_SECONDS)],
      });
      pid = hookkeeper.pid();
      mounted = new MountedPair(hookkeeper.certFile, hookkeeper.keyFile);
      await mounted.adopt();
      const machine = openshiftMachine({ name: MACHINE, namespace: NAMESPACE, role: 'master', preDrain: [ETCD_HOOK] });
      Object.assign((machine['metadata'] as { labels: Record<string, string> }).labels, LABEL);
      const { object } = await e.machines('machineApi').create(NAMESPACE, machine);
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK]);
      await createRaw(
        e.plane.server,
        e.plane.caPem,
        e.plane.identities.admin.token,
        VALIDATING,
        rotationWebhookConfiguration(hookkeeper),
      );
      registered = true;
      await pollUntil(
        `${ROTATION_WEBHOOK} to deny its probe`,
        30_000,
        async () => {
          const message = await aliceRemovalRefusal(e, true).catch(() => undefined);
          return message === DENIAL ? true : undefined;
        },
        200,
      );
    });

    after(async () => {
      const e = env();
      const { plane } = e;
      if (registered) {
        const res = await rawRequest({
          url: `${plane.server}${VALIDATING}/${NAME}`,
          method: 'DELETE',
          ca: plane.caPem,
          token: plane.identities.admin.token,
        });
        if (res.status !== 200 && res.status !== 404)
          throw new Error(`DELETE ${VALIDATING}/${NAME}: HTTP ${res.status}: ${res.body}`);
      }
      const machines = e.machines('admin');
      if (await machines.exists(NAMESPACE, MACHINE)) await machines.delete(NAMESPACE, MACHINE);
      await hookkeeper?.stop();
    });

    const started = (): { hookkeeper: Hookkeeper; mounted: MountedPair } => {
      if (!hookkeeper || !mounted) throw new Error('the cert-rotation hookkeeper did not start (see the before hook)');
      return { hookkeeper, mounted };
    };

    test('before rotation: alice removing the etcd hook is denied by the scenario webhook', async () => {
      assert.equal(await aliceRemovalRefusal(env()), DENIAL);
      assert.equal(
        await servedSerial(started().hookkeeper.port, started().hookkeeper.caPem),
        serialOf(await readFile(started().hookkeeper.certFile, 'utf8')),
      );
    });

    test('a new pair from the same CA, swapped in atomically, is served by the same process', async () => {
      const { hookkeeper: h, mounted: m } = started();
      const successes = await tlsReloads(h, 'success');
      const next = await issue(h);
      const t = Date.now();
      await m.publish(next);
      await pollUntil(
        'the new certificate to be served',
        15_000,
        async () => ((await servedSerial(h.port, h.caPem)) === serialOf(next.certPem) ? true : undefined),
        200,
      );
      process.stderr.write(
        `[e2e] cert rotation: new certificate served after ${((Date.now() - t) / 1000).toFixed(1)} s\n`,
      );
      assert.equal(h.pid(), pid, 'hookkeeper was not restarted');
      assert.ok((await tlsReloads(h, 'success')) > successes, 'the reload was counted as a success');
    });

    test('after rotation: the same denial still arrives through the API server', async () => {
      assert.equal(await aliceRemovalRefusal(env()), DENIAL);
    });

    test('a certificate with a key that does not match it is refused: the old one stays, requests keep working', async () => {
      const { hookkeeper: h, mounted: m } = started();
      const serving = await servedSerial(h.port, h.caPem);
      const failures = await tlsReloads(h, 'failure');
      const [cert, other] = await Promise.all([issue(h), issue(h)]);
      await m.publish({ certPem: cert.certPem, keyPem: other.keyPem });
      await pollUntil(
        'the bad pair to be refused',
        15_000,
        async () => ((await tlsReloads(h, 'failure')) > failures ? true : undefined),
        200,
      );
      // A few more reload intervals: nothing may pick the bad pair up later.
      await new Promise((resolve) => setTimeout(resolve, 3 * RELOAD_SECONDS * 1000));
      assert.equal(await servedSerial(h.port, h.caPem), serving);
      assert.equal(h.pid(), pid);
      assert.equal(await aliceRemovalRefusal(env()), DENIAL);
    });
  });
};
