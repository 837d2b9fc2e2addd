// defineSuite(): one control plane + hookkeeper per CRD set, shared by every scenario group in a describe block;
// torn down after the last test, with the processes' log tails printed for any failure.
import { after, afterEach, before, describe } from 'node:test';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import type { CrdSet } from './crds.js';
import { registerWebhooks, startHookkeeper, waitForEnforcement, type Hookkeeper } from './hookkeeper.js';
import type { IdentityName } from './identities.js';
import { CAPI_MACHINES, OPENSHIFT_MACHINES, OPENSHIFT_MACHINESETS, ResourceClient } from './kube.js';
import type { E2ESettings } from './settings.js';

export interface E2EEnv {
  crds: CrdSet;
  plane: ControlPlane;
  hookkeeper: Hookkeeper;
  machines: (as: IdentityName) => ResourceClient;
  machineSets: (as: IdentityName) => ResourceClient;
  capiMachines: (as: IdentityName) => ResourceClient;
}

/** A scenario group registers its tests; it reads the environment only when they run (after `before`). */
export type Scenario = (env: () => E2EEnv) => void;

export function defineSuite(settings: E2ESettings, crds: CrdSet, scenarios: readonly Scenario[]): void {
  describe(`hookkeeper against kube-apiserver with ${crds.name}`, () => {
    let env: E2EEnv | undefined;
    let plane: ControlPlane | undefined;
    let reported = false;

    before(async () => {
      plane = await startControlPlane({ settings, crds });
      try {
        const hookkeeper = await startHookkeeper(plane);
        await registerWebhooks(plane, hookkeeper);
        await waitForEnforcement(plane);
        const p = plane;
        env = {
          crds,
          plane: p,
          hookkeeper,
          machines: (as) => new ResourceClient(p.kubeConfig(as), OPENSHIFT_MACHINES),
          machineSets: (as) => new ResourceClient(p.kubeConfig(as), OPENSHIFT_MACHINESETS),
          capiMachines: (as) => new ResourceClient(p.kubeConfig(as), CAPI_MACHINES),
        };
      } catch (err) {
        plane.markFailed();
        process.stderr.write(`[e2e] ${crds.name}: setup failed\n${plane.logTails()}\n`);
        throw err;
      }
    });

    afterEach((t) => {
      // TestContext.passed (Node >= 20.12) is missing from @types/node 20.
      if ((t as unknown as { passed?: boolean }).passed !== false || !plane) return;
      plane.markFailed();
      // Once per suite: the tails cover everything up to the first failure; the kept dir has the rest.
      if (!reported)
        process.stderr.write(`[e2e] ${crds.name}: "${t.name}" failed; logs so far:\n${plane.logTails()}\n`);
      reported = true;
    });

    after(async () => {
      await plane?.stop();
    });

    const getEnv = (): E2EEnv => {
      if (!env) throw new Error('the e2e environment did not start (see the before hook)');
      return env;
    };
    for (const scenario of scenarios) scenario(getEnv);
  });
}
