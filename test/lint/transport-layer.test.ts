// Transports do not import each other, and nothing below them imports one: what two transports share lives below
// them (src/infrastructure/manifests, src/infrastructure/kube, src/infrastructure/config, src/core, ...), so each transport can be read and changed on its own.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });
// Snippets at paths that do not exist are linted without type information, which the import rule does not use.
const snippets = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

const TRANSPORTS = ['server', 'audit', 'validate', 'explain', 'policy-test'];
/** The layers below the transports that are not held to an allow-list of their own (core and native are). */
const BELOW = ['admission', 'kube', 'config', 'certs', 'manifests', 'deploy'];

async function importErrors(code: string, file: string): Promise<string[]> {
  const [result] = await snippets.lintText(code, { filePath: join(root, file) });
  assert.ok(result, 'ESLint returned a result');
  assert.deepEqual(
    result.messages.filter((m) => m.fatal),
    [],
    'the snippet parses',
  );
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('transport layer lint', () => {
  // The imports this layout removed, each put back where it was.
  const sideways: Array<[string, string]> = [
    [
      'src/transports/explain/from-files.ts',
      "import { parseManifests } from '../validate/documents.js';\nexport const p = parseManifests;\n",
    ],
    [
      'src/transports/policy-test/load.ts',
      "import { parseManifests } from '../validate/documents.js';\nexport const p = parseManifests;\n",
    ],
    [
      'src/transports/explain/from-cluster.ts',
      "import { listOwnerGrants } from '../audit/owner-grants.js';\nexport const l = listOwnerGrants;\n",
    ],
    ['src/transports/audit/run.ts', "import type { Inputs } from '../validate/inputs.js';\nexport type I = Inputs;\n"],
    ['src/transports/server/app.ts', "export { runAudit } from '../audit/run.js';\n"],
    ['src/transports/validate/run.ts', "import { renderText } from '../explain/text-output.js';\nexport const r = renderText;\n"],
    ['src/transports/audit/run.ts', "import { program } from '../cli/program.js';\nexport const p = program;\n"],
  ];
  for (const [file, code] of sideways)
    test(`${file}: an import of another transport fails lint`, async () => {
      assert.equal((await importErrors(code, file)).length, 1);
    });

  for (const dir of [...BELOW, '.'])
    for (const t of [...TRANSPORTS, 'cli'])
      test(`src/${dir}: an import of src/${t} fails lint`, async () => {
        const from = dir === '.' ? `./${t}/x.js` : `../${t}/x.js`;
        const file = dir === '.' ? 'src/x.ts' : `src/${dir}/x.ts`;
        assert.equal((await importErrors(`import { x } from '${from}';\nexport const y = x;\n`, file)).length, 1);
      });

  const inward: Array<[string, string]> = [
    [
      'src/transports/explain/from-files.ts',
      "import { parseManifests } from '../manifests/documents.js';\nexport const p = parseManifests;\n",
    ],
    ['src/transports/audit/run.ts', "import { hookCrds } from '../core/hook-crds.js';\nexport const h = hookCrds;\n"],
    ['src/transports/audit/run.ts', "import { staticManifests } from '../native/static.js';\nexport const s = staticManifests;\n"],
    ['src/transports/audit/run.ts', "import { reviewObject } from './audit-object.js';\nexport const r = reviewObject;\n"],
    ['src/transports/cli/commands/x.ts', "import { runAudit } from '../../audit/run.js';\nexport const r = runAudit;\n"],
  ];
  for (const [file, code] of inward)
    test(`${file}: ${code.split("'")[1]} passes`, async () => {
      assert.deepEqual(await importErrors(code, file), []);
    });

  test("today's transports and the layers below them pass lint", async () => {
    const files: string[] = [];
    for (const dir of [...TRANSPORTS, ...BELOW]) {
      const abs = join(root, 'src', dir);
      files.push(...(await readdir(abs)).filter((f) => f.endsWith('.ts')).map((f) => join(abs, f)));
    }
    const problems = (await eslint.lintFiles(files)).flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId === 'no-restricted-imports')
        .map((m) => `${relative(root, r.filePath)}:${m.line}: ${m.message}`),
    );
    assert.deepEqual(problems, []);
  });
});
