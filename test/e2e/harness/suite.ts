// defineSuite(): one control plane + hookkeeper per CRD set, shared by every scenario group in a describe block; the
// Machine groups run once per admission mode (webhook, native policies only, both, static manifests), switched on the
// same plane; torn down after the last test, with the processes' log tails printed for any failure.
import { after, afterEach, before, describe } from 'node:test';
import { renderForPlane, switchMode, type AdmissionMode, type NativePolicies } from './admission-modes.js';
import { startControlPlane, type ControlPlane } from '../../../testing/control-plane/control-plane.js';
import type { CrdSet } from '../../../testing/control-plane/crds.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import {
  CAPI_MACHINES,
  OPENSHIFT_MACHINES,
  OPENSHIFT_MACHINESETS,
  ResourceClient,
} from '../../../testing/control-plane/kube.js';
import { removeMachines } from './reset.js';
import type { E2ESettings } from './settings.js';

export interface E2EEnv {
  crds: CrdSet;
  plane: ControlPlane;
  /** Stopped in native and static mode (nothing answers a webhook call there); running otherwise. */
  hookkeeper: Hookkeeper;
  /** The suite's policy rendered as native admission policies for this API server. */
  native: NativePolicies;
  /** The mode the running group's tests are in (set before its first test). */
  mode: AdmissionMode;
  /** Every mode this suite runs the Machine groups in, in order. */
  modes: readonly AdmissionMode[];
  machines: (as: IdentityName) => ResourceClient;
  machineSets: (as: IdentityName) => ResourceClient;
  capiMachines: (as: IdentityName) => ResourceClient;
}
/** A scenario group registers its tests; it reads the environment only when they run (after `before`). */
export type Scenario = (env: () => E2EEnv) => void;

export interface SuitePlan {
  /** Another Kubernetes release than the main line's (an exact tag): built and cached like it. */
  k8sVersion?: string;
  /** The admission modes, in order; the webhook-only groups run in webhook mode, when it is among them. */
  modes: readonly AdmissionMode[];
  /** Groups whose decisions must not depend on the mode: run once in every mode, on a plane reset in between. */
  perMode: readonly Scenario[];
  /** Groups about the webhook itself (its process, its CLI siblings, child resources): webhook mode only, after perMode. */
  webhookOnly: readonly Scenario[];
  /** Run once before any admission is registered (setting up stored objects that admission would refuse). */
  bare?: ReadonlyArray<(env: E2EEnv) => Promise<void>>;
  /** Groups after every mode ran (comparisons across modes). */
  afterModes?: readonly Scenario[];
}

export function defineSuite(settings: E2ESettings, crds: CrdSet, plan: SuitePlan): void {
  describe(`hookkeeper against kube-apiserver with ${crds.name}`, () => {
    let env: E2EEnv | undefined;
    let plane: ControlPlane | undefined;
    let reported = false;

    before(async () => {
      // The static directory is configured only when static mode runs: an empty one costs nothing in the other modes.
      plane = await startControlPlane({
        settings,
        crds,
        ...(plan.k8sVersion ? { k8sVersion: plan.k8sVersion } : {}),
        staticAdmission: plan.modes.includes('static'),
      });
      try {
        const hookkeeper: Hookkeeper = await startHookkeeper(plane);
        const native: NativePolicies = await renderForPlane(plane);
        const p = plane;
        env = {
          crds,
          plane: p,
          hookkeeper,
          native,
          mode: 'webhook',
          modes: plan.modes,
          machines: (as: IdentityName) => new ResourceClient(p.kubeConfig(as), OPENSHIFT_MACHINES),
          machineSets: (as: IdentityName) => new ResourceClient(p.kubeConfig(as), OPENSHIFT_MACHINESETS),
          capiMachines: (as: IdentityName) => new ResourceClient(p.kubeConfig(as), CAPI_MACHINES),
        };
        for (const setup of plan.bare ?? []) await setup(env);
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
    plan.modes.forEach((mode, i) => {
      describe(`admission mode: ${mode}`, () => {
        before(async () => {
          const e = getEnv();
          try {
            // Each mode starts from no Machines, so the groups' fixed names are free again.
            if (i > 0) await removeMachines(e);
            await switchMode(e.plane, e.hookkeeper, e.native, mode);
            e.mode = mode;
          } catch (err) {
            e.plane.markFailed();
            process.stderr.write(`[e2e] ${crds.name}: switching to ${mode} failed\n${e.plane.logTails()}\n`);
            throw err;
          }
        });
        for (const scenario of plan.perMode) scenario(getEnv);
        if (mode === 'webhook') for (const scenario of plan.webhookOnly) scenario(getEnv);
      });
    });
    for (const scenario of plan.afterModes ?? []) scenario(getEnv);
  });
}
