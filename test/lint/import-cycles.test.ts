// No import cycles in src/: every import counts, type-only and dynamic ones too, so each module can be read, tested
// and loaded after the ones it names. A test with the TypeScript parser, because no eslint import plugin (whose
// no-cycle rule would do this) is among the dependencies; parsing alone, no type checking, keeps it fast.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The relative module specifiers a file names: import and export declarations, import type, import(). */
export function specifiers(text: string, file = 'x.ts'): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      out.push(node.moduleSpecifier.text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      out.push(node.arguments[0].text);
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      out.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return out.filter((s) => s.startsWith('.'));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** src/ as a graph: file (relative to the repository) -> the src files it imports. */
function srcGraph(): Map<string, string[]> {
  const files = sourceFiles(join(root, 'src'));
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = specifiers(readFileSync(file, 'utf8'), file).map((s) => {
        const target = resolve(dirname(file), s.replace(/\.js$/, '.ts'));
        assert.ok(known.has(target), `${relative(root, file)} imports ${s}, which is not a file in src/`);
        return relative(root, target);
      });
      return [relative(root, file), [...new Set(targets)]];
    }),
  );
}

/** The graph's cycles: each strongly connected component of more than one file, or a file importing itself. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return found;
}

describe('import cycles', () => {
  test('the parser sees every kind of import, type-only and dynamic included', () => {
    assert.deepEqual(
      specifiers(
        [
          "import { a } from './a.js';",
          "import type { B } from './b.js';",
          "export { c } from './c.js';",
          "export type * from './d.js';",
          "const e = await import('./e.js');",
          "type F = import('./f.js').F;",
          "import fs from 'node:fs';",
        ].join('\n'),
      ),
      ['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js'],
    );
  });

  test('the check finds a cycle through any number of files, and a file that imports itself', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    assert.deepEqual(cycles(graph), [['a', 'b', 'c'], ['e']]);
    assert.deepEqual(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
      [],
    );
  });

  test('src/ has none', () => {
    assert.deepEqual(cycles(srcGraph()), []);
  });
});
