// The policy stays pure by lint: src/core and src/rules may import only each other, and may not reach the
// logger, the file system, the network, the clock, timers, the environment or the console.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The repository's config as it is; snippets at paths that do not exist are linted without type information (the
// project service knows only files on disk), which the purity rules do not use.
const eslint = new ESLint({ cwd: root });
const snippets = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

/** The purity rules that fire on `code` linted as if it lived at `file` (relative to the repository root). */
async function purityErrors(code: string, file: string): Promise<string[]> {
  const [result] = await snippets.lintText(code, { filePath: join(root, file) });
  assert.ok(result, 'ESLint returned a result');
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], 'the snippet parses');
  return result.messages
    .filter((m) => m.ruleId?.startsWith('no-restricted-') || m.ruleId === 'hookkeeper/layers')
    .map((m) => `${m.ruleId}: ${m.message}`);
}

const impure: Array<[string, string, string]> = [
  [
    'an import of node:fs',
    "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n",
    'src/core/x.ts',
  ],
  ['an import of bare fs', "import { readFileSync } from 'fs';\nexport const f = readFileSync;\n", 'src/core/x.ts'],
  ['an import of node:path', "import { join } from 'node:path';\nexport const f = join;\n", 'src/core/x.ts'],
  [
    'an import of the logger',
    "import { createLogger } from '../infrastructure/log.js';\nexport const f = createLogger;\n",
    'src/core/x.ts',
  ],
  [
    'an import of the logger from a rule',
    "import { createLogger } from '../../infrastructure/log.js';\nexport const f = createLogger;\n",
    'src/rules/some-rule/rule.ts',
  ],
  [
    'an import of the logger from expr/',
    "import { createLogger } from '../../infrastructure/log.js';\nexport const f = createLogger;\n",
    'src/core/expr/x.ts',
  ],
  [
    'an import of a transport',
    "import { runAudit } from '../transports/audit/run.js';\nexport const f = runAudit;\n",
    'src/core/x.ts',
  ],
  [
    'an import of a compiler from a rule',
    "import { render } from '../../compilers/native/render.js';\nexport const f = render;\n",
    'src/rules/some-rule/rule.ts',
  ],
  ['an import of admission', "import { a } from '../admission/response.js';\nexport const f = a;\n", 'src/rules/x.ts'],
  [
    'an import of src/errors.ts',
    "import { AppError } from '../errors.js';\nexport const f = AppError;\n",
    'src/core/x.ts',
  ],
  ['an import of pino', "import pino from 'pino';\nexport const f = pino;\n", 'src/core/x.ts'],
  ['a type-only import of pino', "import type { Logger } from 'pino';\nexport type L = Logger;\n", 'src/core/x.ts'],
  ['an import of another dependency', "import { parse } from 'yaml';\nexport const f = parse;\n", 'src/core/x.ts'],
  [
    'an import of a JSON Patch library (the core makes its own patches)',
    "import jsonpatch from 'fast-json-patch';\nexport const f = jsonpatch.compare;\n",
    'src/core/x.ts',
  ],
  ['a dynamic import', "export const f = () => import('node:fs');\n", 'src/core/x.ts'],
  [
    'an import of a package from a rule',
    "import { parse } from 'yaml';\nexport const f = parse;\n",
    'src/rules/x/rule.ts',
  ],
  ['new Date()', 'export const now = () => new Date();\n', 'src/core/x.ts'],
  ['Date()', 'export const now = () => Date();\n', 'src/core/x.ts'],
  ['Date.now()', 'export const now = () => Date.now();\n', 'src/core/x.ts'],
  ['performance.now()', 'export const now = () => performance.now();\n', 'src/core/x.ts'],
  ['process.env', 'export const env = () => process.env.HOME;\n', 'src/core/x.ts'],
  ['globalThis.process', 'export const env = () => globalThis.process.env.HOME;\n', 'src/core/x.ts'],
  ['setTimeout', 'export const later = (f: () => void) => setTimeout(f, 1);\n', 'src/core/x.ts'],
  ['setInterval', 'export const later = (f: () => void) => setInterval(f, 1);\n', 'src/core/x.ts'],
  ['setImmediate', 'export const later = (f: () => void) => setImmediate(f);\n', 'src/core/x.ts'],
  ['queueMicrotask', 'export const later = (f: () => void) => queueMicrotask(f);\n', 'src/core/x.ts'],
  ['console', "export const say = () => console.log('x');\n", 'src/core/x.ts'],
  ['fetch', "export const get = () => fetch('http://x');\n", 'src/core/x.ts'],
  ['Math.random', 'export const pick = () => Math.random();\n', 'src/core/x.ts'],
];

describe('core purity lint', () => {
  for (const [what, code, file] of impure) {
    test(`${what} in ${file} fails lint`, async () => {
      const errors = await purityErrors(code, file);
      assert.ok(errors.length > 0, `expected a purity error for ${what}`);
    });
  }

  const pure: Array<[string, string, string]> = [
    ['an import of ./guards.js', "import { quote } from './guards.js';\nexport const f = quote;\n", 'src/core/x.ts'],
    [
      'an import of the core from a rule',
      "import { quote } from '../../core/guards.js';\nexport const f = quote;\n",
      'src/rules/some-rule/rule.ts',
    ],
    [
      "an import of rules' shared context from expr/",
      "import type { Rule } from '../../rules/context.js';\nexport type R = Rule;\n",
      'src/core/expr/x.ts',
    ],
    ['the registry importing the rules', "export { RULES } from '../rules/index.js';\n", 'src/core/registry.ts'],
    [
      'a type-only import from core',
      "import type { Violation } from './types.js';\nexport type V = Violation;\n",
      'src/core/x.ts',
    ],
    [
      'a Date value passed in',
      'export const later = (a: Date, b: Date) => a.getTime() > b.getTime();\n',
      'src/core/x.ts',
    ],
    ['Date.parse of an input', 'export const at = (s: string) => Date.parse(s);\n', 'src/core/x.ts'],
  ];
  for (const [what, code, file] of pure) {
    test(`${what} in ${file} passes`, async () => {
      assert.deepEqual(await purityErrors(code, file), []);
    });
  }

  test('the same snippets outside src/core are not purity errors', async () => {
    assert.deepEqual(
      await purityErrors(
        "import { createLogger } from '../../infrastructure/log.js';\nexport const f = createLogger;\n",
        'src/transports/server/x.ts',
      ),
      [],
    );
    assert.deepEqual(await purityErrors('export const now = () => Date.now();\n', 'src/transports/audit/x.ts'), []);
  });

  test("today's src/core and src/rules pass lint", async () => {
    const files: string[] = [];
    for (const dir of ['src/core', 'src/rules']) {
      const abs = join(root, dir);
      files.push(
        ...(await readdir(abs, { recursive: true })).filter((f) => f.endsWith('.ts')).map((f) => join(abs, f)),
      );
    }
    assert.ok(files.length > 100, 'found the core and rule sources');
    const results = await eslint.lintFiles(files);
    const problems = results.flatMap((r) =>
      r.messages.map((m) => `${relative(root, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`),
    );
    assert.deepEqual(problems, []);
  });
});
