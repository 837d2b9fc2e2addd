// `hookkeeper serve`: the webhook. Flags -> startServer; SIGTERM/SIGINT (even during start-up) -> drain and exit 0;
// cannot start (policy, TLS, flags, port) -> exit 2.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { KubeConfig } from '@kubernetes/client-node';
import type { AuditLoop } from '../../audit/background.js';
import type { RunningServer } from '../../server/serve.js';
import type { Policy } from '../../../core/policy.js';
import { AppError, describeError } from '../../../errors.js';
import { ownersToCheck } from '../../../rules/owner-only-removal/owners-to-check.js';
import { createOwnerContext, type OwnerContext } from '../../../infrastructure/kube/owner-context.js';
import { createParentContext, type ParentContext } from '../../../infrastructure/kube/parent-context.js';
import {
  clusterSource,
  describeSource,
  noClusterMessage,
  requireClusterSource,
} from '../../../infrastructure/kube/kubeconfig-source.js';
import type { Logger } from '../../../infrastructure/log.js';
import { reviewContextGatherer } from '../../../infrastructure/kube/review-context.js';
import { createTwinContext } from '../../../infrastructure/kube/twin-context.js';
import { createQuorumContext } from '../../../infrastructure/kube/quorum-context.js';
import { ExitCode, exitCodeFor, writeText, type CliIO } from '../io.js';
import { collect, duration, flagError, logLevel, LOG_LEVELS, portNumber, wholeNumber } from '../flags.js';
import { policyFile } from '../policy.js';

interface ServeFlags {
  config?: string;
  host: string;
  port: string;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  clientCn: string[];
  devCertDir: string;
  logLevel: string;
  reloadInterval: string;
  shutdownGrace: string;
  kubeconfig?: string;
  context?: string;
  cluster: boolean;
  lookupBudget?: string;
  auditInterval?: string;
  stuckAfter: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('serve')
    .description('serve the validating (/validate) and mutating (/mutate) admission webhooks over HTTPS')
    .option('--config <file>', 'policy file (default: $HOOKKEEPER_CONFIG, else the embedded default policy)')
    .option('--host <addr>', 'address to listen on', '0.0.0.0')
    .option('--port <n>', 'HTTPS port', '8443')
    .option('--tls-cert <file>', 'serving certificate (PEM); reloaded when the file changes')
    .option('--tls-key <file>', 'serving key (PEM); reloaded when the file changes')
    .option('--client-ca <file>', 'require client certificates signed by this CA (mTLS)')
    .option('--client-cn <name>', 'with --client-ca: accept only this client certificate CN (repeatable)', collect, [])
    .option(
      '--dev-cert-dir <dir>',
      'where development certificates are generated when --tls-cert/--tls-key are not given',
      '.dev-certs',
    )
    .option('--log-level <level>', `${LOG_LEVELS.join(', ')} (HOOKKEEPER_LOG_LEVEL wins when set)`, 'info')
    .option('--reload-interval <seconds>', 'how often certificate and policy files are checked for changes', '5')
    .option('--shutdown-grace <seconds>', 'how long in-flight requests may finish after SIGTERM', '20')
    .option(
      '--kubeconfig <file>',
      'the cluster asked about hook owners (RBAC grants) and parents (default: $KUBECONFIG, else ~/.kube/config, else in-cluster); logged at start',
    )
    .option('--context <name>', 'kubeconfig context to use')
    .option(
      '--no-cluster',
      'consult no cluster, whatever kubeconfig there is: the policy registry alone decides hook ownership (removals it does not verify get unverifiedRemoval) and parent lookups fail (onMissingParent decides)',
    )
    .option(
      '--lookup-budget <ms>',
      'how long the lookups of one review (parents, hook-owner access reviews) may take; then onMissingParent decides, and an owner whose access is unanswered could not be checked (default: 1500)',
    )
    .option(
      '--audit-interval <duration>',
      'also audit the cluster in the background this often (e.g. 10m) and export the findings as hookkeeper_audit_* metrics',
    )
    .option(
      '--stuck-after <duration>',
      'with --audit-interval: a deletion held by hooks for longer than this is stuck',
      '30m',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 stopped by SIGTERM or SIGINT (also during start-up), 2 cannot start (flags, policy,\n' +
        'certificate, port), 3 the background audit cannot reach the cluster.',
    )
    .action(async (flags: ServeFlags) => {
      done(await serve(flags, io));
    });
}

/**
 * SIGTERM/SIGINT, listened for from the first moment: a signal during start-up (a pod deleted while it starts) must
 * not kill the process half-started. Start-up finishes, then the server drains and the command exits 0.
 */
function stopSignal(): {
  received: Promise<NodeJS.Signals>;
  signal: () => NodeJS.Signals | undefined;
  dispose: () => void;
} {
  let signal: NodeJS.Signals | undefined;
  let resolveSignal: (s: NodeJS.Signals) => void = () => undefined;
  const received = new Promise<NodeJS.Signals>((resolve) => {
    resolveSignal = resolve;
  });
  const onSignal = (s: NodeJS.Signals): void => {
    signal ??= s;
    resolveSignal(s);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    received,
    signal: () => signal,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

async function serve(flags: ServeFlags, io: CliIO): Promise<number> {
  // Flags a logger or a listener would reject in their own words are checked before either exists.
  try {
    const envLevel = io.env['HOOKKEEPER_LOG_LEVEL'];
    logLevel(envLevel === undefined ? '--log-level' : 'HOOKKEEPER_LOG_LEVEL', envLevel ?? flags.logLevel);
    portNumber('--port', flags.port);
    policyFile(flags.config, io);
  } catch (err) {
    writeText(io.stderr, `hookkeeper serve: ${describeError(err)}`);
    return exitCodeFor(err);
  }
  const stop = stopSignal();
  try {
    return await serveUntilStopped(flags, io, stop);
  } finally {
    stop.dispose();
  }
}

function connection(flags: ServeFlags, io: CliIO): { kubeconfig?: string; context?: string } {
  return {
    ...(flags.kubeconfig ? { kubeconfig: resolve(io.cwd, flags.kubeconfig) } : {}),
    ...(flags.context ? { context: flags.context } : {}),
  };
}

/**
 * The cluster serve consults for hook-owner grants and parent lookups, logged at info with why it is that one (a stale
 * ~/.kube/config on a laptop otherwise turns removals the registry allows into "could not be checked" denials). It is
 * loaded now, so a bad --kubeconfig or --context stops the start; with none (or --no-cluster) the loader throws and
 * the registry decides alone.
 */
async function clusterFor(
  flags: ServeFlags,
  io: CliIO,
  logger: Logger,
): Promise<(() => KubeConfig | Promise<KubeConfig>) & { none?: true }> {
  const { kubeconfig, context } = connection(flags, io);
  const none = (reason: string): (() => never) & { none: true } => {
    logger.info(
      { cluster: 'none', reason },
      'no cluster consulted: the policy registry alone decides hook ownership (RBAC grants are not checked); parent lookups unavailable',
    );
    const load = (): never => {
      throw new AppError('USAGE', reason);
    };
    return Object.assign(load, { none: true as const });
  };
  if (!flags.cluster) {
    if (flags.kubeconfig !== undefined || flags.context !== undefined)
      throw flagError('--no-cluster', 'cannot go with --kubeconfig or --context', 'give one or the other');
    return none('--no-cluster');
  }
  if (kubeconfig && !existsSync(kubeconfig))
    throw flagError('--kubeconfig', `${flags.kubeconfig}: no such file`, 'give the path of a kubeconfig file');
  const source = clusterSource(kubeconfig, io.env);
  if (!source) {
    if (context !== undefined) requireClusterSource(kubeconfig, context, io.env);
    return none(noClusterMessage(io.env));
  }
  // @kubernetes/client-node takes half a second and 70 MiB to load (BENCHMARKS.md): only a serve with a cluster pays.
  const kc = (await import('../../../infrastructure/kube/client.js')).loadKubeConfig({
    kubeconfig,
    context,
    env: io.env,
  });
  logger.info(
    { cluster: kc.getCurrentCluster()?.server, context: kc.getCurrentContext(), source: describeSource(source) },
    'consulting this cluster for hook-owner grants (RBAC) and parent lookups (--no-cluster: none)',
  );
  return () => kc;
}

async function serveUntilStopped(flags: ServeFlags, io: CliIO, stop: ReturnType<typeof stopSignal>): Promise<number> {
  const { createLogger } = await import('../../../infrastructure/log.js');
  const logger = createLogger({ level: io.env['HOOKKEEPER_LOG_LEVEL'] ?? flags.logLevel });
  logger.info('starting');
  let parents: ParentContext | undefined;
  let owners: OwnerContext | undefined;
  let audit: AuditLoop | undefined;
  let running: RunningServer | undefined;
  try {
    if (Boolean(flags.tlsCert) !== Boolean(flags.tlsKey))
      throw flagError('--tls-cert, --tls-key', 'go together', 'give both or neither');
    if (flags.clientCn.length > 0 && !flags.clientCa)
      throw flagError('--client-cn', 'needs --client-ca', 'give --client-ca too');
    const configFile = policyFile(flags.config, io);
    const loadKubeConfig = await clusterFor(flags, io, logger);
    const budget =
      flags.lookupBudget === undefined ? {} : { budgetMs: wholeNumber('--lookup-budget', flags.lookupBudget) };
    const context = createParentContext({ loadKubeConfig, ...budget, logger: logger.child({ component: 'parents' }) });
    parents = context;
    let policyInForce: Policy | undefined;
    const ownerContext = createOwnerContext({
      loadKubeConfig,
      ...budget,
      logger: logger.child({ component: 'hook-owners' }),
      ownersToCheck: (input, granted) => (policyInForce ? ownersToCheck(policyInForce, input, granted) : []),
    });
    owners = ownerContext;
    const twinContext = createTwinContext({
      loadKubeConfig,
      ...budget,
      logger: logger.child({ component: 'migration' }),
      policy: () => policyInForce,
    });
    const quorumContext = createQuorumContext({
      loadKubeConfig,
      ...budget,
      logger: logger.child({ component: 'quorum' }),
      policy: () => policyInForce,
    });
    // No cluster, no twin: no mirror is verified, and no CREATE is judged against a twin (a lookup that could only
    // fail would refuse every Machine CREATE in the migration namespaces). No cluster, no quorum list either: the
    // quorum rule judges nothing it was given no Machines for (docs/ownership.md#quorum-protection).
    const gatherContext = reviewContextGatherer(
      context,
      ownerContext,
      loadKubeConfig.none ? undefined : twinContext,
      loadKubeConfig.none ? undefined : quorumContext,
    );
    const auditIntervalMs =
      flags.auditInterval === undefined ? undefined : duration('--audit-interval', flags.auditInterval);
    if (auditIntervalMs === 0) throw flagError('--audit-interval', 'must be longer than 0s', 'give one such as 10m');
    if (auditIntervalMs !== undefined && !flags.cluster)
      throw flagError('--audit-interval', 'audits a cluster: it cannot go with --no-cluster', 'give one or the other');
    const stuckAfterMs = duration('--stuck-after', flags.stuckAfter);
    // The audit exports on the server's registry and judges with the policy in force (hot reloads included).
    // The server (node:https, prom-client) is loaded by this command only, not by every CLI invocation.
    const [{ createMetrics }, { startServer }] = await Promise.all([
      import('../../server/metrics.js'),
      import('../../server/serve.js'),
    ]);
    const metrics = createMetrics({ defaultMetrics: true });
    running = await startServer(
      {
        host: flags.host,
        port: portNumber('--port', flags.port),
        ...(configFile ? { configFile } : {}),
        ...(flags.tlsCert ? { tlsCertFile: resolve(io.cwd, flags.tlsCert) } : {}),
        ...(flags.tlsKey ? { tlsKeyFile: resolve(io.cwd, flags.tlsKey) } : {}),
        ...(flags.clientCa ? { clientCaFile: resolve(io.cwd, flags.clientCa) } : {}),
        clientCommonNames: flags.clientCn,
        devCertDir: resolve(io.cwd, flags.devCertDir),
        reloadIntervalMs: wholeNumber('--reload-interval', flags.reloadInterval) * 1000,
        shutdownGraceMs: wholeNumber('--shutdown-grace', flags.shutdownGrace) * 1000,
        onPolicy: (policy) => {
          policyInForce = policy;
          context.setPolicy(policy);
        },
        gatherContext,
        // Both evaluated, so each logs when its startup grace runs out.
        ready: () => [context.ready(), ownerContext.ready()].every(Boolean),
      },
      logger,
      metrics,
    );
    if (auditIntervalMs !== undefined && policyInForce && stop.signal() === undefined) {
      const [{ connect, serviceAccountLookup }, { createLister }, { startBackgroundAudit }] = await Promise.all([
        import('../../../infrastructure/kube/connect.js'),
        import('../../../infrastructure/kube/lister.js'),
        import('../../audit/background.js'),
      ]);
      const cluster = await connect({ ...connection(flags, io), env: io.env });
      const first = policyInForce;
      audit = startBackgroundAudit({
        intervalMs: auditIntervalMs,
        stuckAfterMs,
        policy: () => policyInForce ?? first,
        lister: createLister(cluster),
        serviceAccountExists: serviceAccountLookup(cluster),
        registry: metrics.registry,
        logger: logger.child({ component: 'audit' }),
      });
    }
    const signal = await stop.received;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    audit?.stop();
    await running.shutdown();
    context.stop();
    ownerContext.stop();
    logger.info('stopped');
    return ExitCode.Ok;
  } catch (err) {
    parents?.stop();
    owners?.stop();
    audit?.stop();
    // Started, then failed (the background audit cannot reach the cluster): close, or the listener keeps us alive.
    await running?.shutdown();
    logger.error({ problems: describeError(err) }, 'cannot start');
    writeText(io.stderr, `hookkeeper serve: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
