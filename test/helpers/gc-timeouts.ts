// Child process for test/kube/timeouts-gc.test.ts, run with --expose-gc: each kind of API request hookkeeper sends,
// against a server in this process that answers only after HOLD_MS, while gc() runs every millisecond. A time limit
// that garbage collection can lose lets the late answer through. Prints one JSON line: the outcome per request.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createAccessReviewer } from '../../src/infrastructure/kube/subject-access-review.js';
import { serviceAccountLookup } from '../../src/infrastructure/kube/connect.js';
import type { ClusterAccess } from '../../src/infrastructure/kube/api-requests.js';
import { accessGet } from '../../src/infrastructure/kube/api-requests.js';
import { createLister } from '../../src/infrastructure/kube/lister.js';
import { createParentLookup } from '../../src/infrastructure/kube/parents.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('usage: node --expose-gc --import tsx gc-timeouts.ts');

/** The requests' limit, and the server's delay: both timers run in this process, so the limit's always fires first. */
const LIMIT_MS = 50;
const HOLD_MS = 1_000;

const held = new Set<NodeJS.Timeout>();
const server = createServer((req, res: ServerResponse) => {
  const path = req.url ?? '';
  const body = path.includes('subjectaccessreviews')
    ? { kind: 'SubjectAccessReview', status: { allowed: true } }
    : path.includes('?limit=')
      ? { kind: 'List', metadata: {}, items: [{ metadata: { name: 'late' } }] }
      : { metadata: { name: 'late', uid: 'u-1' } };
  req.resume();
  const timer = setTimeout(() => {
    held.delete(timer);
    res.writeHead(path.includes('subjectaccessreviews') ? 201 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }, HOLD_MS);
  held.add(timer);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const access: ClusterAccess = {
  server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  requestOptions: () => Promise.resolve({}),
  proxied: false,
  compress: false,
};

const collector = setInterval(gc, 1);

async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { resolved: await run() };
  } catch (err) {
    return { rejected: err instanceof Error ? err.message : String(err) };
  }
}

const results = {
  list: await outcome(async () => {
    const pages = [];
    const lister = createLister(access, { pageTimeoutMs: LIMIT_MS });
    for await (const page of lister.list({
      group: 'machine.openshift.io',
      version: 'v1beta1',
      plural: 'machines',
      namespaced: true,
    }))
      pages.push(page.length);
    return pages;
  }),
  serviceAccount: await outcome(() => serviceAccountLookup(access, { timeoutMs: LIMIT_MS })('ns', 'sa')),
  accessReview: await outcome(async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: LIMIT_MS });
    try {
      return await reviewer.review({ user: 'u', groups: [] }, ['owner'], 'ns');
    } finally {
      reviewer.close();
    }
  }),
  parent: await outcome(() =>
    createParentLookup({
      kubeConfig: {} as KubeConfig, // unused: the GET and the (absent) caches are given
      kinds: [],
      budgetMs: LIMIT_MS,
      logger: silentLogger(),
      get: accessGet(access),
      caches: false,
    }).lookup([
      {
        key: 'v1/ConfigMap/ns/p',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        resource: 'configmaps',
        namespaced: true,
        namespace: 'ns',
        name: 'p',
      },
    ]),
  ),
};

clearInterval(collector);
for (const timer of held) clearTimeout(timer);
server.closeAllConnections();
server.close();
process.stdout.write(`${JSON.stringify({ server: access.server, ...results })}\n`);
