// `validate -k DIR` and `--render CMD`: the manifests as the repository renders them, in the working tree and, with
// --old-ref, at the base revision too, so rendered objects are judged against rendered old ones (like with like).
import { accessSync, constants, existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AppError } from '../../errors.js';
import { withCheckout, withoutRepositoryVariables } from './checkout.js';
import { gitToplevel, verifyCommit } from './git.js';
import { READ_AT_ONCE_BYTES, type InputFile } from '../../infrastructure/manifests/inputs.js';
import { runBounded } from './process.js';

/** `-k DIR` (kustomize, run without a shell) or `--render CMD` (a shell command whose stdout is the manifests). */
export type RenderSpec = { kind: 'kustomize'; dir: string } | { kind: 'command'; command: string };

/** One render at both revisions: judged on its own, so several overlays may each hold the same object. */
export interface RenderedPair {
  /** "<kustomize build overlays/prod>": the name its objects are reported under (no file of the checkout). */
  label: string;
  files: InputFile[];
  /** With --old-ref: the same render at the revision ("REF:<…>"); empty when a -k directory is new. */
  oldFiles?: InputFile[];
  notes: string[];
}

export interface RenderOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Each render, and the checkout of the revision. */
  timeoutMs: number;
  /** --old-ref. */
  ref?: string;
  /** What one render may print: the bound of a file read at once. */
  maxBytes?: number;
}

function onPath(name: string, env: RenderOptions['env']): boolean {
  return (env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** `kustomize build` when a kustomize is on the PATH, else `kubectl kustomize` (kubectl embeds one). */
export function kustomizeArgv(env: RenderOptions['env']): string[] {
  if (onPath('kustomize', env)) return ['kustomize', 'build'];
  if (onPath('kubectl', env)) return ['kubectl', 'kustomize'];
  throw new AppError('USAGE', '-k/--kustomize: neither kustomize nor kubectl is on the PATH; install one of them');
}

export function renderLabel(spec: RenderSpec): string {
  return spec.kind === 'kustomize' ? `<kustomize build ${spec.dir}>` : `<render: ${spec.command}>`;
}

/** Where renders run: the repository's top level (its root at the revision too), else the working directory. */
async function renderRoot(cwd: string, ref: string | undefined): Promise<string> {
  if (ref !== undefined) return gitToplevel(cwd);
  return gitToplevel(cwd).catch(() => cwd);
}

/** A -k directory as a path from the root, the same at both revisions; refused outside the repository. */
async function fromRoot(dir: string, cwd: string, root: string): Promise<string> {
  const abs = resolve(cwd, dir);
  const rel = relative(root, await realpath(abs).catch(() => abs));
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new AppError(
      'USAGE',
      `-k/--kustomize: ${dir} is outside the repository ${root}; give a directory inside it (it is rendered at both revisions)`,
    );
  return rel === '' ? '.' : rel.split(sep).join('/');
}

interface Prepared {
  spec: RenderSpec;
  label: string;
  argv: string[];
  /** A -k directory from the root, to tell a directory new in the working tree from a failed render. */
  dir?: string;
  shown: string;
}

/**
 * Renders each spec in the working tree, then (with `ref`) in one checkout of the revision. Any render that fails,
 * times out or prints too much is an input error naming the revision, with the command's stderr: no side is judged
 * half-rendered. A -k directory absent at the revision (a new overlay) renders nothing there, with a note.
 */
export async function renderBothSides(specs: readonly RenderSpec[], options: RenderOptions): Promise<RenderedPair[]> {
  const { ref, env, timeoutMs } = options;
  const maxBytes = options.maxBytes ?? READ_AT_ONCE_BYTES;
  const root = await renderRoot(options.cwd, ref);
  // The checkout is of the commit's name: a ref is then never read as one of git's options.
  const commit = ref === undefined ? undefined : await verifyCommit(ref, root);
  const kustomize = specs.some((s) => s.kind === 'kustomize') ? kustomizeArgv(env) : [];
  const prepared: Prepared[] = [];
  for (const spec of specs) {
    if (spec.kind === 'command') {
      prepared.push({
        spec,
        label: renderLabel(spec),
        argv: ['sh', '-c', spec.command],
        shown: `--render ${JSON.stringify(spec.command)}`,
      });
      continue;
    }
    const dir = await fromRoot(spec.dir, options.cwd, root);
    prepared.push({
      spec,
      label: renderLabel(spec),
      argv: [...kustomize, dir],
      dir,
      shown: `\`${kustomize.join(' ')} ${dir}\``,
    });
  }
  const pairs: RenderedPair[] = [];
  for (const p of prepared) {
    const text = await runBounded(p.argv, {
      cwd: root,
      env,
      timeoutMs,
      maxBytes,
      what: `${p.shown} in the working tree`,
    });
    pairs.push({ label: p.label, files: [{ file: p.label, text }], notes: [] });
  }
  if (ref === undefined || commit === undefined) return pairs;
  await withCheckout(commit, { top: root, env, timeoutMs, name: ref }, async (tree) => {
    const oldEnv = withoutRepositoryVariables(env);
    for (const [i, p] of prepared.entries()) {
      const pair = pairs[i] as RenderedPair;
      if (p.dir !== undefined && !existsSync(join(tree, p.dir))) {
        pair.oldFiles = [];
        pair.notes.push(`${p.dir} does not exist at ${ref}: the objects of ${p.label} are judged as CREATEs`);
        continue;
      }
      const text = await runBounded(p.argv, {
        cwd: tree,
        env: oldEnv,
        timeoutMs,
        maxBytes,
        what: `${p.shown} at ${ref} (the base revision)`,
      });
      pair.oldFiles = [{ file: `${ref}:${p.label}`, text }];
    }
  });
  return pairs;
}
