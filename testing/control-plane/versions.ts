// The Kubernetes releases the end-to-end suite and the benchmarks run, in one place: scripts/build-control-plane.sh's
// pin, .ci/run and the README's version table are held to these by test/scripts/versions.test.ts.
/** The main line: every scenario group, in every admission mode (static manifests on by default). */
export const MAIN_K8S_VERSION = 'v1.37.2';
/** The etcd that MAIN_K8S_VERSION's go.mod requires. */
export const MAIN_ETCD_VERSION = 'v3.7.0';
/**
 * The previous minor, for what the docs claim of it: native mode (MutatingAdmissionPolicy v1 from 1.36) and static
 * manifests behind their feature gate, in a smaller group.
 */
export const PREVIOUS_K8S_VERSION = 'v1.36.5';
