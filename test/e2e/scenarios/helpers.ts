// Small readers and patch builders the scenarios share.
import type { KubeObject } from '../../../src/core/types.js';
import type { Hook } from '../../fixtures/e2e-objects.js';
import type { PatchOp } from '../harness/kube.js';

export type Stage = 'preDrain' | 'preTerminate';

export function hooksOf(obj: KubeObject, stage: Stage, root: readonly string[] = ['spec']): Hook[] {
  let node: unknown = obj;
  for (const key of [...root, 'lifecycleHooks', stage]) node = (node as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(node) ? (node as Hook[]) : [];
}

export function metadataOf(obj: KubeObject): Record<string, unknown> {
  return (obj['metadata'] ?? {}) as Record<string, unknown>;
}

/** Removes one hook by name, guarded by a test op so a concurrent reorder fails instead of removing another hook. */
export function removeHook(obj: KubeObject, stage: Stage, name: string): PatchOp[] {
  const index = hooksOf(obj, stage).findIndex((h) => h.name === name);
  if (index < 0) throw new Error(`no ${stage} hook ${name} to remove`);
  const path = `/spec/lifecycleHooks/${stage}/${index}`;
  return [
    { op: 'test', path: `${path}/name`, value: name },
    { op: 'remove', path },
  ];
}
