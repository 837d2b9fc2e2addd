// Which admissionregistration versions a Kubernetes version serves: ValidatingAdmissionPolicy v1 (GA in 1.30),
// MutatingAdmissionPolicy v1 from 1.36 (on by default), v1beta1 in 1.34-1.35 behind its feature gate.
import { AppError } from '../../errors.js';

export interface ApiVersions {
  /** The cluster's minor version: 1.<minor>. */
  minor: number;
  validating: 'admissionregistration.k8s.io/v1';
  mutating: 'admissionregistration.k8s.io/v1' | 'admissionregistration.k8s.io/v1beta1';
  /** What the cluster needs for the mutating policies, when it is not on by default. */
  note?: string;
}

export const DEFAULT_K8S_VERSION = '1.36';
/** Static admission manifests load without a feature gate from this version (src/compilers/native/static.ts). */
export const DEFAULT_STATIC_K8S_VERSION = '1.37';
/** The oldest minor native policies run on (Kubernetes 1.<minor>). */
export const NATIVE_MIN_MINOR = 34;
const VERSION_RE = /^v?(\d+)\.(\d+)(?:\.\d+)?$/;

export function apiVersionsFor(k8sVersion: string): ApiVersions {
  const m = VERSION_RE.exec(k8sVersion.trim());
  if (!m) {
    throw new AppError(
      'USAGE',
      `--k8s-version: ${JSON.stringify(k8sVersion)} is not a Kubernetes version; give one such as 1.36 or v1.36.5`,
    );
  }
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major !== 1 || minor < NATIVE_MIN_MINOR) {
    throw new AppError(
      'USAGE',
      `--k8s-version: ${k8sVersion} is too old: native admission policies need Kubernetes 1.${NATIVE_MIN_MINOR} or newer (MutatingAdmissionPolicy, and the CEL two-variable comprehensions and library versions the policies use); run the webhook instead`,
    );
  }
  if (minor >= 36) {
    return { minor, validating: 'admissionregistration.k8s.io/v1', mutating: 'admissionregistration.k8s.io/v1' };
  }
  return {
    minor,
    validating: 'admissionregistration.k8s.io/v1',
    mutating: 'admissionregistration.k8s.io/v1beta1',
    note:
      `Kubernetes 1.${minor} serves MutatingAdmissionPolicy as v1beta1 only behind a feature gate: start kube-apiserver with ` +
      `--feature-gates=MutatingAdmissionPolicy=true --runtime-config=admissionregistration.k8s.io/v1beta1=true, or the default hooks are not added`,
  };
}
