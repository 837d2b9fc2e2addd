// YAML reading with positions: every error names the file and line, and a JSON path can be traced back
// to the line it came from (config problems, CLI findings).
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { AppError, type Problem } from '../../errors.js';
import { unescapePointerToken } from '../../core/pointer.js';
import { kubectlTags } from './kubectl-scalars.js';

let yaml: typeof Yaml | undefined;
/**
 * The `yaml` package, loaded on first use (synchronously: its build for Node is CommonJS, the same instance an
 * `import` gets): it is slow to load, and `hookkeeper validate` needs it only for a YAML error or a line.
 */
export function yamlPackage(): typeof Yaml {
  return (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}

export interface YamlDocument {
  /** Position of the document in its file, from 0. */
  index: number;
  /** 1-based line where the document starts. */
  line: number;
  value: unknown;
  /**
   * 1-based line of the node at a JSON pointer ("/spec/lifecycleHooks/preDrain/0/name") or dotted path, if known;
   * with `lines: 'key'`, a mapping entry's line is that of its key (a block value starts on a later line).
   */
  lineOf(path: string | readonly (string | number)[]): number | undefined;
  /** With `duplicateKeys: 'report'`: each key given twice in one mapping, at its second occurrence. */
  duplicateKeys?: DuplicateKey[];
}

export interface DuplicateKey {
  /** Path (as keys) of the repeated entry. */
  keys: (string | number)[];
  line: number;
  /** Line of the key's first occurrence. */
  firstLine: number;
}

/** A JSON pointer or dotted path as keys (numeric tokens as indexes). */
export function toKeys(path: string | readonly (string | number)[]): (string | number)[] {
  if (typeof path !== 'string') return [...path];
  if (path === '' || path === '/') return [];
  const raw = path.startsWith('/') ? path.slice(1).split('/').map(unescapePointerToken) : path.split('.');
  return raw.map((t) => (/^\d+$/.test(t) ? Number(t) : t));
}

export interface ParseOptions {
  /** Where lineOf points for a mapping entry: its value (default) or its key, where a config problem is fixed. */
  lines?: 'value' | 'key';
  /** Merge keys (`<<: *anchor`), a YAML 1.1 feature kubectl's YAML reader (go-yaml) applies. */
  merge?: boolean;
  /**
   * A key given twice in one mapping: a parse error (default), or reported on the document (`duplicateKeys`) with
   * the later value kept, so a config's other problems are reported beside it.
   */
  duplicateKeys?: 'error' | 'report';
  /**
   * Plain scalars as kubectl reads them (yes is true, 0777 is 511: src/infrastructure/config/kubectl-scalars.ts), for files that
   * hold manifests; hookkeeper's policy reads YAML 1.2's core schema.
   */
  kubectlScalars?: boolean;
}

/** How many alias expansions a document may make before it counts as a resource-exhaustion attack. */
export const MAX_ALIAS_COUNT = 100;

/**
 * Parses a (possibly multi-document) YAML or JSON text; throws AppError INPUT_INVALID naming file and line,
 * also for a document whose aliases expand beyond MAX_ALIAS_COUNT (a "billion laughs" bomb).
 */
export function parseYamlDocuments(text: string, file: string, options: ParseOptions = {}): YamlDocument[] {
  const { LineCounter, isMap, isNode, isScalar, parseAllDocuments } = yamlPackage();
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
    merge: options.merge === true,
    ...(options.kubectlScalars === true ? { customTags: kubectlTags } : {}),
  });
  const list = Array.isArray(docs) ? docs : [docs];
  const problems: Problem[] = [];
  for (const doc of list) {
    for (const err of doc.errors) {
      if (options.duplicateKeys === 'report' && err.code === 'DUPLICATE_KEY') continue;
      const line = lineCounter.linePos(err.pos[0]).line;
      problems.push({ file, line, message: err.message.split('\n')[0] ?? err.message });
    }
  }
  if (problems.length > 0) {
    const first = problems[0] as Problem;
    throw new AppError('INPUT_INVALID', `${file}:${first.line}: cannot parse YAML: ${first.message}`, { problems });
  }
  return list
    .filter((doc) => doc.contents !== null || list.length === 1)
    .map((doc, index) => ({
      index,
      line: lineCounter.linePos(doc.range[0]).line,
      value: toJS(doc, file, lineCounter.linePos(doc.contents?.range?.[0] ?? doc.range[0]).line),
      lineOf(path) {
        const keys = toKeys(path);
        if (options.lines === 'key' && keys.length > 0) {
          const parent = doc.getIn(keys.slice(0, -1), true);
          const last = String(keys[keys.length - 1]);
          const pair = isMap(parent)
            ? parent.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === last)
            : undefined;
          if (pair && isNode(pair.key) && pair.key.range) return lineCounter.linePos(pair.key.range[0]).line;
        }
        const node = doc.getIn(keys, true);
        if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
        return undefined;
      },
      ...(options.duplicateKeys === 'report' ? { duplicateKeys: duplicateKeys(doc.contents, [], lineCounter) } : {}),
    }));
}

function duplicateKeys(node: unknown, keys: (string | number)[], lines: Yaml.LineCounter): DuplicateKey[] {
  const { isMap, isNode, isScalar, isSeq } = yamlPackage();
  const out: DuplicateKey[] = [];
  const lineOf = (n: unknown): number => (isNode(n) && n.range ? lines.linePos(n.range[0]).line : 0);
  if (isMap(node)) {
    const seen = new Map<string, number>();
    for (const pair of node.items) {
      const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, lineOf(pair.key));
      else out.push({ keys: [...keys, key], line: lineOf(pair.key), firstLine: first });
      out.push(...duplicateKeys(pair.value, [...keys, key], lines));
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => out.push(...duplicateKeys(item, [...keys, i], lines)));
  }
  return out;
}

/** A document's value; the `yaml` package throws a ReferenceError when aliases expand too far. */
export function toJS(doc: Yaml.Document, file: string, line: number): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    const message = `aliases expand beyond ${MAX_ALIAS_COUNT} nodes (a YAML alias bomb?): ${err.message}`;
    throw new AppError('INPUT_INVALID', `${file}:${line}: cannot parse YAML: ${message}`, {
      problems: [{ file, line, message }],
    });
  }
}
