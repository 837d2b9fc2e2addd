// docs/install.md's table of which requests reach each webhook is derived here, cell by cell, from the webhook
// configurations as shipped (webhook-config/base, the chart rendered with its defaults): each row's request goes
// through every webhook's rules, namespaceSelector, objectSelector and matchConditions as the API server applies them
// before a call, so the table cannot say a request waits on hookkeeper when the configurations skip it, or the reverse.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { matchesLabels } from '../../src/core/selector.js';
import type { LabelSelector } from '../../src/core/policy.js';
import type { KubeObject } from '../../src/core/types.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { capiMachine, capiTemplate, PRE_DRAIN } from '../fixtures/capi.js';
import { MAPI_CONTROLLER } from '../fixtures/controller-finalizer.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { celCondition } from '../helpers/cel.js';
import { docSection } from '../helpers/docs.js';

interface Rule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
}

interface Registered {
  name: string;
  failurePolicy: string;
  rules: Rule[];
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  matchConditions?: Array<{ name: string; expression: string }>;
}

interface Column {
  title: string;
  webhook: Registered;
}

/** The shipped webhooks, one column each: the validating ones first, in file order, then the mutating one. */
function columns(): Column[] {
  const dir = join(packageRoot(), 'webhook-config', 'base');
  const load = (file: string, word: string): Column[] =>
    (parse(readFileSync(join(dir, file), 'utf8')) as { webhooks: Registered[] }).webhooks.map((w) => {
      const ops = [...new Set(w.rules.flatMap((r) => r.operations))].join(', ');
      return { title: `${word} \`${w.name}\` (${ops}; ${w.failurePolicy})`, webhook: w };
    });
  return [
    ...load('validating-webhook-configuration.yaml', 'validating'),
    ...load('mutating-webhook-configuration.yaml', 'mutating'),
  ];
}

interface Request {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  group: string;
  version: string;
  kind: string;
  resource: string;
  subResource?: string;
  namespace: string;
  user: string;
  object: KubeObject | null;
  oldObject: KubeObject | null;
}

const labelsOf = (o: KubeObject | null): unknown => (o?.['metadata'] as { labels?: unknown } | undefined)?.labels;

/** Whether the API server calls `w` for `r`: what it decides in process, before any call (admission/v1 semantics). */
function sent(w: Registered, r: Request): boolean {
  const any = (list: string[], v: string): boolean => list.includes('*') || list.includes(v);
  // A subresource matches only a rule that names it ("machines/status"); these name the main resources.
  const resource = r.subResource === undefined ? r.resource : `${r.resource}/${r.subResource}`;
  const ruled = w.rules.some(
    (rule) =>
      any(rule.apiGroups, r.group) &&
      any(rule.apiVersions, r.version) &&
      any(rule.resources, resource) &&
      any(rule.operations, r.operation),
  );
  if (!ruled) return false;
  if (!matchesLabels(w.namespaceSelector, { 'kubernetes.io/metadata.name': r.namespace })) return false;
  // The object's labels or the stored object's: either matching selects the request.
  if (
    w.objectSelector !== undefined &&
    !matchesLabels(w.objectSelector, labelsOf(r.object)) &&
    !matchesLabels(w.objectSelector, labelsOf(r.oldObject))
  )
    return false;
  const vars = {
    request: {
      operation: r.operation,
      kind: { group: r.group, version: r.version, kind: r.kind },
      resource: { group: r.group, version: r.version, resource: r.resource },
      subResource: r.subResource ?? '',
      namespace: r.namespace,
      userInfo: { username: r.user, groups: ['system:authenticated'] },
    },
    object: r.object,
    oldObject: r.oldObject,
  };
  return (w.matchConditions ?? []).every((c) => celCondition(c.name, c.expression)(vars));
}

// The requests, each as the API server would send it.
const MAPI = { group: 'machine.openshift.io', version: 'v1beta1' };
const CAPI = { group: 'cluster.x-k8s.io', version: 'v1beta1' };
const TEAM: HookSpec = { name: 'backup', owner: 'team/storage' };
const worker = (o: Parameters<typeof machine>[0] = {}): KubeObject =>
  machine({ name: 'ci-ln-7x2k9-worker-a-4x8zq', role: 'worker', ...o });
const master = (o: Parameters<typeof machine>[0] = {}): KubeObject => machine({ preDrain: [ETCD], ...o });
const DELETING = '2026-11-21T10:00:00Z';

/** A copy of `o` with each [path, value] set. */
function edit(o: KubeObject, ...sets: ReadonlyArray<readonly [readonly string[], unknown]>): KubeObject {
  const copy = structuredClone(o);
  for (const [path, value] of sets) {
    let at = copy as Record<string, unknown>;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
    at[path.at(-1) as string] = value;
  }
  return copy;
}

function create(
  o: KubeObject,
  at = MAPI,
  kind = 'Machine',
  resource = 'machines',
  user: string = USERS.alice.username,
): Request {
  const ns = (o['metadata'] as { namespace: string }).namespace;
  return {
    operation: 'CREATE',
    ...at,
    kind,
    resource,
    namespace: ns,
    user,
    object: o,
    oldObject: null,
  };
}

function update(
  old: KubeObject,
  o: KubeObject,
  user: string = USERS.alice.username,
  at = MAPI,
  kind = 'Machine',
): Request {
  const ns = (o['metadata'] as { namespace: string }).namespace;
  const resource = `${kind.toLowerCase()}s`;
  return { operation: 'UPDATE', ...at, kind, resource, namespace: ns, user, object: o, oldObject: old };
}

/** An OpenShift MachineSet templating `m`'s spec and labels. */
function machineSet(m: KubeObject): KubeObject {
  const meta = m['metadata'] as { namespace: string; labels: Record<string, string> };
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: 'ci-ln-7x2k9-worker-a', namespace: meta.namespace, labels: {} },
    spec: {
      replicas: 2,
      selector: { matchLabels: meta.labels },
      template: { metadata: { labels: meta.labels }, spec: m['spec'] },
    },
  };
}

const ROWS: ReadonlyArray<readonly [string, Request]> = [
  [
    'CREATE of a worker Machine without hooks, by its machine controller',
    create(worker(), MAPI, 'Machine', 'machines', USERS.machineApi.username),
  ],
  [
    'CREATE of a Machine without hooks by anyone else in a migration namespace (`openshift-machine-api`, `openshift-cluster-api`: judged against its twin)',
    create(worker()),
  ],
  ['CREATE of a worker Machine without hooks in any other namespace', create(worker({ namespace: 'team-a' }))],
  ['CREATE of a Machine carrying a hook', create(worker({ preDrain: [TEAM] }))],
  [
    'CREATE of a control-plane Machine (role `master` or `arbiter`) in `openshift-machine-api`',
    create(machine({ role: 'master' })),
  ],
  [
    'CREATE of a Machine with two controller ownerReferences',
    create(
      worker({
        ownerReferences: ['a', 'b'].map((n) => ({ apiVersion: 'v1', kind: 'X', name: n, uid: n, controller: true })),
      }),
    ),
  ],
  [
    'CREATE of a MachineSet whose template carries no hook',
    create(machineSet(worker()), MAPI, 'MachineSet', 'machinesets'),
  ],
  [
    'CREATE of a MachineSet whose template carries a hook',
    create(machineSet(worker({ preDrain: [TEAM] })), MAPI, 'MachineSet', 'machinesets'),
  ],
  ['CREATE of a Cluster API Machine without hook annotations', create(capiMachine({ role: 'worker' }), CAPI)],
  ['CREATE of a Cluster API Machine carrying a hook annotation', create(capiMachine({ role: 'control-plane' }), CAPI)],
  [
    'UPDATE of a Machine that changes other labels, annotations or spec fields',
    update(
      master(),
      edit(
        master(),
        [['metadata', 'labels', 'example.com/rack'], 'r12'],
        [['metadata', 'annotations', 'example.com/note'], 'x'],
        [['spec', 'providerID'], 'aws:///us-east-1a/i-0ffffffffffffffff'],
      ),
    ),
  ],
  ['UPDATE of a Machine through `/status`', { ...update(master(), master()), subResource: 'status' }],
  [
    'UPDATE that adds a finalizer to a Machine carrying a hook',
    update(master(), master({ finalizers: ['machine.machine.openshift.io', 'example.com/backup'] })),
  ],
  ['UPDATE that adds, removes or changes a hook', update(master(), machine({ role: 'master' }))],
  [
    'UPDATE of a Machine in `kube-system` that removes a hook',
    update(master({ namespace: 'kube-system' }), machine({ role: 'master', namespace: 'kube-system' })),
  ],
  [
    "UPDATE of a Machine's `ownerReferences`",
    update(worker(), worker({ ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'x' }] })),
  ],
  [
    'UPDATE that makes a Machine a control-plane Machine (its role label)',
    update(
      worker(),
      edit(worker(), [['metadata', 'labels', 'machine.openshift.io/cluster-api-machine-role'], 'master']),
    ),
  ],
  [
    "UPDATE that removes the controller's finalizer of a Machine carrying a hook, by its controller",
    update(master(), master({ finalizers: [] }), MAPI_CONTROLLER),
  ],
  [
    "UPDATE that removes the controller's finalizer of a Machine carrying a hook, by anyone else",
    update(master(), master({ finalizers: [] })),
  ],
  [
    "UPDATE that removes a deleting Machine's last finalizer, the Machine carrying no hook",
    update(worker({ deletionTimestamp: DELETING }), worker({ deletionTimestamp: DELETING, finalizers: [] })),
  ],
  [
    "UPDATE of a MachineSet's replicas",
    update(
      machineSet(worker()),
      edit(machineSet(worker()), [['spec', 'replicas'], 3]),
      USERS.alice.username,
      MAPI,
      'MachineSet',
    ),
  ],
  [
    "UPDATE of a MachineSet template's hooks",
    update(machineSet(worker()), machineSet(worker({ preDrain: [TEAM] })), USERS.alice.username, MAPI, 'MachineSet'),
  ],
  [
    "UPDATE of a Cluster API Machine's hook annotation",
    update(capiMachine(), capiMachine({ withoutKcpAnnotations: true }), USERS.alice.username, CAPI),
  ],
  [
    'UPDATE of a Cluster API MachineDeployment that changes only its replicas',
    update(
      capiTemplate('MachineDeployment', { [`${PRE_DRAIN}/x`]: 'team/x' }),
      edit(capiTemplate('MachineDeployment', { [`${PRE_DRAIN}/x`]: 'team/x' }), [['spec', 'replicas'], 5]),
      USERS.alice.username,
      CAPI,
      'MachineDeployment',
    ),
  ],
  ['DELETE of a Machine', { ...update(master(), master()), operation: 'DELETE', object: null }],
  [
    "Any request in hookkeeper's own namespace (here a hook removal)",
    update(master({ namespace: 'hookkeeper' }), machine({ role: 'master', namespace: 'hookkeeper' })),
  ],
];

/** The table as the configurations answer it. */
function derivedTable(): string {
  const cols = columns();
  const lines = [
    `| request | ${cols.map((c) => c.title).join(' | ')} |`,
    `|---|${cols.map(() => '---').join('|')}|`,
    ...ROWS.map(([row, r]) => `| ${row} | ${cols.map((c) => (sent(c.webhook, r) ? 'sent' : '—')).join(' | ')} |`),
  ];
  return lines.join('\n');
}

test("docs/install.md's table of which requests reach each webhook is what the shipped configurations send", () => {
  const section = docSection('docs/install.md', '## Which requests reach the webhook');
  const table = derivedTable();
  assert.ok(
    section.includes(table),
    `docs/install.md: the table must read, as derived from webhook-config/base:\n${table}`,
  );
});

test('the table tells the webhooks apart: every column sends some row and skips another', () => {
  const cols = columns();
  assert.ok(cols.length >= 3);
  for (const c of cols) {
    const answers = ROWS.map(([, r]) => sent(c.webhook, r));
    assert.ok(answers.includes(true) && answers.includes(false), `${c.title} answers every row alike`);
  }
});
