// Written by `npm run render:rules` from the folders of src/rules/: do not edit.
// The rules' ids, in evaluation order: a leaf that the RuleId type (and so every violation, policy and report type)
// is read from without importing the rules themselves.
export const RULE_IDS = [
  'hook-naming',
  'hook-count',
  'single-owner',
  'owner-only-removal',
  'quorum-protection',
  'template-hook-removed',
  'deletion-freeze',
  'controller-finalizer',
  'owner-references',
  'default-hooks',
  'default-hook-kept',
  'missing-default-hook',
  'capi-migration',
  'child-owner-reference',
  'child-parent',
  'child-finalizer',
  'crd-schema',
  'stuck-deletion',
  'orphaned-owner',
  'quorum-at-risk',
  'unprotected-owner',
] as const;

export type RuleId = (typeof RULE_IDS)[number];
