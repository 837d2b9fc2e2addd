// The not-finishing-deletion matchCondition is declared once (src/native/match.ts): the webhook registration of
// webhook-config/base and of the Helm chart must carry that very expression, and it must skip only finalizer-only
// updates of a deleting object, never read oldObject unguarded (CREATE has none).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { packageRoot } from '../../src/deploy/render.js';
import { NOT_FINISHING_DELETION } from '../../src/native/match.js';

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
  test('webhook-config/base registers the expression of src/native/match.ts on the UPDATE webhook', () => {
    const config = parse(read('webhook-config/base/validating-webhook-configuration.yaml')) as { webhooks: Webhook[] };
    const withCondition = config.webhooks.filter((w) => w.matchConditions !== undefined);
    assert.deepEqual(
      withCondition.map((w) => [w.name, w.matchConditions]),
      [['machines.hookkeeper.io', [{ ...NOT_FINISHING_DELETION }]]],
    );
  });

  test("the Helm chart's template carries the same expression", () => {
    const text = read('charts/hookkeeper/templates/validating-webhook-configuration.yaml');
    assert.equal(text.match(/matchConditions:/g)?.length, 1);
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
