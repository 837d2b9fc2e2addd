// Every kind of API request keeps its time limit under garbage collection: a timer that GC can collect (an
// AbortSignal.timeout only held through AbortSignal.any, on Node 20) would let a page that never comes hang the audit.
// Forced GC needs real timers and a process started with --expose-gc, so the requests run in a child process.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const CHILD = fileURLToPath(new URL('../helpers/gc-timeouts.ts', import.meta.url));

// The timeout is a hang guard only (the child ends by itself either way), never the verdict.
describe('request time limits under forced garbage collection', { timeout: HANG_GUARD_MS }, () => {
  test('a late answer is a timeout for list pages, service accounts, SubjectAccessReviews and parents', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD]);
    const results = JSON.parse(stdout) as Record<string, unknown> & { server: string };
    const unreachable = `cannot reach the API server at ${results.server}: no answer within 0.05 s`;
    assert.deepEqual(results, {
      server: results.server,
      list: { rejected: `cannot list machines.machine.openshift.io: ${unreachable}` },
      serviceAccount: { rejected: `cannot read service account ns/sa: ${unreachable}` },
      accessReview: { resolved: { owner: 'unknown' } },
      parent: {
        resolved: { 'v1/ConfigMap/ns/p': { found: false, reason: 'Timeout', message: 'no answer within 50 ms' } },
      },
    });
  });
});
