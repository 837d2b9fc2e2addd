// Figure 3: `hookkeeper validate` (the built CLI, as CI runs it) on 10,000 Machine documents, against parsing the
// same files and nothing else (bench/parse-floor.ts), each as a process from spawn to exit, in turns.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import YAML from 'yaml';
import type { KubeObject } from '../src/core/types.js';
import { fullMachine } from '../test/fixtures/hardening-machine.js';
import { ETCD } from '../test/fixtures/openshift.js';
import { median, round } from './measure.js';
import { REPO } from './servers.js';

export interface ValidateFigure {
  documents: number;
  files: number;
  bytes: number;
  validateMs: number[];
  parseMs: number[];
  validatePeakMiB: number;
  parsePeakMiB: number;
  /** Median over rounds of validate time / parse time in the same round: the target is at most 1.5. */
  ratio: number;
  /** The same two commands on one document: start-up and fixed costs. */
  oneDocValidateMs: number;
  oneDocParseMs: number;
  /** (validate - its one-document time) / (parse - its one-document time): the cost that grows with the documents. */
  marginalRatio: number;
  commands: string[];
}

/** A Machine as kept in git: no server-set fields (uid, resourceVersion, managedFields, status). */
export function manifest(i: number): KubeObject {
  const role = i % 3 === 0 ? 'master' : 'worker';
  const hooks =
    i % 3 === 1
      ? { preDrain: [{ name: 'DrainWithCare', owner: 'platform/drain-guard' }] }
      : i % 3 === 0
        ? { preDrain: [ETCD] }
        : {};
  const m = fullMachine({ name: `ci-ln-7x2k9-${role}-${i}`, role, ...hooks });
  const meta = m['metadata'] as Record<string, unknown>;
  for (const key of [
    'uid',
    'resourceVersion',
    'generation',
    'creationTimestamp',
    'managedFields',
    'annotations',
    'finalizers',
    'ownerReferences',
  ])
    delete meta[key];
  delete (m['spec'] as Record<string, unknown>)['providerID'];
  return m;
}

/** 1,000 files of 10 documents: a third control-plane Machines with the etcd hook, a third with a hook of their own. */
export function writeManifests(dir: string, files = 1_000, perFile = 10): { documents: number; bytes: number } {
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  for (let f = 0; f < files; f++) {
    const text = Array.from({ length: perFile }, (_, d) => YAML.stringify(manifest(f * perFile + d))).join('---\n');
    writeFileSync(join(dir, `machines-${String(f).padStart(4, '0')}.yaml`), text);
    bytes += Buffer.byteLength(text);
  }
  return { documents: files * perFile, bytes };
}

/** Runs a command under /usr/bin/time; resolves wall milliseconds and peak RSS. */
export function timed(args: string[]): Promise<{ ms: number; peakMiB: number; code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(
      '/usr/bin/time',
      ['-f', '%M', ...args],
      { cwd: REPO, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const ms = performance.now() - started;
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        const kib = Number(stderr.trim().split('\n').pop());
        if (!Number.isFinite(kib)) {
          reject(new Error(`${args.join(' ')} failed (${code}): ${stderr.slice(-2000)}`));
          return;
        }
        resolve({ ms, peakMiB: round(kib / 1024, 1), code, stdout });
      },
    );
  });
}

export async function validateFigure(dir: string, repeats: number): Promise<ValidateFigure> {
  const manifests = join(dir, 'manifests');
  const { documents, bytes } = writeManifests(manifests);
  const single = join(dir, 'one');
  writeManifests(single, 1, 1);
  // Next to node_modules, so the floor resolves `yaml` as the CLI does.
  const cache = join(REPO, 'node_modules', '.cache', 'hookkeeper-bench');
  mkdirSync(cache, { recursive: true });
  const floorFile = join(cache, 'parse-floor.mjs');
  writeFileSync(
    floorFile,
    ts.transpileModule(readFileSync(join(REPO, 'bench', 'parse-floor.ts'), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText,
  );

  const validateArgs = [process.execPath, join(REPO, 'dist', 'transports', 'cli', 'main.js'), 'validate', manifests];
  const parseArgs = [process.execPath, floorFile, manifests];
  // Check once that both really read every document: a fast run that skipped work would measure nothing.
  const check = await timed([...validateArgs, '--output', 'json']);
  const summary = (JSON.parse(check.stdout) as { summary?: { objects?: number; denied?: number } }).summary;
  if (check.code !== 0 || summary?.objects !== documents)
    throw new Error(`validate: exit ${check.code}, ${JSON.stringify(summary)} for ${documents} documents`);
  const floorCheck = await timed(parseArgs);
  if ((JSON.parse(floorCheck.stdout) as { documents: number }).documents !== documents)
    throw new Error('parse floor: wrong document count');

  const v: Array<{ ms: number; peakMiB: number }> = [];
  const p: Array<{ ms: number; peakMiB: number }> = [];
  const v1: number[] = [];
  const p1: number[] = [];
  const one = (args: string[]): string[] => args.map((a) => (a === manifests ? single : a));
  for (let r = 0; r < repeats; r++) {
    v.push(await timed(validateArgs));
    p.push(await timed(parseArgs));
    v1.push((await timed(one(validateArgs))).ms);
    p1.push((await timed(one(parseArgs))).ms);
  }
  const show = (args: string[]): string =>
    args.map((a) => a.replace(dir, '$TMP').replace(`${REPO}/`, '').replace(process.execPath, 'node')).join(' ');
  return {
    documents,
    files: 1_000,
    bytes,
    validateMs: v.map((x) => round(x.ms, 0)),
    parseMs: p.map((x) => round(x.ms, 0)),
    validatePeakMiB: median(v.map((x) => x.peakMiB)),
    parsePeakMiB: median(p.map((x) => x.peakMiB)),
    // Each round's validate over the parse run next to it: drift on a shared machine moves both alike.
    ratio: round(median(v.map((x, i) => x.ms / (p[i] as { ms: number }).ms)), 2),
    oneDocValidateMs: round(median(v1), 0),
    oneDocParseMs: round(median(p1), 0),
    marginalRatio: round((median(v.map((x) => x.ms)) - median(v1)) / (median(p.map((x) => x.ms)) - median(p1)), 2),
    commands: [show(validateArgs), show(parseArgs).replace(cache, 'node_modules/.cache/hookkeeper-bench')],
  };
}
