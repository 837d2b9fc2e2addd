// Machine API -> Cluster API migration check: each {name, owner} hook becomes the annotation
// "<stage prefix>/<name>: <owner>", and some names Machine API accepts make a key the API server rejects.
import { hookAnnotationKey } from '../../capi.js';
import type { HookCarrier, HookReading } from '../../carriers.js';
import { quote } from '../../guards.js';
import { annotationKeyErrors } from '../../qualified-name.js';
import { checkString, NAME_LIMITS } from '../hook-naming/rule.js';
import type { Violation } from '../../types.js';
import { unconvertibleMessage } from './messages.js';

/**
 * Hooks of a Machine API object (carrier format 'list') whose names are valid there but cannot become a
 * Cluster API hook annotation key: a DNS-prefixed name ("example.com/Hook") gives the key a second '/', and a
 * name part over 63 characters exceeds the qualified-name limit. Invalid names are left to hook-naming.
 */
export function capiMigrationWarnings(carrier: HookCarrier, reading: HookReading): Violation[] {
  if (carrier.format !== 'list') return [];
  const out: Violation[] = [];
  for (const h of reading.hooks) {
    if (typeof h.name !== 'string' || checkString(h.namePath, h.name, NAME_LIMITS).length > 0) continue;
    const key = hookAnnotationKey(h.stage, h.name);
    const errors = annotationKeyErrors(key);
    if (errors.length === 0) continue;
    const namePart = h.name.slice(h.name.lastIndexOf('/') + 1);
    const suggestion = namePart !== h.name && namePart.length <= 63 ? ` (e.g. ${quote(namePart)})` : '';
    out.push({
      rule: 'capi-migration',
      path: h.namePath,
      message: unconvertibleMessage.toJs({ path: h.namePath, name: h.name, key, errors: errors.join('; ') }),
      fix: `before migrating to Cluster API, rename the hook to a name without '/' of at most 63 characters${suggestion}, and update ${typeof h.owner === 'string' ? quote(h.owner) : 'its owner'}, which removes it by name`,
      hook: { stage: h.stage, name: h.name, owner: typeof h.owner === 'string' ? h.owner : '' },
      // As the CEL ratchets it (celWasStored): the same name with the same owner was stored.
      key: `capi-migration:${h.stage}:${quote(h.name)}:${quote(typeof h.owner === 'string' ? h.owner : '')}`,
    });
  }
  return out;
}
