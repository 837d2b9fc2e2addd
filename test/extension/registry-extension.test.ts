// The worked example of adding a rule (DEVELOPMENT.md, "Adding a rule"), applied step by step, exactly as written, to
// a copy of the repository: the rule module, its registry entry, its id, its row in docs/rules.md, its cases, then the
// commands the section names (the render script, the typecheck). Then the behaviour it promises, and the whole unit tier,
// run there as `npm run test:unit` (a minute or two, so it is in the meta tier: once in CI, not on every Node line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/deploy/render.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { docSection } from '../helpers/docs.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const root = packageRoot();

/** The code blocks of the section, in order: the rule file, the registry entry, the id, the table row; the cases. */
function example(): {
  rule: string;
  registryImport: string;
  registryEntry: string;
  id: string;
  row: string;
  cases: string;
} {
  const section = docSection('DEVELOPMENT.md', '## Adding a rule');
  const blocks = [...section.matchAll(/```(?:ts|md)\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const [rule, registry, id, row] = blocks;
  const cases = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(rule && registry && id && row, 'DEVELOPMENT.md shows the rule file, the registry entry, the id, the row');
  assert.ok(cases, "DEVELOPMENT.md shows the rule's cases");
  const [registryImport, registryEntry] = registry.split('\n');
  return {
    rule,
    registryImport: registryImport ?? '',
    registryEntry: registryEntry ?? '',
    id: id.trimEnd(),
    row: row.trimEnd(),
    cases,
  };
}

/** What the section says the new rule does, observed through the copy's own engine and render. */
const CHECK = `
import { parsePolicy } from './src/config/load.js';
import { evaluate } from './src/core/engine.js';
import type { ReviewInput } from './src/core/types.js';
import { renderNativePolicies } from './src/native/render.js';
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

/** `insert` before `marker`, which must be in `text`. */
function before(text: string, marker: string, insert: string): string {
  const at = text.indexOf(marker);
  assert.ok(at > 0, `${JSON.stringify(marker)} found`);
  return `${text.slice(0, at)}${insert}${text.slice(at)}`;
}

test(
  'the worked example, every step applied as documented, makes a rule the whole system knows',
  // A hang guard, not a bound: the whole unit suite runs inside.
  { timeout: 3 * HANG_GUARD_MS },
  () => {
    const { rule, registryImport, registryEntry, id, row, cases } = example();
    const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-registry-'));
    try {
      cpSync(root, dir, {
        recursive: true,
        // Links as they are (the chart's link to the shipped render is relative), not rewritten to point back here.
        verbatimSymlinks: true,
        filter: (src) => !SKIP.has(src.slice(root.length + 1).split('/')[0] ?? ''),
      });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');

      // 1. The rule module.
      writeFileSync(join(dir, 'src/core/rules/owner-lowercase.ts'), rule);
      // 2. Its registry entry: the import after the others, the module at the end of the list.
      const registryFile = join(dir, 'src/core/registry.ts');
      const registry = readFileSync(registryFile, 'utf8');
      const afterImports = registry.indexOf('\n', registry.lastIndexOf('\nimport ') + 1) + 1;
      const withImport = `${registry.slice(0, afterImports)}${registryImport}\n${registry.slice(afterImports)}`;
      writeFileSync(registryFile, before(withImport, '] as const', `${registryEntry}\n`));
      // 3. Its id, at the end of the list of ids.
      const idsFile = join(dir, 'src/core/rule-ids.ts');
      writeFileSync(idsFile, before(readFileSync(idsFile, 'utf8'), '] as const', `${id}\n`));
      // 4. Its row, after the last row of the rule table.
      const rulesDoc = join(dir, 'docs/rules.md');
      const table = readFileSync(rulesDoc, 'utf8').split('\n');
      const last = table.findLastIndex((l) => /^\| `[a-z-]+` \|/.test(l));
      table.splice(last + 1, 0, row);
      writeFileSync(rulesDoc, table.join('\n'));
      // 5. Its cases, in a folder of its own.
      mkdirSync(join(dir, 'src/rules/owner-lowercase'), { recursive: true });
      writeFileSync(join(dir, 'src/rules/owner-lowercase/cases.yaml'), cases);
      // 6. The render script, then the typecheck the section names.
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
