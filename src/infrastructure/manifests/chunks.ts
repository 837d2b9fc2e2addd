// A manifest file cut into documents where kubectl cuts it: k8s.io/apimachinery pkg/util/yaml decoder.go
// `YAMLReader.Read` ends a document at every line that starts with "---" and refuses such a line holding more than
// a comment; each piece is then read by itself, as one YAML document. Cutting the same way keeps what hookkeeper
// judges and what kubectl sends the same documents, and lets sizes be checked before any parsing.
import { AppError } from '../../errors.js';

export interface Chunk {
  text: string;
  /** 1-based line of the chunk's first line in its file. */
  firstLine: number;
}

/** Lines starting with "---", at the text's start or after a "\n" (kubectl reads lines up to "\n" only). */
const SEPARATORS = /(?<![^\n])---[^\n]*/g;

/** Lines that are not blank, a comment or a document end marker. */
export function isContent(line: string): boolean {
  const t = line.trim();
  return t !== '' && !t.startsWith('#') && !/^\.\.\.(\s|$)/.test(line);
}

/** Offset of the line after the one at `from` (text.length + 1 past the last line). */
export function nextLine(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl === -1 ? text.length + 1 : nl + 1;
}

/** Offset of the first content line of `text`, or -1. Usually the first line. */
export function firstContent(text: string): number {
  for (let at = 0; at < text.length; at = nextLine(text, at)) {
    if (isContent(text.slice(at, nextLine(text, at) - 1))) return at;
  }
  return -1;
}

/** The text between kubectl's separator lines (the separators left out), each with its first line in the file. */
export function kubectlChunks(text: string, file: string): Chunk[] {
  const chunks: Chunk[] = [];
  let start = 0;
  let line = 1;
  let counted = 0;
  const lineAt = (offset: number): number => {
    for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) line++;
    counted = offset;
    return line;
  };
  for (const m of text.matchAll(SEPARATORS)) {
    const rest = m[0].slice(3).trim();
    if (rest !== '' && !rest.startsWith('#')) {
      const at = lineAt(m.index);
      const message = `"---" followed by ${JSON.stringify(rest)}: kubectl refuses a document separator line holding more than a comment; start the document on the next line`;
      throw new AppError('INPUT_INVALID', `${file}:${at}: ${message}`, { problems: [{ file, line: at, message }] });
    }
    if (m.index > start) chunks.push({ text: text.slice(start, m.index), firstLine: lineAt(start) });
    start = nextLine(text, m.index);
  }
  if (start < text.length) chunks.push({ text: text.slice(start), firstLine: lineAt(start) });
  return chunks;
}
