// Child resources: both worked examples of docs/child-resources.md end to end, each with a hookkeeper of its own
// started side by side (the default-policy hookkeeper and its webhooks stay as they are), removed again afterwards.
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { installCrds, readCrds } from '../../../testing/control-plane/crds.js';
import type { Scenario } from '../harness/suite.js';
import { databaseScenarios, PG_EXAMPLE } from './children-database.js';
import { startChildExample, type ChildEnv } from './children-setup.js';
import { virtualMachineScenarios, VM_EXAMPLE } from './children-virtualmachine.js';

const PARENT_CRDS = [
  'virtualmachines.kubevirt.io.yaml',
  'virtualmachineinstances.kubevirt.io.yaml',
  'postgresclusters.postgres-operator.crunchydata.com.yaml',
];

export const childrenScenarios: Scenario = (env) => {
  describe('child resources: ownerReferences and finalizers with live parent lookups', () => {
    const started: ChildEnv[] = [];
    let vm: ChildEnv | undefined;
    let pg: ChildEnv | undefined;

    before(async () => {
      const { plane } = env();
      const files = PARENT_CRDS.map((f) => join(plane.repoRoot, 'test', 'fixtures', 'crds', f));
      await installCrds(
        plane.kubeConfig('admin'),
        plane.server,
        plane.caPem,
        plane.identities.admin.token,
        await readCrds(files),
      );
      // Two hookkeeper processes start faster side by side than one after the other.
      const results = await Promise.allSettled([
        startChildExample(env(), VM_EXAMPLE),
        startChildExample(env(), PG_EXAMPLE),
      ]);
      for (const r of results) if (r.status === 'fulfilled') started.push(r.value);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      [vm, pg] = started;
    });

    after(async () => {
      for (const x of started) await x.teardown();
    });

    const ready = (x: ChildEnv | undefined): ChildEnv => {
      if (!x) throw new Error('the child-resource example did not start (see the before hook)');
      return x;
    };
    virtualMachineScenarios(env, () => ready(vm));
    databaseScenarios(env, () => ready(pg));
  });
};
