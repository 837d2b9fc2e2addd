// owner-only-removal's other half: a hook added under a guarded owner's name (registered, reserved or granted) on an
// existing object or into a template makes a Machine's deletion wait for that owner, so only those who act for the
// owner add it (the same right that removes it: whoever can make a deletion wait can end the wait), break-glass
// (warned, audited), or the migration's synchronizer mirroring the authoritative copy. Squatting is refused.
import { ownValue, quote } from '../../core/guards.js';
import { isBreakGlass, judgedOffline } from '../../core/identity.js';
import type { Hook } from '../../core/carriers.js';
import {
  grantCommand,
  guardsAdditions,
  judgedAdditions,
  registeredActor,
  registeredIdentities,
} from '../../core/ownership.js';
import {
  additionDenialMessage,
  breakGlassAddWarning,
  breakGlassText,
  ownerIdentitiesText,
  offlineOwnerOnlyReason,
  ownerOnlyReason,
  RBAC_ALLOWED_IDENTITIES,
  uncheckedNote,
  wildcardAddWarning,
  wildcardReason,
} from '../../core/messages/ownership.js';
import { mirroredAdditions } from '../../core/migration.js';
import type { Notice, UserInfo, Violation } from '../../core/types.js';
import type { RuleContext, RuleResult } from '../context.js';

/** An addition allowed to break-glass, to wildcard rights under wildcardGrants: warn, or as a synchronizer's mirror. */
export const AUDIT_KEY_BREAK_GLASS_ADDITION = 'break-glass-hook-addition';
export const AUDIT_KEY_WILDCARD_ADDITION = 'wildcard-hook-addition';
export const AUDIT_KEY_MIRROR_ADDITION = 'hook-mirror-addition';

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
  const user = input.userInfo;
  const ownership = input.context?.ownership;
  const granted = ownership?.grantsKnown ? ownership.granted : undefined;
  const mirrored = mirroredAdditions(policy, input);
  for (const h of judgedAdditions(policy, input, carrier)) {
    if (!guardsAdditions(policy, granted, h.owner)) continue;
    if (registeredActor(policy, user, h.owner)) continue;
    const ids = registeredIdentities(policy, h.owner);
    if (mirrored?.(h)) {
      notices.push({ rule: 'owner-only-removal', audit: trace(AUDIT_KEY_MIRROR_ADDITION, h, user, 'mirror') });
      continue;
    }
    if (isBreakGlass(user, policy)) {
      notices.push({
        rule: 'owner-only-removal',
        warning: breakGlassAddWarning.toJs(slots(h, user)),
        audit: trace(AUDIT_KEY_BREAK_GLASS_ADDITION, h, user, 'break-glass'),
        breakGlass: { action: 'hook-addition', owners: [h.owner] },
      });
      continue;
    }
    const access = ownership ? (ownValue(ownership.access, h.owner) ?? 'unknown') : undefined;
    if (access === 'allowed') continue;
    if (access === 'wildcard' && policy.wildcardGrants === 'warn') {
      notices.push({
        rule: 'owner-only-removal',
        warning: wildcardAddWarning.toJs(slots(h, user)),
        audit: trace(AUDIT_KEY_WILDCARD_ADDITION, h, user, 'wildcard'),
      });
      continue;
    }
    const breakGlass = breakGlassText(policy);
    if (access === 'wildcard') {
      const reason = wildcardReason.toJs({ user: user.username, breakGlass, grant: grantCommand(h.owner) });
      violations.push(denial(h, user, reason));
      continue;
    }
    // `validate` without --as: a grant to the identity it judges as would change nothing (see offlineGrantFor).
    const offline = judgedOffline(input);
    const reason = (offline ? offlineOwnerOnlyReason : ownerOnlyReason).toJs({
      user: user.username,
      breakGlass,
      who: ids ? ownerIdentitiesText(ids) : RBAC_ALLOWED_IDENTITIES,
      unchecked: access === 'unknown' ? uncheckedNote.toJs({ user: user.username, owner: h.owner, adding: true }) : '',
      grant: offline ? grantCommand(h.owner) : grantCommand(h.owner, user),
    });
    violations.push(denial(h, user, reason));
  }
  return { violations, notices };
}
