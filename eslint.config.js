// Lint: typescript-eslint's recommended rules, plus the layering rule that keeps the policy core pure.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const impure = ['node:fs', 'node:fs/promises', 'node:http', 'node:https', 'node:net', 'node:tls', 'node:child_process',
  'node:process', 'fs', 'http', 'https', 'net', 'tls', 'child_process', 'express', 'pino', 'prom-client',
  '@kubernetes/client-node', 'commander'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // core/ and admission/ decide; they never touch the network, files, clock, environment or logger.
    files: ['src/core/**/*.ts', 'src/admission/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: impure.map((name) => ({ name, message: 'core/ and admission/ are pure: pass data in from a transport.' })),
        patterns: [{ group: ['**/server/**', '**/cli/**', '**/audit/**', '**/kube/**', '**/config/**'], message: 'imports point inward: transports -> admission -> core.' }],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'read the environment in a main file and pass it in.' }],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'take the time as an input.' }],
    },
  },
);
