// One GET a review waits on, under the lookup budget (the twin, a cluster's control-plane Machines): the kubeconfig's
// client made when first needed, the wait bounded by the race (not only the abort: a GET that ignores its signal
// cannot hold the review), and a timeout told apart from any other failure.
import type { KubeConfig } from '@kubernetes/client-node';
import { describeError } from '../../errors.js';
import type { ApiGet, ApiResponse } from './api-requests.js';
import { RequestTimeout, startDeadline } from './deadline.js';
import { DEFAULT_LOOKUP_BUDGET_MS } from './lookup-budget.js';

export interface BudgetedGetOptions {
  loadKubeConfig: () => KubeConfig | Promise<KubeConfig>;
  /** Defaults to DEFAULT_LOOKUP_BUDGET_MS. */
  budgetMs?: number;
  /** Defaults to a GET with the kubeconfig's credentials, loaded when first needed; tests pass a fake. */
  get?: ApiGet;
}

export type BudgetedAnswer =
  { ok: true; res: ApiResponse } | { ok: false; reason: 'Timeout' | 'Error'; message: string };

export function budgetedGet(options: BudgetedGetOptions): (path: string) => Promise<BudgetedAnswer> {
  const budgetMs = options.budgetMs ?? DEFAULT_LOOKUP_BUDGET_MS;
  let getter: Promise<ApiGet> | undefined;
  const apiGet = (): Promise<ApiGet> =>
    (getter ??= options.get
      ? Promise.resolve(options.get)
      : (async () => {
          const [{ kubeGet }, kc] = await Promise.all([import('./api-requests.js'), options.loadKubeConfig()]);
          return kubeGet(kc);
        })());
  return async (path) => {
    const budget = startDeadline(budgetMs);
    try {
      const get = await budget.race(apiGet());
      return { ok: true, res: await budget.race(get(path, budget.signal)) };
    } catch (err) {
      if (err instanceof RequestTimeout) return { ok: false, reason: 'Timeout', message: err.message };
      return { ok: false, reason: 'Error', message: `GET ${path}: ${describeError(err)}` };
    } finally {
      budget.end();
    }
  };
}
