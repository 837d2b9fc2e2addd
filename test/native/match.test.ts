// The not-finishing-deletion matchCondition is declared once (src/compilers/native/match.ts): the webhook registration of
// webhook-config/base and of the Helm chart must carry that very expression, and it must skip only finalizer-only
// updates of a deleting object, never read oldObject unguarded (CREATE has none).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { NOT_FINISHING_DELETION } from '../../src/compilers/native/match.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import {
  mutatingObjectSelector,
  mutatingWebhookCondition,
  validatingCreateCondition,
  validatingUpdateCondition,
} from '../../src/core/cel/webhook-conditions.js';

const root = packageRoot();
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

interface Webhook {
  name: string;
  matchConditions?: Array<{ name: string; expression: string }>;
}

/** The chart's template is not YAML until helm renders it: the condition's lines are, and are parsed as such. */
function chartCondition(text: string): { name: string; expression: string } {
  const m = /^( *)- name: not-finishing-deletion\n\1 {2}expression: .*$/m.exec(text);
  assert.ok(m, 'the chart declares no not-finishing-deletion matchCondition');
  const [condition] = parse(m[0].replace(new RegExp(`^${m[1] ?? ''}`, 'gm'), '')) as Array<{
    name: string;
    expression: string;
  }>;
  return condition as { name: string; expression: string };
}

describe('the not-finishing-deletion matchCondition', () => {
  test('webhook-config/base registers the expression of src/compilers/native/match.ts on the UPDATE webhook', () => {
    const config = parse(read('webhook-config/base/validating-webhook-configuration.yaml')) as { webhooks: Webhook[] };
    const withCondition = config.webhooks.filter((w) => w.matchConditions !== undefined);
    assert.deepEqual(
      withCondition.map((w) => [w.name, w.matchConditions]),
      [
        ['machines.hookkeeper.io', [{ ...NOT_FINISHING_DELETION }, validatingUpdateCondition(DEFAULT_POLICY)]],
        ['machine-creates.hookkeeper.io', [validatingCreateCondition(DEFAULT_POLICY)]],
      ],
    );
  });

  test("the Helm chart's template carries the same expression", () => {
    const text = read('charts/hookkeeper/templates/validating-webhook-configuration.yaml');
    assert.equal(text.match(/matchConditions:/g)?.length, 2);
    assert.deepEqual(chartCondition(text), { ...NOT_FINISHING_DELETION });
  });

  test('it skips only an update that leaves spec and annotations as they were, and reads oldObject only on UPDATE', () => {
    const e = NOT_FINISHING_DELETION.expression;
    for (const part of [
      'has(object.metadata.deletionTimestamp)',
      'object.spec == oldObject.spec',
      'object.metadata.annotations == oldObject.metadata.annotations',
    ])
      assert.ok(e.includes(part), `${part} missing from ${e}`);
    // Every reference to oldObject comes after the guard, inside the same conjunction.
    const guard = e.indexOf('oldObject != null');
    assert.ok(guard >= 0 && guard < e.indexOf('oldObject.'), e);
  });
});

describe("the validating webhook's changes-what-rules-read matchCondition", () => {
  test("the Helm chart carries the default policy's, the policy-free one, and the policy-free one for a denying missing-default-hook", () => {
    const text = read('charts/hookkeeper/templates/validating-webhook-configuration.yaml');
    const at = text.indexOf('- name: changes-what-rules-read');
    assert.ok(at >= 0, 'the chart declares no changes-what-rules-read matchCondition');
    const expressions = [...text.slice(at).matchAll(/^ *expression: (.*)$/gm)]
      .slice(0, 3)
      .map((m) => (parse(`e: ${m[1] ?? ''}`) as { e: string }).e);
    assert.deepEqual(expressions, [
      validatingUpdateCondition(undefined, true).expression,
      validatingUpdateCondition().expression,
      validatingUpdateCondition(DEFAULT_POLICY).expression,
    ]);
  });
});

describe("the validating webhook's carries-what-rules-read matchCondition", () => {
  test("the Helm chart carries, on the CREATE webhook, the policy-free one for a policy with its own defaultHooks, else the default policy's", () => {
    const text = read('charts/hookkeeper/templates/validating-webhook-configuration.yaml');
    const at = text.indexOf('- name: carries-what-rules-read');
    assert.ok(at >= 0, 'the chart declares no carries-what-rules-read matchCondition');
    assert.ok(at > text.indexOf('- name: machine-creates.hookkeeper.io'), 'not on the CREATE webhook');
    const expressions = [...text.slice(at).matchAll(/^ *expression: (.*)$/gm)].map(
      (m) => (parse(`e: ${m[1] ?? ''}`) as { e: string }).e,
    );
    assert.deepEqual(expressions, [
      validatingCreateCondition().expression,
      validatingCreateCondition(DEFAULT_POLICY).expression,
    ]);
    // Only control-plane Machines (the default policy's selection) are sent beyond those carrying a hook.
    assert.notEqual(expressions[0], expressions[1]);
  });
});

describe("the mutating webhook's create-or-newly-selected matchCondition", () => {
  const expected = mutatingWebhookCondition(DEFAULT_POLICY);

  test('webhook-config/base sends CREATEs and the UPDATEs that make a Machine match a default-hook rule', () => {
    const config = parse(read('webhook-config/base/mutating-webhook-configuration.yaml')) as {
      webhooks: Array<Webhook & { rules: Array<{ operations: string[] }> }>;
    };
    assert.deepEqual(
      config.webhooks.map((w) => [w.name, w.matchConditions]),
      [['machines.hookkeeper.io', [expected]]],
    );
    const machines = [
      { group: 'machine.openshift.io', kind: 'Machine' },
      { group: 'cluster.x-k8s.io', kind: 'Machine' },
    ];
    assert.deepEqual(
      (config.webhooks[0] as { objectSelector?: unknown } | undefined)?.objectSelector,
      mutatingObjectSelector(DEFAULT_POLICY, machines),
    );
    for (const rule of config.webhooks[0]?.rules ?? []) assert.deepEqual(rule.operations, ['CREATE', 'UPDATE']);
  });

  test("the Helm chart carries the default policy's condition, and the policy-free one for a policy with its own defaultHooks", () => {
    const text = read('charts/hookkeeper/templates/mutating-webhook-configuration.yaml');
    const expressions = [...text.matchAll(/^ *expression: (.*)$/gm)].map(
      (m) => (parse(`e: ${m[1] ?? ''}`) as { e: string }).e,
    );
    assert.deepEqual(expressions, [mutatingWebhookCondition().expression, expected.expression]);
    assert.match(text, new RegExp(`name: ${expected.name}`));
    assert.equal(text.match(/operations: \[CREATE, UPDATE\]/g)?.length, 2);
  });

  test('the default policy reaches /mutate on a control-plane CREATE, and on UPDATE only when the role label comes to select the Machine', () => {
    const e = expected.expression;
    assert.ok(e.startsWith("request.operation == 'CREATE' ? ("), e);
    for (const part of [
      'request.namespace in ["openshift-machine-api"]',
      '!has(object.metadata.deletionTimestamp)',
      'object.metadata.labels["machine.openshift.io/cluster-api-machine-role"] in ["master", "arbiter"]',
      '!(((has(oldObject.metadata.labels)',
    ])
      assert.ok(e.includes(part), `${part} missing from ${e}`);
    // No UPDATE rule: CREATEs only.
    const createOnly = {
      ...DEFAULT_POLICY,
      defaultHooks: [{ ...DEFAULT_POLICY.defaultHooks[0]!, operations: ['CREATE' as const] }],
    };
    assert.match(mutatingWebhookCondition(createOnly).expression, /^request\.operation == 'CREATE' \? \(.*\) : false$/);
  });
});
