// Manifest text -> documents, read as kubectl reads them: cut where kubectl cuts (chunks.ts), each piece parsed by
// the `yaml` package with kubectl's scalars (src/infrastructure/config/kubectl-scalars.ts), and what kubectl would read otherwise
// refused at its line (kubectl-reading.ts). Lines of findings come from the same parse.
import type { Document, LineCounter } from 'yaml';
import { kubectlTags } from '../config/kubectl-scalars.js';
import { toJS, toKeys, yamlPackage, type YamlDocument } from '../config/yaml.js';
import { AppError, type Problem } from '../../errors.js';
import { firstContent, kubectlChunks, nextLine, type Chunk } from './chunks.js';
import { MAX_DOCUMENT_BYTES } from './inputs.js';
import { kubectlDifference } from './kubectl-reading.js';

type Keys = readonly (string | number)[];

/** The message for a key given twice; run.ts counts them to tell manifests joined without a "---". */
export const DUPLICATE_KEY =
  'a key given twice in one mapping: kubectl sends the later value, so which one is meant is unclear; give it once';

/** UTF-8 size over `limit`: a string's UTF-8 size is at most 3 bytes per UTF-16 unit, so most need no count. */
function over(text: string, limit: number): boolean {
  return text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit);
}

function refusal(file: string, line: number, message: string): AppError {
  return new AppError('INPUT_INVALID', `${file}:${line}: ${message}`, { problems: [{ file, line, message }] });
}

/** The chunk's first content line, in the file. */
function contentLine(chunk: Chunk, content: number): number {
  let line = chunk.firstLine;
  for (let nl = chunk.text.indexOf('\n'); nl !== -1 && nl < content; nl = chunk.text.indexOf('\n', nl + 1)) line++;
  return line;
}

/** Refuses a chunk over MAX_DOCUMENT_BYTES, naming its longest-offending line when one line alone is too long. */
function checkSize(chunk: Chunk, content: number, document: number, file: string): void {
  if (!over(chunk.text, MAX_DOCUMENT_BYTES)) return;
  let line = chunk.firstLine;
  for (let at = 0; at < chunk.text.length; at = nextLine(chunk.text, at), line++) {
    if (over(chunk.text.slice(at, nextLine(chunk.text, at) - 1), MAX_DOCUMENT_BYTES))
      throw refusal(file, line, `line ${line} is longer than 3 MiB, more than the API server accepts in one request`);
  }
  throw refusal(
    file,
    contentLine(chunk, content),
    `document ${document} is larger than 3 MiB, more than the API server accepts in one request (split a large List into documents)`,
  );
}

/** A document as the `yaml` package reads it, with positions (lines counted in its chunk). */
interface Positions {
  chunk: Chunk;
  doc: Document;
  lines: LineCounter;
}

function lineOfNode(p: Positions, node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] | null } | null | undefined)?.range;
  return range ? p.lines.linePos(range[0]).line + p.chunk.firstLine - 1 : undefined;
}

/** 1-based line of the field at `keys` (its key's line, so an object-valued field points at its name), or of its nearest present parent. */
function lineIn(p: Positions, keys: Keys): number {
  const { isMap, isNode, isScalar, isSeq } = yamlPackage();
  for (let n = keys.length; n > 0; n--) {
    const parent = n === 1 ? p.doc.contents : p.doc.getIn(keys.slice(0, n - 1), true);
    const key = keys[n - 1];
    if (isMap(parent)) {
      const pair = parent.items.find((i) => isScalar(i.key) && String(i.key.value) === String(key));
      const line = pair && isNode(pair.key) ? lineOfNode(p, pair.key) : undefined;
      if (line !== undefined) return line;
    } else if (isSeq(parent) && typeof key === 'number') {
      const line = lineOfNode(p, parent.items[key]);
      if (line !== undefined) return line;
    }
  }
  return lineOfNode(p, p.doc.contents) ?? p.chunk.firstLine;
}

/** Problems that are the `yaml` package's syntax errors, worded by it. */
const syntax = new WeakSet<Problem>();

/** A %YAML or %TAG directive line: kubectl cuts it from the document its "---" opens and then cannot read it. */
const DIRECTIVE = /(?<![^\n])%/;

/**
 * The one document of a chunk, or undefined for a chunk holding none; what does not parse, or would be read
 * differently by kubectl, is added to `problems`.
 */
function parseChunk(chunk: Chunk, file: string, problems: Problem[]): Positions | undefined {
  const { LineCounter, parseAllDocuments, isScalar } = yamlPackage();
  const lines = new LineCounter();
  const at = (offset: number): number => lines.linePos(offset).line + chunk.firstLine - 1;
  const docs = parseAllDocuments(chunk.text, {
    lineCounter: lines,
    customTags: kubectlTags,
    merge: true,
    uniqueKeys: true,
    prettyErrors: false,
    // The text of each quoted scalar, for the escapes kubectl reads otherwise (kubectl-reading.ts).
    keepSourceTokens: true,
  });
  const list = Array.isArray(docs) ? docs : [docs];
  const before = problems.length;
  for (const doc of list)
    for (const err of doc.errors) {
      // A key given twice and a scalar kubectl reads otherwise are said in hookkeeper's words; the rest in the parser's.
      const own = err.code === 'DUPLICATE_KEY' || err.code === 'TAG_RESOLVE_FAILED';
      const message = err.code === 'DUPLICATE_KEY' ? DUPLICATE_KEY : (err.message.split('\n')[0] ?? err.message);
      const problem = { file, line: at(err.pos[0]), message };
      if (!own) syntax.add(problem);
      problems.push(problem);
    }
  if (problems.length > before) return undefined;
  const directive = DIRECTIVE.exec(chunk.text);
  if (directive) {
    const message = `a %YAML or %TAG directive: kubectl cuts it from the document after its "---" and cannot read it; remove it`;
    problems.push({ file, line: at(directive.index), message });
    return undefined;
  }
  const [doc, next] = list;
  if (!doc) return undefined;
  if (next) {
    problems.push({
      file,
      line: at(next.range[0]),
      message:
        'a document after "..." with no "---" line before it: kubectl reads a piece up to "..." and would not send it; separate documents with "---"',
    });
    return undefined;
  }
  const empty = isScalar(doc.contents) && doc.contents.value === null && doc.contents.source === '';
  if (empty && doc.directives.docEnd) {
    problems.push({
      file,
      line: at(doc.range[0]),
      message: 'a document holding nothing but "...": kubectl refuses it; remove the "..." line',
    });
    return undefined;
  }
  const p = { chunk, doc, lines };
  const differs = kubectlDifference(doc, chunk.text);
  if (differs) {
    const lineOf = (node: unknown): number => lineOfNode(p, node) ?? chunk.firstLine;
    problems.push({ file, line: lineOf(differs.node), message: differs.message(lineOf) });
    return undefined;
  }
  return p;
}

/**
 * Parses a (possibly multi-document) YAML or JSON text. Empty documents are dropped; `index` counts the rest
 * from 0. Throws AppError INPUT_INVALID naming file and line (every problem of the file in `problems`).
 */
export function parseManifests(text: string, file: string): YamlDocument[] {
  const chunks = kubectlChunks(text, file);
  // Sizes first, so that no parser sees a runaway document.
  let document = 0;
  for (const chunk of chunks) {
    const content = firstContent(chunk.text);
    if (content !== -1) checkSize(chunk, content, ++document, file);
  }
  const problems: Problem[] = [];
  const parsed = chunks.flatMap((chunk) => parseChunk(chunk, file, problems) ?? []);
  if (problems.length > 0) {
    const first = problems[0] as Problem;
    const said = syntax.has(first) ? `cannot parse YAML: ${first.message}` : first.message;
    throw new AppError('INPUT_INVALID', `${file}:${first.line ?? 1}: ${said}`, { problems });
  }
  const docs: YamlDocument[] = [];
  for (const p of parsed) {
    const line = lineOfNode(p, p.doc.contents) ?? p.chunk.firstLine;
    const value = toJS(p.doc, file, line);
    if (value === null || value === undefined) continue;
    docs.push({ index: docs.length, line, value, lineOf: (path) => lineIn(p, toKeys(path)) });
  }
  return docs;
}
