// docs/policy.md's reference table against the policy schema (src/infrastructure/config/schema.ts): one row per field, in schema
// order, with its type and whether it is required. A field added to or dropped from the schema fails here until the
// table says the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POLICY_SCHEMA } from '../../src/infrastructure/config/schema.js';
import { RULE_IDS } from '../../src/core/registry.js';
import { docSection } from '../helpers/docs.js';

interface Node {
  type?: string;
  const?: string;
  enum?: readonly string[];
  properties?: Readonly<Record<string, Node>>;
  required?: readonly string[];
  additionalProperties?: Node | boolean;
  items?: Node;
}

/** What a map's keys are called in the table. */
const MAP_KEYS: Readonly<Record<string, string>> = { owners: '<owner>' };

const code = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(', ');

/** A metav1.LabelSelector: one row, as Kubernetes documents it. */
const isLabelSelector = (node: Node): boolean =>
  Object.keys(node.properties ?? {}).join() === 'matchLabels,matchExpressions';

function typeOf(node: Node): string {
  if (isLabelSelector(node)) return 'label selector';
  if (node.const !== undefined) return code([node.const]);
  if (node.enum) return code(node.enum);
  if (node.type === 'array') {
    const items = node.items ?? {};
    if (items.enum) return `list of ${code(items.enum)}`;
    return items.type === 'object' ? 'list of objects' : `list of ${items.type ?? '?'}s`;
  }
  if (node.type === 'object' && !node.properties && typeof node.additionalProperties === 'object') {
    return node.additionalProperties.type === 'string' ? 'map of strings' : 'map';
  }
  return node.type ?? '?';
}

/**
 * The rows the schema implies: field path, type, required. Rule ids under `enforcement` are one row; an object the
 * schema uses twice is spelled out where it first appears and named `like <that field>` after.
 */
function schemaRows(): string[][] {
  const seen = new Map<Node, string>();
  const walk = (node: Node, path: string): string[][] => {
    const rows: string[][] = [];
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const field = path ? `${path}.${key}` : key;
      const first = seen.get(child);
      rows.push([
        `\`${field}\``,
        first === undefined ? typeOf(child) : `${typeOf(child)} like \`${first}\``,
        node.required?.includes(key) ? 'yes' : '',
      ]);
      if (first !== undefined || isLabelSelector(child)) continue;
      if (field === 'enforcement') {
        assert.deepEqual(Object.keys(child.properties ?? {}), RULE_IDS);
        rows.push(['`enforcement.<rule>`', typeOf(Object.values(child.properties ?? {})[0] ?? {}), '']);
        continue;
      }
      if (child.properties) {
        seen.set(child, field);
        rows.push(...walk(child, field));
      } else if (child.type === 'array' && child.items?.properties) {
        if (seen.has(child.items)) {
          rows.push([`\`${field}[]\``, `object like \`${seen.get(child.items)}\``, '']);
        } else {
          seen.set(child.items, `${field}[]`);
          rows.push(...walk(child.items, `${field}[]`));
        }
      } else if (typeof child.additionalProperties === 'object' && child.additionalProperties.properties) {
        rows.push(...walk(child.additionalProperties, `${field}.${MAP_KEYS[field] ?? '<key>'}`));
      }
    }
    return rows;
  };
  return walk(POLICY_SCHEMA, '');
}

test('the policy reference table has one row per schema field, with its type and whether it is required', () => {
  const section = docSection('docs/policy.md', '## Reference');
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) =>
      l
        .replace(/^\||\|$/g, '')
        .split('|')
        .slice(0, 3)
        .map((c) => c.trim()),
    );
  assert.deepEqual(rows, schemaRows());
});
