// GET /metrics of the API server the kubeconfig reaches: audit reads which static admission manifests it runs.
import { withDeadline } from './deadline.js';
import { accessGet, type ClusterAccess } from './api-requests.js';

const METRICS_TIMEOUT_MS = 10_000;

/** The metrics text of one API server, or why it could not be read. */
export type MetricsText = { text: string } | { unreadable: string };

export function apiServerMetrics(access: ClusterAccess): () => Promise<MetricsText> {
  const get = accessGet(access);
  return async () => {
    try {
      const res = await withDeadline(METRICS_TIMEOUT_MS, (signal) => get('/metrics', signal));
      if (res.status === 403) return { unreadable: 'the caller may not get /metrics (RBAC: nonResourceURLs /metrics)' };
      if (res.status !== 200 || typeof res.body !== 'string') return { unreadable: `GET /metrics: HTTP ${res.status}` };
      return { text: res.body };
    } catch (err) {
      return { unreadable: `GET /metrics: ${err instanceof Error ? err.message : String(err)}` };
    }
  };
}
