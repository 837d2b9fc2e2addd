// The worked example of adding a rule (DEVELOPMENT.md, "Adding a rule"), applied to a copy of src/: one new file, its
// entry in the registry and its id in the list of ids are all it takes for the types, the policy schema, the engine,
// the audit's source and ratcheting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/deploy/render.js';
import { docSection } from './helpers/docs.js';
import { HANG_GUARD_MS } from './helpers/wait.js';

const root = packageRoot();

/** The ```ts blocks of DEVELOPMENT.md's "Adding a rule" section: the rule file, the registry entry, the id. */
function example(): { rule: string; registryImport: string; registryEntry: string; id: string } {
  const section = docSection('DEVELOPMENT.md', '## Adding a rule');
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const [rule, registry, id] = blocks;
  assert.ok(rule && registry && id, 'DEVELOPMENT.md shows the rule file, the registry entry and the id');
  const [registryImport, registryEntry] = registry.split('\n');
  return { rule, registryImport: registryImport ?? '', registryEntry: registryEntry ?? '', id: id.trimEnd() };
}

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

test(
  'the worked example: one new file and its registry entry make a rule the whole system knows',
  { timeout: HANG_GUARD_MS },
  () => {
    const { rule, registryImport, registryEntry, id } = example();
    const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-registry-'));
    try {
      cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
      cpSync(join(root, 'package.json'), join(dir, 'package.json'));
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { include: string[] };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['src', 'check.ts'] }));
      writeFileSync(join(dir, 'check.ts'), CHECK);

      // The new file.
      writeFileSync(join(dir, 'src/core/rules/owner-lowercase.ts'), rule);
      // Its entry in the registry: the import with the others, the module at the end of the list.
      const registryFile = join(dir, 'src/core/registry.ts');
      const registry = readFileSync(registryFile, 'utf8');
      const lastImport = registry.lastIndexOf('\nimport ');
      const afterImports = registry.indexOf('\n', lastImport + 1) + 1;
      const listEnd = registry.indexOf('] as const');
      assert.ok(lastImport > 0 && listEnd > afterImports, 'registry.ts has imports, then the list');
      writeFileSync(
        registryFile,
        `${registry.slice(0, afterImports)}${registryImport}\n${registry.slice(afterImports, listEnd)}${registryEntry}\n${registry.slice(listEnd)}`,
      );
      // Its id, at the end of the list of ids.
      const idsFile = join(dir, 'src/core/rule-ids.ts');
      const ids = readFileSync(idsFile, 'utf8');
      const idsEnd = ids.indexOf('] as const');
      assert.ok(idsEnd > 0, 'rule-ids.ts has a list');
      writeFileSync(idsFile, `${ids.slice(0, idsEnd)}${id}\n${ids.slice(idsEnd)}`);

      try {
        execFileSync(
          process.execPath,
          [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json'), '--noEmit'],
          { cwd: dir, encoding: 'utf8' },
        );
      } catch (err) {
        assert.fail(`the example does not typecheck:\n${String((err as { stdout?: string }).stdout)}`);
      }
      const out = JSON.parse(
        execFileSync(process.execPath, ['--import', 'tsx', join(dir, 'check.ts')], { cwd: dir, encoding: 'utf8' }),
      ) as Record<string, unknown>;
      const message = 'spec.lifecycleHooks.preDrain[0].owner: Invalid value: "Team-A": must be lower case';
      assert.deepEqual(out, {
        create: { denials: [message], warnings: [] },
        audit: { denials: [message], warnings: [] },
        ratcheted: { denials: [], warnings: [message] },
        fixed: { denials: [], warnings: [] },
        native: true,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
