// `--old-ref`: the input paths as they are at a git revision, read from a real temporary repository.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { readAtRef } from '../../src/transports/validate/git.js';
import { gitRepo } from './git-repo.js';

describe('readAtRef', () => {
  let repo: Awaited<ReturnType<typeof gitRepo>>;
  before(async () => {
    repo = await gitRepo({
      'manifests/a.yaml': 'kind: A\n',
      'manifests/sub/b.yml': 'kind: B\n',
      'manifests/notes.txt': 'not a manifest\n',
      'manifests/.hidden/c.yaml': 'kind: C\n',
      'other/d.json': '{"kind": "D"}\n',
      README: 'explicitly named\n',
    });
    // The working tree moves on: a.yaml changes, b.yml is deleted; neither affects what HEAD holds.
    await writeFile(join(repo.dir, 'manifests/a.yaml'), 'kind: A2\n');
    await rm(join(repo.dir, 'manifests/sub/b.yml'));
  });
  after(async () => rm(repo.dir, { recursive: true, force: true }));

  test('a directory gives its manifest files at the revision (recursively, hidden ones skipped), named REF:path', async () => {
    const files = await readAtRef('HEAD', ['manifests'], repo.dir);
    assert.deepEqual(files, [
      { file: 'HEAD:manifests/a.yaml', text: 'kind: A\n' },
      { file: 'HEAD:manifests/sub/b.yml', text: 'kind: B\n' },
      // Outside the paths given, manifest files are read to be searched for old versions only.
      { file: 'HEAD:other/d.json', text: '{"kind": "D"}\n', searchOnly: true },
    ]);
  });

  test('paths are taken relative to the working directory; a named file is read whatever its name; stdin names no path', async () => {
    const files = await readAtRef('HEAD', ['../README', '../other', '-', 'missing.yaml'], join(repo.dir, 'manifests'));
    // Outside the working directory, names are absolute, as for the new files.
    assert.deepEqual(
      files.map((f) => [f.file, f.text, f.searchOnly === true]),
      [
        [`HEAD:${join(repo.dir, 'README')}`, 'explicitly named\n', false],
        ['HEAD:a.yaml', 'kind: A\n', true],
        ['HEAD:sub/b.yml', 'kind: B\n', true],
        [`HEAD:${join(repo.dir, 'other/d.json')}`, '{"kind": "D"}\n', false],
      ],
    );
  });

  test('an unknown revision or a path outside the repository is a usage error', async () => {
    await assert.rejects(
      readAtRef('no-such-branch', ['manifests'], repo.dir),
      (e: unknown) => e instanceof AppError && e.code === 'USAGE' && /"no-such-branch" is not a commit/.test(e.message),
    );
    await assert.rejects(readAtRef('HEAD', [tmpdir()], repo.dir), /is outside the git repository/);
  });
});

describe('readAtRef: every manifest at the revision, bounded', () => {
  let repo: Awaited<ReturnType<typeof gitRepo>>;
  before(async () => {
    repo = await gitRepo({
      'manifests/a.yaml': 'kind: A\n',
      'elsewhere/b.yaml': 'kind: B\n',
      'elsewhere/.hidden/c.yaml': 'kind: C\n',
      'elsewhere/notes.txt': 'not a manifest\n',
    });
  });
  after(async () => rm(repo.dir, { recursive: true, force: true }));

  test('files outside the given paths are read too, to be searched only (not reported as deletions)', async () => {
    const files = await readAtRef('HEAD', ['manifests'], repo.dir);
    assert.deepEqual(
      files.map((f) => [f.file, f.searchOnly === true]),
      [
        ['HEAD:elsewhere/b.yaml', true],
        ['HEAD:manifests/a.yaml', false],
      ],
    );
    const stdinOnly = await readAtRef('HEAD', ['-'], repo.dir);
    assert.deepEqual(
      stdinOnly.map((f) => [f.file, f.searchOnly === true]),
      [
        ['HEAD:elsewhere/b.yaml', true],
        ['HEAD:manifests/a.yaml', true],
      ],
    );
  });

  test('more bytes at the revision than the bound: a usage error saying so, before anything is read', async () => {
    await assert.rejects(
      readAtRef('HEAD', ['-'], repo.dir, { maxBytes: 10 }),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'USAGE' &&
        /--old-ref: the manifests at HEAD hold 16 bytes in 2 files, more than the 10 bytes validate reads/.test(
          e.message,
        ),
    );
    await assert.rejects(readAtRef('HEAD', ['-'], repo.dir, { maxFiles: 1 }), /hold 2 files, more than the 1/);
    // The listing itself is bounded too (every file, manifest or not): git is stopped once it prints more.
    await assert.rejects(
      readAtRef('HEAD', ['-'], repo.dir, { maxListingBytes: 100 }),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'USAGE' &&
        /--old-ref: the file listing of HEAD is larger than the 100 bytes validate reads/.test(e.message),
    );
  });
});
