// The one way tests read the documentation: a page by its repository path, a section of it by heading, and the
// headings, anchors and relative links GitHub renders from it. A test that checks a sentence names the page it lives on.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from '../../src/compilers/deploy/render.js';

const root = packageRoot();

/** The text of a documentation page, by its path from the repository root (e.g. `docs/rules.md`). */
export function readDoc(page: string): string {
  return readFileSync(join(root, page), 'utf8');
}

/** The fenced code blocks of a page in one language (```yaml ... ```, fences at the line start), in order. */
export function codeBlocks(page: string, lang: string): string[] {
  return [...readDoc(page).matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1] ?? '');
}

export interface Heading {
  level: number;
  /** The heading as written, without the leading `#`s. */
  text: string;
  /** Line index (0-based) in the page. */
  line: number;
}

/** The lines of a page with fenced code blocks blanked, so a `# comment` in a code block is no heading. */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (open && open[1]?.[0] === fence[0] && (open[1]?.length ?? 0) >= fence.length && /^\s*(`+|~+)\s*$/.test(line))
        fence = undefined;
      return '';
    }
    if (open) {
      fence = open[1];
      return '';
    }
    return line;
  });
}

/** The ATX headings of a page, outside code blocks. */
export function headings(text: string): Heading[] {
  const out: Heading[] = [];
  proseLines(text).forEach((line, i) => {
    const m = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/.exec(line);
    if (m) out.push({ level: m[1]?.length ?? 0, text: m[2] ?? '', line: i });
  });
  return out;
}

/**
 * A section of a page: from the heading written exactly as `heading` (with its `#`s, e.g. `## The rules`) to the next
 * heading of the same or a higher level. Throws, naming the page, when the heading is not there.
 */
export function docSection(page: string, heading: string): string {
  const text = readDoc(page);
  const all = headings(text);
  const start = all.find((h) => `${'#'.repeat(h.level)} ${h.text}` === heading);
  if (!start) throw new Error(`${page}: no heading ${JSON.stringify(heading)}`);
  const end = all.find((h) => h.line > start.line && h.level <= start.level);
  return text.split('\n').slice(start.line, end?.line).join('\n');
}

/** The plain text GitHub makes of a heading: links and code spans reduced to their text, HTML tags dropped. */
function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/<[^>]+>/g, '');
}

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `-`, `_` and spaces kept; so
 * `**` emphasis goes too), each space a `-`.
 */
export function githubSlug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** A page's prose as one line per paragraph line, code blocks blanked: sentences that wrap can be matched whole. */
export function prose(text: string): string {
  return proseLines(text).join('\n');
}

/** Every anchor a page's headings give, a repeated heading's suffixed `-1`, `-2`, ... as GitHub suffixes them. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(text)) {
    const slug = githubSlug(h.text);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

export interface Link {
  target: string;
  /** Line number (1-based) in the page. */
  line: number;
}

/** Inline links and images outside code blocks and code spans, with their targets as written. */
export function links(text: string): Link[] {
  const out: Link[] = [];
  proseLines(text).forEach((line, i) => {
    const prose = line.replace(/(`+)[\s\S]*?\1/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
      out.push({ target: m[1] ?? '', line: i + 1 });
    }
  });
  return out;
}

/** The Markdown pages of the repository (docs, contributor files, certs/), as paths from its root. */
export function markdownPages(): string[] {
  const skip = new Set(['node_modules', 'dist', 'coverage', '.git', '.dev-certs']);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (skip.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}
