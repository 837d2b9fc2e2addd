// The root logger keeps a bearer token and a TLS key out of every line, and says everything else as given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../src/infrastructure/log.js';

function lineOf(write: (logger: ReturnType<typeof createLogger>) => void): Record<string, unknown> {
  const lines: string[] = [];
  write(createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } }));
  assert.equal(lines.length, 1);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

test('a request authorization header and a TLS key are redacted', () => {
  const line = lineOf((l) =>
    l.info({ req: { headers: { authorization: 'Bearer secret-token' } }, tlsKey: '-----BEGIN PRIVATE KEY-----' }, 'x'),
  );
  assert.doesNotMatch(JSON.stringify(line), /secret-token|PRIVATE KEY/);
  assert.deepEqual(line['req'], { headers: { authorization: '[Redacted]' } });
});

test('the per-request fields pass through unchanged', () => {
  const line = lineOf((l) =>
    l.child({ uid: 'u1', user: 'alice' }).info({ decision: 'patched', rules: [] }, 'admission decision'),
  );
  assert.equal(line['uid'], 'u1');
  assert.equal(line['user'], 'alice');
  assert.equal(line['decision'], 'patched');
  assert.equal(line['msg'], 'admission decision');
});
