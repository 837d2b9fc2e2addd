// Lists as expressions: CEL's comprehensions (filter, map, exists, all with an index, transformList) and the
// JavaScript loops that compute the same values. Each comprehension names its variables (the CEL reads them) and
// binds them afresh (bound), so comprehensions nest. CEL's errors (an index out of range, no element found) throw in
// JavaScript too, so neither engine answers where the other fails.
import { cel, celIdentifier, celJoin, celString } from '../cel/text.js';
import { bound, lastOf, type Bool, type Expr, type Int, type Str } from './expr.js';

export type List<T> = Expr<readonly T[]>;

const NONE: readonly never[] = [];

export function emptyList<T>(): List<T> {
  return { cel: cel`[]`, js: () => NONE };
}

/** CEL's size() of a list: its number of elements. */
export function count<T>(list: List<T>): Int {
  return { cel: cel`size(${list.cel})`, js: (env) => list.js(env).length };
}

/**
 * The item is an element of the list (CEL's `in`, by equality: an element of another type is not it, as in
 * JavaScript's includes). Parenthesized, as oneOf is: `!` binds tighter than `in`.
 */
export function includes<T>(list: List<unknown>, item: Expr<T>): Bool {
  return { cel: cel`(${item.cel} in ${list.cel})`, js: (env) => list.js(env).includes(item.js(env)) };
}

/** list[n], n fixed or computed: an error in CEL when out of range, thrown here too. */
export function at<T>(list: List<T>, n: number | Int): Expr<T> {
  const index = typeof n === 'number' ? { cel: cel`${n}`, js: () => n } : n;
  return {
    cel: cel`${list.cel}[${index.cel}]`,
    js: (env) => {
      const items = list.js(env);
      const k = index.js(env);
      if (k < 0 || k >= items.length) throw new RangeError(`index ${k} out of range in a list of ${items.length}`);
      return items[k] as T;
    },
  };
}

export function filter<T>(list: List<T>, name: string, keep: (x: Expr<T>) => Bool): List<T> {
  const x = bound<T>(name);
  const test = keep(x);
  return {
    cel: cel`${list.cel}.filter(${celIdentifier(name)}, ${test.cel})`,
    js: (env) => {
      const out: T[] = [];
      for (const v of list.js(env)) {
        x.set(v);
        if (test.js(env)) out.push(v);
      }
      return out;
    },
  };
}

export function map<T, U>(list: List<T>, name: string, f: (x: Expr<T>) => Expr<U>): List<U> {
  const x = bound<T>(name);
  const value = f(x);
  return {
    cel: cel`${list.cel}.map(${celIdentifier(name)}, ${value.cel})`,
    js: (env) => {
      const items = list.js(env);
      const out = new Array<U>(items.length);
      for (let k = 0; k < items.length; k++) {
        x.set(items[k] as T);
        out[k] = value.js(env);
      }
      return out;
    },
  };
}

export function exists<T>(list: List<T>, name: string, test: (x: Expr<T>) => Bool): Bool {
  const x = bound<T>(name);
  const body = test(x);
  return {
    cel: cel`${list.cel}.exists(${celIdentifier(name)}, ${body.cel})`,
    js: (env) => {
      for (const v of list.js(env)) {
        x.set(v);
        if (body.js(env)) return true;
      }
      return false;
    },
  };
}

/** Each element with its index (CEL's two-variable comprehension), as all() and transformList() read them. */
type Indexed<T, R> = (i: Int, x: Expr<T>) => R;

function indexed<T>(index: string, name: string) {
  return { i: bound<number>(index), x: bound<T>(name), names: cel`${celIdentifier(index)}, ${celIdentifier(name)}` };
}

/** The list's elements all pass `test`, given their index. */
export function all<T>(list: List<T>, index: string, name: string, test: Indexed<T, Bool>): Bool {
  const { i, x, names } = indexed<T>(index, name);
  const body = test(i, x);
  return {
    cel: cel`${list.cel}.all(${names}, ${body.cel})`,
    js: (env) => {
      const items = list.js(env);
      for (let k = 0; k < items.length; k++) {
        i.set(k);
        x.set(items[k] as T);
        if (!body.js(env)) return false;
      }
      return true;
    },
  };
}

/** The first element that passes `test`, given its index: an error in both engines when none does. */
export function firstWhere<T>(list: List<T>, index: string, name: string, test: Indexed<T, Bool>): Expr<T> {
  const { i, x, names } = indexed<T>(index, name);
  const body = test(i, x);
  return {
    cel: cel`${list.cel}.transformList(${names}, ${body.cel}, ${x.cel})[0]`,
    js: (env) => {
      const items = list.js(env);
      for (let k = 0; k < items.length; k++) {
        i.set(k);
        x.set(items[k] as T);
        if (body.js(env)) return items[k] as T;
      }
      throw new RangeError('index 0 out of range: no element passes');
    },
  };
}

/** The indexes of the elements that pass `test`, in order (CEL's transformList returning the index). */
export function indexesWhere<T>(list: List<T>, index: string, name: string, test: Indexed<T, Bool>): List<number> {
  const { i, x, names } = indexed<T>(index, name);
  const body = test(i, x);
  return {
    cel: cel`${list.cel}.transformList(${names}, ${body.cel}, ${i.cel})`,
    js: (env) => {
      const items = list.js(env);
      const out: number[] = [];
      for (let k = 0; k < items.length; k++) {
        i.set(k);
        x.set(items[k] as T);
        if (body.js(env)) out.push(k);
      }
      return out;
    },
  };
}

/** A list literal: [a, b] in CEL. */
export function listOf<T>(...items: readonly Expr<T>[]): List<T> {
  return {
    cel: cel`[${celJoin(
      items.map((x) => x.cel),
      ', ',
    )}]`,
    js: (env) => items.map((x) => x.js(env)),
  };
}

/** Every element passes `test` (CEL's one-variable all). */
export function every<T>(list: List<T>, name: string, test: (x: Expr<T>) => Bool): Bool {
  const x = bound<T>(name);
  const body = test(x);
  return {
    cel: cel`${list.cel}.all(${celIdentifier(name)}, ${body.cel})`,
    js: (env) => {
      for (const v of list.js(env)) {
        x.set(v);
        if (!body.js(env)) return false;
      }
      return true;
    },
  };
}

/** A string cut at each `sep` (not empty), as Kubernetes' split() and Go's strings.Split cut it. */
export function split(s: Str, sep: string): List<string> {
  if (sep === '') throw new Error('split: an empty separator cuts otherwise in Go and in JavaScript');
  const cut = lastOf((text) => text.split(sep));
  return { cel: cel`${s.cel}.split(${celString(sep)})`, js: (env) => cut(s.js(env)) };
}
