// Implied owners: a Cluster API control-plane provider writes its hook with an empty value (KubeadmControlPlane's
// pre-terminate kcp-cleanup), so the policy names the owner its key stands for. Both engines judge a stored hook's
// removal as that owner's: impliedOwner for the TypeScript rules, impliedOwnerCel for their CEL.
import { HOOK_ANNOTATION_PREFIX } from './capi.js';
import type { Hook, HookCarrier } from './carriers.js';
import { cel, celString, type Cel } from './cel/text.js';
import type { Policy } from './policy.js';
import type { Stage } from './types.js';

/**
 * The owner a hook stands for: its own, or, when empty, the one the policy implies for its annotation key (only
 * Cluster API carriers: a list's hook is identified by its name, which no implied key matches by design).
 */
export function impliedOwner(policy: Policy, carrier: HookCarrier, hook: Pick<Hook, 'id' | 'owner'>): string {
  if (hook.owner !== '' || carrier.format !== 'annotations') return hook.owner;
  return policy.impliedOwners.find((i) => i.hook === hook.id)?.owner ?? '';
}

/** How a finding names an owner the policy implies (the hook's own value is empty). */
export const IMPLIED_OWNER_NOTE = ' (implied by the policy for its key: the value is empty)';

/** The hook with its implied owner in place (itself when nothing is implied). */
export function withImpliedOwner<H extends Pick<Hook, 'id' | 'owner'>>(
  policy: Policy,
  carrier: HookCarrier,
  hook: H,
): H {
  const owner = impliedOwner(policy, carrier, hook);
  return owner === hook.owner ? hook : { ...hook, owner };
}

/**
 * CEL string: the owner of hook `h` ({name, owner, key} on an annotation carrier) of `stage` as impliedOwner reads
 * it; `h.owner` alone on a list carrier or when the policy implies none for the stage. Keys compare whole, the first
 * entry for a key wins; only the stage's keys are compared (another stage's key never equals its hooks').
 */
export function impliedOwnerCel(policy: Policy, carrier: HookCarrier, stage: Stage, h: Cel): Cel {
  const prefix = `${HOOK_ANNOTATION_PREFIX[stage]}/`;
  const implied = policy.impliedOwners.filter((i) => i.hook.startsWith(prefix));
  if (carrier.format !== 'annotations' || implied.length === 0) return cel`${h}.owner`;
  let out = cel`''`;
  for (const i of [...implied].reverse()) out = cel`${h}.key == ${celString(i.hook)} ? ${celString(i.owner)} : ${out}`;
  return cel`(${h}.owner != '' ? ${h}.owner : (${out}))`;
}
