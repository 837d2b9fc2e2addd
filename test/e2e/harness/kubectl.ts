// The kubectl the e2e scenarios run: $KUBECTL (CI builds it from k8s.io/kubernetes, like kube-apiserver), else the one
// on PATH. Without either a scenario that needs it is skipped, except under CI=true, where it fails instead.
import { spawnSync } from 'node:child_process';

function works(bin: string): boolean {
  return spawnSync(bin, ['version', '--client'], { stdio: 'ignore' }).status === 0;
}

const fromEnv = process.env['KUBECTL'];
export const KUBECTL: string | undefined =
  fromEnv && works(fromEnv) ? fromEnv : works('kubectl') ? 'kubectl' : undefined;

/** A test's `skip` option: false when kubectl is there or CI=true (the test then fails on requireKubectl()). */
export const kubectlSkip: false | string =
  KUBECTL !== undefined || process.env['CI'] === 'true' ? false : 'kubectl: set $KUBECTL or put kubectl on PATH';

export function requireKubectl(): string {
  if (KUBECTL === undefined)
    throw new Error(
      `kubectl not found (${fromEnv ? `$KUBECTL=${fromEnv} does not run` : '$KUBECTL unset'}, none on PATH)`,
    );
  return KUBECTL;
}
