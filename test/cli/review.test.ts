// `hookkeeper review`: the server's code path on stdin, with output and exit codes asserted.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { answerDocuments, splitDocuments } from '../../src/transports/cli/commands/review.js';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';

const createMaster = admissionReview({
  uid: 'uid-create',
  operation: 'CREATE',
  object: machine({ role: 'master' }),
  user: USERS.machineApi,
});
const removeEtcd = admissionReview({
  uid: 'uid-remove',
  operation: 'UPDATE',
  object: machine({ preDrain: [] }),
  oldObject: machine({ preDrain: [ETCD] }),
  user: USERS.alice,
});
// Everything written, read after the fact: a PassThrough's read() may hand back only its first chunk.
function collector(): Writable & { text: string } {
  const sink = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        sink.text += String(chunk);
        done();
      },
    }),
    { text: '' },
  );
  return sink;
}
const decode = (patch: string) => JSON.parse(Buffer.from(patch, 'base64').toString()) as unknown;

describe('hookkeeper review', () => {
  test('default: mutate, then validate the mutated object, in one response', async () => {
    const r = await cli(['review'], { stdin: JSON.stringify(createMaster, null, 2) });
    assert.equal(r.code, 0);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const out = JSON.parse(lines[0] ?? '');
    assert.equal(out.response.uid, 'uid-create');
    assert.equal(out.response.allowed, true);
    assert.deepEqual(decode(out.response.patch), [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }]);
  });

  test('one document per line, one response per line; a denial exits 1', async () => {
    const r = await cli(['review'], { stdin: `${JSON.stringify(createMaster)}\n${JSON.stringify(removeEtcd)}\n` });
    assert.equal(r.code, 1);
    const [first, second] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(first.response.uid, 'uid-create');
    assert.equal(second.response.uid, 'uid-remove');
    assert.equal(second.response.allowed, false);
    assert.equal(second.response.status.code, 403);
  });

  test('--validate and --mutate answer as one webhook', async () => {
    // /validate alone is not mutated first: the control-plane Machine lacks the default hook /mutate would have added,
    // which is what it sees when a later mutation removed it (default-hook-kept).
    const v = await cli(['review', '--validate'], { stdin: JSON.stringify(createMaster) });
    assert.equal(v.code, 1);
    const response = JSON.parse(v.stdout).response as { uid: string; allowed: boolean; status?: { message?: string } };
    assert.deepEqual([response.uid, response.allowed], ['uid-create', false]);
    assert.match(
      response.status?.message ?? '',
      /default hook "EtcdQuorumOperator" .* is missing at the end of mutating admission/,
    );
    const m = await cli(['review', '--mutate'], { stdin: JSON.stringify(removeEtcd) });
    assert.equal(m.code, 0);
    assert.deepEqual(JSON.parse(m.stdout).response, { uid: 'uid-remove', allowed: true });
    const both = await cli(['review', '--validate', '--mutate'], { stdin: '{}' });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--validate: cannot go with --mutate; give one of them/);
  });

  test('a bad line is reported on stderr with its line number and exits 2; the rest are answered', async () => {
    const r = await cli(['review'], {
      stdin: `${JSON.stringify(createMaster)}\n{nope\n{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}\n`,
    });
    assert.equal(r.code, 2);
    assert.equal(r.stdout.trim().split('\n').length, 1);
    assert.match(r.stderr, /stdin line 2: not JSON/);
    assert.match(r.stderr, /stdin line 3: invalid AdmissionReview.*request/);
  });

  test('a review as the API server sends it, userInfo.extra included, is answered; a malformed extra is reported', async () => {
    // Offline, RBAC is not asked: extra changes no verdict here, but it is checked as the webhook checks it.
    const scoped = (extra: unknown) =>
      JSON.stringify(
        admissionReview({
          uid: 'uid-scoped',
          operation: 'UPDATE',
          object: machine({ preDrain: [] }),
          oldObject: machine({ preDrain: [ETCD] }),
          user: { ...USERS.alice, extra: extra as Record<string, unknown> },
        }),
      );
    const r = await cli(['review', '--validate'], {
      stdin: `${scoped({ 'scopes.authorization.openshift.io': ['user:full'] })}\n${scoped({ scopes: 'user:full' })}\n`,
    });
    assert.equal(r.code, 2);
    const [first, ...rest] = r.stdout.trim().split('\n');
    assert.deepEqual(rest, []);
    assert.equal(JSON.parse(first ?? '').response.allowed, false);
    assert.match(r.stderr, /stdin line 2: invalid AdmissionReview/);
    assert.match(r.stderr, /request\.userInfo\.extra\.scopes must be array,null/);
  });

  test('manifests instead of AdmissionReviews: one line per input suggesting validate, exit 2', async () => {
    const yaml = 'apiVersion: machine.openshift.io/v1beta1\nkind: Machine\nmetadata:\n  name: m\nspec: {}\n';
    for (const stdin of [yaml, `---\n${yaml}`, `# a manifest\n${yaml}`]) {
      const r = await cli(['review'], { stdin });
      assert.equal(r.code, 2);
      assert.equal(r.stdout, '');
      assert.equal(
        r.stderr,
        'hookkeeper review: stdin is YAML, not AdmissionReview JSON: review answers what the API server sends a webhook; to check manifests, run `hookkeeper validate -`\n',
      );
    }
    const json = await cli(['review'], { stdin: JSON.stringify(machine({ role: 'master' })) });
    assert.equal(json.code, 2);
    assert.equal(
      json.stderr,
      'hookkeeper review: stdin line 1: a Machine, not an AdmissionReview: review answers what the API server sends a webhook; to check manifests, run `hookkeeper validate -`\n',
    );
  });

  test('a line that fails to evaluate is reported with its line number; the lines after it are still answered', () => {
    const stdout = collector();
    const stderr = collector();
    const lines = ['{"n":1}', '', '{"n":2}', '{"n":3}', '{"n":4}'];
    const docs = splitDocuments({ lines, bytes: lines.join('\n').length });
    const code = answerDocuments(
      docs,
      (value) => {
        const n = (value as { n: number }).n;
        if (n === 2) throw new RangeError('Maximum call stack size exceeded');
        return { ok: true, response: `answer ${n}`, allowed: n !== 4 };
      },
      { stdout, stderr },
    );
    assert.equal(code, 2);
    assert.equal(stdout.text, 'answer 1\nanswer 3\nanswer 4\n');
    assert.equal(
      stderr.text,
      'hookkeeper review: stdin line 3: cannot evaluate: RangeError: Maximum call stack size exceeded\n',
    );
  });

  test('a line longer than the webhook accepts (7 MiB) is reported with its number, not buffered; the rest are answered', async () => {
    const r = await cli(['review'], {
      stdin: `${JSON.stringify(createMaster)}\n"${'x'.repeat(8 * 1024 * 1024)}"\n${JSON.stringify(removeEtcd)}\n`,
    });
    assert.equal(r.code, 2);
    assert.deepEqual(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).response.uid),
      ['uid-create', 'uid-remove'],
    );
    assert.match(r.stderr, /^hookkeeper review: stdin line 2: longer than 7 MiB, the webhook's request limit/);
  });

  test('one pretty-printed document larger than 7 MiB: one error, not one per line', async () => {
    const big = { ...createMaster, padding: Array.from({ length: 8 * 1024 }, () => 'y'.repeat(1024)) };
    const r = await cli(['review'], { stdin: JSON.stringify(big, null, 2) });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^hookkeeper review: stdin line 1: stdin holds \d+ bytes, more than the 7 MiB a single AdmissionReview may have, and is not one AdmissionReview per line\n$/,
    );
  });

  test('--config applies a policy file; an invalid one exits 2 listing every problem', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-review-'));
    const warnOnly = join(dir, 'warn.yaml');
    await writeFile(
      warnOnly,
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement:\n  owner-only-removal: warn\n',
    );
    const ok = await cli(['review', '--config', warnOnly], { stdin: JSON.stringify(removeEtcd) });
    assert.equal(ok.code, 0);
    assert.equal(JSON.parse(ok.stdout).response.allowed, true);

    const broken = join(dir, 'broken.yaml');
    await writeFile(
      broken,
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwners: maybe\nbreakGlass: {groups: 1}\n',
    );
    const bad = await cli(['review'], { stdin: JSON.stringify(removeEtcd), env: { HOOKKEEPER_CONFIG: broken } });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /broken\.yaml:3 strictOwners: must be boolean/);
    assert.match(bad.stderr, /broken\.yaml:4 breakGlass\.groups: must be array/);
  });

  test('unknown flags and commands are usage errors', async () => {
    assert.equal((await cli(['review', '--frobnicate'])).code, 2);
    assert.equal((await cli(['frobnicate'])).code, 2);
    assert.equal((await cli(['--help'])).code, 0);
  });
});
