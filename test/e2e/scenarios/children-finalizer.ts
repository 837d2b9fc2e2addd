// The finalizer a child rule manages, against the real API server: only the parent's controller (or break-glass,
// with a warning) removes it, also while the child is deleting, and the child goes once it has.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shortWarning } from '../../../src/admission/response.js';
import type { KubeObject } from '../../../src/core/types.js';
import { rejected, type PatchOp, type Resource } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { E2EEnv } from '../harness/suite.js';
import { CHILD_DENIAL_PREFIX, type ChildEnv } from './children-setup.js';
import { metadataOf } from './helpers.js';

export function finalizersOf(obj: KubeObject): string[] {
  return (metadataOf(obj)['finalizers'] ?? []) as string[];
}

export function nameOf(obj: KubeObject): string {
  return String(metadataOf(obj)['name']);
}

/** Removes one finalizer, guarded by a test op so a concurrent change fails the patch instead of being overwritten. */
function removeFinalizer(obj: KubeObject, finalizer: string): PatchOp[] {
  const current = finalizersOf(obj);
  if (!current.includes(finalizer)) throw new Error(`${nameOf(obj)} has no finalizer ${finalizer}`);
  return [
    { op: 'test', path: '/metadata/finalizers', value: current },
    { op: 'replace', path: '/metadata/finalizers', value: current.filter((f) => f !== finalizer) },
  ];
}

export interface FinalizerCase {
  child: Resource;
  kind: string;
  /** Creates a child as its controller would, with the managed finalizer added by the mutating webhook. */
  create(ctx: ChildEnv, name: string): Promise<KubeObject>;
}

export function finalizerRemovalTests(env: () => E2EEnv, ctx: () => ChildEnv, c: FinalizerCase): void {
  const setup = async (name: string): Promise<{ x: ChildEnv; finalizer: string; stored: KubeObject; ns: string }> => {
    const x = ctx();
    const finalizer = x.rule.finalizer ?? '';
    const stored = await c.create(x, name);
    assert.ok(finalizersOf(stored).includes(finalizer), `${nameOf(stored)} was created with ${finalizer}`);
    return { x, finalizer, stored, ns: x.example.namespace };
  };
  const aliceDenial = (x: ChildEnv, finalizer: string, name: string): string => {
    const remover = env().plane.identities[x.example.controller].username;
    return (
      `${CHILD_DENIAL_PREFIX}metadata.finalizers: Forbidden: "alice" may not remove finalizer "${finalizer}" from ${c.kind} "${name}"; ` +
      `only its parent's controller may: ${remover} (break-glass: group system:masters)`
    );
  };

  describe(`the managed finalizer on a ${c.kind}`, () => {
    test('an ordinary user removing it is denied by our webhook, and it stays', async () => {
      const { x, finalizer, stored, ns } = await setup('alice');
      const alice = x.objects('alice', c.child);
      const refusal = await rejected(() => alice.patch(ns, nameOf(stored), removeFinalizer(stored, finalizer)));
      assert.equal(refusal.by, 'webhook', refusal.message);
      assert.equal(refusal.message, aliceDenial(x, finalizer, nameOf(stored)));
      assert.deepEqual(finalizersOf(await alice.get(ns, nameOf(stored))), finalizersOf(stored));
    });

    test("the parent's controller removes it: allowed, no warning", async () => {
      const { x, finalizer, stored, ns } = await setup('controller');
      const { object, warnings } = await x
        .objects(x.example.controller, c.child)
        .patch(ns, nameOf(stored), removeFinalizer(stored, finalizer));
      assert.deepEqual(
        finalizersOf(object),
        finalizersOf(stored).filter((f) => f !== finalizer),
      );
      assert.deepEqual(warnings, []);
    });

    test('a system:masters admin removes it (break-glass): allowed, and the client receives the warning', async () => {
      const { x, finalizer, stored, ns } = await setup('admin');
      const { object, warnings } = await x
        .objects('admin', c.child)
        .patch(ns, nameOf(stored), removeFinalizer(stored, finalizer));
      assert.equal(finalizersOf(object).includes(finalizer), false);
      const who = env().plane.identities.admin.username;
      assert.deepEqual(warnings, [
        shortWarning(`break-glass: ${who} may remove finalizer ${finalizer} of ${c.kind} "${nameOf(stored)}"; audited`),
      ]);
    });

    test('a deleting child stays until its controller removes the finalizer (an ordinary user still may not), then goes', async () => {
      const { x, finalizer, stored, ns } = await setup('deleting');
      const name = nameOf(stored);
      const { object: deleting } = await x.objects(x.example.controller, c.child).delete(ns, name);
      assert.equal(typeof metadataOf(deleting)['deletionTimestamp'], 'string', `${name} is held by its finalizer`);
      const refusal = await rejected(() =>
        x.objects('alice', c.child).patch(ns, name, removeFinalizer(deleting, finalizer)),
      );
      assert.equal(refusal.message, aliceDenial(x, finalizer, name));
      const controller = x.objects(x.example.controller, c.child);
      await controller.patch(ns, name, removeFinalizer(deleting, finalizer));
      await pollUntil(`${name} to be gone`, 10_000, async () =>
        (await controller.exists(ns, name)) ? undefined : true,
      );
    });
  });
}
