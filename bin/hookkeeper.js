#!/usr/bin/env node
// Entry point installed as `hookkeeper`: runs the compiled CLI (built by `npm run build`, which `npm ci` runs).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/transports/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('hookkeeper: dist/ is missing; run `npm run build` (npm ci runs it for you)\n');
  process.exit(2);
}
await import(main.href);
