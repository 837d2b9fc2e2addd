// The hook-name pattern, a leaf: the TypeScript rule (rules/naming.ts), its CEL twin (cel/naming.ts) and the
// policy loader all check names against this one string.

/** openshift/api machine/v1beta1 LifecycleHook.name pattern. */
export const HOOK_NAME_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';
