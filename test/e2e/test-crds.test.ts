// End-to-end against a real kube-apiserver + etcd with the suite's own CRDs (test/e2e/crds): needs nothing outside the repo.
import { ownCrdSet } from '../../testing/control-plane/crds.js';
import { readSettings } from './harness/settings.js';
import { defineSuite } from './harness/suite.js';
import { scenarios } from './scenarios/index.js';

const settings = readSettings();
// The groups that do not depend on the Machine CRDs run here only: this suite always runs.
defineSuite(settings, ownCrdSet(settings.repoRoot), scenarios({ crdIndependent: true, modes: settings.modes }));
