// The hooks a policy writes (reservedHooks, defaultHooks) checked as the API server and the engine will see them (and the hooks impliedOwners names):
// the naming rules a Machine's hooks obey, kinds a default hook can be added to, Cluster API annotation keys, one
// owner per reserved hook, and the wildcard probe owner left to hookkeeper.
import { hookAnnotationKey } from '../../core/capi.js';
import { carrierFor } from '../../core/carriers.js';
import { WILDCARD_PROBE_OWNER } from '../../core/ownership.js';
import { escapePointerToken } from '../../core/pointer.js';
import { annotationKeyErrors } from '../../core/qualified-name.js';
import { checkString, NAME_LIMITS, OWNER_LIMITS } from '../../rules/hook-naming/rule.js';
import type { Problem } from '../../errors.js';
import { impliedOwnerProblems } from './implied-owners.js';
import { defaultHookKindProblem } from './kinds.js';
import { displayPath } from './paths.js';
import type { CheckedPolicy } from './policy-file.js';

export function hookFieldProblems(p: CheckedPolicy): Problem[] {
  const { at, schemaValid, valueAt, reservedHooks, defaultHooks, impliedOwners } = p;
  const problems: Problem[] = [];
  // Hooks written in the policy obey the same naming rules as hooks in a Machine.
  const hookFields: Array<[string, string]> = [
    ...reservedHooks.flatMap(([i]) => ['name', 'owner'].map((f): [string, string] => [`/reservedHooks/${i}/${f}`, f])),
    ...defaultHooks.flatMap(([i]) =>
      ['name', 'owner'].map((f): [string, string] => [`/defaultHooks/${i}/hook/${f}`, f]),
    ),
    // An implied owner is a hook's owner, written for it.
    ...impliedOwners.map(([i]): [string, string] => [`/impliedOwners/${i}/owner`, 'owner']),
  ];
  for (const [path, field] of hookFields) {
    if (!schemaValid(path)) continue;
    const limits = field === 'name' ? NAME_LIMITS : OWNER_LIMITS;
    const shown = displayPath(path);
    for (const c of checkString(shown, valueAt(path), limits))
      problems.push(at(path, c.message.replace(`${shown}: `, '')));
  }
  // A kind no default hook is ever added to would switch the protection off without a word.
  for (const [i] of defaultHooks) {
    const path = `/defaultHooks/${i}/match/kinds`;
    if (!schemaValid(path)) continue;
    (valueAt(path) as Array<{ group: string; kind: string }>).forEach((k, j) => {
      const message = defaultHookKindProblem(k);
      if (message !== undefined) problems.push(at(`${path}/${j}`, message));
    });
  }
  // A default hook for Cluster API kinds becomes an annotation, whose key the API server checks more strictly.
  for (const [i, r] of defaultHooks) {
    const base = `/defaultHooks/${i}`;
    if (!schemaValid(`${base}/match/kinds`) || !schemaValid(`${base}/stage`) || !schemaValid(`${base}/hook/name`))
      continue;
    if (!r.match.kinds.some((k) => carrierFor({ ...k, version: '' })?.format === 'annotations')) continue;
    const key = hookAnnotationKey(r.stage, r.hook.name);
    for (const e of annotationKeyErrors(key))
      problems.push(at(`${base}/hook/name`, `as Cluster API annotation key ${JSON.stringify(key)}: ${e}`));
  }
  for (const [path, message] of impliedOwnerProblems(impliedOwners, schemaValid)) problems.push(at(path, message));
  const seen = new Map<string, string>();
  for (const [i, h] of reservedHooks) {
    if (!schemaValid(`/reservedHooks/${i}/name`) || !schemaValid(`/reservedHooks/${i}/owner`)) continue;
    const other = seen.get(h.name);
    if (other !== undefined && other !== h.owner)
      problems.push(at(`/reservedHooks/${i}`, `hook ${h.name} is reserved twice with different owners`));
    seen.set(h.name, h.owner);
  }
  // The probe must stay an owner nobody holds by name, or wildcard rights could not be told from ownership.
  const reserved = `${WILDCARD_PROBE_OWNER} is reserved: hookkeeper asks RBAC about it to tell wildcard rights from a grant naming an owner`;
  if (schemaValid('/owners') && p.raw.owners && Object.hasOwn(p.raw.owners, WILDCARD_PROBE_OWNER))
    problems.push(at(`/owners/${escapePointerToken(WILDCARD_PROBE_OWNER)}`, reserved));
  for (const [path, field] of hookFields)
    if (field === 'owner' && schemaValid(path) && valueAt(path) === WILDCARD_PROBE_OWNER)
      problems.push(at(path, reserved));
  return problems;
}
