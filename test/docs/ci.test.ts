// docs/ci.md's GitHub Actions job and pre-commit entry, and the repository's .pre-commit-hooks.yaml: valid YAML of the
// shape their tool reads, using the tested ways to get hookkeeper, and only commands and flags the CLI has. No doc
// suggests `npx hookkeeper`, which outside a checkout runs whatever the registry holds under that name.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { cli } from '../helpers/cli.js';
import { codeBlocks, readDoc } from '../helpers/docs.js';
import { gitopsRepo, hookkeeperShim, REMOVE_HOOKS, overlay, baseMachine, tools } from '../validate/gitops-repo.js';

interface Step {
  uses?: string;
  run?: string;
  shell?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
}
interface HookDefinition {
  id: string;
  name: string;
  entry: string;
  language: string;
  args?: string[];
  pass_filenames?: boolean;
  files?: string;
}

const CI = process.env['CI'] === 'true';

/** The workflow docs/ci.md shows (one, checked below). */
function workflow(): Workflow {
  const found = codeBlocks('docs/ci.md', 'yaml')
    .map((text) => parse(text) as Partial<Workflow>)
    .filter((d) => d.jobs !== undefined);
  assert.equal(found.length, 1, 'docs/ci.md shows one workflow');
  return found[0] as Workflow;
}

/** Every `hookkeeper COMMAND ARGS` in a shell text (also after a pipe, `&&` or `$(`), up to the line's end or a pipe. */
function invocations(text: string): string[][] {
  return [...text.matchAll(/(?:^|[\s|&(])hookkeeper ([^\n|#&]*)/gm)].map((m) =>
    (m[1] ?? '').trim().split(/\s+/).filter(Boolean),
  );
}

/** Fails unless `hookkeeper COMMAND` exists and knows every flag given. */
async function assertCommand(args: readonly string[], where: string): Promise<void> {
  const [command, ...rest] = args;
  assert.ok(command && !command.startsWith('-'), `${where}: no command in "hookkeeper ${args.join(' ')}"`);
  const help = await cli([command, '--help']);
  assert.equal(help.code, 0, `${where}: hookkeeper has no command ${command}:\n${help.stderr}`);
  for (const flag of rest.filter((a) => /^--?[a-z]/.test(a)).map((a) => a.replace(/=.*/, '')))
    assert.match(help.stdout, new RegExp(`(^|[\\s,])${flag}[\\s,]`), `${where}: hookkeeper ${command} has no ${flag}`);
}

test('the GitHub Actions job is a workflow that packs and installs hookkeeper, then gates on validate', async () => {
  const { on, jobs } = workflow();
  assert.ok('pull_request' in on, 'it runs on pull requests');
  const steps = Object.values(jobs).flatMap((j) => {
    assert.equal(typeof j['runs-on'], 'string');
    return j.steps;
  });
  for (const step of steps) assert.ok((step.uses === undefined) !== (step.run === undefined), JSON.stringify(step));
  const checkout = steps.find((s) => s.uses?.startsWith('actions/checkout@') && s.with?.['repository'] === undefined);
  assert.equal(checkout?.with?.['fetch-depth'], 0, '--old-ref needs the base branch: fetch-depth 0');
  const script = steps.flatMap((s) => (s.run ? [s.run] : [])).join('\n');
  assert.match(script, /npm pack/);
  assert.match(script, /npm install -g .*\.\/hookkeeper-\*\.tgz/);
  const calls = invocations(script);
  assert.ok(
    calls.some((c) => c[0] === 'validate' && c.includes('--old-ref')),
    'the job runs hookkeeper validate --old-ref',
  );
  for (const c of calls) await assertCommand(c, 'docs/ci.md workflow');
  for (const step of steps.filter((s) => s.run?.includes('hookkeeper validate')))
    assert.equal(step.shell, 'bash', 'shell: bash, which sets -o pipefail for piped input');
});

test("the workflow's validate step, run as Actions runs it, fails a PR whose overlay patch removes the etcd hook", async (t) => {
  const { kustomize, helm } = tools();
  if (!kustomize || !helm) {
    assert.ok(!CI, 'kustomize and helm are not installed: .ci/run provides them');
    return t.skip('kustomize or helm is not installed (set KUSTOMIZE and HELM)');
  }
  const gate = Object.values(workflow().jobs)
    .flatMap((j) => j.steps)
    .filter((s) => s.run?.includes('hookkeeper validate'));
  assert.equal(gate.length, 1, 'one validate step');
  const script = gate[0]?.run ?? '';
  const repo = await gitopsRepo();
  t.after(() => repo.cleanup());
  await hookkeeperShim(repo.bin);
  // What actions/checkout with fetch-depth 0 leaves for a pull request: the base branch as origin/BASE.
  repo.git('update-ref', 'refs/remotes/origin/main', 'main');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${repo.bin}:${process.env['PATH'] ?? ''}`,
    GITHUB_BASE_REF: 'main',
  };
  delete env['HOOKKEEPER_CONFIG'];
  // `shell: bash` is `bash --noprofile --norc -eo pipefail {0}` on a runner.
  const step = (): { status: number | null; out: string } => {
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: repo.dir,
      env,
      encoding: 'utf8',
    });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  };

  await repo.pullRequest('remove-patch', async () => {
    await repo.write('overlays/prod/no-hooks.yaml', REMOVE_HOOKS);
    await repo.write('overlays/prod/kustomization.yaml', overlay(['etcd-hook.yaml', 'no-hooks.yaml']));
  });
  const removed = step();
  assert.equal(removed.status, 1, removed.out);
  assert.match(removed.out, /<kustomize build overlays\/prod>:\d+ .*master-0 \[UPDATE\]: DENIED/);

  await repo.pullRequest('label', () => repo.write('base/masters.yaml', baseMachine({ team: 'platform' })));
  const labelled = step();
  assert.equal(labelled.status, 0, labelled.out);
  assert.match(labelled.out, /^3 objects: 3 allowed, 0 denied/m);
});

test('every hookkeeper command in docs/ci.md exists with the flags shown, the image ones included', async () => {
  const shell = codeBlocks('docs/ci.md', 'bash').join('\n');
  const direct = invocations(shell);
  // podman/docker run IMAGE ARGS: the arguments after the image go to the entrypoint, `hookkeeper`.
  const image = [...shell.matchAll(/(?:podman|docker) run .*? REGISTRY\/hookkeeper:\S+ ([^\n#]*)/g)].map((m) =>
    (m[1] ?? '').trim().split(/\s+/),
  );
  assert.ok(
    image.some((a) => a.join(' ') === 'validate /src'),
    'the image runs validate /src',
  );
  for (const c of [...direct, ...image]) await assertCommand(c, 'docs/ci.md');
});

test('.pre-commit-hooks.yaml defines node hooks whose entry and args hookkeeper has; docs/ci.md uses them', async () => {
  const hooks = parse(readDoc('.pre-commit-hooks.yaml')) as HookDefinition[];
  assert.ok(Array.isArray(hooks) && hooks.length > 0);
  for (const hook of hooks) {
    for (const key of ['id', 'name', 'entry', 'language'] as const)
      assert.equal(typeof hook[key], 'string', `${hook.id}: ${key}`);
    // `node`: pre-commit packs this repository and installs the tarball (npm pack, npm install -g), the tested way.
    assert.equal(hook.language, 'node', hook.id);
    const [bin, ...entry] = hook.entry.split(/\s+/);
    assert.equal(bin, 'hookkeeper', `${hook.id}: the entry runs package.json's bin`);
    await assertCommand([...entry, ...(hook.args ?? [])], `.pre-commit-hooks.yaml ${hook.id}`);
    if (hook.files !== undefined) assert.ok(new RegExp(hook.files).test('manifests/machine.yaml'), hook.id);
  }
  const configs = codeBlocks('docs/ci.md', 'yaml')
    .map((text) => parse(text) as { repos?: { repo: string; hooks: { id: string; args?: string[] }[] }[] })
    .filter((d) => d.repos !== undefined);
  assert.equal(configs.length, 1, 'docs/ci.md shows one .pre-commit-config.yaml');
  for (const used of configs[0]?.repos?.flatMap((r) => r.hooks) ?? []) {
    const hook = hooks.find((h) => h.id === used.id);
    assert.ok(hook, `docs/ci.md uses hook ${used.id}, which .pre-commit-hooks.yaml does not define`);
    await assertCommand([...hook.entry.split(/\s+/).slice(1), ...(used.args ?? [])], `docs/ci.md hook ${used.id}`);
  }
});

test('no page suggests npx hookkeeper', () => {
  const pages = [
    'README.md',
    'DEVELOPMENT.md',
    'CONTRIBUTING.md',
    ...readdirSync(join(packageRoot(), 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  for (const page of pages) assert.doesNotMatch(readDoc(page), /npx hookkeeper/, page);
});
