// Transports do not import each other, and nothing below them imports one: what two transports share lives below
// them (src/infrastructure, src/compilers, src/core, ...), so each transport can be read and changed on its own.
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
/** The folders below the transports that are not held to an allow-list of their own (core, rules, native are). */
const BELOW = [
  'admission',
  'infrastructure',
  'infrastructure/kube',
  'infrastructure/config',
  'infrastructure/certs',
  'infrastructure/manifests',
  'compilers/deploy',
];

/** The relative path from a file in src/`from` to src/`to`. */
function up(from: string, to: string): string {
  const path = relative(from, to);
  return path.startsWith('.') ? path : `./${path}`;
}

async function importErrors(code: string, file: string): Promise<string[]> {
  const [result] = await snippets.lintText(code, { filePath: join(root, file) });
  assert.ok(result, 'ESLint returned a result');
  assert.deepEqual(
    result.messages.filter((m) => m.fatal),
    [],
    'the snippet parses',
  );
  return result.messages.filter((m) => m.ruleId === 'hookkeeper/layers').map((m) => m.message);
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
    [
      'src/transports/validate/run.ts',
      "import { renderText } from '../explain/text-output.js';\nexport const r = renderText;\n",
    ],
    ['src/transports/audit/run.ts', "import { program } from '../cli/program.js';\nexport const p = program;\n"],
    // A dynamic import, and one from a subfolder: the rule resolves the path, whatever the depth.
    ['src/transports/server/app.ts', "export const a = () => import('../audit/run.js');\n"],
    ['src/transports/audit/sub/x.ts', "import { x } from '../../server/x.js';\nexport const y = x;\n"],
  ];
  for (const [file, code] of sideways)
    test(`${file}: ${code.split("'")[1]}, another transport, fails lint`, async () => {
      assert.equal((await importErrors(code, file)).length, 1);
    });

  for (const dir of [...BELOW, '.', 'infrastructure/kube/sub'])
    for (const t of [...TRANSPORTS, 'cli'])
      test(`src/${dir}: an import of src/transports/${t} fails lint`, async () => {
        const from = `${up(dir, `transports/${t}`)}/x.js`;
        assert.equal(
          (await importErrors(`import { x } from '${from}';\nexport const y = x;\n`, `src/${dir}/x.ts`)).length,
          1,
        );
      });

  const inward: Array<[string, string]> = [
    [
      'src/transports/explain/from-files.ts',
      "import { parseManifests } from '../../infrastructure/manifests/documents.js';\nexport const p = parseManifests;\n",
    ],
    [
      'src/transports/audit/run.ts',
      "import { hookCrds } from '../../core/hook-crds.js';\nexport const h = hookCrds;\n",
    ],
    [
      'src/transports/audit/run.ts',
      "import { staticManifests } from '../../compilers/native/static.js';\nexport const s = staticManifests;\n",
    ],
    [
      'src/transports/audit/run.ts',
      "import { reviewObject } from './audit-object.js';\nexport const r = reviewObject;\n",
    ],
    ['src/transports/audit/run.ts', "import { AppError } from '../../errors.js';\nexport const e = AppError;\n"],
    [
      'src/transports/cli/commands/x.ts',
      "import { runAudit } from '../../audit/run.js';\nexport const r = runAudit;\n",
    ],
    ['src/infrastructure/kube/x.ts', "import { loadPolicy } from '../config/load.js';\nexport const l = loadPolicy;\n"],
  ];
  for (const [file, code] of inward)
    test(`${file}: ${code.split("'")[1]} passes`, async () => {
      assert.deepEqual(await importErrors(code, file), []);
    });

  test("today's transports and the layers below them pass lint", async () => {
    const files: string[] = [];
    for (const dir of ['transports', 'admission', 'infrastructure', 'compilers']) {
      const abs = join(root, 'src', dir);
      files.push(
        ...(await readdir(abs, { recursive: true })).filter((f) => f.endsWith('.ts')).map((f) => join(abs, f)),
      );
    }
    files.push(join(root, 'src/errors.ts'));
    const problems = (await eslint.lintFiles(files)).flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId === 'hookkeeper/layers')
        .map((m) => `${relative(root, r.filePath)}:${m.line}: ${m.message}`),
    );
    assert.deepEqual(problems, []);
  });
});
