// Where a parsed manifest document would be sent differently by kubectl than it reads here, found on its nodes before
// it becomes a value: the gate must judge what the cluster receives, so such a document is an input error, in
// hookkeeper's words, at its line. (Scalars are read as kubectl reads them: src/infrastructure/config/kubectl-scalars.ts.)
import type { Document, Node } from 'yaml';
import { yamlPackage } from '../config/yaml.js';

/** Tags whose reading is the same in both: any other explicit tag (!!int, !!binary, !custom) is refused. */
const PLAIN_TAGS = new Set(['tag:yaml.org,2002:str', 'tag:yaml.org,2002:map', 'tag:yaml.org,2002:seq']);

export interface Refusal {
  node: unknown;
  /** Given the line of a node (the merge-key refusal names the line of the key it overrides). */
  message: (lineOf: (node: unknown) => number) => string;
}

/**
 * The first node of `doc` kubectl would read differently, with why: a key that is not a string, a merge key
 * overriding a key set before it, an explicit tag.
 */
export function kubectlDifference(doc: Document, text: string): Refusal | undefined {
  const { isAlias, isMap, isScalar, isSeq, visit } = yamlPackage();
  const isMerge = (node: unknown): boolean => isScalar(node) && typeof node.value === 'symbol';
  const keyOf = (node: unknown): string | undefined =>
    isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
  const keysOf = (node: unknown): string[] => {
    const target = isAlias(node) ? node.resolve(doc) : node;
    if (isMap(target)) return target.items.flatMap((p) => keyOf(p.key) ?? []);
    if (isSeq(target)) return target.items.flatMap((item) => keysOf(item));
    return [];
  };
  const helm = text.includes('{{')
    ? ' (a Helm template, such as "name: {{ .Release.Name }}", reads so: render it with helm template first)'
    : '';
  let found: Refusal | undefined;
  const refuse = (node: unknown, message: string | Refusal['message']): symbol => {
    found = { node, message: typeof message === 'string' ? () => message : message };
    return visit.BREAK;
  };
  const tagged = (node: Node): symbol | undefined =>
    node.tag !== undefined && !PLAIN_TAGS.has(node.tag)
      ? refuse(
          node,
          `the tag ${node.tag.replace('tag:yaml.org,2002:', '!!')}: hookkeeper reads no tag but !!str, !!map and !!seq, so that it never reads a value other than kubectl would; write the value untagged`,
        )
      : undefined;
  visit(doc, {
    // visit calls the most specific visitor only: Scalar and Map check tags themselves, Node the rest.
    Node(_, node: Node) {
      return tagged(node);
    },
    Scalar(_, node) {
      const tag = tagged(node);
      if (tag !== undefined) return tag;
      // go-yaml's scanner (scannerc.go, yaml_parser_scan_flow_scalar) knows YAML 1.1's escapes, not 1.2's "\/".
      const raw = node.type === 'QUOTE_DOUBLE' ? (node.srcToken as { source?: string } | undefined)?.source : undefined;
      if (raw !== undefined && /(?<!\\)(?:\\\\)*\\\//.test(raw))
        return refuse(
          node,
          'the escape "\\/" in a double-quoted string: kubectl refuses it (YAML 1.1 has no such escape); write "/"',
        );
      return undefined;
    },
    Pair(_, pair) {
      const key = pair.key;
      if (isMerge(key) || keyOf(key) !== undefined) return undefined;
      return refuse(key, `a mapping key must be a string; ${nonStringKey(key, helm)}`);
    },
    Map(_, map) {
      const tag = tagged(map);
      if (tag !== undefined) return tag;
      // go-yaml (go.yaml.in/yaml/v2 decode.go `mapping`) applies a mapping's entries in order, so a merge key's
      // value wins over a key set before it; YAML's merge rules, which the `yaml` package follows, keep the earlier.
      const seen = new Map<string, unknown>();
      for (const pair of map.items) {
        const key = keyOf(pair.key);
        if (key !== undefined && !seen.has(key)) seen.set(key, pair.key);
        if (!isMerge(pair.key)) continue;
        const clash = keysOf(pair.value).find((k) => seen.has(k));
        if (clash === undefined) continue;
        return refuse(
          pair.key,
          (lineOf) =>
            `the merge key "<<" sets ${JSON.stringify(clash)}, which line ${lineOf(seen.get(clash))} set before it: ` +
            'kubectl sends the merged value (the later one), YAML merge rules keep the first; set the key once, or put "<<" first',
        );
      }
      return undefined;
    },
  });
  return found;
}

function nonStringKey(key: unknown, helm: string): string {
  const { isMap, isScalar, isSeq } = yamlPackage();
  // The API server takes JSON, whose keys are strings; kubectl turns a boolean or number key into text (n: becomes
  // "false"), and refuses a mapping, sequence or null key: read as text here, the gate would judge another object.
  if (isMap(key) || isSeq(key)) return `this one is a ${isMap(key) ? 'mapping' : 'sequence'}${helm}`;
  if (!isScalar(key) || key.value === null || key.value === undefined)
    return 'this one is null: quote it if it is meant as text';
  const text = key.source ?? JSON.stringify(key.value);
  const value = key.value;
  const type = typeof value === 'boolean' ? 'a boolean' : 'a number';
  const sent = typeof value === 'boolean' || typeof value === 'number' ? String(value) : text;
  return `${text} is read as ${type} (kubectl sends it as ${JSON.stringify(sent)}): quote it (${JSON.stringify(text)})`;
}
