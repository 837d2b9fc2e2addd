// owner-only-removal's migration half (issue #34.4): a copy of a migrated Machine created without a hook its twin
// carries is, to the synchronizer, the owner's removal of that hook once the copy is authoritative (its mirror route,
// src/core/migration.ts). So only who could remove the hook makes such a copy: the owner's registered identities or
// break-glass (warned); the synchronizer and the machine controllers are not judged (createJudgedAgainstTwin).
import type { Hook } from '../../core/carriers.js';
import { quote } from '../../core/guards.js';
import { actsFor, isBreakGlass } from '../../core/identity.js';
import { reviewName, twinHooksLeftOut } from '../../core/migration.js';
import { breakGlassText } from '../../core/messages/ownership.js';
import { breakGlassTwinWarning, TWIN_PATH, twinHookLeftOutMessage, twinUnreadMessage } from './twin-messages.js';
import { grantsUnknown, isProtected, registeredIdentities } from '../../core/ownership.js';
import type { Notice, Violation } from '../../core/types.js';
import type { RuleContext, RuleResult } from '../context.js';

/** Break-glass made a copy without its twin's hook: auditAnnotations key (the webhook prefixes it with its name). */
export const AUDIT_KEY_BREAK_GLASS_TWIN = 'break-glass-twin-creation';

/** The CREATE's judgement against its twin; nothing for any other review. */
export function twinCreate(ctx: RuleContext): Required<Omit<RuleResult, 'warnings'>> {
  const { policy, input } = ctx;
  const left = twinHooksLeftOut(policy, input);
  if (!left) return { violations: [], notices: [] };
  const user = input.userInfo;
  const name = reviewName(input) ?? '';
  const kind = `${input.kind.group}/${input.kind.kind}`;
  if (left.unread !== undefined) {
    const message = twinUnreadMessage.toJs({ user: user.username, kind, name, twin: left.twin, reason: left.unread });
    const fix = 'retry the create once the API server answers hookkeeper again';
    return {
      violations: [{ rule: 'owner-only-removal', path: TWIN_PATH, message, fix, key: 'twin:unread' }],
      notices: [],
    };
  }
  const ownership = input.context?.ownership;
  const violations: Violation[] = [];
  const notices: Notice[] = [];
  for (const h of left.hooks) {
    // What anyone may remove gains nothing from a mirror: only what a removal would be refused for is judged.
    const judged =
      isProtected(policy, ownership, h.owner) ||
      grantsUnknown(ownership, h.owner) ||
      policy.unverifiedRemoval === 'deny';
    if (!judged) continue;
    const ids = registeredIdentities(policy, h.owner);
    if (ids && actsFor(user, ids)) continue;
    if (isBreakGlass(user, policy)) {
      notices.push({
        rule: 'owner-only-removal',
        warning: breakGlassTwinWarning.toJs({ user: user.username, name, hook: h.name, owner: h.owner }),
        audit: { key: AUDIT_KEY_BREAK_GLASS_TWIN, value: auditValue(h, user.username, left.twin) },
        breakGlass: { action: 'twin-creation', owners: [h.owner] },
      });
      continue;
    }
    violations.push({
      rule: 'owner-only-removal',
      path: TWIN_PATH,
      message: twinHookLeftOutMessage.toJs({
        user: user.username,
        kind,
        name,
        twin: left.twin,
        stage: h.stage,
        hook: h.name,
        owner: h.owner,
        breakGlass: breakGlassText(policy),
      }),
      fix: `create it with hook ${quote(h.name)} of owner ${quote(h.owner)} in ${h.stage}, as its twin carries it`,
      hook: { stage: h.stage, name: h.name, owner: h.owner },
      key: `twin:${h.stage}:${quote(h.name)}:${quote(h.owner)}`,
    });
  }
  return { violations, notices };
}

function auditValue(h: Hook, user: string, twin: string): string {
  return JSON.stringify({
    stage: h.stage,
    hook: h.name,
    owner: h.owner,
    user,
    twin,
    action: 'creation',
    route: 'break-glass',
  });
}
