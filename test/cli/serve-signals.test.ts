// `hookkeeper serve` as a real process: a SIGTERM that arrives while it is still starting ends it cleanly (exit 0,
// once start-up has settled and nothing is in flight), not with the signal's default kill.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { makePki } from '../helpers/tls.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const MAIN = fileURLToPath(new URL('../../src/transports/cli/main.ts', import.meta.url));

test('SIGTERM during start-up: serve finishes starting, stops, and exits 0', { timeout: HANG_GUARD_MS }, async () => {
  const pki = await makePki();
  const env = { ...process.env };
  delete env['HOOKKEEPER_LOG_LEVEL'];
  delete env['HOOKKEEPER_CONFIG'];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      MAIN,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log-level',
      'info',
      '--tls-cert',
      pki.certFile,
      '--tls-key',
      pki.keyFile,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const messages: string[] = [];
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // The first log line is written while serve is still starting (the server, TLS and listener come after it).
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = String((JSON.parse(line) as { msg?: unknown }).msg);
    if (messages.push(msg) === 1) child.kill('SIGTERM');
  });
  const { code, signal } = await exit;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, `messages: ${messages.join(' | ')}; stderr: ${stderr}`);
  assert.notEqual(messages.indexOf('starting'), -1, messages.join(' | '));
  assert.ok(
    messages.indexOf('shutting down: no new connections, finishing in-flight requests') > messages.indexOf('starting'),
    messages.join(' | '),
  );
  assert.equal(messages.at(-1), 'stopped');
});
