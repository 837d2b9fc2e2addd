// Rule hook-count: at most policy.maxHooksPerStage hooks in a stage of owners the policy does not name, and at most
// POLICY_OWNER_HOOKS_PER_STAGE of owners it names. The Machine CRDs set no maxItems, and native mode's CEL reads every
// hook, so without a bound one Machine editor can make every later hook change exceed the API server's cost limit;
// counted apart, what others add never refuses a named owner's hook (the etcd operator's, a default hook). A stored
// object already over a bound may lose hooks of that class or keep their count (warned), never gain.
import { capitalize } from '../../core/cel/text.js';
import { countCheck } from '../../core/expr/count-check.js';
import { entryOwnerIn } from '../../core/expr/entries.js';
import { int, minus, say, str, variable } from '../../core/expr/expr.js';
import { count, filter, type List } from '../../core/expr/lists.js';
import { hookCountMessage } from './messages.js';
import { namedOwners, POLICY_OWNER_HOOKS_PER_STAGE } from '../../core/policy.js';
import type { CarrierRuleModule } from '../context.js';

const check = countCheck({
  rule: 'hook-count',
  // Every entry counts, as the API server stores them (a malformed one too: it takes a place in the list), in two
  // classes: hooks whose owner the policy names, and every other entry.
  classes: (policy, carrier, s, entries) => {
    const owners = [...namedOwners(policy)];
    const stage = capitalize(s.stage);
    const named = (list: List<unknown>, old: string) =>
      variable(
        `hookCount${old}Named${stage}`,
        owners.length === 0 ? int(0) : count(filter(list, 'h', (e) => entryOwnerIn(carrier, e, owners))),
      );
    const [now, stored] = [named(entries.now, ''), named(entries.stored, 'Old')];
    const path = str(s.stagePath);
    const max = policy.maxHooksPerStage;
    return {
      variables: [now, stored],
      classes: [
        {
          now: minus(count(entries.now), now),
          stored: minus(count(entries.stored), stored),
          bound: max,
          message: say(hookCountMessage('others', max), { path, count: minus(count(entries.now), now) }),
          fix: `remove ${s.stage} hooks of owners the policy does not name until at most ${max} remain, raise maxHooksPerStage (at most 1000), or register their owner in the policy's owners`,
          key: `hook-count:${s.stage}:others`,
        },
        {
          now,
          stored,
          bound: POLICY_OWNER_HOOKS_PER_STAGE,
          message: say(hookCountMessage('named', max), { path, count: now }),
          fix: `remove ${s.stage} hooks of owners the policy names until at most ${POLICY_OWNER_HOOKS_PER_STAGE} remain`,
          key: `hook-count:${s.stage}:named`,
        },
      ],
    };
  },
  reason: 'Invalid',
});

export const hookCountRule: CarrierRuleModule<'hook-count'> = {
  id: 'hook-count',
  order: 20,
  enforcement: 'deny',
  // Ratcheting by count, in the check itself, not by key: an object over the bound may shrink, not grow.
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: ['hooks'] }),
  facts: [],
  summary: `at most maxHooksPerStage hooks per stage (default 64) of owners the policy does not name, and at most ${POLICY_OWNER_HOOKS_PER_STAGE} of owners it names (owners, reservedHooks, defaultHooks), so native mode stays inside its CEL cost budget and what others add never refuses a named owner's hook; an object stored over a bound may lose hooks, not gain any`,
  validate: check.validate,
  native: check.native,
};
