// Lint: typescript-eslint's recommended rules, plus the layering rules: imports point inward, the policy stays pure.
import { dirname, join, relative, resolve, sep } from 'node:path';
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

// The layers, by folder of src/: the pure policy (core/ and rules/, which the registry in core lists), admission/,
// the compilers (compilers/), what touches the world (infrastructure/, src/errors.ts) and the transports
// (transports/, one command or server each; cli/ wires them all). One rule resolves each relative import against the
// importing file and checks the folder it lands in, so a file's depth does not matter (a regex on the specifier
// would need a pattern per depth).
const SRC = join(import.meta.dirname, 'src');
const transports = ['server', 'audit', 'validate', 'explain', 'policy-test'];

/** Whether `to` (a path relative to src/) is in one of `prefixes` ("core/" a folder; "errors.ts" a file). */
function within(to, prefixes) {
  return prefixes.some((p) => (p.endsWith('/') ? to.startsWith(p) : to === p || to === p.replace(/\.ts$/, '.js')));
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point inward: each layer of src/ imports only the layers it may' },
    schema: [
      {
        type: 'object',
        properties: {
          allow: { type: 'array', items: { type: 'string' } },
          deny: { type: 'array', items: { type: 'string' } },
          packages: { type: 'boolean' },
          message: { type: 'string' },
        },
        required: ['message'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { allow, deny = [], packages = true, message } = context.options[0];
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      const to = spec.startsWith('.')
        ? relative(SRC, resolve(dirname(context.filename), spec))
            .split(sep)
            .join('/')
        : null;
      const bad = to === null ? !packages : (allow !== undefined && !within(to, allow)) || within(to, deny);
      if (bad) context.report({ node: source, message });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportType: (node) => check(node.argument?.literal),
    };
  },
};
const hookkeeper = { rules: { layers: layersRule } };

const transportMessage =
  'transports do not import each other, and the layers below them import none: move what they share down ' +
  '(src/infrastructure, src/compilers, src/core).';

// src/core and src/rules may import only each other, type-only imports included, so the policy's types never lean on
// a transport's or a library's.
const coreMessage = 'src/core and src/rules are pure: they import only src/core and src/rules; pass anything else in.';

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
  { plugins: { hookkeeper } },
  // Below the transports: no transport at all.
  {
    files: ['src/{infrastructure,compilers}/**/*.ts', 'src/*.ts'],
    rules: {
      'hookkeeper/layers': ['error', { deny: ['transports/'], message: transportMessage }],
    },
  },
  // A transport: no other transport, nor cli/ (which imports them all, so it is not held to this).
  ...transports.map((t) => ({
    files: [`src/transports/${t}/**/*.ts`],
    rules: {
      'hookkeeper/layers': [
        'error',
        {
          deny: [...transports, 'cli'].filter((o) => o !== t).map((o) => `transports/${o}/`),
          message: transportMessage,
        },
      ],
    },
  })),
  {
    // admission/ decides too; it never touches the network, files, clock, environment or logger.
    files: ['src/admission/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: impure.map((name) => ({ name, message: 'admission/ is pure: pass data in from a transport.' })) },
      ],
      'hookkeeper/layers': [
        'error',
        {
          allow: ['admission/', 'core/', 'rules/'],
          message: 'imports point inward: transports -> admission -> core and rules.',
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'read the environment in a main file and pass it in.' },
      ],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'take the time as an input.' }],
    },
  },
  {
    // native/ compiles the policy to admission policies: a pure function of the rules, like the core itself.
    files: ['src/compilers/native/**/*.ts'],
    rules: {
      'hookkeeper/layers': [
        'error',
        {
          allow: ['compilers/native/', 'core/', 'rules/', 'errors.ts'],
          packages: false,
          message:
            'src/compilers/native is a pure compiler: it imports only itself, src/core, src/rules and src/errors.ts.',
        },
      ],
    },
  },
  {
    files: ['src/{core,rules}/**/*.ts'],
    rules: {
      'hookkeeper/layers': ['error', { allow: ['core/', 'rules/'], packages: false, message: coreMessage }],
    },
  },
  {
    files: ['src/{core,rules}/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'require', 'module', '__dirname', '__filename', 'global', 'globalThis'].map((name) => ({
          name,
          message: 'src/core and src/rules have no environment or module system: pass data in from a transport.',
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
