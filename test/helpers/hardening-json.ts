// JSON surgery for the hardening tests: every path in a document, replacing or adding a value at a path the way
// JSON.parse would build it (a "__proto__" key becomes an own key), and hostile values to put there.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = ReadonlyArray<string | number>;

/** Keys that reach the prototype chain when code indexes plain objects carelessly. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
] as const;

/** The body as the server sees it: through JSON text, so own "__proto__" keys survive as they would on the wire. */
export function viaWire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Every path to a value inside `root` (not the root itself), parents before children. */
export function allPaths(root: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(root)) {
    root.forEach((v, i) => {
      out.push([...prefix, i], ...allPaths(v, [...prefix, i]));
    });
  } else if (typeof root === 'object' && root !== null) {
    for (const [k, v] of Object.entries(root)) out.push([...prefix, k], ...allPaths(v, [...prefix, k]));
  }
  return out;
}

/** Paths to objects (where a key can be added), the root included as []. */
export function objectPaths(root: unknown): Path[] {
  const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
  return [...(isObject(root) ? [[] as Path] : []), ...allPaths(root).filter((p) => isObject(valueAt(root, p)))];
}

export function valueAt(root: unknown, path: Path): unknown {
  let cur: unknown = root;
  for (const step of path) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, step)) return undefined;
    cur = (cur as Record<string | number, unknown>)[step];
  }
  return cur;
}

function define(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A copy of root with `value` at `path` (undefined: the key removed). Own keys only, never the prototype.
 * When an earlier edit left no object at the parent path, the copy is returned unchanged.
 */
export function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = viaWire(root);
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  if (typeof parent !== 'object' || parent === null) return copy;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    define(parent, last, viaWire(value));
  }
  return copy;
}

/** True when `path` is `prefix` or lies inside it. */
export function isWithin(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((step, i) => path[i] === step);
}

/** JSON text of arrays or objects nested `depth` levels deep. */
export function nestedText(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Nested arrays or objects `depth` levels deep, as JSON text can carry them. */
export function nested(depth: number, kind: 'array' | 'object'): Json {
  return JSON.parse(nestedText(depth, kind)) as Json;
}

/** An object whose own keys are prototype-sensitive names, as JSON.parse builds it. */
export function hostileObject(values: readonly Json[]): Json {
  const text = `{${PROTOTYPE_KEYS.map((k, i) => `${JSON.stringify(k)}:${JSON.stringify(values[i % values.length] ?? null)}`).join(',')}}`;
  return JSON.parse(text) as Json;
}

/**
 * Values of every JSON type and then some: what a field of the wrong type may hold. The last is an object whose
 * own "toString" and "valueOf" are not functions: String(it) and `${it}` throw.
 */
export const WRONG_TYPES: readonly Json[] = [
  null,
  true,
  false,
  0,
  -1.5,
  1e308,
  '',
  'x',
  [],
  [null],
  {},
  { a: [] },
  [[[]]],
  'x'.repeat(10_000),
  hostileObject([[]]),
];

/** Arbitrary JSON, with prototype-sensitive keys, very long strings and deep nesting mixed in. */
export const hostileJson: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json> },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, { minLength: 1, maxLength: 3 })
      .map(hostileObject),
  },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 200_000 }).map((n) => 'a'.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 50, max: 1_000 }), fc.constantFrom('array' as const, 'object' as const))
      .map(([d, k]) => nested(d, k)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...WRONG_TYPES) },
);

export const prototypeKey: fc.Arbitrary<string> = fc.constantFrom(...PROTOTYPE_KEYS);

/** Paths whose change may legitimately change a hook-removal decision; anything else must leave it as it was. */
export const DECISIVE: readonly Path[] = [
  ['apiVersion'],
  ['kind'],
  ['request', 'uid'],
  ['request', 'kind'],
  ['request', 'operation'],
  ['request', 'userInfo'],
  ['request', 'object', 'spec', 'lifecycleHooks'],
  ['request', 'oldObject', 'spec', 'lifecycleHooks'],
];

/** Replace (or, with undefined, remove) the value at a path, or add a key to the object at a path. */
export type Edit = { path: Path; value: Json | undefined } | { add: Path; key: string; value: Json };

/** Edits that touch nothing decisive, nor an ancestor of it (replacing an ancestor would replace it too). */
export function unrelatedEdits(review: Json, decisive: readonly Path[]): fc.Arbitrary<Edit[]> {
  const paths = allPaths(review).filter((p) => !decisive.some((d) => isWithin(p, d) || isWithin(d, p)));
  const objects = objectPaths(review).filter((p) => p.length > 0 && !decisive.some((d) => isWithin(p, d)));
  const replace = fc.record({ path: fc.constantFrom(...paths), value: fc.option(hostileJson, { nil: undefined }) });
  const add = fc.record({
    add: fc.constantFrom(...objects),
    key: fc.oneof(prototypeKey, fc.string({ maxLength: 20 })),
    value: hostileJson,
  });
  return fc.array(fc.oneof(replace, add), { minLength: 1, maxLength: 6 });
}

export function applyEdits(review: Json, edits: readonly Edit[]): unknown {
  let body: unknown = review;
  for (const e of edits)
    body = 'add' in e ? withValueAt(body, [...e.add, e.key], e.value) : withValueAt(body, e.path, e.value);
  return body;
}

/**
 * Freezes a JSON value all the way down (iteratively: fuzzed values nest deeper than the stack), so that code
 * under test which writes into its input throws instead of silently changing it.
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return value;
}
