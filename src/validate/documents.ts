// Manifest text -> documents, fast enough for 10,000 documents in CI: values come from js-yaml (an order of
// magnitude faster than the `yaml` package); errors come from src/config/yaml.ts and line numbers from the
// `yaml` package, which only run for a file that fails to parse or a document with a finding to point at.
import jsyaml from 'js-yaml';
import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { parseYamlDocuments, toKeys, type YamlDocument } from '../config/yaml.js';

type Keys = readonly (string | number)[];

/** A document marker at column 0 ends any scalar (YAML 1.2 §9.1.4), so splitting lines on it is exact. */
const MARKER = /^(---|\.\.\.)(?=\s|$)/;
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

function splitDocuments(text: string): Chunk[] {
  const chunks: Chunk[] = [];
  const lines = text.split('\n');
  let start = 0;
  let hasContent = false;
  const flush = (end: number): void => {
    if (end > start) chunks.push({ text: lines.slice(start, end).join('\n'), firstLine: start + 1 });
    start = end;
    hasContent = false;
  };
  lines.forEach((line, i) => {
    const marker = MARKER.exec(line)?.[1];
    if (marker === '---') {
      // Comments and directives before a "---" belong to the document it opens.
      if (hasContent) flush(i);
      hasContent = true;
    } else if (marker === '...') {
      flush(i + 1);
    } else if (isContent(line)) {
      hasContent = true;
    }
  });
  flush(lines.length);
  return chunks;
}

/**
 * 1-based line of the field at `keys` (its key's line, so an object-valued field points at its name), or of its
 * nearest present parent. The positional parse runs once per document, on first use.
 */
function lineIn(chunk: Chunk, keys: Keys, parsed: () => Document | undefined, lines: LineCounter): number {
  const doc = parsed();
  const at = (node: { range?: [number, number, number] | null } | null | undefined): number | undefined =>
    node?.range ? lines.linePos(node.range[0]).line + chunk.firstLine - 1 : undefined;
  for (let n = keys.length; doc && n > 0; n--) {
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
  return at(doc?.contents) ?? chunk.firstLine;
}

function fromChunk(chunk: Chunk, value: unknown, index: number): YamlDocument {
  const lines = new LineCounter();
  let cache: Document | undefined | null = null;
  const parsed = (): Document | undefined => {
    if (cache === null) {
      const doc = parseDocument(chunk.text, { lineCounter: lines });
      cache = doc.errors.length === 0 ? doc : undefined;
    }
    return cache;
  };
  // The document's own line: its first line that is not a marker, comment or blank.
  const offset = chunk.text.split('\n').findIndex(isContent);
  return {
    index,
    line: chunk.firstLine + Math.max(offset, 0),
    value,
    lineOf: (path) => lineIn(chunk, toKeys(path), parsed, lines),
  };
}

/**
 * Parses a (possibly multi-document) YAML or JSON text. Empty documents are dropped; `index` counts the rest
 * from 0. Throws AppError INPUT_INVALID naming file and line, worded as src/config/yaml.ts words it.
 */
export function parseManifests(text: string, file: string): YamlDocument[] {
  const docs: YamlDocument[] = [];
  for (const chunk of splitDocuments(text)) {
    let value: unknown;
    try {
      value = ALIAS.test(chunk.text)
        ? parseYamlDocuments(chunk.text, file)[0]?.value
        : jsyaml.load(chunk.text, { schema: jsyaml.CORE_SCHEMA, filename: file });
    } catch {
      // The project's parser has the last word on a document either parser refuses: its error names the file
      // and the line (counted in the whole file), and js-yaml and `yaml` disagree on a few edge cases.
      return parseYamlDocuments(text, file)
        .filter((d) => d.value !== null && d.value !== undefined)
        .map((d, index) => ({ ...d, index }));
    }
    if (value === null || value === undefined) continue;
    docs.push(fromChunk(chunk, value, docs.length));
  }
  return docs;
}
