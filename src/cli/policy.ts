// The policy for CLI commands: --config, else $HOOKKEEPER_CONFIG, else the embedded default.
import { resolve } from 'node:path';
import { DEFAULT_POLICY } from '../config/defaults.js';
import type { Policy } from '../core/policy.js';
import type { CliIO } from './io.js';

export async function cliPolicy(config: string | undefined, io: CliIO): Promise<Policy> {
  const file = config ?? io.env['HOOKKEEPER_CONFIG'];
  if (!file) return DEFAULT_POLICY;
  // The loader compiles the policy schema with ajv (about 100 ms): only a run with a policy file pays for it.
  const { loadPolicyFile } = await import('../config/load.js');
  return loadPolicyFile(resolve(io.cwd, file));
}
