// The hook-name pattern, a leaf: hook-naming's constraint (rules/hook-naming/rule.ts, for both engines),
// capi-migration and the policy loader all check names against this one string.

/** openshift/api machine/v1beta1 LifecycleHook.name pattern. */
export const HOOK_NAME_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';
