// Rule hook-count: at most policy.maxHooksPerStage hooks in a stage. The Machine CRDs set no maxItems, and native
// mode's CEL reads every hook, so without a bound one Machine editor can make every later hook change exceed the API
// server's cost limit. A stored object already over the bound may lose hooks or keep its count (warned), never gain.
import { STAGES, type HookCarrier, type HookReading } from '../carriers.js';
import type { Stage, Violation } from '../types.js';
import { nativeHookCount } from '../cel/hook-count.js';
import { hookCountMessage } from '../messages/hook-count.js';
import type { CarrierRuleModule } from './context.js';

/** Entries in one stage as the API server counts them: every list entry (malformed ones too), or every key. */
function count(reading: HookReading, carrier: HookCarrier, stage: Stage): number {
  const stagePath = `${carrier.stagePath(stage)}[`;
  let n = 0;
  for (const h of reading.hooks) if (h.stage === stage) n++;
  // An entry that is no object is a problem, not a hook, for the other rules; it still takes a place in the list.
  if (carrier.format === 'list') for (const p of reading.problems) if (p.path.startsWith(stagePath)) n++;
  return n;
}

export const hookCountRule: CarrierRuleModule<'hook-count'> = {
  id: 'hook-count',
  enforcement: 'deny',
  // Ratcheting by count, here, not by key: an object over the bound may shrink, not grow.
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: ['hooks'] }),
  facts: [],
  summary:
    'at most maxHooksPerStage hooks per stage (default 64), so native mode stays inside its CEL cost budget; an object stored over it may lose hooks, not gain any',
  validate: ({ policy, input, carrier, hooks, oldHooks }) => {
    const max = policy.maxHooksPerStage;
    const violations: Violation[] = [];
    const warnings: Violation[] = [];
    for (const stage of STAGES) {
      const n = count(hooks, carrier, stage);
      if (n <= max) continue;
      const path = carrier.stagePath(stage);
      const violation: Violation = {
        rule: 'hook-count',
        path,
        message: hookCountMessage(max).toJs({ path, count: n }),
        fix: `remove ${stage} hooks until at most ${max} remain, or raise maxHooksPerStage (at most 1000)`,
        key: `hook-count:${stage}`,
      };
      const shrinksOrKeeps = input.operation === 'UPDATE' && count(oldHooks, carrier, stage) >= n;
      (shrinksOrKeeps ? warnings : violations).push(violation);
    }
    return { violations, warnings };
  },
  native: { validating: nativeHookCount },
};
