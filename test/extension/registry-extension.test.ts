// The worked example of adding a rule (DEVELOPMENT.md, "Adding a rule"), applied step by step, exactly as written, to
// a copy of the repository: the rule's folder (its module, its README.md, its cases), then the commands the section
// names (the render scripts, the typecheck). Then the behaviour it promises, and the whole unit tier,
// run there as `npm run test:unit` (a minute or two, so it is in the meta tier: once in CI, not on every Node line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { docSection } from '../helpers/docs.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const root = packageRoot();

/** The code blocks of the section, in order: the rule module, its README.md (its row of the rule table); its cases. */
function example(): { rule: string; readme: string; cases: string } {
  const section = docSection('DEVELOPMENT.md', '## Adding a rule');
  const blocks = [...section.matchAll(/```(?:ts|md)\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const [rule, readme, ...more] = blocks;
  const cases = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(rule && readme && more.length === 0, "DEVELOPMENT.md shows the rule's module and its README.md");
  assert.ok(cases, "DEVELOPMENT.md shows the rule's cases");
  return { rule, readme, cases };
}

/** What the section says the new rule does, observed through the copy's own engine and render. */
const CHECK = `
import { parsePolicy } from './src/infrastructure/config/load.js';
import { evaluate } from './src/core/engine.js';
import type { ReviewInput } from './src/core/types.js';
import { renderNativePolicies } from './src/compilers/native/render.js';
const policy = parsePolicy('apiVersion: hookkeeper.io/v1alpha1\\nkind: Policy\\nenforcement:\\n  owner-lowercase: deny\\n', 'p.yaml');
const machine = (owner: string) => ({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'Machine', metadata: { name: 'm', namespace: 'ns' },
  spec: { lifecycleHooks: { preDrain: [{ name: 'DrainGuard', owner }] } } });
const base: ReviewInput = { operation: 'CREATE', kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' }, namespace: 'ns', name: 'm',
  object: machine('Team-A'), oldObject: null, userInfo: { username: 'u', groups: [] }, dryRun: false };
const summary = (d: ReturnType<typeof evaluate>) => ({ denials: d.denials.map((v) => v.message), warnings: d.warnings.map((v) => v.message) });
console.log(JSON.stringify({
  create: summary(evaluate(policy, base)),
  audit: summary(evaluate(policy, { ...base, source: 'audit' })),
  ratcheted: summary(evaluate(policy, { ...base, operation: 'UPDATE', oldObject: machine('Team-A') })),
  fixed: summary(evaluate(policy, { ...base, object: machine('team-a') })),
  native: JSON.stringify(renderNativePolicies(policy, { k8sVersion: '1.36' }).objects).includes('must be lower case'),
}));
`;

/** Everything a check reads; not node_modules (linked), .git, build output or local certificates. */
const SKIP = new Set(['node_modules', '.git', 'dist', '.dev-certs', 'coverage']);

function run(dir: string, command: string, args: readonly string[], env = process.env): string {
  try {
    return execFileSync(command, args, {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')} failed in the copy:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

test(
  'the worked example, every step applied as documented, makes a rule the whole system knows',
  // A hang guard, not a bound: the whole unit suite runs inside.
  { timeout: 3 * HANG_GUARD_MS },
  () => {
    const { rule, readme, cases } = example();
    const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-registry-'));
    try {
      cpSync(root, dir, {
        recursive: true,
        // Links as they are (the chart's link to the shipped render is relative), not rewritten to point back here.
        verbatimSymlinks: true,
        filter: (src) => !SKIP.has(src.slice(root.length + 1).split('/')[0] ?? ''),
      });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');

      // 1. The rule module, in a folder of its own; 2. its README.md; 3. its cases.
      const folder = join(dir, 'src/rules/owner-lowercase');
      mkdirSync(folder);
      writeFileSync(join(folder, 'rule.ts'), rule);
      writeFileSync(join(folder, 'README.md'), readme);
      writeFileSync(join(folder, 'cases.yaml'), cases);
      // 4. and 5. The render scripts, then the typecheck the section names.
      run(dir, 'npm', ['run', '--silent', 'render:rules']);
      run(dir, 'npm', ['run', '--silent', 'render:admission-policies']);
      run(dir, 'npm', ['run', '--silent', 'typecheck']);

      writeFileSync(join(dir, 'check.ts'), CHECK);
      const out = JSON.parse(run(dir, process.execPath, ['--import', 'tsx', 'check.ts'])) as Record<string, unknown>;
      const message = 'spec.lifecycleHooks.preDrain[0].owner: Invalid value: "Team-A": must be lower case';
      assert.deepEqual(out, {
        create: { denials: [message], warnings: [] },
        audit: { denials: [message], warnings: [] },
        ratcheted: { denials: [], warnings: [message] },
        fixed: { denials: [], warnings: [] },
        native: true,
      });
      // The shipped renders now hold the rule's CEL (it warns by default, at admission).
      assert.match(
        readFileSync(join(dir, 'webhook-config/components/native-policies/admission-policies.yaml'), 'utf8'),
        /owner-lowercase: /,
      );
      // The copy sits in a temporary directory: the upstream CRDs are where this checkout finds them.
      const sharedCrds = readControlPlaneSettings().sharedCrdDir;
      // Not as a child of this test run (NODE_TEST_CONTEXT would make it report to this process instead of running).
      const env: NodeJS.ProcessEnv = { ...process.env, HOOKKEEPER_E2E_SHARED_CRDS: sharedCrds };
      delete env['NODE_TEST_CONTEXT'];
      const unit = run(dir, 'npm', ['run', '--silent', 'test:unit'], env);
      const count = (what: string): number => Number(new RegExp(`^ℹ ${what} (\\d+)$`, 'm').exec(unit)?.[1] ?? NaN);
      assert.ok(count('tests') > 0 && count('fail') === 0, `the copy's unit suite:\n${unit.slice(-2000)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
