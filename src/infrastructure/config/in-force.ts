// What the policy puts in force together (the file's sections, else the embedded default's): reservations and
// default hooks that would contradict each other, two default hook rules of one name, child rules naming owners
// that are not registered. Each is found on the entries that passed the schema.
import type { DefaultHookRule, Policy } from '../../core/policy.js';
import type { Problem } from '../../errors.js';
import { childRuleProblems } from './children.js';
import { defaultHookConflicts, type InForce } from './default-hook-conflicts.js';
import { DEFAULT_POLICY } from './defaults.js';
import { displayPath } from './paths.js';
import type { CheckedPolicy } from './policy-file.js';

export function inForceProblems(p: CheckedPolicy): Problem[] {
  const { at, schemaValid, raw, reservedHooks, defaultHooks } = p;
  const problems: Problem[] = [];
  const reservedInForce: Array<InForce<Policy['reservedHooks'][number]>> =
    raw.reservedHooks === undefined
      ? DEFAULT_POLICY.reservedHooks.map((value) => ({ value }))
      : reservedHooks
          .filter(([i]) => schemaValid(`/reservedHooks/${i}/name`) && schemaValid(`/reservedHooks/${i}/owner`))
          .map(([i, value]) => ({ value, pointer: `/reservedHooks/${i}` }));
  const rulesInForce: Array<InForce<DefaultHookRule>> =
    raw.defaultHooks === undefined
      ? DEFAULT_POLICY.defaultHooks.map((value) => ({ value }))
      : defaultHooks
          .filter(([i]) =>
            ['match/kinds', 'stage', 'hook/name', 'hook/owner'].every((f) => schemaValid(`/defaultHooks/${i}/${f}`)),
          )
          .map(([i, r]) => ({ value: { ...r, operations: r.operations ?? [] }, pointer: `/defaultHooks/${i}` }));
  const where = (pointer: string): string => {
    const line = p.checked.doc.lineOf(pointer);
    return `${displayPath(pointer)}${line === undefined ? '' : ` (line ${line})`}`;
  };
  for (const [path, message] of defaultHookConflicts(reservedInForce, rulesInForce, where))
    problems.push(at(path, message));
  const ruleNames = new Set<string>();
  for (const [i, r] of defaultHooks) {
    if (!schemaValid(`/defaultHooks/${i}/name`)) continue;
    if (ruleNames.has(r.name))
      problems.push(at(`/defaultHooks/${i}/name`, `duplicate default hook rule name ${r.name}`));
    ruleNames.add(r.name);
  }
  // With an owners section that failed the schema, which owners are registered is unknown: not checked.
  const ownerKeys =
    raw.owners === undefined
      ? Object.keys(DEFAULT_POLICY.owners)
      : schemaValid('/owners')
        ? Object.keys(raw.owners)
        : undefined;
  for (const [path, message] of childRuleProblems(p.children, ownerKeys, schemaValid)) problems.push(at(path, message));
  return problems;
}
