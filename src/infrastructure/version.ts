// hookkeeper's version, read from package.json, its one source (Chart.yaml and webhook-config/base are generated from
// it by `npm run render:kustomize`). package.json sits two levels above this module both as
// src/infrastructure/version.ts under tsx and as dist/infrastructure/version.js once built (the npm package and the
// container image both ship it beside dist/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AppError, describeError } from '../errors.js';

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/** hookkeeper's home, where its manual (docs/) lives: the chart's `home` says the same (a test holds them together). */
export const HOMEPAGE = 'https://github.com/hookkeeper/hookkeeper';

/** The version in hookkeeper's package.json (or the file given); an AppError saying what is wrong otherwise. */
export function readVersion(file: URL = PACKAGE_JSON): string {
  const path = fileURLToPath(file);
  const broken = (why: string, cause?: unknown): AppError =>
    new AppError('INTERNAL', `cannot tell hookkeeper's version: ${path} ${why}; reinstall hookkeeper`, { cause });
  let pkg: unknown;
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw broken(`cannot be read as JSON (${describeError(err)})`, err);
  }
  const { name, version } = (pkg ?? {}) as { name?: unknown; version?: unknown };
  if (name !== 'hookkeeper') throw broken(`is not hookkeeper's package.json (name ${JSON.stringify(name)})`);
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/.test(version))
    throw broken(`has no semantic version (version ${JSON.stringify(version)})`);
  return version;
}
