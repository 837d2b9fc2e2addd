// The SubjectAccessReview client: may this identity act for hook owner O? A SubjectAccessReview (authorization.k8s.io/v1) for verb `remove` on
// `hookowners.hookkeeper.io` named O, in the object's namespace, and, when some owner is allowed, the same for the
// reserved probe owner: allowed for both is wildcard rights, not a grant naming O. Answered from a short cache when it
// can be and always within a time budget: anything but the API server's own answer is 'unknown', which the core never
// turns into an allow of a protected owner's hook. https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access
import { isRecord } from '../../core/guards.js';
import { MAX_OWNERS_CHECKED, WILDCARD_PROBE_OWNER } from '../../core/ownership.js';
import type { OwnerAccess } from '../../core/types.js';
import type { Logger } from '../log.js';
import { RequestTimeout, withDeadline } from './deadline.js';
import { type ApiPost, type ClusterAccess, pooledGet } from './api-requests.js';
import { HOOK_OWNERS_GROUP, HOOK_OWNERS_RESOURCE, HOOK_OWNERS_VERB } from './owner-grants.js';
import { DEFAULT_LOOKUP_BUDGET_MS } from './lookup-budget.js';

export type SarAnswer = 'allowed' | 'denied' | 'unknown';

/** The requester, as the AdmissionReview's userInfo gives it. */
export interface AccessSubject {
  user: string;
  groups: readonly string[];
  uid?: string;
  extra?: Readonly<Record<string, readonly string[]>>;
}

export const SAR_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

/** Long enough to absorb a burst of edits by one controller, short enough that a revoked grant stops working soon. */
export const DEFAULT_ACCESS_TTL_MS = 5_000;
/** One entry is ~200 bytes: 10 000 entries bound the cache to a few MB whatever the identities and owners. */
export const DEFAULT_ACCESS_CACHE_ENTRIES = 10_000;

export interface AccessReviewOptions {
  /** The cluster to ask (keep-alive connections), or a POST of your own (tests). */
  access?: ClusterAccess;
  post?: ApiPost;
  logger: Logger;
  /** For one review() call, all owners together; defaults to the parent lookups' budget. */
  budgetMs?: number;
  allowedTtlMs?: number;
  deniedTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export interface AccessReviewer {
  /**
   * One answer per owner for `subject` in `namespace` (undefined: a cluster-scoped object), within one budget
   * whatever the API server does: the first MAX_OWNERS_CHECKED distinct owners are asked about (the rest 'unknown'),
   * then the probe owner once if any came back allowed, making those 'wildcard' (probe allowed) or 'unknown' (probe
   * not answered). The empty owner has no name to grant: 'denied', and no request is sent.
   */
  review(
    subject: AccessSubject,
    owners: readonly string[],
    namespace: string | undefined,
  ): Promise<Record<string, OwnerAccess>>;
  /** Cached answers now held (for tests and metrics). */
  size(): number;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function sarBody(subject: AccessSubject, owner: string, namespace: string | undefined): unknown {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: subject.user,
      groups: [...subject.groups],
      ...(subject.uid ? { uid: subject.uid } : {}),
      ...(subject.extra ? { extra: subject.extra } : {}),
      resourceAttributes: {
        group: HOOK_OWNERS_GROUP,
        resource: HOOK_OWNERS_RESOURCE,
        verb: HOOK_OWNERS_VERB,
        name: owner,
        ...(namespace ? { namespace } : {}),
      },
    },
  };
}

function cacheKey(subject: AccessSubject, owner: string, namespace: string | undefined): string {
  const extra = Object.entries(subject.extra ?? {})
    .map(([k, v]) => [k, [...v].sort()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([subject.user, [...subject.groups].sort(), subject.uid ?? '', extra, namespace ?? '', owner]);
}

export function createAccessReviewer(options: AccessReviewOptions): AccessReviewer {
  const pool = options.access ? pooledGet(options.access) : undefined;
  const post = options.post ?? pool?.post;
  if (!post) throw new Error('createAccessReviewer: give access or post');
  const now = options.now ?? Date.now;
  const budgetMs = options.budgetMs ?? DEFAULT_LOOKUP_BUDGET_MS;
  const ttl = {
    allowed: options.allowedTtlMs ?? DEFAULT_ACCESS_TTL_MS,
    denied: options.deniedTtlMs ?? DEFAULT_ACCESS_TTL_MS,
  };
  const maxEntries = options.maxEntries ?? DEFAULT_ACCESS_CACHE_ENTRIES;
  // Insertion order is recency order (a hit is re-inserted): the first key is the least recently used.
  const cache = new Map<string, { access: 'allowed' | 'denied'; expires: number }>();
  // Concurrent reviews of the same question share one request.
  const inFlight = new Map<string, Promise<SarAnswer>>();

  const remember = (key: string, access: 'allowed' | 'denied'): void => {
    cache.delete(key);
    cache.set(key, { access, expires: now() + ttl[access] });
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next();
      if (oldest.done) break;
      cache.delete(oldest.value);
    }
  };

  const ask = async (
    key: string,
    subject: AccessSubject,
    owner: string,
    ns: string | undefined,
  ): Promise<SarAnswer> => {
    try {
      // Settles when the budget ends even if the transport ignores the signal, so no question stays in flight.
      const res = await withDeadline(budgetMs, (signal) => post(SAR_PATH, sarBody(subject, owner, ns), signal));
      const status = isRecord(res.body) && isRecord(res.body['status']) ? res.body['status'] : undefined;
      if ((res.status === 201 || res.status === 200) && status && typeof status['allowed'] === 'boolean') {
        const access = status['allowed'] ? 'allowed' : 'denied';
        remember(key, access);
        return access;
      }
      const message = isRecord(res.body) && typeof res.body['message'] === 'string' ? res.body['message'] : '';
      options.logger.warn({ owner, status: res.status, message }, 'SubjectAccessReview failed: access unknown');
      return 'unknown';
    } catch (err) {
      options.logger.warn(
        { owner, err: err instanceof RequestTimeout ? err.message : err },
        'SubjectAccessReview failed: access unknown',
      );
      return 'unknown';
    }
  };

  const one = (subject: AccessSubject, owner: string, ns: string | undefined): Promise<SarAnswer> | SarAnswer => {
    if (owner === '') return 'denied';
    const key = cacheKey(subject, owner, ns);
    const hit = cache.get(key);
    if (hit && hit.expires > now()) {
      cache.delete(key);
      cache.set(key, hit);
      return hit.access;
    }
    if (hit) cache.delete(key);
    let pending = inFlight.get(key);
    if (!pending) {
      pending = ask(key, subject, owner, ns).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  return {
    async review(subject, owners, namespace) {
      const unique = [...new Set(owners)];
      const asked = unique.slice(0, MAX_OWNERS_CHECKED);
      let timer: NodeJS.Timeout | undefined;
      let expired: Promise<SarAnswer> | undefined;
      // One budget for the whole review, started by the first question not answered from the cache: the race, not
      // only the request's own abort, bounds the wait (a POST that ignores its signal cannot hold it).
      const within = (a: Promise<SarAnswer> | SarAnswer): Promise<SarAnswer> | SarAnswer => {
        if (typeof a === 'string') return a;
        expired ??= new Promise<SarAnswer>((resolve) => {
          timer = setTimeout(() => resolve('unknown'), budgetMs);
        });
        return Promise.race([a, expired]);
      };
      // Asked as soon as the first owner comes back allowed, not after the slowest answer.
      let probing: Promise<SarAnswer> | SarAnswer | undefined;
      const probeIfAllowed = (a: SarAnswer): SarAnswer => {
        if (a === 'allowed') probing ??= one(subject, WILDCARD_PROBE_OWNER, namespace);
        return a;
      };
      try {
        const answers: Array<readonly [string, OwnerAccess]> = await Promise.all(
          asked.map(async (o) => {
            const a = one(subject, o, namespace);
            return [o, await within(typeof a === 'string' ? probeIfAllowed(a) : a.then(probeIfAllowed))] as const;
          }),
        );
        for (const o of unique.slice(MAX_OWNERS_CHECKED)) answers.push([o, 'unknown']);
        if (!answers.some(([, a]) => a === 'allowed')) return Object.fromEntries(answers);
        const probe = await within(probing ?? one(subject, WILDCARD_PROBE_OWNER, namespace));
        const named: OwnerAccess = probe === 'denied' ? 'allowed' : probe === 'allowed' ? 'wildcard' : 'unknown';
        return Object.fromEntries(answers.map(([o, a]) => [o, a === 'allowed' ? named : a]));
      } finally {
        clearTimeout(timer);
      }
    },
    size: () => cache.size,
    close() {
      pool?.close();
    },
  };
}
