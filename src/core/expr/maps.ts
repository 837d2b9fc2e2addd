// Maps of strings as expressions: a map the policy fixes (a literal, declared once as a variable) or a stage's index
// of hooks, read by key as CEL reads one: `in` for presence, m[k] for the value, an error in both engines when the
// key is absent.
import { cel, celStringMap } from '../cel/text.js';
import type { Bool, Expr, Str } from './expr.js';

export type StringMap = Expr<ReadonlyMap<string, string>>;

/** A literal map; the first of two entries with one key wins, in both engines. */
export function stringMap(entries: readonly (readonly [string, string])[]): StringMap {
  const map = new Map<string, string>();
  for (const [k, v] of entries) if (!map.has(k)) map.set(k, v);
  return { cel: celStringMap(map), js: () => map };
}

/** `k in m`, in parentheses: `!` binds tighter than `in` in CEL. */
export function hasKey(m: StringMap, k: Str): Bool {
  return { cel: cel`(${k.cel} in ${m.cel})`, js: (env) => m.js(env).has(k.js(env)) };
}

/** m[k]: CEL's "no such key" error when absent, thrown here too. */
export function lookup(m: StringMap, k: Str): Str {
  return {
    cel: cel`${m.cel}[${k.cel}]`,
    js: (env) => {
      const key = k.js(env);
      const v = m.js(env).get(key);
      if (v === undefined) throw new RangeError(`no such key: ${key}`);
      return v;
    },
  };
}
