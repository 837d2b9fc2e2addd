// hook-count in CEL: each stage's hooks counted in two classes, as src/core/rules/hook-count/rule.ts counts them: of owners
// the policy names (namedOwners) and every other entry. A stage no longer than the smaller bound is settled by size()
// alone, O(1); a longer one costs one pass over it (and over the stored stage when it is over a bound). oldHooks is
// empty on CREATE, so only an UPDATE that does not grow a class ratchets it.
import { hookCountMessage, type HookClass } from './messages.js';
import { namedOwners, POLICY_OWNER_HOOKS_PER_STAGE } from '../../policy.js';
import { capitalize, cel, celString, celStringSet, celVariable, type Cel } from '../../cel/text.js';
import type { CelVariable, NativeContext, NativeValidating, NativeValidation } from '../../cel/types.js';

export function nativeHookCount({ policy, view }: NativeContext): NativeValidating {
  const owners = [...namedOwners(policy)];
  const bound: Record<HookClass, number> = { others: policy.maxHooksPerStage, named: POLICY_OWNER_HOOKS_PER_STAGE };
  const small = Math.min(bound.others, bound.named);
  // A list entry may be malformed (no object, no string owner): then it is no named owner's, as the webhook reads it.
  const isNamed =
    view.carrier.format === 'list'
      ? cel`type(h) == map && has(h.owner) && type(h.owner) == string && h.owner in ${celStringSet(owners)}`
      : cel`h.owner in ${celStringSet(owners)}`;
  const namedIn = (hooks: Cel): Cel => (owners.length === 0 ? cel`0` : cel`size(${hooks}.filter(h, ${isNamed}))`);
  const variables: CelVariable[] = [];
  const validations: NativeValidation[] = [];
  for (const s of view.stages) {
    const [now, was] = [`hookCountNamed${capitalize(s.stage)}`, `hookCountOldNamed${capitalize(s.stage)}`];
    variables.push({ name: now, expression: namedIn(s.hooks) }, { name: was, expression: namedIn(s.oldHooks) });
    const counts: Record<HookClass, { now: Cel; was: Cel }> = {
      named: { now: celVariable(now), was: celVariable(was) },
      others: {
        now: cel`(size(${s.hooks}) - ${celVariable(now)})`,
        was: cel`(size(${s.oldHooks}) - ${celVariable(was)})`,
      },
    };
    for (const kind of ['others', 'named'] as const) {
      const { now: n, was: w } = counts[kind];
      const short = cel`size(${s.hooks}) <= ${small}`;
      const within = cel`${n} <= ${bound[kind]}`;
      const keeps = cel`${w} >= ${n}`;
      const message = hookCountMessage(kind, policy.maxHooksPerStage).toCel({
        path: celString(s.stagePath),
        count: n,
      });
      validations.push(
        {
          outcome: 'enforced',
          expression: cel`${short} || ${within} || ${keeps}`,
          messageExpression: message,
          reason: 'Invalid',
        },
        {
          outcome: 'existing',
          expression: cel`${short} || ${within} || !(${keeps})`,
          messageExpression: message,
          reason: 'Invalid',
        },
      );
    }
  }
  return { variables, validations };
}
