// `npm run render:rules`: writes what lists the rules from their folders, so adding a rule is adding its folder:
// src/rules/rule-ids.ts (the ids, a leaf the RuleId type reads), src/rules/index.ts (the modules) and the rule
// table of docs/rules.md (each folder's README.md), all in the rules' `order`. test/registry.test.ts fails when a
// written file differs from what this renders now.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Not src/compilers/deploy's packageRoot: importing src/ at all would load the registry this writes.
const packageRoot = (): string => join(dirname(fileURLToPath(import.meta.url)), '..');

export const RULES_DIR = 'src/rules';
export const IDS_FILE = 'src/rules/rule-ids.ts';
export const INDEX_FILE = 'src/rules/index.ts';
export const RULES_DOC = 'docs/rules.md';

const TABLE_START = '<!-- rule table: npm run render:rules writes it from src/rules/<id>/README.md -->';
const TABLE_END = '<!-- end of rule table -->';

interface Found {
  id: string;
  order: number;
  exportName: string;
  when: string;
  enforces: string;
}

/** A folder's README.md: `# <id>`, then "When: ..." (the table's "when"), then one paragraph (what it enforces). */
function readme(root: string, id: string): { when: string; enforces: string } {
  const path = join(root, RULES_DIR, id, 'README.md');
  if (!existsSync(path)) throw new Error(`${RULES_DIR}/${id}/README.md is missing: the rule's row of ${RULES_DOC}`);
  const [title, when, enforces, ...rest] = readFileSync(path, 'utf8')
    .trim()
    .split(/\n\s*\n/);
  const whenText = /^When: (.+)$/s.exec(when ?? '')?.[1];
  if (title !== `# ${id}` || !whenText || !enforces || rest.length > 0)
    throw new Error(
      `${RULES_DIR}/${id}/README.md: expected "# ${id}", a paragraph "When: ...", and one paragraph of what it enforces`,
    );
  // Its links are relative to the folder (so they work where it is read); the table's, relative to docs/. A code span
  // is not a link, even when it reads like one (hook-naming's regular expression: `[a-z0-9]([-a-z0-9]*...)`).
  const toDocs = (text: string): string =>
    text
      .replace(/\s*\n\s*/g, ' ')
      .split(/(`[^`]*`)/)
      .map((part, i) =>
        i % 2 === 1
          ? part
          : part.replace(
              /\]\((?![a-z]+:|#)([^)]+)\)/g,
              (_, to: string) => `](${relative('docs', join(RULES_DIR, id, to))})`,
            ),
      )
      .join('');
  return { when: toDocs(whenText), enforces: toDocs(enforces) };
}

/**
 * Every rule folder's module, read as text: the export of its rule.ts typed as the rule module of the folder's id, and
 * its order (importing it would load the registry this writes). The typecheck holds the registry to the ids.
 */
export function findRules(root = packageRoot()): Found[] {
  const found: Found[] = [];
  const folders = readdirSync(join(root, RULES_DIR), { withFileTypes: true }).filter((e) => e.isDirectory());
  for (const id of folders.map((e) => e.name).sort()) {
    const file = join(RULES_DIR, id, 'rule.ts');
    if (!existsSync(join(root, file))) throw new Error(`${RULES_DIR}/${id}/ holds no rule.ts: every folder is a rule`);
    const text = readFileSync(join(root, file), 'utf8');
    const exported = [...text.matchAll(new RegExp(`^export const (\\w+): \\w+RuleModule<'${id}'> = \\{$`, 'gm'))];
    const orders = [...text.matchAll(/^ {2}order: (\d+),$/gm)];
    if (exported.length !== 1 || orders.length !== 1)
      throw new Error(`${file} must export one rule module typed RuleModule<'${id}'>, with one \`order: <integer>,\``);
    found.push({ id, order: Number(orders[0]?.[1]), exportName: exported[0]?.[1] ?? '', ...readme(root, id) });
  }
  found.sort((a, b) => a.order - b.order);
  for (let i = 1; i < found.length; i++) {
    const [a, b] = [found[i - 1] as Found, found[i] as Found];
    if (a.order === b.order) throw new Error(`rules ${a.id} and ${b.id} share order ${a.order}`);
  }
  return found;
}

const HEADER = '// Written by `npm run render:rules` from the folders of src/rules/: do not edit.\n';

export function renderIds(rules: readonly Found[]): string {
  return `${HEADER}// The rules' ids, in evaluation order: a leaf that the RuleId type (and so every violation, policy and report type)
// is read from without importing the rules themselves.
export const RULE_IDS = [
${rules.map((r) => `  '${r.id}',`).join('\n')}
] as const;

export type RuleId = (typeof RULE_IDS)[number];
`;
}

export function renderIndex(rules: readonly Found[]): string {
  return `${HEADER}import type { RuleModule } from './context.js';
${rules.map((r) => `import { ${r.exportName} } from './${r.id}/rule.js';`).join('\n')}

/** In evaluation order: a decision lists violations rule by rule in this order. */
export const RULES = [
${rules.map((r) => `  ${r.exportName},`).join('\n')}
] as const satisfies readonly RuleModule[];
`;
}

/** docs/rules.md with its rule table rendered between the markers; defaults and sources from the modules themselves. */
export function renderDoc(
  current: string,
  rules: readonly Found[],
  modules: ReadonlyMap<string, { enforcement: string; sources: readonly string[] }>,
): string {
  const start = current.indexOf(TABLE_START);
  const end = current.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${RULES_DOC} lacks the rule table's markers`);
  const table = [
    '| rule id | what it enforces | when | default | checked in |',
    '|---|---|---|---|---|',
    ...rules.map((r) => {
      const m = modules.get(r.id);
      return `| \`${r.id}\` | ${r.enforces} | ${r.when} | ${m?.enforcement ?? '?'} | ${m?.sources.join(', ') ?? '?'} |`;
    }),
  ].join('\n');
  return `${current.slice(0, start)}${TABLE_START}\n${table}\n${current.slice(end)}`;
}

/** The registry's files, from the folders alone. */
export function renderRegistry(root = packageRoot()): Array<{ file: string; text: string }> {
  const rules = findRules(root);
  return [
    { file: IDS_FILE, text: renderIds(rules) },
    { file: INDEX_FILE, text: renderIndex(rules) },
  ];
}

/** docs/rules.md as it should be: the registry (fresh, imported after it is written) gives defaults and sources. */
export async function renderRulesDoc(root = packageRoot()): Promise<{ file: string; text: string }> {
  const registry = (await import(pathToFileURL(join(root, 'src/core/registry.ts')).href)) as {
    RULES: ReadonlyArray<{ id: string; enforcement: string; sources: readonly string[] }>;
  };
  const modules = new Map(registry.RULES.map((m) => [m.id, m]));
  return { file: RULES_DOC, text: renderDoc(readFileSync(join(root, RULES_DOC), 'utf8'), findRules(root), modules) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = packageRoot();
  for (const { file, text } of renderRegistry(root)) writeFileSync(join(root, file), text);
  const doc = await renderRulesDoc(root);
  writeFileSync(join(root, doc.file), doc.text);
}
