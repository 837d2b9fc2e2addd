// The policy for CLI commands: --config, else $HOOKKEEPER_CONFIG, else the embedded default.
import { resolve } from 'node:path';
import { DEFAULT_POLICY } from '../config/defaults.js';
import { loadPolicyFile } from '../config/load.js';
import type { Policy } from '../core/policy.js';
import type { CliIO } from './io.js';

export async function cliPolicy(config: string | undefined, io: CliIO): Promise<Policy> {
  const file = config ?? io.env['HOOKKEEPER_CONFIG'];
  return file ? loadPolicyFile(resolve(io.cwd, file)) : DEFAULT_POLICY;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
