// strictOwners (owner-only-removal): a hook added with an owner nobody registered or granted is refused, one
// violation per hook at its owner. Written once for both engines; CEL cannot list RBAC grants, so native mode accepts
// registered owners only (ownerProtected, a divergence this rule declares).
import { eq, or, quote, say, str } from '../../core/expr/expr.js';
import { hookCheck } from '../../core/expr/hook-check.js';
import { ownerProtected, RBAC_NOTE } from '../../core/expr/owners.js';
import { strictOwnersMessage } from '../../core/messages/ownership.js';
import { grantCommand } from '../../core/ownership.js';

export const strictOwners = hookCheck({
  rule: 'owner-only-removal',
  // A hook stored with the same identity and owner is not added by this request.
  passes: (h, s) => or(ownerProtected(h.owner), s.wasStored(h)),
  message: (h) =>
    say(strictOwnersMessage, {
      path: h.ownerPath,
      owner: h.owner,
      name: h.name,
      ownerless: eq(h.owner, str('')),
      rbac: RBAC_NOTE,
    }),
  at: 'owner',
  fix: (h) =>
    h.owner === ''
      ? 'give the hook an owner that is registered or granted'
      : `register owner ${quote(h.owner)} under "owners" in the hookkeeper policy, grant it (${grantCommand(h.owner)}), or use a registered owner`,
  ratchets: false,
  reason: 'Invalid',
  namesHook: true,
  key: (h) => `unregistered:${h.stage}:${quote(h.name)}:${quote(h.owner)}`,
});
