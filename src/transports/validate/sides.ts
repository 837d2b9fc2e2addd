// Which version of an object a finding is about. A removed hook's path (spec.lifecycleHooks.preDrain[1]) indexes the
// old object: looked up in the new file it would point at whatever hook sits there now.
import { carrierFor } from '../../core/carriers.js';
import type { GroupVersionKind, HookRef, KubeObject } from '../../core/types.js';

function holds(obj: KubeObject | null, gvk: GroupVersionKind, path: string, hook: HookRef): boolean {
  const carrier = carrierFor(gvk);
  if (!carrier || !obj) return false;
  return carrier
    .read(obj)
    .hooks.some(
      (h) =>
        h.stage === hook.stage &&
        h.name === hook.name &&
        (typeof h.owner === 'string' ? h.owner : '') === hook.owner &&
        (path === h.path || path.startsWith(`${h.path}.`) || path.startsWith(`${h.path}[`)),
    );
}

/**
 * 'old' when the finding names a hook that the old object holds at the finding's path and the new object does not:
 * something that exists only in the old version. Anything else is about the new object.
 */
export function findingSide(
  finding: { path: string; hook?: HookRef },
  gvk: GroupVersionKind,
  now: KubeObject | null,
  before: KubeObject | null,
): 'new' | 'old' {
  const { hook } = finding;
  if (!hook || !before) return 'new';
  return !holds(now, gvk, finding.path, hook) && holds(before, gvk, finding.path, hook) ? 'old' : 'new';
}
