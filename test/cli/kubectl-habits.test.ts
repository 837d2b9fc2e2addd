// kubectl's habits where hookkeeper has the same thing: `-o` for every `--output`, and `-f FILE` (repeatable, `-f -`
// for stdin) beside positional paths on the commands that read files (review, policy check).
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';
import { cli, commandTree } from '../helpers/cli.js';
import { makePki } from '../helpers/tls.js';

describe("kubectl's -o", () => {
  test('every command with --output takes -o', () => {
    const withOutput = commandTree().flatMap(({ name, cmd }) =>
      cmd.options.filter((o) => o.long === '--output').map((o) => ({ name, o })),
    );
    assert.ok(withOutput.length >= 5, withOutput.map((w) => w.name).join(', '));
    assert.deepEqual(
      withOutput.filter(({ o }) => o.short !== '-o').map(({ name }) => name),
      [],
      'commands whose --output has no -o',
    );
  });

  test('webhook-config render -o json prints a v1 List', async () => {
    const pki = await makePki();
    const r = await cli(['webhook-config', 'render', '--ca-file', pki.caFile, '--url', 'https://h:8443', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { kind: string }).kind, 'List');
  });
});

const allowed = JSON.stringify(
  admissionReview({ uid: 'one', operation: 'CREATE', object: machine({ role: 'master' }), user: USERS.machineApi }),
);
const denied = JSON.stringify(
  admissionReview({
    uid: 'two',
    operation: 'UPDATE',
    object: machine({ preDrain: [] }),
    oldObject: machine({ preDrain: [ETCD] }),
    user: USERS.alice,
  }),
);
const uids = (stdout: string): string[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { response: { uid: string } }).response.uid);

describe("kubectl's -f", () => {
  test('review: positional files, -f (repeatable) and -f - for stdin, answered in the order given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hk-review-files-'));
    await writeFile(join(dir, 'a.json'), allowed);
    await writeFile(join(dir, 'b.json'), `${denied}\n${allowed}\n`);
    const positional = await cli(['review', 'a.json', 'b.json'], { cwd: dir });
    assert.equal(positional.code, 1, positional.stderr);
    assert.deepEqual(uids(positional.stdout), ['one', 'two', 'one']);
    const flags = await cli(['review', '-f', 'b.json', '--filename', 'a.json', '-f', '-'], { cwd: dir, stdin: denied });
    assert.equal(flags.code, 1, flags.stderr);
    assert.deepEqual(uids(flags.stdout), ['two', 'one', 'one', 'two']);
  });

  test('review: a bad line names its file; a missing file is an input error naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hk-review-files-'));
    await writeFile(join(dir, 'bad.json'), `${allowed}\n{nope\n`);
    const bad = await cli(['review', '-f', 'bad.json'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^hookkeeper review: bad\.json line 2: not JSON/);
    const missing = await cli(['review', '-f', 'missing.json'], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^hookkeeper review: cannot read missing\.json: /);
    const twice = await cli(['review', '-', '-f', '-']);
    assert.equal(twice.code, 2);
    assert.equal(twice.stderr, 'hookkeeper review: stdin (-) may be given once\n');
  });

  test('policy check: several files by position and -f, -f - for stdin; exit 2 when any is invalid', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hk-policy-files-'));
    const valid = 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n';
    await writeFile(join(dir, 'a.yaml'), valid);
    await writeFile(join(dir, 'b.yaml'), 'apiVersion: hookkeeper.io/v1alpha1\nkind: Polcy\n');
    const ok = await cli(['policy', 'check', 'a.yaml', '-f', '-'], { cwd: dir, stdin: valid });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'a.yaml: valid\nstdin: valid\n');
    const bad = await cli(['policy', 'check', '-f', 'a.yaml', '-f', 'b.yaml', '-o', 'json'], { cwd: dir });
    assert.equal(bad.code, 2);
    const results = JSON.parse(bad.stdout) as Array<{ file: string; valid: boolean }>;
    assert.deepEqual(
      results.map((r) => [r.file, r.valid]),
      [
        ['a.yaml', true],
        ['b.yaml', false],
      ],
    );
    const none = await cli(['policy', 'check']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give a policy file/);
  });
});
