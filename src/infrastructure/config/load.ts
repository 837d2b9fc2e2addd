// Policy loading: YAML -> schema check (ajv, all errors) -> semantic checks -> defaults -> frozen Policy.
// Every problem is reported at once, with file, path and line, so a broken ConfigMap is fixed in one go.
import { readFile } from 'node:fs/promises';
import type { Policy } from '../../core/policy.js';
import { AppError } from '../../errors.js';
import { deepFreeze } from './defaults.js';
import { checkDocument, compileSchema } from './document.js';
import { hookFieldProblems } from './hook-fields.js';
import { inForceProblems } from './in-force.js';
import { mergeWithDefaults } from './merge-defaults.js';
import { checkedPolicy } from './policy-file.js';
import { quorumHookProblems } from './quorum-hooks.js';
import { POLICY_SCHEMA } from './schema.js';

const validateSchema = compileSchema(POLICY_SCHEMA);

/**
 * Reads and checks a policy file. `read` is how the file is read: on a hot reload, the content the watcher's two
 * agreeing reads saw (src/transports/server/file-poll.ts), so a file being rewritten in place is never half-loaded.
 */
export async function loadPolicyFile(
  file: string,
  read: (file: string) => Promise<Buffer> = readFile,
): Promise<Policy> {
  let text: string;
  try {
    text = (await read(file)).toString('utf8');
  } catch (cause) {
    throw new AppError('CONFIG_INVALID', `cannot read policy file ${file}: ${(cause as Error).message}`, {
      cause,
      problems: [{ file, message: (cause as Error).message }],
    });
  }
  return parsePolicy(text, file);
}

export function parsePolicy(text: string, file: string): Policy {
  const checked = checkDocument(text, file, validateSchema);
  if (!('doc' in checked))
    throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, {
      ...(checked.cause === undefined ? {} : { cause: checked.cause }),
      problems: checked.problems,
    });
  // Paths as the user wrote them (owners["team/storage"].users); the checks work on JSON Pointers. The later value
  // of a key given twice is kept, so the rest of the file is still checked. Schema problems first, then the rest.
  const policy = checkedPolicy(checked);
  const problems = [
    ...checked.problems,
    ...hookFieldProblems(policy),
    ...inForceProblems(policy),
    ...quorumHookProblems(policy),
  ];
  if (problems.length > 0) {
    // In file order (a problem without a line, e.g. a missing top-level field, first), so the list reads like the file.
    const ordered = problems
      .map((p, i) => ({ p, i }))
      .sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i)
      .map(({ p }) => p);
    throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, { problems: ordered });
  }
  return deepFreeze(mergeWithDefaults(policy.raw));
}
