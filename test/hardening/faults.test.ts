// Faults under load, each with zero failed requests: SIGTERM to the real process, certificate rotation, and a
// policy reload that brings an invalid file. Loopback only; each test bounded by its timeout.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import { issueServingCertificate } from '../../src/infrastructure/certs/pki.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/transports/server/serve.js';
import { removeEtcdHookReview } from '../fixtures/hardening-machine.js';
import {
  closedLoop,
  expectDecision,
  keepAliveAgent,
  realisticShots,
  send,
  type Shot,
  type Target,
} from '../helpers/hardening-load.js';
import { spawnServe } from '../helpers/hardening-serve.js';
import { MountedPair } from '../helpers/mounted-pair.js';
import { httpsRequest, makePki, replaceFile } from '../helpers/tls.js';
import { eventually, HANG_GUARD_MS } from '../helpers/wait.js';

const running: RunningServer[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.shutdown()));
});

async function start(options: Partial<ServeOptions>, logger = silentLogger()): Promise<RunningServer> {
  const s = await startServer(
    { host: '127.0.0.1', port: 0, devCertDir: '/nonexistent', reloadIntervalMs: 50, shutdownGraceMs: 5000, ...options },
    logger,
    createMetrics(),
  );
  running.push(s);
  return s;
}

/**
 * A request whose body is half written now; `finish()` writes the rest. `sent`: the half is on a connection the
 * server has accepted (its TLS handshake done). Resolves to what went wrong, if anything.
 */
function slowRequest(
  target: Target,
  shot: Shot,
): { finish(): void; sent: Promise<void>; result: Promise<string | undefined> } {
  let finish = (): void => undefined;
  let sent = (): void => undefined;
  const written = new Promise<void>((resolve) => (sent = resolve));
  const result = new Promise<string | undefined>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: shot.path,
        method: 'POST',
        ca: target.ca,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(shot.body) },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('close', () => {
          if (!res.complete) resolve('response cut short');
        });
        res.on('end', () => resolve(shot.check(res.statusCode ?? 0, body)));
      },
    );
    req.on('error', (err) => resolve(`request: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    const half = Math.floor(shot.body.length / 2);
    req.on('socket', (socket) => socket.once('secureConnect', () => req.write(shot.body.slice(0, half), () => sent())));
    finish = () => req.end(shot.body.slice(half));
  });
  return { finish: () => finish(), sent: written, result };
}

describe('faults under load', { timeout: HANG_GUARD_MS }, () => {
  test('SIGTERM: every request already sent gets its whole answer, and the process exits 0', async () => {
    const pki = await makePki();
    const serve = await spawnServe(['--tls-cert', pki.certFile, '--tls-key', pki.keyFile, '--shutdown-grace', '10']);
    const target = { port: serve.port, ca: pki.ca.certPem };
    // 64 keep-alive workers: with this many, some request is always on its way when the signal lands.
    const agent = keepAliveAgent(target, 64);
    const load = closedLoop(target, realisticShots('sigterm'), 64, agent);
    await eventually(() => load.completed() >= 300, '300 completed requests');
    // Requests in flight across the signal: half a body before it, the rest after.
    const slow = realisticShots('sigterm-slow').map((shot) => slowRequest(target, shot));
    await Promise.all(slow.map((s) => s.sent));

    serve.child.kill('SIGTERM');
    const summary = load.stop(); // no new requests from here on; those in flight must all complete
    await eventually(() => serve.lines.some((l) => String(l['msg']).startsWith('shutting down')), 'the signal');
    for (const s of slow) s.finish();

    const done = await summary;
    const slowProblems = (await Promise.all(slow.map((s) => s.result))).filter((p) => p !== undefined);
    agent.destroy();
    assert.deepEqual(done.failures, []);
    assert.deepEqual(slowProblems, []);
    assert.ok(done.ok >= 300);
    assert.deepEqual(await serve.exit, { code: 0, signal: null });
    assert.ok(serve.lines.some((l) => l['msg'] === 'stopped'));
  });

  test('certificate rotation: the mounted pair is swapped five times under load, with no failed request', async () => {
    const pki = await makePki();
    // Mounted as the kubelet mounts a Secret: rotations are atomic "..data" symlink swaps.
    const mounted = new MountedPair(pki.certFile, pki.keyFile);
    await mounted.adopt();
    const publish = (pair: { certPem: string; keyPem: string }): Promise<void> => mounted.publish(pair);
    const s = await start({ tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile });
    const target = { port: s.port, ca: pki.ca.certPem };

    const agent = keepAliveAgent(target, 8);
    const kept = closedLoop(target, realisticShots('rotate'), 8, agent);
    // Fresh connections too, so handshakes happen with every certificate in turn.
    const fresh = closedLoop(target, realisticShots('rotate-fresh'), 2, false);
    for (let i = 1; i <= 5; i++) {
      const cn = `rotated-${i}`;
      await publish(
        await issueServingCertificate(pki.ca, { commonName: cn, dnsNames: ['localhost'], ips: ['127.0.0.1'], days: 1 }),
      );
      await eventually(
        async () => (await httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem })).peer.subject.CN === cn,
        `the certificate ${cn} served`,
      );
    }
    const [a, b] = await Promise.all([kept.stop(), fresh.stop()]);
    agent.destroy();
    assert.deepEqual([...a.failures, ...b.failures], []);
    assert.ok(a.ok > 0 && b.ok > 0);
    // One reload per swap, and no refused pair: a poll that reads the two files across a swap waits for the next.
    const text = await s.metrics.registry.metrics();
    assert.match(text, /hookkeeper_reloads_total\{source="tls",result="success"\} 5\n/);
    assert.doesNotMatch(text, /hookkeeper_reloads_total\{source="tls",result="failure"\}/);
  });

  test('policy reload: invalid files under load are refused, logged and counted; the last good policy decides', async () => {
    const pki = await makePki();
    const config = join(pki.dir, 'policy.yaml');
    await writeFile(config, 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n');
    const logged: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logged.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        cb();
      },
    });
    const s = await start(
      { tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile, configFile: config },
      pino({ level: 'warn' }, sink),
    );
    const target = { port: s.port, ca: pki.ca.certPem };
    const failures = async (): Promise<number> =>
      Number(
        /hookkeeper_reloads_total\{source="policy",result="failure"\} (\d+)/.exec(
          await s.metrics.registry.metrics(),
        )?.[1] ?? 0,
      );

    const agent = keepAliveAgent(target, 8);
    const load = closedLoop(target, realisticShots('reload'), 8, agent);
    const invalid = [
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement: {owner-only-removal: nope}\n', // not an enforcement
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement: [unclosed\n', // not YAML
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nsurprise: true\n', // unknown field
      'apiVersion: hookkeeper.io/v2\nkind: Policy\n', // unknown version
    ];
    for (const [i, text] of invalid.entries()) {
      await replaceFile(config, text);
      await eventually(async () => (await failures()) === i + 1, `refusal ${i + 1}`);
      await eventually(() => load.completed() > 50 * (i + 1), 'decisions'); // decisions made under each bad file
    }
    const summary = await load.stop();
    assert.deepEqual(summary.failures, []);
    const refusals = logged.filter(
      (l) => l['level'] === 50 && l['msg'] === 'refused invalid policy; keeping the last good one',
    );
    assert.equal(refusals.length, invalid.length);
    assert.doesNotMatch(
      await s.metrics.registry.metrics(),
      /hookkeeper_reloads_total\{source="policy",result="success"\}/,
    );

    // Reload still works afterwards: owner-only-removal at warn lets the hook removal through.
    await replaceFile(
      config,
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement: {owner-only-removal: warn}\n',
    );
    const removal = JSON.stringify(removeEtcdHookReview('reload-after'));
    const allowed: Shot = { path: '/validate', body: removal, check: expectDecision('reload-after', 'allowed') };
    await eventually(async () => (await send(target, allowed, { agent })) === undefined, 'the reloaded policy');
    agent.destroy();
  });
});
