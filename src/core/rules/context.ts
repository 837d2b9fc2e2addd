// What every rule receives: the policy, the request, and the hooks already read from both objects.
import type { HookCarrier, HookReading } from '../carriers.js';
import type { Policy } from '../policy.js';
import type { Notice, ReviewInput, Violation } from '../types.js';

export interface RuleContext {
  policy: Policy;
  input: ReviewInput;
  carrier: HookCarrier;
  hooks: HookReading;
  oldHooks: HookReading;
}

export interface RuleResult {
  violations: Violation[];
  notices?: Notice[];
}

export type Rule = (ctx: RuleContext) => RuleResult;
