// The previous Kubernetes minor (testing/control-plane/versions.ts), for what the docs claim of it: native mode from
// 1.36 (MutatingAdmissionPolicy v1 on by default; the shipped render is this release's). A smaller group than the main
// line's: the Machine API and Cluster API groups in native mode, with the suite's own CRDs. Static manifests behind
// their feature gate on this release are static-manifests.test.ts's (static mode here as well passed, and cost 30 s
// more on two shared cores).
import { ownCrdSet } from '../../testing/control-plane/crds.js';
import { PREVIOUS_K8S_VERSION } from '../../testing/control-plane/versions.js';
import { readSettings } from './harness/settings.js';
import { defineSuite } from './harness/suite.js';
import { capiScenarios } from './scenarios/capi.js';
import { defaultHookScenarios } from './scenarios/default-hooks.js';
import { namingScenarios } from './scenarios/naming.js';
import { ownerOnlyRemovalScenarios } from './scenarios/owner-only-removal.js';

const settings = readSettings();
const modes = settings.modes.filter((m) => m === 'native');
if (modes.length > 0)
  defineSuite(
    settings,
    { ...ownCrdSet(settings.repoRoot), name: `test CRDs on ${PREVIOUS_K8S_VERSION}` },
    {
      k8sVersion: PREVIOUS_K8S_VERSION,
      modes,
      perMode: [defaultHookScenarios, ownerOnlyRemovalScenarios, namingScenarios, capiScenarios],
      webhookOnly: [],
    },
  );
