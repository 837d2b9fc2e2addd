// Manifest text -> documents, fast enough for 10,000 documents in CI: values come from js-yaml (much faster than the
// `yaml` package: BENCHMARKS.md); errors come from src/config/yaml.ts and line numbers from the `yaml` package, which
// is loaded and run only for a file that fails to parse or a document with a finding.
import jsyaml from 'js-yaml';
import type { Document, LineCounter } from 'yaml';
import { parseYamlDocuments, toKeys, yamlPackage, type YamlDocument } from '../config/yaml.js';
import { AppError } from '../errors.js';
import { MAX_DOCUMENT_BYTES } from './inputs.js';

type Keys = readonly (string | number)[];

/** js-yaml's core schema plus merge keys (`<<`), which kubectl's YAML reader (go-yaml) applies. */
const SCHEMA = jsyaml.CORE_SCHEMA.extend({
  implicit: [(jsyaml as unknown as { types: { merge: jsyaml.Type } }).types.merge],
}); // @types/js-yaml omits `types`

/** A document marker at column 0 ends any scalar (YAML 1.2 §9.1.4), so splitting lines on it is exact. */
const MARKER = /^(---|\.\.\.)(?=\s|$)/;
/** The same markers found in a whole text: at its start or after a newline (only "\n" ends a line here). */
const MARKERS = /(?<![^\n])(---|\.\.\.)(?=\s|$)/g;
/** An alias (*name): such documents go through the `yaml` package, which caps alias expansion. */
const ALIAS = /(^|[\s[{,:-])\*[^\s,\]}]/m;

/** Lines that are not blank, a comment, a directive or a document marker. */
function isContent(line: string): boolean {
  return line.trim() !== '' && !line.trimStart().startsWith('#') && !line.startsWith('%') && !MARKER.test(line);
}

interface Chunk {
  text: string;
  /** 1-based line of the chunk's first line in its file. */
  firstLine: number;
}

/** Offset of the line after the one at `from` (text.length + 1 past the last line). */
function nextLine(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl === -1 ? text.length + 1 : nl + 1;
}

/** Offset of the first content line in text[from, to), or -1. Stops at the first one: usually the first line. */
function firstContent(text: string, from: number, to: number): number {
  for (let at = from; at < to; at = nextLine(text, at)) {
    if (isContent(text.slice(at, Math.min(nextLine(text, at) - 1, to)))) return at;
  }
  return -1;
}

/**
 * Splits a text into documents by its marker lines, without splitting it into lines: the markers are found by
 * one regular expression, and only the lines between a chunk's start and its closing "---" are looked at (to
 * tell whether the chunk has content), which for a manifest is its first line.
 */
function splitDocuments(text: string): Chunk[] {
  const chunks: Chunk[] = [];
  let start = 0;
  // A "---" opened the chunk: it counts as content, so the next "---" closes it.
  let opened = false;
  let line = 1;
  let counted = 0;
  const lineAt = (offset: number): number => {
    for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) line++;
    counted = offset;
    return line;
  };
  // `end` is the offset of the line after the chunk. The chunk keeps its last newline: without it, a "...\r"
  // (CRLF) ending a document is an error to the `yaml` package, which then could not give a line.
  const flush = (end: number): void => {
    if (end > start) chunks.push({ text: text.slice(start, end), firstLine: lineAt(start) });
    start = end;
    opened = false;
  };
  for (const m of text.matchAll(MARKERS)) {
    const at = m.index;
    if (m[1] === '---') {
      // Comments and directives before a "---" belong to the document it opens.
      if (opened || firstContent(text, start, at) !== -1) flush(at);
      opened = true;
    } else {
      flush(nextLine(text, at));
    }
  }
  flush(text.length + 1);
  return chunks;
}

/** UTF-8 size over `limit`: a string's UTF-8 size is at most 3 bytes per UTF-16 unit, so most need no count. */
/** The document's own line: its first line that is not a marker, comment or blank. */
function contentLine(chunk: Chunk): number {
  const content = firstContent(chunk.text, 0, chunk.text.length);
  let line = chunk.firstLine;
  for (
    let nl = chunk.text.indexOf('\n');
    content > 0 && nl !== -1 && nl < content;
    nl = chunk.text.indexOf('\n', nl + 1)
  ) {
    line++;
  }
  return line;
}

function over(text: string, limit: number): boolean {
  return text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit);
}

/** Refuses a chunk over MAX_DOCUMENT_BYTES, naming its longest-offending line when one line alone is too long. */
function checkSize(chunk: Chunk, document: number, file: string): void {
  if (!over(chunk.text, MAX_DOCUMENT_BYTES)) return;
  const fail = (line: number, message: string): never => {
    throw new AppError('INPUT_INVALID', `${file}:${line}: ${message}`, { problems: [{ file, line, message }] });
  };
  let line = chunk.firstLine;
  for (let at = 0; at < chunk.text.length; at = nextLine(chunk.text, at), line++) {
    if (over(chunk.text.slice(at, nextLine(chunk.text, at) - 1), MAX_DOCUMENT_BYTES))
      fail(line, `line ${line} is longer than 3 MiB, more than the API server accepts in one request`);
  }
  fail(
    contentLine(chunk),
    `document ${document} is larger than 3 MiB, more than the API server accepts in one request (split a large List into documents)`,
  );
}

/** A document as the `yaml` package reads it, with positions. */
interface Positions {
  doc: Document;
  lines: LineCounter;
}

/**
 * 1-based line of the field at `keys` (its key's line, so an object-valued field points at its name), or of its
 * nearest present parent. The positional parse runs once per document, on first use.
 */
function lineIn(chunk: Chunk, keys: Keys, parsed: () => Positions | undefined): number {
  const positions = parsed();
  if (!positions) return chunk.firstLine;
  const { doc, lines } = positions;
  const { isMap, isNode, isScalar, isSeq } = yamlPackage();
  const at = (node: { range?: [number, number, number] | null } | null | undefined): number | undefined =>
    node?.range ? lines.linePos(node.range[0]).line + chunk.firstLine - 1 : undefined;
  for (let n = keys.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(keys.slice(0, n - 1), true);
    const key = keys[n - 1];
    if (isMap(parent)) {
      const pair = parent.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(key));
      const line = pair && isNode(pair.key) ? at(pair.key) : undefined;
      if (line !== undefined) return line;
    } else if (isSeq(parent) && typeof key === 'number') {
      const item = parent.items[key];
      const line = isNode(item) ? at(item) : undefined;
      if (line !== undefined) return line;
    }
  }
  return at(doc.contents) ?? chunk.firstLine;
}

function fromChunk(chunk: Chunk, value: unknown, index: number): YamlDocument {
  let cache: Positions | undefined | null = null;
  const parsed = (): Positions | undefined => {
    if (cache === null) {
      const { LineCounter, parseDocument } = yamlPackage();
      const lines = new LineCounter();
      const doc = parseDocument(chunk.text, { lineCounter: lines, merge: true });
      cache = doc.errors.length === 0 ? { doc, lines } : undefined;
    }
    return cache;
  };
  return {
    index,
    line: contentLine(chunk),
    value,
    lineOf: (path) => lineIn(chunk, toKeys(path), parsed),
  };
}

/**
 * Refuses a merge key (`<<`) that sets a key its mapping set explicitly before it. go-yaml, which kubectl reads
 * manifests with, applies a mapping's entries in order, so the merged value wins (go.yaml.in/yaml/v2 decode.go,
 * `mapping`); the YAML merge rules both parsers here follow keep the explicit one. Judging the explicit value would
 * pass what the cluster receives differently, so the document is an input error. A key set after `<<` wins in both.
 */
function checkMergeOrder(chunk: Chunk, file: string): void {
  const { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit } = yamlPackage();
  const lines = new LineCounter();
  const doc = parseDocument(chunk.text, { lineCounter: lines, merge: false, uniqueKeys: false });
  // What does not parse is reported by the parsers, with their own words.
  if (doc.errors.length > 0) return;
  const keyOf = (node: unknown): string | undefined => (isScalar(node) ? String(node.value) : undefined);
  const keysOf = (node: unknown): string[] => {
    const target = isAlias(node) ? node.resolve(doc) : node;
    if (isMap(target)) return target.items.flatMap((p) => keyOf(p.key) ?? []);
    if (isSeq(target)) return target.items.flatMap((item) => keysOf(item));
    return [];
  };
  const lineOf = (node: unknown): number => {
    const range = (node as { range?: [number, number, number] | null }).range;
    return range ? lines.linePos(range[0]).line + chunk.firstLine - 1 : chunk.firstLine;
  };
  visit(doc, {
    Map(_, map) {
      const seen = new Map<string, number>();
      for (const pair of map.items) {
        const key = keyOf(pair.key);
        if (key !== '<<') {
          if (key !== undefined && !seen.has(key)) seen.set(key, lineOf(pair.key));
          continue;
        }
        const clash = keysOf(pair.value).find((k) => seen.has(k));
        if (clash === undefined) continue;
        const line = lineOf(pair.key);
        const message =
          `the merge key "<<" sets ${JSON.stringify(clash)}, which line ${seen.get(clash)} set before it: kubectl ` +
          'sends the merged value (the later one), YAML merge rules keep the first; set the key once, or put "<<" first';
        throw new AppError('INPUT_INVALID', `${file}:${line}: ${message}`, { problems: [{ file, line, message }] });
      }
    },
  });
}

/**
 * Where a key that is not a plain string may be: a flow collection opened where a flow mapping's key starts ("{{",
 * "{[", or after a value and a comma, "1, {"; not "}, {", a list of mappings, which Machines' hooks often are), an
 * explicit key ("? "), or a plain scalar key the core schema reads as null, a boolean or a number ("~:", "true:",
 * "1:"). A superset: the check below decides, on the few documents this matches.
 */
const NON_STRING_KEY =
  /\{\s*[{[]|[^\s}\]]\s*,\s*[{[]|(?:^|\s)\?(?:\s|$)|(?:^|[\s{,?-])(?:~|null|true|false|[-+]?\.?\d[^\s:,{}[\]]*|[-+]?\.inf|\.nan)\s*:(?:\s|$)/im;

/**
 * A mapping key that is not a string: the API server takes JSON, whose keys are strings, and kubectl's YAML reader
 * (sigs.k8s.io/yaml) refuses a mapping, sequence or null as a key; both parsers here would make it a string ("[object
 * Object]", "null") and judge an object the cluster never receives. A number or boolean key is refused too: its
 * text as kubectl writes it may not be the text read here (1.0, .inf), and the gate's verdict must not be kinder than
 * the cluster's. Quoting the key makes it a string.
 */
/** A JSON document: its keys are strings by its grammar. */
function isJson(text: string): boolean {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function checkKeys(chunk: Chunk, file: string): void {
  const { isMap, isScalar, isSeq, LineCounter, parseDocument, visit } = yamlPackage();
  const lines = new LineCounter();
  const doc = parseDocument(chunk.text, { lineCounter: lines, merge: false, uniqueKeys: false });
  // What does not parse is reported by the parsers, with their own words.
  if (doc.errors.length > 0) return;
  const lineOf = (node: unknown): number => {
    const range = (node as { range?: [number, number, number] | null }).range;
    return range ? lines.linePos(range[0]).line + chunk.firstLine - 1 : chunk.firstLine;
  };
  const helm = chunk.text.includes('{{')
    ? ' (a Helm template, such as "name: {{ .Release.Name }}", reads so: render it with helm template first)'
    : '';
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key;
      if (isScalar(key) && typeof key.value === 'string') return;
      let why: string;
      if (isMap(key) || isSeq(key)) why = `this one is a ${isMap(key) ? 'mapping' : 'sequence'}${helm}`;
      else if (!isScalar(key) || key.value === null || key.value === undefined)
        why = 'this one is null: quote it if it is meant as text';
      else {
        const text = key.source ?? JSON.stringify(key.value);
        const type = typeof key.value === 'boolean' ? 'a boolean' : 'a number';
        why = `${text} is read as ${type}: quote it (${JSON.stringify(text)})`;
      }
      const line = lineOf(key ?? pair);
      const message = `a mapping key must be a string; ${why}`;
      throw new AppError('INPUT_INVALID', `${file}:${line}: ${message}`, { problems: [{ file, line, message }] });
    },
  });
}

/**
 * Parses a (possibly multi-document) YAML or JSON text. Empty documents are dropped; `index` counts the rest
 * from 0. Throws AppError INPUT_INVALID naming file and line, worded as src/config/yaml.ts words it.
 */
export function parseManifests(text: string, file: string): YamlDocument[] {
  const docs: YamlDocument[] = [];
  // Most files have no "*" at all: one indexOf spares the alias pattern a pass over each document.
  const mayAlias = text.includes('*');
  const mayMerge = text.includes('<<');
  const chunks = splitDocuments(text);
  // Sizes first, so that no parser (nor the fallback below, which parses the whole text) sees a runaway document.
  let document = 0;
  for (const chunk of chunks)
    if (firstContent(chunk.text, 0, chunk.text.length) !== -1) checkSize(chunk, ++document, file);
  if (mayMerge) for (const chunk of chunks) if (chunk.text.includes('<<')) checkMergeOrder(chunk, file);
  for (const chunk of chunks) if (NON_STRING_KEY.test(chunk.text) && !isJson(chunk.text)) checkKeys(chunk, file);
  for (const chunk of chunks) {
    let value: unknown;
    try {
      value =
        mayAlias && ALIAS.test(chunk.text)
          ? parseYamlDocuments(chunk.text, file, { merge: true })[0]?.value
          : jsyaml.load(chunk.text, { schema: SCHEMA, filename: file });
    } catch {
      // The project's parser has the last word on a document either parser refuses: its error names the file
      // and the line (counted in the whole file), and js-yaml and `yaml` disagree on a few edge cases.
      return parseYamlDocuments(text, file, { merge: true })
        .filter((d) => d.value !== null && d.value !== undefined)
        .map((d, index) => ({ ...d, index }));
    }
    if (value === null || value === undefined) continue;
    docs.push(fromChunk(chunk, value, docs.length));
  }
  return docs;
}
