// owner-only-removal's other half, in the webhook: each hook a request adds under another's name takes the first
// addition route that holds (./addition-routes.ts); a denial's words are the route's, filled from what the webhook
// knows (offline `validate`, an owner RBAC could not be asked about). Squatting is refused.
import { quote } from '../../core/guards.js';
import { judgedOffline } from '../../core/identity.js';
import type { Hook } from '../../core/carriers.js';
import { judgedAdditions } from '../../core/ownership.js';
import { additionDenialMessage } from '../../core/messages/ownership.js';
import { mirroredAdditions } from '../../core/migration.js';
import type { Notice, UserInfo, Violation } from '../../core/types.js';
import type { RuleContext, RuleResult } from '../context.js';
import { AdditionEnv, additionRoutes } from './addition-routes.js';
import { routeFor } from './route-list.js';
import { reasonText } from './reasons.js';

function trace(key: string, h: Hook, user: UserInfo, route: string): Notice['audit'] {
  return {
    key,
    value: JSON.stringify({
      stage: h.stage,
      hook: h.name,
      owner: h.owner,
      user: user.username,
      action: 'addition',
      route,
    }),
  };
}

const slots = (h: Hook, user: UserInfo) => ({
  path: h.path,
  user: user.username,
  stage: h.stage,
  name: h.name,
  owner: h.owner,
});

function denial(h: Hook, user: UserInfo, reason: string): Violation {
  return {
    rule: 'owner-only-removal',
    path: h.path,
    message: additionDenialMessage.toJs({ ...slots(h, user), reason }),
    fix: `leave hook ${quote(h.name)} to its owner ${quote(h.owner)}, or add it under an owner you act for`,
    hook: { stage: h.stage, name: h.name, owner: h.owner },
    key: `squat:${h.stage}:${quote(h.name)}:${quote(h.owner)}`,
  };
}

/** The additions of guarded owners' hooks this request makes, judged; nothing for those who act for the owner. */
export function ownerAdditions(ctx: RuleContext): Required<Omit<RuleResult, 'warnings'>> {
  const { policy, input, carrier } = ctx;
  const violations: Violation[] = [];
  const notices: Notice[] = [];
  const added = judgedAdditions(policy, input, carrier);
  if (added.length === 0) return { violations, notices };
  const user = input.userInfo;
  const routes = additionRoutes(policy);
  const e = new AdditionEnv(policy, input, mirroredAdditions(policy, input));
  // `validate` without --as: a grant to the identity it judges as would change nothing (see offlineGrantFor).
  const offline = judgedOffline(input);
  for (const h of added) {
    e.enter(h);
    const route = routeFor(routes, e);
    if (route.outcome === 'deny') {
      const facts = { user, owner: h.owner, offline, accessUnknown: e.access === 'unknown', adding: true };
      violations.push(denial(h, user, reasonText(route.reason, policy, facts)));
    } else if (route.outcome !== 'allow')
      notices.push({
        rule: 'owner-only-removal',
        warning: route.warning.toJs(slots(h, user)),
        audit: trace(route.audit, h, user, route.name),
        ...(route.outcome === 'breakGlass' ? { breakGlass: { action: 'hook-addition', owners: [h.owner] } } : {}),
      });
    else if (route.audit) notices.push({ rule: 'owner-only-removal', audit: trace(route.audit, h, user, route.name) });
  }
  return { violations, notices };
}
