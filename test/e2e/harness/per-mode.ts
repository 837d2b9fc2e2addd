// A scenario group run once per admission mode against its own hookkeeper and native policies: one describe per
// mode, switched to it before its tests (set up on first use), each test skipped in a mode the run did not select.
import { before, describe, type TestContext } from 'node:test';
import type { ControlPlane } from '../../../testing/control-plane/control-plane.js';
import type { Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { switchMode, type AdmissionMode, type NativePolicies } from './admission-modes.js';

export function describeEachMode(
  modes: readonly AdmissionMode[],
  env: () => { modes: readonly AdmissionMode[]; plane: ControlPlane },
  setUp: () => Promise<{ hookkeeper: Hookkeeper; native: NativePolicies }>,
  body: (mode: AdmissionMode, off: (t: TestContext) => boolean) => void,
): void {
  for (const mode of modes) {
    describe(`admission mode: ${mode}`, () => {
      /** Call first in each test: true (and the test skipped) when the run did not select this mode. */
      const off = (t: TestContext): boolean => {
        if (env().modes.includes(mode)) return false;
        t.skip(`mode ${mode} not selected`);
        return true;
      };
      before(async () => {
        if (!env().modes.includes(mode)) return;
        const { hookkeeper, native } = await setUp();
        await switchMode(env().plane, hookkeeper, native, mode);
      });
      body(mode, off);
    });
  }
}
