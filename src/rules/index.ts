// Written by `npm run render:rules` from the folders of src/rules/: do not edit.
import type { RuleModule } from './context.js';
import { hookNamingRule } from './hook-naming/rule.js';
import { hookCountRule } from './hook-count/rule.js';
import { singleOwnerRule } from './single-owner/rule.js';
import { ownerOnlyRemovalRule } from './owner-only-removal/rule.js';
import { quorumProtectionRule } from './quorum-protection/rule.js';
import { templateHookRemovedRule } from './template-hook-removed/rule.js';
import { deletionFreezeRule } from './deletion-freeze/rule.js';
import { controllerFinalizerRule } from './controller-finalizer/rule.js';
import { ownerReferencesRule } from './owner-references/rule.js';
import { defaultHooksRule } from './default-hooks/rule.js';
import { defaultHookKeptRule } from './default-hook-kept/rule.js';
import { missingDefaultHookRule } from './missing-default-hook/rule.js';
import { capiMigrationRule } from './capi-migration/rule.js';
import { childOwnerReferenceRule } from './child-owner-reference/rule.js';
import { childParentRule } from './child-parent/rule.js';
import { childFinalizerRule } from './child-finalizer/rule.js';
import { crdSchemaRule } from './crd-schema/rule.js';
import { stuckDeletionRule } from './stuck-deletion/rule.js';
import { orphanedOwnerRule } from './orphaned-owner/rule.js';
import { quorumAtRiskRule } from './quorum-at-risk/rule.js';
import { unprotectedOwnerRule } from './unprotected-owner/rule.js';

/** In evaluation order: a decision lists violations rule by rule in this order. */
export const RULES = [
  hookNamingRule,
  hookCountRule,
  singleOwnerRule,
  ownerOnlyRemovalRule,
  quorumProtectionRule,
  templateHookRemovedRule,
  deletionFreezeRule,
  controllerFinalizerRule,
  ownerReferencesRule,
  defaultHooksRule,
  defaultHookKeptRule,
  missingDefaultHookRule,
  capiMigrationRule,
  childOwnerReferenceRule,
  childParentRule,
  childFinalizerRule,
  crdSchemaRule,
  stuckDeletionRule,
  orphanedOwnerRule,
  quorumAtRiskRule,
  unprotectedOwnerRule,
] as const satisfies readonly RuleModule[];
