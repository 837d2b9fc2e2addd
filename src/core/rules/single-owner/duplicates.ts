// single-owner's duplicates, the webhook's alone: a stage naming one hook twice. Native mode cannot say it (its
// index of a stage by name fails to build, divergences.ts), and the Machine API CRDs' list-map key refuses it first;
// `validate` and the audit read objects no API server checked. Annotation keys are unique, so never one there.
import { wellFormed, type RawHook } from '../../carriers.js';
import { duplicate } from '../../field-errors.js';
import { quote } from '../../guards.js';
import type { Violation } from '../../types.js';

export function duplicates(hooks: readonly RawHook[]): Violation[] {
  const violations: Violation[] = [];
  const firstById = new Map<string, string>();
  for (const h of wellFormed(hooks)) {
    const idKey = `${h.stage}\u0000${h.id}`;
    const first = firstById.get(idKey);
    if (first === undefined) {
      firstById.set(idKey, h.path);
      continue;
    }
    violations.push({
      rule: 'single-owner',
      path: h.path,
      message: duplicate(h.path, { name: h.name }).message,
      fix: `hook ${quote(h.name)} appears twice in ${h.stage} (at ${first} and ${h.path}): keep one entry, owned by one controller`,
      hook: { stage: h.stage, name: h.name, owner: h.owner },
      key: `duplicate:${h.stage}:${quote(h.id)}`,
    });
  }
  return violations;
}
