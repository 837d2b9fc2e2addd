// The policy `serve` enforces: the file given (or the embedded default) at start, and each valid change to the
// file after; an invalid change is refused and the last good policy stays in force.
import { DEFAULT_POLICY } from '../../infrastructure/config/defaults.js';
import { loadPolicyFile } from '../../infrastructure/config/load.js';
import type { Policy } from '../../core/policy.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../infrastructure/log.js';
import type { Metrics } from './metrics.js';
import { readSettled, watchFiles, type FileWatch, type ReadFile } from './file-poll.js';

export interface StartPolicy {
  policy: Policy;
  /** With a policy file: what its reload watch starts from. */
  fingerprint?: string;
}

/** Loaded from what two agreeing reads saw, as the certificate is (src/transports/server/file-poll.ts). */
export async function loadStartPolicy(file: string | undefined, read: ReadFile, logger: Logger): Promise<StartPolicy> {
  const start = file ? await readSettled([file], read) : undefined;
  const policy = file && start ? await loadPolicyFile(file, start.read) : DEFAULT_POLICY;
  logger.info({ config: file ?? '(embedded default)' }, 'policy loaded');
  return start ? { policy, fingerprint: start.fingerprint } : { policy };
}

/** Calls onPolicy with each valid new policy; counts and logs every reload, refused or not. */
export function watchPolicy(
  file: string,
  intervalMs: number,
  read: ReadFile,
  since: string,
  onPolicy: (policy: Policy) => void,
  logger: Logger,
  metrics: Metrics,
): Promise<FileWatch> {
  return watchFiles(
    [file],
    intervalMs,
    async (agreed) => {
      try {
        onPolicy(await loadPolicyFile(file, agreed));
        metrics.reloads.inc({ source: 'policy', result: 'success' });
        logger.info({ config: file }, 'reloaded policy');
      } catch (err) {
        metrics.reloads.inc({ source: 'policy', result: 'failure' });
        logger.error(
          { config: file, problems: describeError(err) },
          'refused invalid policy; keeping the last good one',
        );
      }
    },
    read,
    since,
  );
}
