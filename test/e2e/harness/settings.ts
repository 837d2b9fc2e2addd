// The e2e suite's knobs: the control plane's (testing/control-plane/settings.ts) and the admission modes to run.
import { readControlPlaneSettings, type ControlPlaneSettings } from '../../../testing/control-plane/settings.js';
import { ADMISSION_MODES, type AdmissionMode } from './admission-modes.js';

export interface E2ESettings extends ControlPlaneSettings {
  /** The admission modes the Machine groups run in (all four unless narrowed, e.g. to iterate on one). */
  modes: readonly AdmissionMode[];
}

function readModes(value: string | undefined): readonly AdmissionMode[] {
  if (!value) return ADMISSION_MODES;
  const modes = value.split(',').map((m) => m.trim());
  for (const m of modes)
    if (!(ADMISSION_MODES as readonly string[]).includes(m))
      throw new Error(`HOOKKEEPER_E2E_MODES: unknown mode "${m}" (modes: ${ADMISSION_MODES.join(', ')})`);
  return modes as AdmissionMode[];
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): E2ESettings {
  return { ...readControlPlaneSettings(env), modes: readModes(env['HOOKKEEPER_E2E_MODES']) };
}
