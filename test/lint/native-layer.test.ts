// The native compiler stays below the cluster by lint: a file of src/compilers/native may import only itself,
// src/core, src/rules and src/errors.ts, so what it renders depends on the policy alone, never on a kube client, a
// transport or a package.
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

describe('native layer lint', () => {
  const outside: Array<[string, string]> = [
    ['the kube client layer', "import { KNOWN } from '../../infrastructure/kube/x.js';\nexport const k = KNOWN;\n"],
    [
      'a type from kube',
      "import type { Lister } from '../../infrastructure/kube/types.js';\nexport type L = Lister;\n",
    ],
    ['a transport', "import { runAudit } from '../../transports/audit/run.js';\nexport const f = runAudit;\n"],
    [
      'the config loader',
      "import { loadPolicy } from '../../infrastructure/config/load.js';\nexport const f = loadPolicy;\n",
    ],
    ['the logger', "import { createLogger } from '../../infrastructure/log.js';\nexport const f = createLogger;\n"],
    ['the other compiler', "import { packageRoot } from '../deploy/render.js';\nexport const f = packageRoot;\n"],
    ['a package', "import YAML from 'yaml';\nexport const f = YAML.stringify;\n"],
    ['node:fs', "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n"],
  ];
  for (const [what, code] of outside)
    test(`an import of ${what} from src/compilers/native fails lint`, async () => {
      assert.equal((await importErrors(code, 'src/compilers/native/x.ts')).length, 1);
    });

  const inside: Array<[string, string]> = [
    ['src/compilers/native', "import { LABELS } from './match.js';\nexport const l = LABELS;\n"],
    ['src/core', "import { CARRIERS } from '../../core/carriers.js';\nexport const c = CARRIERS;\n"],
    ['src/core/cel', "import type { CelCarrier } from '../../core/cel/types.js';\nexport type C = CelCarrier;\n"],
    ['src/rules', "import { RULES } from '../../rules/index.js';\nexport const r = RULES;\n"],
    ['src/errors.ts', "import { AppError } from '../../errors.js';\nexport const e = AppError;\n"],
  ];
  for (const [what, code] of inside)
    test(`an import of ${what} from src/compilers/native passes`, async () => {
      assert.deepEqual(await importErrors(code, 'src/compilers/native/x.ts'), []);
    });

  test("today's src/compilers/native passes lint", async () => {
    const dir = join(root, 'src/compilers/native');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
    assert.ok(files.length > 3, 'found the native sources');
    const problems = (await eslint.lintFiles(files)).flatMap((r) =>
      r.messages.map((m) => `${relative(root, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`),
    );
    assert.deepEqual(problems, []);
  });
});
