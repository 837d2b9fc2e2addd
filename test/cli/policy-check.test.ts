// `hookkeeper policy check FILE`: a policy file checked on its own, for CI and editors: exit 0 valid, 2 invalid.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cli } from '../helpers/cli.js';

async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hk-policy-check-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const VALID = 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwners: true\n';
const INVALID = 'apiVersion: hookkeeper.io/v1alpha1\nkind: Polcy\nstrictOwner: true\n';

describe('hookkeeper policy check', () => {
  test('a valid policy exits 0 and says so', async () => {
    const cwd = await dirWith({ 'policy.yaml': VALID });
    const r = await cli(['policy', 'check', 'policy.yaml'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'policy.yaml: valid\n');
    assert.equal(r.stderr, '');
  });

  test('an invalid policy exits 2 and lists every problem', async () => {
    const cwd = await dirWith({ 'policy.yaml': INVALID });
    const r = await cli(['policy', 'check', 'policy.yaml'], { cwd });
    assert.equal(r.code, 2);
    assert.equal(
      r.stdout,
      [
        'policy.yaml:2 kind: must be "Policy"',
        'policy.yaml:3 strictOwner: unknown key "strictOwner": did you mean "strictOwners"?',
        'policy.yaml: 2 problems',
        '',
      ].join('\n'),
    );
  });

  test('-o json gives the verdict and the problems as data', async () => {
    const cwd = await dirWith({ 'good.yaml': VALID, 'bad.yaml': INVALID });
    const good = await cli(['policy', 'check', '-o', 'json', 'good.yaml'], { cwd });
    assert.equal(good.code, 0);
    assert.deepEqual(JSON.parse(good.stdout), { file: 'good.yaml', valid: true, problems: [] });
    const bad = await cli(['policy', 'check', '--output', 'json', 'bad.yaml'], { cwd });
    assert.equal(bad.code, 2);
    assert.deepEqual(JSON.parse(bad.stdout), {
      file: 'bad.yaml',
      valid: false,
      problems: [
        { file: 'bad.yaml', line: 2, path: 'kind', message: 'must be "Policy"' },
        {
          file: 'bad.yaml',
          line: 3,
          path: 'strictOwner',
          message: 'unknown key "strictOwner": did you mean "strictOwners"?',
        },
      ],
    });
  });

  test('a file that cannot be read or parsed is a problem too, never a crash', async () => {
    const cwd = await dirWith({ 'broken.yaml': 'kind: [\n' });
    const missing = await cli(['policy', 'check', 'nowhere.yaml'], { cwd });
    assert.equal(missing.code, 2);
    assert.match(missing.stdout, /^nowhere\.yaml: .*no such file or directory/m);
    const broken = await cli(['policy', 'check', 'broken.yaml'], { cwd });
    assert.equal(broken.code, 2);
    assert.match(broken.stdout, /^broken\.yaml:\d+: /m);
  });

  test('an unknown output format is a usage error', async () => {
    const cwd = await dirWith({ 'policy.yaml': VALID });
    const r = await cli(['policy', 'check', '-o', 'xml', 'policy.yaml'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /-o\/--output: "xml" is not an output format; give text or json/);
    assert.equal(r.stdout, '');
  });
});
