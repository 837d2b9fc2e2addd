// `npm run record:corpus`: writes the differential corpus the end-to-end suite replays (CORPUS_FILE): every review
// the rule unit tests build of a Machine or of a kind that templates Machines (OpenShift and Cluster API), recorded by
// running those tests with test/fixtures/corpus-recorder.ts loaded, once each, in the order of their files.
// test/fixtures/review-corpus.test.ts fails when the committed file differs from what this records now.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { packageRoot } from '../src/compilers/deploy/render.js';
import { RECORD_DIR_VARIABLE, type RecordedReview } from '../test/fixtures/corpus-recorder.js';

/** The committed corpus, relative to the repository root: one review a line. */
export const CORPUS_FILE = 'test/fixtures/review-corpus.jsonl';

/** The API groups whose reviews the corpus keeps: Machines and the kinds that template them. */
export const MACHINE_GROUPS: ReadonlySet<string> = new Set(['machine.openshift.io', 'cluster.x-k8s.io']);

/** The rule unit tests whose fixtures concern Machines: every test/core file but the child-resource ones. */
export function ruleTestFiles(repoRoot: string): string[] {
  return readdirSync(join(repoRoot, 'test', 'core'))
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('children-'))
    .sort()
    .map((f) => join('test', 'core', f));
}

async function runRecorded(repoRoot: string, files: readonly string[], into: string): Promise<void> {
  const recorder = pathToFileURL(join(repoRoot, 'test', 'fixtures', 'corpus-recorder.ts')).href;
  const env: NodeJS.ProcessEnv = { ...process.env, [RECORD_DIR_VARIABLE]: into };
  // Set by node --test for its children: the rule tests are to run as a test run of their own.
  delete env['NODE_TEST_CONTEXT'];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', recorder, '--test', '--test-reporter=dot', ...files],
      { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`the rule unit tests exited with ${code} while recording`)),
    );
  });
}

/** The corpus as the rule unit tests build it now: the text of CORPUS_FILE. */
export async function recordCorpus(repoRoot: string = packageRoot()): Promise<string> {
  const files = ruleTestFiles(repoRoot);
  const into = mkdtempSync(join(tmpdir(), 'hookkeeper-corpus-'));
  try {
    await runRecorded(repoRoot, files, into);
    const recorded = readdirSync(into).flatMap((f) =>
      readFileSync(join(into, f), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as RecordedReview),
    );
    // Each test file runs in a process of its own: its reviews are in build order, the files in name order.
    const order = new Map(files.map((f, i) => [f, i]));
    recorded.sort((a, b) => (order.get(a.source) ?? files.length) - (order.get(b.source) ?? files.length));
    const seen = new Set<string>();
    const lines: string[] = [];
    for (const r of recorded) {
      if (r.operation !== 'CREATE' && r.operation !== 'UPDATE') continue;
      if (!MACHINE_GROUPS.has(r.group ?? 'machine.openshift.io')) continue;
      const { source, ...review } = r;
      const key = JSON.stringify(review);
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(JSON.stringify({ source, ...review }));
    }
    return `${lines.join('\n')}\n`;
  } finally {
    rmSync(into, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const text = await recordCorpus();
  writeFileSync(join(packageRoot(), CORPUS_FILE), text);
  process.stderr.write(`wrote ${CORPUS_FILE}: ${text.split('\n').length - 1} reviews\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
