// The policy for CLI commands: --config, else $HOOKKEEPER_CONFIG, else the embedded default.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_POLICY } from '../../infrastructure/config/defaults.js';
import type { Policy } from '../../core/policy.js';
import { AppError } from '../../errors.js';
import type { CliIO } from './io.js';

/**
 * The policy file in force, resolved against the working directory, or undefined for the embedded default. A
 * HOOKKEEPER_CONFIG naming no file is one line naming the variable: it is set far from the command that fails.
 */
export function policyFile(config: string | undefined, io: CliIO): string | undefined {
  if (config !== undefined) return resolve(io.cwd, config);
  const fromEnv = io.env['HOOKKEEPER_CONFIG'];
  if (!fromEnv) return undefined;
  const file = resolve(io.cwd, fromEnv);
  if (!existsSync(file))
    throw new AppError(
      'CONFIG_INVALID',
      `HOOKKEEPER_CONFIG is ${fromEnv}, which does not exist: point it at a policy file, or unset it for the embedded default policy`,
    );
  return file;
}

export async function cliPolicy(config: string | undefined, io: CliIO): Promise<Policy> {
  const file = policyFile(config, io);
  if (file === undefined) return DEFAULT_POLICY;
  // The loader compiles the policy schema with ajv, which is slow: only a run with a policy file pays for it.
  const { loadPolicyFile } = await import('../../infrastructure/config/load.js');
  return loadPolicyFile(file);
}
