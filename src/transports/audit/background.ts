// `serve --audit-interval`: the audit on a timer inside the webhook process. Runs never overlap (the next one
// is scheduled when the last ends), a failure is logged and counted, and the timer never holds the process up.
import type { Registry } from 'prom-client';
import type { Policy } from '../../core/policy.js';
import type { Lister } from '../../infrastructure/kube/types.js';
import type { Logger } from '../../infrastructure/log.js';
import type { ServiceAccountExists } from './findings.js';
import { ownerLabel } from '../../core/owner-label.js';
import type { OwnerGrants } from '../../infrastructure/kube/owner-grants.js';
import { createAuditMetrics, type AuditMetrics, type OwnerLabel } from './metrics.js';
import type { AuditReport } from './report.js';
import { runAudit } from './run.js';

export interface AuditLoop {
  stop(): void;
  /** Resolves when the run in progress, if any, has ended (for shutdown and tests). */
  settled(): Promise<void>;
}

export function startAuditLoop(options: {
  intervalMs: number;
  /** A run's report, and how its owners become label values. */
  run: () => Promise<{ report: AuditReport; ownerLabel: OwnerLabel }>;
  metrics: AuditMetrics;
  logger: Logger;
}): AuditLoop {
  const { intervalMs, run, metrics, logger } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const once = async (): Promise<void> => {
    try {
      const { report, ownerLabel } = await run();
      metrics.record(report, ownerLabel);
      logger.info(
        {
          objects: report.summary.objects,
          fail: report.summary.fail,
          warn: report.summary.warn,
          stuckDeletions: report.summary.stuckDeletions,
          notes: report.notes,
        },
        'background audit finished',
      );
    } catch (err) {
      metrics.failed();
      logger.error({ err }, 'background audit failed');
    }
  };
  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = once().finally(() => schedule(intervalMs));
    }, delayMs);
    timer.unref();
  };
  schedule(0);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    settled: () => current,
  };
}

/** The audit `serve --audit-interval` runs: the policy in force at each run, its findings as metrics on `registry`. */
export function startBackgroundAudit(options: {
  intervalMs: number;
  stuckAfterMs: number;
  policy: () => Policy;
  lister: Lister;
  serviceAccountExists?: ServiceAccountExists;
  registry: Registry;
  logger: Logger;
}): AuditLoop {
  const { lister, serviceAccountExists, stuckAfterMs } = options;
  return startAuditLoop({
    intervalMs: options.intervalMs,
    metrics: createAuditMetrics(options.registry),
    logger: options.logger,
    run: async () => {
      const policy = options.policy();
      let grants: OwnerGrants | undefined;
      const report = await runAudit({
        lister,
        policy,
        now: () => new Date(),
        stuckAfterMs,
        ...(serviceAccountExists ? { serviceAccountExists } : {}),
        ownerGrants: true,
        onOwnerGrants: (listed) => (grants = listed),
      });
      // The owners this run's policy and RBAC grants name keep their name (src/core/owner-label.ts).
      const label: OwnerLabel = (owner, namespace) =>
        ownerLabel(policy, owner, grants?.protectedIn(owner, namespace) ?? false);
      return { report, ownerLabel: label };
    },
  });
}
