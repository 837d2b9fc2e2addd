// Lint: typescript-eslint's recommended rules, plus the layering rules that keep the policy core pure.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const impure = [
  'node:fs',
  'node:fs/promises',
  'node:http',
  'node:https',
  'node:net',
  'node:tls',
  'node:child_process',
  'node:process',
  'fs',
  'http',
  'https',
  'net',
  'tls',
  'child_process',
  'pino',
  'prom-client',
  '@kubernetes/client-node',
  'commander',
];

// The transports (one command or server each) import no other transport, and nothing below them imports one: what two
// share moves down (src/infrastructure/manifests, src/infrastructure/kube, src/infrastructure/config, src/core), so each reads on its own. cli/ wires them all.
const transports = ['server', 'audit', 'validate', 'explain', 'policy-test'];
const transportMessage =
  'transports do not import each other, and the layers below them import none: move what they share down ' +
  '(src/infrastructure/manifests, src/infrastructure/kube, src/infrastructure/config, src/core).';
/** An import source naming a transport or the CLI other than `own`, from a folder `up` ("../" or "./") of them. */
function transportImport(up, own) {
  const names = [...transports, 'cli'].filter((t) => t !== own).join('|');
  return `^${up.replace(/\./g, '\\.')}(?:${names})/`;
}

// src/core may import only src/core, type-only imports included, so the core's types never lean on a transport's or a
// library's.
const coreMessage = 'src/core is pure: it imports only src/core; pass anything else in from a transport.';

/** An import source a file `depth` folders below src/core may not use: anything but a core-relative path. */
function coreImportOutside(depth) {
  const up = depth === 0 ? '' : `|(?:\\.\\./){1,${depth}}(?!\\.\\./)`;
  return `^(?!\\./(?!\\.\\./)${up})`;
}

const coreTimeAndRandom = [
  { selector: "NewExpression[callee.type='Identifier'][callee.name='Date']", message: 'take the time as an input.' },
  { selector: "CallExpression[callee.type='Identifier'][callee.name='Date']", message: 'take the time as an input.' },
  { selector: 'ImportExpression', message: coreMessage },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // node:test's describe/test return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'suite', 'test', 'it'] },
          ],
        },
      ],
      // Passing on a caught value as it was thrown is not a new non-Error rejection.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    // admission/ decides too; it never touches the network, files, clock, environment or logger.
    files: ['src/admission/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: impure.map((name) => ({ name, message: 'admission/ is pure: pass data in from a transport.' })),
          patterns: [
            {
              group: [...transports, 'cli', 'kube', 'config', 'manifests'].map((d) => `**/${d}/**`),
              message: 'imports point inward: transports -> admission -> core.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'read the environment in a main file and pass it in.' },
      ],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'take the time as an input.' }],
    },
  },
  // A transport's files sit directly in its folder; the layers below at one depth too (src/*.ts at the root).
  ...transports.map((t) => ({
    files: [`src/${t}/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: transportImport('../', t), message: transportMessage }] },
      ],
    },
  })),
  {
    files: ['src/{kube,config,certs,manifests,deploy}/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: transportImport('../'), message: transportMessage }] }],
    },
  },
  {
    files: ['src/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: transportImport('./'), message: transportMessage }] }],
    },
  },
  {
    // native/ compiles the policy to admission policies: a pure function of the core's rules, like the core itself
    // (its files sit directly in src/compilers/native; a subfolder would need a pattern of its own depth, as core's below).
    files: ['src/compilers/native/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./(?!\\.\\./)|\\.\\./core/|\\.\\./errors\\.js$)',
              message: 'src/compilers/native is a pure compiler: it imports only src/compilers/native, src/core and src/errors.ts.',
            },
          ],
        },
      ],
    },
  },
  // core/ is held to an allow-list: one block per folder depth, since "inside src/core" depends on where the file is.
  ...[0, 1, 2, 3].map((depth) => ({
    files: [`src/core/${'*/'.repeat(depth)}*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: coreImportOutside(depth), message: coreMessage }] }],
    },
  })),
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'require', 'module', '__dirname', '__filename', 'global', 'globalThis'].map((name) => ({
          name,
          message: 'src/core has no environment or module system: pass data in from a transport.',
        })),
        ...[
          'setTimeout',
          'setInterval',
          'setImmediate',
          'queueMicrotask',
          'clearTimeout',
          'clearInterval',
          'clearImmediate',
          'performance',
        ].map((name) => ({ name, message: 'src/core has no clock or timers: take the time as an input.' })),
        { name: 'console', message: 'src/core does not log: return a value the transport logs.' },
        ...['fetch', 'crypto', 'WebSocket'].map((name) => ({
          name,
          message: 'src/core does no I/O and draws no randomness: pass data in.',
        })),
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'take the time as an input.' },
        { object: 'Math', property: 'random', message: 'src/core is deterministic: pass randomness in.' },
      ],
      'no-restricted-syntax': ['error', ...coreTimeAndRandom],
    },
  },
  {
    // Tests read JSON they did not type (supertest bodies, JSON.parse) and assert on it: a wrong shape fails the
    // assertion, so the no-unsafe-* family only adds casts. Fakes implement async interfaces without awaiting.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  // The two plain JS files (this config and the bin shim) are outside tsconfig: lint them without types.
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
);
