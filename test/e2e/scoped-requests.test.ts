// Who is asking, on a real kube-apiserver: a scoped credential is not its user. The API server runs a structured
// authorization configuration with a webhook authorizer before Node and RBAC (served here, on loopback with TLS) that
// denies hook owners to any request whose extra carries OpenShift's token scopes, as OpenShift's scope authorizer
// does, and has no opinion otherwise. Scoped requests are made by impersonation (Impersonate-Extra-*). The webhook's
// SubjectAccessReview and the native policies' CEL authorizer must both ask about the scoped requester; and a
// cluster-admin impersonating the etcd operator passes as its owner, which only the audit log tells apart.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { createCertificateAuthority, issueServingCertificate } from '../../src/infrastructure/certs/pki.js';
import type { KubeObject } from '../../src/core/types.js';
import { startControlPlane, type ControlPlane } from '../../testing/control-plane/control-plane.js';
import { ownCrdSet } from '../../testing/control-plane/crds.js';
import { startHookkeeper, type Hookkeeper } from '../../testing/control-plane/hookkeeper.js';
import { rawRequest } from '../../testing/control-plane/http.js';
import { DENIAL_PREFIX, OPENSHIFT_MACHINES, parseWarnings, ResourceClient } from '../../testing/control-plane/kube.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../testing/control-plane/machines.js';
import { pollUntil } from '../../testing/control-plane/processes.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { renderForPlane, switchMode, type NativePolicies } from './harness/admission-modes.js';
import { hooksOf, removeHook } from './scenarios/helpers.js';

const settings = readControlPlaneSettings();
/** Where OpenShift's authenticator puts a scoped token's scopes (openshift/apiserver-library-go, scopes authorizer). */
const SCOPES = 'scopes.authorization.openshift.io';
const GRANT = 'hookkeeper-e2e:scoped-etcd-owner';
const ETCD_OPERATOR = 'system:serviceaccount:openshift-etcd-operator:etcd-operator';

interface Sar {
  spec: {
    user?: string;
    extra?: Record<string, string[]>;
    resourceAttributes?: { group?: string; resource?: string; name?: string; verb?: string };
  };
}

/** The authorization webhook: Deny to a scoped request, NoOpinion otherwise; it keeps what it was asked. */
async function startScopeAuthorizer(dir: string): Promise<{ server: Server; kubeconfig: string; asked: Sar[] }> {
  const ca = await createCertificateAuthority({ commonName: 'hookkeeper-e2e-authz-ca', days: 1 });
  const serving = await issueServingCertificate(ca, {
    commonName: '127.0.0.1',
    dnsNames: [],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const asked: Sar[] = [];
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const sar = JSON.parse(text) as Sar & Record<string, unknown>;
      asked.push(sar);
      const scoped = SCOPES in (sar.spec.extra ?? {});
      const status = scoped
        ? { allowed: false, denied: true, reason: 'a scoped token may not act for hook owners' }
        : { allowed: false };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: sar['apiVersion'], kind: sar['kind'], status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = join(dir, 'authz-webhook.kubeconfig');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'authz',
          cluster: {
            server: `https://127.0.0.1:${port}/authorize`,
            'certificate-authority-data': Buffer.from(ca.certPem).toString('base64'),
          },
        },
      ],
      users: [{ name: 'apiserver', user: {} }],
      contexts: [{ name: 'authz', context: { cluster: 'authz', user: 'apiserver' } }],
      'current-context': 'authz',
    }),
  );
  return { server, kubeconfig, asked };
}

/**
 * Webhook first, for hookowners only (its matchConditions keep every other request from it); no cache, so each
 * answer is the webhook's own. Then Node and RBAC, as a cluster runs them.
 */
const authorizationConfig = (kubeConfigFile: string): Record<string, unknown> => ({
  apiVersion: 'apiserver.config.k8s.io/v1',
  kind: 'AuthorizationConfiguration',
  authorizers: [
    {
      type: 'Webhook',
      name: 'scopes.e2e.hookkeeper.io',
      webhook: {
        timeout: '5s',
        authorizedTTL: '1s',
        unauthorizedTTL: '1s',
        cacheAuthorizedRequests: false,
        cacheUnauthorizedRequests: false,
        subjectAccessReviewVersion: 'v1',
        matchConditionSubjectAccessReviewVersion: 'v1',
        failurePolicy: 'NoOpinion',
        connectionInfo: { type: 'KubeConfigFile', kubeConfigFile },
        matchConditions: [
          {
            expression:
              "has(request.resourceAttributes) && request.resourceAttributes.group == 'hookkeeper.io' && " +
              "request.resourceAttributes.resource == 'hookowners'",
          },
        ],
      },
    },
    { type: 'Node', name: 'node' },
    { type: 'RBAC', name: 'rbac' },
  ],
});

interface Outcome {
  status: number;
  message: string;
  object?: KubeObject;
  warnings: string[];
}

interface AuditEvent {
  verb?: string;
  stage?: string;
  objectRef?: { name?: string };
  responseStatus?: { code?: number };
  user?: { username?: string };
  impersonatedUser?: { username?: string; extra?: Record<string, string[]> };
}

describe('scoped requests: the authorizer is asked about the requester the API server saw', () => {
  let plane: ControlPlane | undefined;
  let hookkeeper: Hookkeeper | undefined;
  let native: NativePolicies | undefined;
  let authz: Awaited<ReturnType<typeof startScopeAuthorizer>> | undefined;
  let dir = '';
  let seq = 0;

  const p = (): ControlPlane => {
    if (!plane) throw new Error('the control plane did not start (see the before hook)');
    return plane;
  };
  const machines = () => new ResourceClient(p().kubeConfig('admin'), OPENSHIFT_MACHINES);
  /** A fresh master Machine carrying the etcd operator's hook. */
  const machine = async (): Promise<string> => {
    const name = `scoped-${++seq}`;
    await machines().create(MACHINE_NAMESPACE, openshiftMachine({ name, role: 'master', preDrain: [ETCD_HOOK] }));
    return name;
  };
  /** Removes the etcd hook as `token`'s identity, or as whom it impersonates (with extra, if given). */
  const removeEtcdHook = async (
    name: string,
    as: { token: string; user?: string; extra?: Record<string, string[]> },
  ): Promise<Outcome> => {
    const ops = removeHook(await machines().get(MACHINE_NAMESPACE, name), 'preDrain', ETCD_HOOK.name);
    const headers: Record<string, string> = as.user ? { 'Impersonate-User': as.user } : {};
    for (const [key, values] of Object.entries(as.extra ?? {})) headers[`Impersonate-Extra-${key}`] = values.join(','); // one value here: a list would be one header each
    const res = await rawRequest({
      url: `${p().server}/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_NAMESPACE}/machines/${name}`,
      method: 'PATCH',
      ca: p().caPem,
      token: as.token,
      headers,
      body: ops,
      contentType: 'application/json-patch+json',
      timeoutMs: 30_000,
    });
    const body = JSON.parse(res.body) as KubeObject & { message?: string };
    const warnings = parseWarnings(res.headers['warning'] as string | undefined);
    return res.status === 200
      ? { status: 200, message: '', object: body, warnings }
      : { status: res.status, message: body.message ?? res.body, warnings };
  };
  const bobScoped = () => ({ token: p().identities.admin.token, user: 'bob', extra: { [SCOPES]: ['user:info'] } });
  const bob = () => ({ token: p().identities.bob.token });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-e2e-authz-'));
    authz = await startScopeAuthorizer(dir);
    const own = ownCrdSet(settings.repoRoot);
    plane = await startControlPlane({
      settings,
      crds: {
        ...own,
        name: 'scoped requests',
        files: [...own.files, join(settings.repoRoot, 'webhook-config', 'base', 'hookowners-crd.yaml')],
      },
      authorizationConfig: authorizationConfig(authz.kubeconfig),
    });
    try {
      // Bob holds the etcd owner's grant: not the registered identity, so the webhook asks the API server for him.
      const rbac = plane.kubeConfig('admin').makeApiClient(RbacAuthorizationV1Api);
      const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
      await rbac.createClusterRole({
        body: {
          metadata: { name: GRANT },
          rules: [
            {
              apiGroups: ['hookkeeper.io'],
              resources: ['hookowners'],
              verbs: ['remove'],
              resourceNames: [ETCD_HOOK.owner],
            },
          ],
        },
      });
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name: GRANT },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: GRANT },
          subjects: [user('bob')],
        },
      });
      // A cluster-admin who is not break-glass (system:masters is, in the default policy).
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name: `${GRANT}:cluster-admin` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [user(plane.identities.clusterAdmin.username)],
        },
      });
      hookkeeper = await startHookkeeper(plane, { args: ['--kubeconfig', await plane.kubeConfigFile('hookkeeper')] });
      native = await renderForPlane(plane);
    } catch (err) {
      plane.markFailed();
      throw err;
    }
  });

  after(async () => {
    await plane?.stop();
    authz?.server.closeAllConnections();
    authz?.server.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('admission mode: webhook', () => {
    before(async () => {
      if (!hookkeeper || !native) throw new Error('hookkeeper did not start (see the before hook)');
      await switchMode(p(), hookkeeper, native, 'webhook');
      // The RBAC index lists the grant and the cluster-admin binding before the first answer depends on them.
      const name = await machine();
      await pollUntil('hookkeeper to let bob remove the etcd hook', 30_000, async () => {
        const res = await removeEtcdHook(name, bob());
        return res.status === 200 ? true : undefined;
      });
    });

    test('bob, through a scoped token, is refused the etcd hook his grant would let him remove', async () => {
      const asked = authz?.asked ?? [];
      asked.length = 0;
      const name = await machine();
      const refusal = await removeEtcdHook(name, bobScoped());
      assert.equal(refusal.status, 403, refusal.message);
      assert.ok(refusal.message.startsWith(DENIAL_PREFIX), refusal.message);
      assert.match(
        refusal.message,
        /"bob" may not remove preDrain hook "EtcdQuorumOperator" owned by "clusteroperator\/etcd"/,
      );
      // hookkeeper's SubjectAccessReview reached the authorizer with the scopes the request carried.
      assert.ok(
        asked.some(
          (s) =>
            s.spec.user === 'bob' &&
            s.spec.resourceAttributes?.name === ETCD_HOOK.owner &&
            s.spec.extra?.[SCOPES]?.join() === 'user:info',
        ),
        JSON.stringify(asked),
      );
      const unscoped = await removeEtcdHook(name, bob());
      assert.equal(unscoped.status, 200, unscoped.message);
      assert.deepEqual(hooksOf(unscoped.object ?? {}, 'preDrain'), []);
    });

    test('a cluster-admin impersonating the etcd operator passes as its owner; only the audit log names both', async () => {
      const name = await machine();
      const admin = p().identities.clusterAdmin;
      const own = await removeEtcdHook(name, { token: admin.token });
      assert.equal(own.status, 403, own.message);
      const impersonating = await removeEtcdHook(name, { token: admin.token, user: ETCD_OPERATOR });
      assert.equal(impersonating.status, 200, impersonating.message);
      assert.deepEqual(impersonating.warnings, []);
      const event = await pollUntil(`the audit event of the patch of ${name}`, 30_000, async () => {
        const lines = (await readFile(p().auditLog, 'utf8')).split('\n').filter((l) => l !== '');
        return lines
          .map((l) => JSON.parse(l) as AuditEvent)
          .find(
            (ev) =>
              ev.verb === 'patch' &&
              ev.stage === 'ResponseComplete' &&
              ev.objectRef?.name === name &&
              ev.responseStatus?.code === 200,
          );
      });
      assert.equal(event.user?.username, admin.username);
      assert.equal(event.impersonatedUser?.username, ETCD_OPERATOR);
    });
  });

  describe('admission mode: native', () => {
    before(async () => {
      if (!hookkeeper || !native) throw new Error('hookkeeper did not start (see the before hook)');
      await switchMode(p(), hookkeeper, native, 'native');
    });

    test("the policies' CEL authorizer asks about the scoped requester too: refused scoped, allowed unscoped", async () => {
      const asked = authz?.asked ?? [];
      asked.length = 0;
      const name = await machine();
      const refusal = await removeEtcdHook(name, bobScoped());
      assert.ok(refusal.status === 403 || refusal.status === 422, `HTTP ${refusal.status}: ${refusal.message}`);
      assert.match(refusal.message, /ValidatingAdmissionPolicy 'hookkeeper-[^']*' with binding/);
      assert.match(refusal.message, /"bob" may not remove preDrain hook "EtcdQuorumOperator"/);
      // Asked by the API server itself (no hookkeeper runs in this mode), with the request's extra.
      assert.ok(
        asked.some((s) => s.spec.user === 'bob' && s.spec.extra?.[SCOPES]?.join() === 'user:info'),
        JSON.stringify(asked),
      );
      const unscoped = await removeEtcdHook(name, bob());
      assert.equal(unscoped.status, 200, unscoped.message);
      assert.deepEqual(hooksOf(unscoped.object ?? {}, 'preDrain'), []);
    });
  });
});
