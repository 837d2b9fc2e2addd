// Rule hook-count: at most policy.maxHooksPerStage hooks in a stage of owners the policy does not name, and at most
// POLICY_OWNER_HOOKS_PER_STAGE of owners it names. The Machine CRDs set no maxItems, and native mode's CEL reads every
// hook, so without a bound one Machine editor can make every later hook change exceed the API server's cost limit;
// counted apart, what others add never refuses a named owner's hook (the etcd operator's, a default hook). A stored
// object already over a bound may lose hooks of that class or keep their count (warned), never gain.
import { type HookCarrier, type HookReading } from '../../carriers.js';
import type { Stage, Violation } from '../../types.js';
import { nativeHookCount } from './cel.js';
import { hookCountMessage, type HookClass } from './messages.js';
import { namedOwners, POLICY_OWNER_HOOKS_PER_STAGE } from '../../policy.js';
import type { CarrierRuleModule } from '../context.js';

type Counts = Record<HookClass, number>;

/**
 * Entries in one stage as the API server counts them (every list entry, malformed ones too, or every key), split by
 * owner: a hook whose owner is a string the policy names, and every other entry.
 */
function count(reading: HookReading, carrier: HookCarrier, stage: Stage, named: ReadonlySet<string>): Counts {
  const stagePath = `${carrier.stagePath(stage)}[`;
  const n: Counts = { others: 0, named: 0 };
  for (const h of reading.hooks)
    if (h.stage === stage) n[typeof h.owner === 'string' && named.has(h.owner) ? 'named' : 'others']++;
  // An entry that is no object is a problem, not a hook, for the other rules; it still takes a place in the list.
  if (carrier.format === 'list') for (const p of reading.problems) if (p.path.startsWith(stagePath)) n.others++;
  return n;
}

export const hookCountRule: CarrierRuleModule<'hook-count'> = {
  id: 'hook-count',
  order: 20,
  enforcement: 'deny',
  // Ratcheting by count, here, not by key: an object over the bound may shrink, not grow.
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: ['hooks'] }),
  facts: [],
  summary: `at most maxHooksPerStage hooks per stage (default 64) of owners the policy does not name, and at most ${POLICY_OWNER_HOOKS_PER_STAGE} of owners it names (owners, reservedHooks, defaultHooks), so native mode stays inside its CEL cost budget and what others add never refuses a named owner's hook; an object stored over a bound may lose hooks, not gain any`,
  validate: ({ policy, input, carrier, hooks, oldHooks }) => {
    const named = namedOwners(policy);
    const bound: Counts = { others: policy.maxHooksPerStage, named: POLICY_OWNER_HOOKS_PER_STAGE };
    const violations: Violation[] = [];
    const warnings: Violation[] = [];
    for (const stage of carrier.stages) {
      const n = count(hooks, carrier, stage, named);
      // The stored object is counted only for a stage over a bound, as before the split: not on every UPDATE.
      let old: Counts | undefined;
      for (const kind of ['others', 'named'] as const) {
        if (n[kind] <= bound[kind]) continue;
        if (input.operation === 'UPDATE') old ??= count(oldHooks, carrier, stage, named);
        const path = carrier.stagePath(stage);
        const violation: Violation = {
          rule: 'hook-count',
          path,
          message: hookCountMessage(kind, policy.maxHooksPerStage).toJs({ path, count: n[kind] }),
          fix:
            kind === 'others'
              ? `remove ${stage} hooks of owners the policy does not name until at most ${bound.others} remain, raise maxHooksPerStage (at most 1000), or register their owner in the policy's owners`
              : `remove ${stage} hooks of owners the policy names until at most ${bound.named} remain`,
          key: `hook-count:${stage}:${kind}`,
        };
        const shrinksOrKeeps = old !== undefined && old[kind] >= n[kind];
        (shrinksOrKeeps ? warnings : violations).push(violation);
      }
    }
    return { violations, warnings };
  },
  native: { validating: nativeHookCount, readsNameIndex: false },
};
