// single-owner's duplicates, the webhook's alone: a stage naming one hook twice. Native mode cannot say it (its
// index of a stage by name fails to build, divergences.ts), and the Machine API CRDs' list-map key refuses it first;
// `validate` and the audit read objects no API server checked. Annotation keys are unique, so never one there.
import type { HookCarrier } from '../../core/carriers.js';
import { duplicate } from '../../core/field-errors.js';
import { quote } from '../../core/guards.js';
import type { HookEnv } from '../../core/expr/hooks.js';
import type { Violation } from '../../core/types.js';

export function duplicates(carrier: HookCarrier, env: HookEnv): Violation[] {
  const violations: Violation[] = [];
  for (const stage of carrier.stages) {
    const hooks = env.stage(stage, false);
    if (hooks.length < 2) continue;
    const first = new Map<string, string>();
    for (const h of hooks) {
      const at = first.get(h.id);
      if (at === undefined) {
        first.set(h.id, h.path);
        continue;
      }
      violations.push({
        rule: 'single-owner',
        path: h.path,
        message: duplicate(h.path, { name: h.name }).message,
        fix: `hook ${quote(h.name)} appears twice in ${stage} (at ${at} and ${h.path}): keep one entry, owned by one controller`,
        hook: { stage, name: h.name, owner: h.owner },
        key: `duplicate:${stage}:${quote(h.id)}`,
      });
    }
  }
  return violations;
}
