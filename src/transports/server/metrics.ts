// Prometheus metrics on a registry owned by one server instance (tests create as many as they like).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'webhook' | 'kind' | 'operation' | 'decision'>;
  duration: Histogram<'webhook'>;
  violations: Counter<'rule' | 'enforcement'>;
  badRequests: Counter<'reason'>;
  reloads: Counter<'source' | 'result'>;
  certificateExpiry: Gauge;
  unverifiedRemovals: Counter<'owner'>;
  breakGlass: Counter<'action' | 'owner'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'hookkeeper_' });
  return {
    registry,
    requests: new Counter({
      name: 'hookkeeper_admission_requests_total',
      help: 'Admission requests by webhook, kind, operation and decision (allowed, denied, patched).',
      labelNames: ['webhook', 'kind', 'operation', 'decision'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'hookkeeper_admission_duration_seconds',
      help: 'Time from the request reaching the handler to its answer written: body read, review, response.',
      labelNames: ['webhook'],
      // Admission must fit in the webhooks' timeoutSeconds (5); most answers take well under a millisecond. 4 and 5
      // bound the alert on a p99 near the timeout (80% of it: webhook-config/components/monitoring).
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5, 4, 5],
      registers: [registry],
    }),
    violations: new Counter({
      name: 'hookkeeper_violations_total',
      help: 'Policy violations found, by rule and enforcement (deny, warn).',
      labelNames: ['rule', 'enforcement'],
      registers: [registry],
    }),
    badRequests: new Counter({
      name: 'hookkeeper_bad_requests_total',
      help: 'Requests refused before policy evaluation (400, 404, 413, 415).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    reloads: new Counter({
      name: 'hookkeeper_reloads_total',
      help: 'Hot reloads of the TLS certificate or the policy, by result (success, failure).',
      labelNames: ['source', 'result'],
      registers: [registry],
    }),
    certificateExpiry: new Gauge({
      name: 'hookkeeper_certificate_expiry_timestamp_seconds',
      help: 'notAfter of the serving certificate in use, as a Unix timestamp.',
      registers: [registry],
    }),
    unverifiedRemovals: new Counter({
      name: 'hookkeeper_unverified_hook_removals_total',
      help: 'Hook removals (or owner changes) nothing verified, allowed under unverifiedRemoval: warn, by owner ("other" when neither the policy nor the RBAC grants name it).',
      labelNames: ['owner'],
      registers: [registry],
    }),
    breakGlass: new Counter({
      name: 'hookkeeper_break_glass_total',
      help: 'What a break-glass identity did past a hook\'s protection, allowed and warned, by action (hook-removal, hook-addition, finalizer-removal, twin-creation) and by the owner of each hook it concerned ("other" when neither the policy nor the RBAC grants name it).',
      labelNames: ['action', 'owner'],
      registers: [registry],
    }),
  };
}
