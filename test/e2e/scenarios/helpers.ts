// Small readers, patch builders and mode-aware assertions the scenarios share.
import assert from 'node:assert/strict';
import { AuthorizationV1Api } from '@kubernetes/client-node';
import type { KubeObject } from '../../../src/core/types.js';
import type { Hook } from '../../../testing/control-plane/machines.js';
import { DENIAL_PREFIX, type PatchOp, type Rejection } from '../../../testing/control-plane/kube.js';
import type { E2EEnv } from '../harness/suite.js';

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

/**
 * A refusal by hookkeeper's Machine rules, as the mode in force words it. `violations` are the webhook's, in order.
 * Webhook mode: our webhook, all of them joined with "; " after its prefix. Native, both and static: a hookkeeper
 * ValidatingAdmissionPolicy (validating policies run before any webhook; a static one's name ends in .static.k8s.io),
 * with one of them: the API server reports the first failed validation only.
 */
export function assertOurDenial(
  env: E2EEnv,
  refusal: Rejection,
  violations: readonly string[],
  prefix: string = DENIAL_PREFIX,
): void {
  if (env.mode === 'webhook') {
    assert.equal(refusal.code, 403, refusal.message);
    assert.equal(refusal.by, 'webhook', refusal.message);
    assert.equal(refusal.message, prefix + violations.join('; '));
    return;
  }
  assert.equal(refusal.by, 'policy', refusal.message);
  // A validation's reason: Forbidden (403) or, by default, Invalid (422); the webhook's denials are all 403.
  assert.ok(refusal.code === 403 || refusal.code === 422, `HTTP ${refusal.code}: ${refusal.message}`);
  assert.match(
    refusal.message,
    / is forbidden: ValidatingAdmissionPolicy 'hookkeeper-[^']*' with binding 'hookkeeper-/,
  );
  assert.ok(
    violations.includes(refusal.text),
    `the policy's message is none of the webhook's:\n${refusal.text}\nwebhook:\n${violations.join('\n')}`,
  );
}

/** The authorizer's own answer (a SubjectAccessReview asked by the admin): may `user` remove hooks of `owner`? */
export async function mayRemoveFor(e: E2EEnv, user: string, owner: string): Promise<boolean> {
  const review = await e.plane
    .kubeConfig('admin')
    .makeApiClient(AuthorizationV1Api)
    .createSubjectAccessReview({
      body: {
        spec: {
          user,
          resourceAttributes: { group: 'hookkeeper.io', resource: 'hookowners', verb: 'remove', name: owner },
        },
      },
    });
  return review.status?.allowed === true;
}
