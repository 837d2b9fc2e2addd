// The test CEL environment's shims (test/native/evaluator/cel.ts) against a real ValidatingAdmissionPolicy: each
// expression of the table is evaluated in process, and the API server must find it equal to that value (one
// validation `(<expr>) == <value>` per entry, warned through a Warn binding) or fail it where the shim fails.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admissionEnvironment, Authorizer, prepare } from '../../native/evaluator/cel.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import { parseWarnings } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';

const NAME = 'hookkeeper-e2e-cel-shims';
const NAMESPACE = 'e2e-cel-shims';

/** Expressions of every shim (quote, lowerAscii, substring, replace, split, RE2 matches, lists, two-variable comprehensions, authorizer). */
const TABLE: readonly string[] = [
  String.raw`strings.quote("a\"b\\c\n\t\a\v\f\r\b")`,
  String.raw`strings.quote("soh\x01 ünï 😀")`,
  `'ÄBc'.lowerAscii()`,
  `'😀ab'.substring(1)`,
  `'😀ab'.substring(0, 1)`,
  `size('😀ab')`,
  `size(bytes('ünï'))`,
  `'a:b:c'.replace(':', '-')`,
  // hook-naming's key: split as strings.Split, and the letters Go lowers to ASCII (lowerKey, src/core/expr/expr.ts).
  `'p/a//b'.split('/')`,
  `'/'.split('/')`,
  String.raw`'\u0130\u212aZ'.lowerAscii().replace("\u0130", "i").replace("\u212a", "k")`,
  String.raw`size(bytes('\u0130\u212a😀'))`,
  `'xaby'.matches('ab')`,
  `'AB'.matches('(?i)^ab$')`,
  String.raw`'ABC\n'.matches('^[[:upper:]]+\\z')`,
  String.raw`'\u00a0'.matches('^\\S$')`,
  `[1, 2, 3].slice(1, 3)`,
  `['a', 'b', 'c'].transformList(i, v, i > 0, v + string(i))`,
  `{'k': 'v'}.transformList(k, v, k + v)`,
  `[{'n': 'a', 'o': 'x'}].transformMapEntry(i, h, {h.n: h.o})`,
  `{'a': 1, 'b': 2}.transformMapEntry(k, v, v > 1, {k: v})`,
  `['a', 'b'].all(i, v, i < 2)`,
  `['a', 'b'].exists(i, v, v == 'b' && i == 1)`,
  `authorizer.group('hookkeeper.io').resource('hookowners').namespace('${NAMESPACE}').name('team/x').check('remove').allowed()`,
];

/** Expressions the shims refuse to evaluate: the API server must fail them too. */
const ERRORS: readonly string[] = [
  `'ab'.matches('a(?' + '=b)')`,
  `['a', 'a'].transformMapEntry(i, v, {v: i})`,
  `[1, 2, 3].slice(2, 4)`,
  `'ab'.substring(3)`,
];

/** An expression neither compiles: RE2 refuses a constant pattern when the expression is compiled. */
const UNCOMPILED = `'ab'.matches('a(?=b)')`;

/** A CEL literal of a value the shims returned. */
function literal(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${literal(v)}`)
      .join(', ')}}`;
  throw new Error(`no literal for ${String(value)}`);
}

/** The shims' value of each expression, asked as the admin (system:masters, whom RBAC allows everything). */
function shimValue(expression: string): unknown {
  const env = admissionEnvironment(new Map());
  return env.evaluate(prepare(expression), {
    object: null,
    oldObject: null,
    request: {},
    authorizer: new Authorizer(() => true),
  });
}

function policy(validations?: ReadonlyArray<Record<string, string>>, name = NAME): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
      },
      validations: validations ?? [
        // Always fails: its warning says the policy is in force.
        { expression: 'false', message: 'cel-shims sentinel' },
        ...TABLE.map((e, i) => ({ expression: `(${e}) == ${literal(shimValue(e))}`, message: `cel-shims ${i}` })),
        ...ERRORS.map((e, i) => ({ expression: `(${e}) == (${e})`, message: `cel-shims error ${i}` })),
      ],
    },
  };
}

async function send(env: E2EEnv, method: string, path: string, body?: unknown) {
  const res = await rawRequest({
    url: `${env.plane.server}${path}`,
    method,
    ca: env.plane.caPem,
    token: env.plane.identities.admin.token,
    ...(body === undefined ? {} : { body }),
    timeoutMs: 30_000,
  });
  return res;
}

/** The warnings of a dry-run ConfigMap create, once the policy's sentinel shows it is in force. */
async function warnings(env: E2EEnv): Promise<string[]> {
  return pollUntil('the CEL shims policy to warn', 30_000, async () => {
    const res = await send(env, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps?dryRun=All`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'probe' },
    });
    const header = res.headers['warning'];
    const found = parseWarnings(Array.isArray(header) ? header.join(', ') : header);
    return found.some((w) => w.endsWith('cel-shims sentinel')) ? found : undefined;
  });
}

export const celShimScenarios: Scenario = (env) => {
  describe('the test CEL shims agree with a real ValidatingAdmissionPolicy', () => {
    let seen: string[] = [];

    before(async () => {
      const e = env();
      for (const [path, body] of [
        ['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }],
        ['/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy()],
        [
          '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingAdmissionPolicyBinding',
            metadata: { name: NAME },
            spec: { policyName: NAME, validationActions: ['Warn'] },
          },
        ],
      ] as const) {
        const res = await send(e, 'POST', path, body);
        assert.ok(res.status === 201 || res.status === 409, `POST ${path}: HTTP ${res.status}: ${res.body}`);
      }
      seen = await warnings(e);
    });

    after(async () => {
      const e = env();
      const base = '/apis/admissionregistration.k8s.io/v1';
      await send(e, 'DELETE', `${base}/validatingadmissionpolicybindings/${NAME}`);
      await send(e, 'DELETE', `${base}/validatingadmissionpolicies/${NAME}`);
      await send(e, 'DELETE', `/api/v1/namespaces/${NAMESPACE}`);
    });

    test('every expression equals the value the shims give it', () => {
      const failed = TABLE.filter((_, i) => seen.some((w) => w.endsWith(`cel-shims ${i}`)));
      assert.deepEqual(failed, [], `the API server's values differ: ${JSON.stringify(seen)}`);
      // The sentinel and the errors only: nothing else failed, so no entry was cut from the warnings.
      assert.equal(seen.length, 1 + ERRORS.length, JSON.stringify(seen));
    });

    test('a constant pattern RE2 refuses: the API server refuses the policy, the shims the expression', async () => {
      const res = await send(
        env(),
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies?dryRun=All',
        policy([{ expression: UNCOMPILED }], `${NAME}-uncompiled`),
      );
      assert.equal(res.status, 422, res.body);
      assert.match(res.body, /invalid matches argument/);
      assert.throws(() => prepare(UNCOMPILED), /invalid matches argument/);
    });

    test('every expression the shims refuse fails to evaluate in the API server too', () => {
      for (const e of ERRORS) {
        assert.throws(() => shimValue(e), e);
        assert.ok(
          seen.some((w) => w.includes('resulted in error') && w.includes(e.slice(0, 20))),
          `${e}: ${JSON.stringify(seen)}`,
        );
      }
    });
  });
};
