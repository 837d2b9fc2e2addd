// Semantic checks of impliedOwners beyond the schema: the key must be a Cluster API hook annotation key the API
// server stores, and one key implies one owner (two would make the same empty hook two owners').
import { HOOK_ANNOTATION_PREFIX, parseHookAnnotationKey } from '../../core/capi.js';
import { MACHINE_STAGES } from '../../core/carriers.js';
import type { ImpliedOwner } from '../../core/policy.js';
import { annotationKeyErrors } from '../../core/qualified-name.js';

// A Machine's deletion hooks, where the control-plane providers leave the value empty.
const KEY_FORMS = MACHINE_STAGES.map((s) => `${HOOK_ANNOTATION_PREFIX[s]}/<name>`).join(' or ');

export function impliedOwnerProblems(
  entries: ReadonlyArray<[number, ImpliedOwner]>,
  schemaValid: (path: string) => boolean,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Map<string, string>();
  for (const [i, { hook, owner }] of entries) {
    const path = `/impliedOwners/${i}/hook`;
    if (!schemaValid(path)) continue;
    if (parseHookAnnotationKey(hook, MACHINE_STAGES)?.canonical !== true) {
      out.push([path, `must be a Cluster API hook annotation key: ${KEY_FORMS}`]);
      continue;
    }
    const errors = annotationKeyErrors(hook);
    for (const e of errors) out.push([path, `as an annotation key: ${e}`]);
    if (errors.length > 0 || !schemaValid(`/impliedOwners/${i}/owner`)) continue;
    const other = seen.get(hook);
    if (other === undefined) seen.set(hook, owner);
    else if (other !== owner)
      out.push([
        `/impliedOwners/${i}`,
        `hook ${hook} implies two owners: ${JSON.stringify(other)} and ${JSON.stringify(owner)}`,
      ]);
  }
  return out;
}
