// A fault inside hookkeeper: the real API server applies each webhook's failurePolicy to it, exactly as to an outage
// (CREATE through the Ignore webhooks admitted unmutated, UPDATE through the Fail webhook refused). The fault is real:
// hookkeeper's own server, in this process, whose context lookup fails for Machines labelled to fail.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import {
  caBundle,
  createCertificateAuthority,
  issueServingCertificate,
} from '../../../src/infrastructure/certs/pki.js';
import type { KubeObject, ReviewInput } from '../../../src/core/types.js';
import { renderWebhookConfigurations } from '../../../src/compilers/deploy/render.js';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { createLogger } from '../../../src/infrastructure/log.js';
import { createMetrics, type Metrics } from '../../../src/transports/server/metrics.js';
import { startServer, type RunningServer } from '../../../src/transports/server/serve.js';
import { MACHINE_NAMESPACE, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { createRaw, rawRequest } from '../../../testing/control-plane/http.js';
import { rejected, WEBHOOK_NAME } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { hooksOf, metadataOf } from './helpers.js';

/** Only Machines carrying this label reach the fault instance's webhooks; the value "fail" makes its lookup fail. */
const MARKER = 'e2e.hookkeeper.io/fault-injection';
const CONFIG_NAME = 'hookkeeper-e2e-faults';
/** The fault instance's default hook: present on a Machine it reviewed, absent on one it failed to review. */
const PROBE_HOOK = { name: 'FaultProbe', owner: 'e2e/fault-probe' };
const INJECTED = 'injected fault: parent lookup crashed';

function marked(
  name: string,
  value: 'ok' | 'fail',
  preTerminate?: ReadonlyArray<{ name: string; owner: string }>,
): KubeObject {
  const machine = openshiftMachine({
    name,
    role: 'worker',
    ...(preTerminate ? { preTerminate: [...preTerminate] } : {}),
  });
  (metadataOf(machine)['labels'] as Record<string, string>)[MARKER] = value;
  return machine;
}

function labelOf(input: ReviewInput): string | undefined {
  const labels = (input.object?.['metadata'] as { labels?: Record<string, string> } | undefined)?.labels;
  return labels?.[MARKER];
}

/** hookkeeper_admission_requests_total for one webhook, operation and decision, as /metrics reports it. */
async function counted(metrics: Metrics, webhook: string, operation: string, decision: string): Promise<number> {
  const text = await metrics.registry.metrics();
  const line = new RegExp(
    `^hookkeeper_admission_requests_total\\{webhook="${webhook}",kind="Machine",operation="${operation}",decision="${decision}"\\} (\\d+)$`,
    'm',
  );
  return Number(line.exec(text)?.[1] ?? 0);
}

interface FaultInstance {
  server: RunningServer;
  metrics: Metrics;
  logFile: string;
}

/** hookkeeper's server as `serve` composes it, on real TLS, with a policy that adds PROBE_HOOK to marked Machines. */
async function startFaultInstance(e: E2EEnv): Promise<FaultInstance> {
  const dir = join(e.plane.dir, 'hookkeeper-faults');
  mkdirSync(dir, { recursive: true });
  const ca = await createCertificateAuthority({ commonName: 'hookkeeper-e2e-faults-ca', days: 1 });
  const serving = await issueServingCertificate(ca, {
    commonName: '127.0.0.1',
    dnsNames: [],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const tlsCertFile = join(dir, 'tls.crt');
  const tlsKeyFile = join(dir, 'tls.key');
  const configFile = join(dir, 'policy.json');
  await writeFile(tlsCertFile, serving.certPem);
  await writeFile(tlsKeyFile, serving.keyPem, { mode: 0o600 });
  await writeFile(
    configFile,
    JSON.stringify({
      apiVersion: 'hookkeeper.io/v1alpha1',
      kind: 'Policy',
      defaultHooks: [
        {
          name: 'fault-probe',
          stage: 'preDrain',
          hook: PROBE_HOOK,
          operations: ['CREATE'],
          match: {
            kinds: [{ group: 'machine.openshift.io', kind: 'Machine' }],
            labelSelector: { matchExpressions: [{ key: MARKER, operator: 'Exists' }] },
          },
        },
      ],
    }),
  );
  const logFile = join(e.plane.dir, 'hookkeeper-faults.log');
  const logger = createLogger({ level: 'info', destination: pino.destination({ dest: logFile, sync: true }) });
  const metrics = createMetrics();
  const server = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      devCertDir: '/nonexistent',
      tlsCertFile,
      tlsKeyFile,
      configFile,
      reloadIntervalMs: 60_000,
      shutdownGraceMs: 2_000,
      gatherContext: (input) => (labelOf(input) === 'fail' ? Promise.reject(new Error(INJECTED)) : undefined),
    },
    logger,
    metrics,
  );

  // Its own policy's conditions: the marker label is what its default-hook rule selects by, so an UPDATE changing it
  // is sent (missing-default-hook reads it).
  const [validating, mutating] = renderWebhookConfigurations({
    caBundle: caBundle(ca.certPem),
    url: `https://127.0.0.1:${server.port}`,
    name: CONFIG_NAME,
    policy: parsePolicy(await readFile(configFile, 'utf8'), configFile),
  });
  if (!validating || !mutating) throw new Error('renderWebhookConfigurations returned fewer than two configurations');
  // The shipped webhooks, failurePolicy and all, narrowed to marked Machines so that no other scenario reaches them.
  for (const config of [validating, mutating]) {
    for (const webhook of config.webhooks)
      webhook['objectSelector'] = { matchExpressions: [{ key: MARKER, operator: 'Exists' }] };
  }
  const token = e.plane.identities.admin.token;
  await createRaw(
    e.plane.server,
    e.plane.caPem,
    token,
    '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    validating,
  );
  await createRaw(
    e.plane.server,
    e.plane.caPem,
    token,
    '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
    mutating,
  );
  // Registration is asynchronous: wait until a dry-run create of a marked Machine comes back with the probe hook.
  const machines = e.machines('machineApi');
  await pollUntil(
    'the fault instance to mutate its probe',
    30_000,
    async () => {
      const { object } = await machines.create(MACHINE_NAMESPACE, marked('fault-registration-probe', 'ok'), {
        dryRun: true,
      });
      return hooksOf(object, 'preDrain').some((h) => h.name === PROBE_HOOK.name) ? true : undefined;
    },
    200,
  );
  return { server, metrics, logFile };
}

async function removeConfigurations(e: E2EEnv): Promise<void> {
  const token = e.plane.identities.admin.token;
  for (const kind of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
    await rawRequest({
      url: `${e.plane.server}/apis/admissionregistration.k8s.io/v1/${kind}/${CONFIG_NAME}`,
      method: 'DELETE',
      ca: e.plane.caPem,
      token,
    });
  }
}

export const faultScenarios: Scenario = (env) => {
  describe('a fault inside hookkeeper', () => {
    let instance: FaultInstance | undefined;
    const fault = (): FaultInstance => {
      if (!instance) throw new Error('the fault instance did not start');
      return instance;
    };

    before(async () => {
      instance = await startFaultInstance(env());
    });

    after(async () => {
      const e = env();
      await removeConfigurations(e);
      await instance?.server.shutdown();
    });

    test('control: a marked Machine it can review is created with its default hook', async () => {
      const { object } = await env().machines('machineApi').create(MACHINE_NAMESPACE, marked('fault-control', 'ok'));
      assert.deepEqual(hooksOf(object, 'preDrain'), [PROBE_HOOK]);
    });

    test('a create succeeds, unmutated: both webhooks that see CREATE fail open (failurePolicy Ignore)', async () => {
      const e = env();
      const before = {
        mutate: await counted(fault().metrics, 'mutate', 'CREATE', 'error'),
        validate: await counted(fault().metrics, 'validate', 'CREATE', 'error'),
      };
      const machines = e.machines('machineApi');
      // A hook of its own, so the validating CREATE webhook is sent it (a CREATE without hooks is not).
      const own = { name: 'KeepGate', owner: 'team/keep' };
      const { object: created, warnings } = await machines.create(
        MACHINE_NAMESPACE,
        marked('fault-create', 'fail', [own]),
      );
      assert.deepEqual([hooksOf(created, 'preDrain'), hooksOf(created, 'preTerminate')], [[], [own]]);
      assert.deepEqual(warnings, []);
      assert.deepEqual(hooksOf(await machines.get(MACHINE_NAMESPACE, 'fault-create'), 'preDrain'), []);
      // Both webhooks were called and both faulted: the API server ignored a failure, not a missing webhook.
      assert.equal(await counted(fault().metrics, 'mutate', 'CREATE', 'error'), before.mutate + 1);
      assert.equal(await counted(fault().metrics, 'validate', 'CREATE', 'error'), before.validate + 1);
    });

    test('an update is refused: the validating webhook fails closed (failurePolicy Fail)', async () => {
      const e = env();
      const machines = e.machines('admin');
      const errorsBefore = await counted(fault().metrics, 'validate', 'UPDATE', 'error');
      const refusal = await rejected(() =>
        machines.patch(MACHINE_NAMESPACE, 'fault-control', [
          { op: 'replace', path: `/metadata/labels/${MARKER.replace('/', '~1')}`, value: 'fail' },
        ]),
      );
      assert.equal(refusal.by, 'webhook-unreachable', refusal.message);
      assert.equal(refusal.code, 500);
      // hookkeeper's answer is a metav1.Status, so the API server quotes the fault and the request's uid to the client.
      const quoted = new RegExp(
        `^Internal error occurred: failed calling webhook "${WEBHOOK_NAME}": failed to call webhook: hookkeeper could not evaluate request ([0-9a-f-]{36}): ${INJECTED}$`,
      ).exec(refusal.message);
      assert.ok(quoted, refusal.message);
      // The same uid in hookkeeper's log, at error, with the stack.
      const logged = (await readFile(fault().logFile, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: number; uid?: string; msg: string; err?: { stack?: string } });
      const line = logged.find((l) => l.uid === quoted[1] && l.level === 50);
      assert.equal(line?.msg, 'admission review failed', JSON.stringify(logged.slice(-3)));
      assert.match(line.err?.stack ?? '', new RegExp(`^Error: ${INJECTED}\\n\\s+at `));
      assert.equal(await counted(fault().metrics, 'validate', 'UPDATE', 'error'), errorsBefore + 1);
      const stored = await machines.get(MACHINE_NAMESPACE, 'fault-control');
      assert.equal((metadataOf(stored)['labels'] as Record<string, string>)[MARKER], 'ok');
    });
  });
};
