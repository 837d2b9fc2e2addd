// A stage's entries as the object holds them, malformed ones included: what a rule that counts them reads, where
// the other hook leaves (hooks.ts) give only well-formed hooks. The Machine API CRDs refuse a malformed entry (items
// are objects with required string name and owner), so the API server never sends one to either engine; only offline
// input (`validate`, the audit of an object stored before the schema) has them, and both engines read it alike.
import type { HookCarrier } from '../carriers.js';
import { cel, celStringSet } from '../cel/text.js';
import type { CelStage } from '../cel/types.js';
import { dig, isRecord } from '../guards.js';
import { leaf, type Bool, type Expr } from './expr.js';
import type { HookEnv } from './hooks.js';
import type { List } from './lists.js';

const NONE: readonly never[] = [];

/**
 * Every entry of a stage, in the object (or, `stored`, the stored object on UPDATE, as CEL's oldHooks): a list's
 * elements, whatever they are, or each hook annotation as a {name, owner, key}.
 */
export function stageEntries(carrier: HookCarrier, s: CelStage, stored: boolean): List<unknown> {
  const stage = s.stage;
  if (carrier.format === 'annotations') {
    return leaf(stored ? s.oldHooks : s.hooks, (env) => {
      const reading = stored ? (env as HookEnv).oldHooks : (env as HookEnv).hooks;
      return reading.hooks.filter((h) => h.stage === stage);
    });
  }
  const keys = [...carrier.root, stage];
  return leaf(stored ? s.oldHooks : s.hooks, (env) => {
    const input = (env as HookEnv).input;
    const value = dig(stored ? (input.operation === 'UPDATE' ? input.oldObject : null) : input.object, keys);
    return Array.isArray(value) ? (value as unknown[]) : NONE;
  });
}

/**
 * The entry is a hook whose owner is one of `owners`: a list entry that is no map, or has no string owner, is
 * no one's. An annotation's owner is its value, a non-string one read as empty, which names nobody.
 */
export function entryOwnerIn(carrier: HookCarrier, e: Expr<unknown>, owners: readonly string[]): Bool {
  // The empty owner names nobody (a non-string annotation value reads as empty in CEL only).
  const named = owners.filter((o) => o !== '');
  const set = new Set(named);
  const text =
    carrier.format === 'list'
      ? cel`type(${e.cel}) == map && has(${e.cel}.owner) && type(${e.cel}.owner) == string && ${e.cel}.owner in ${celStringSet(named)}`
      : cel`${e.cel}.owner in ${celStringSet(named)}`;
  return leaf(text, (env) => {
    const v = e.js(env);
    return isRecord(v) && Object.hasOwn(v, 'owner') && typeof v['owner'] === 'string' && set.has(v['owner']);
  });
}
