// What both of owner-only-removal's route lists read in the webhook besides the hook at hand: the policy, the
// request, its ownership fact, break-glass, and RBAC's answer about the owner being judged (./routes.ts,
// ./addition-routes.ts).
import { ownValue } from '../../core/guards.js';
import { isBreakGlass } from '../../core/identity.js';
import type { Policy } from '../../core/policy.js';
import type { Ownership, ReviewInput } from '../../core/types.js';
import type { Env } from '../../core/expr/expr.js';

export class OwnerEnv implements Env {
  memo: Map<string, unknown> | undefined;
  /** RBAC's answer about the owner being judged: undefined when not consulted (or no owner), 'unknown' unasked. */
  access: 'allowed' | 'wildcard' | 'denied' | 'unknown' | undefined;
  readonly ownership: Ownership | undefined;
  readonly breakGlass: boolean;
  constructor(
    readonly policy: Policy,
    readonly input: ReviewInput,
  ) {
    this.ownership = input.context?.ownership;
    this.breakGlass = isBreakGlass(input.userInfo, policy);
  }
  /** The next owner: its RBAC answer read once. */
  protected judge(owner: string): void {
    this.access = owner === '' || !this.ownership ? undefined : (ownValue(this.ownership.access, owner) ?? 'unknown');
  }
}
