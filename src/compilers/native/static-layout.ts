// Names and places of static admission manifests, apart from the renderer so that the CLI's flags read them without
// loading the compiler.
/** The API server refuses this suffix to API clients and requires it of every static object and policyName. */
export const STATIC_SUFFIX = '.static.k8s.io';
/** Where the plugins' directories live on the control-plane nodes: the layout of the Kubernetes documentation. */
export const DEFAULT_STATIC_ROOT = '/etc/kubernetes/admission';
export const STATIC_FEATURE_GATE = 'ManifestBasedAdmissionControlConfig';
export const STATIC_DIRS = Object.freeze({
  validating: 'validating-policies',
  mutating: 'mutating-policies',
});
export const STATIC_FILE = 'hookkeeper.yaml';
export const ADMISSION_CONFIGURATION_FILE = 'admission-configuration.yaml';
