// Default hooks that defeat single-owner: a reserved name given another owner, or one name given two owners by two
// rules that can meet on one object. Loaded, such a policy has every Machine it mutates refused by its own patch.
import type { DefaultHookRule, ObjectSelector, Policy } from '../../core/policy.js';
import { quote } from '../../core/guards.js';

/** An entry of the policy in force: from the file (with its JSON Pointer) or from the embedded default. */
export interface InForce<T> {
  value: T;
  /** JSON Pointer of the entry in the file; undefined when the entry is the embedded default's. */
  pointer?: string;
}

/**
 * Problems as [pointer, message], each at the entry in the file; `where(pointer)` names the other place
 * (e.g. "reservedHooks[0] (line 4)"). Two entries of the embedded default never conflict, so never reported.
 */
export function defaultHookConflicts(
  reserved: ReadonlyArray<InForce<Policy['reservedHooks'][number]>>,
  rules: ReadonlyArray<InForce<Pick<DefaultHookRule, 'name' | 'match' | 'stage' | 'hook'>>>,
  where: (pointer: string) => string,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const owner = (p: string): string => `${p}/owner`;
  const hookOwner = (p: string): string => `${p}/hook/owner`;
  for (const r of rules) {
    const { hook } = r.value;
    for (const res of reserved) {
      if (res.value.name !== hook.name || res.value.owner === hook.owner) continue;
      if (r.pointer !== undefined) {
        const other =
          res.pointer === undefined
            ? 'the embedded default policy (this file sets no reservedHooks)'
            : where(res.pointer);
        out.push([
          hookOwner(r.pointer),
          `default hook ${r.value.name} gives hook ${quote(hook.name)} owner ${quote(hook.owner)}, but ${other} reserves that name for ${quote(res.value.owner)}: single-owner would refuse every object the rule patches; give the hook owner ${quote(res.value.owner)} or choose another name`,
        ]);
      } else if (res.pointer !== undefined) {
        out.push([
          owner(res.pointer),
          `reserves hook ${quote(hook.name)} for ${quote(res.value.owner)}, but default hook ${r.value.name} of the embedded default policy (this file sets no defaultHooks) gives it owner ${quote(hook.owner)}: single-owner would refuse every object that rule patches; set defaultHooks, or reserve the name for ${quote(hook.owner)}`,
        ]);
      }
    }
  }
  // One name, one owner across both stages (single-owner), for every pair of rules that can select one object.
  rules.forEach((b, j) => {
    for (const a of rules.slice(0, j)) {
      if (a.value.hook.name !== b.value.hook.name || a.value.hook.owner === b.value.hook.owner) continue;
      if (!canMeet(a.value.match, b.value.match) || b.pointer === undefined) continue;
      const other = a.pointer === undefined ? 'the embedded default policy' : `${where(hookOwner(a.pointer))}`;
      out.push([
        hookOwner(b.pointer),
        `default hook ${b.value.name} gives hook ${quote(b.value.hook.name)} (${b.value.stage}) owner ${quote(b.value.hook.owner)}, but default hook ${a.value.name} at ${other} gives it (${a.value.stage}) owner ${quote(a.value.hook.owner)}; a hook name has one owner in both stages (single-owner), so every object both rules match would be refused: use one owner or another name`,
      ]);
    }
  });
  return out;
}

/**
 * Whether two selectors can select one object: a kind in common and, where both list namespaces, a namespace in
 * common. Label selectors are not compared: two of them may well both match one object's labels.
 */
function canMeet(a: ObjectSelector, b: ObjectSelector): boolean {
  const kinds = a.kinds.some((k) => b.kinds.some((l) => k.group === l.group && k.kind === l.kind));
  const namespaces =
    a.namespaces === undefined || b.namespaces === undefined || a.namespaces.some((n) => b.namespaces?.includes(n));
  return kinds && namespaces;
}
