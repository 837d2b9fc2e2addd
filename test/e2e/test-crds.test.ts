// End-to-end against a real kube-apiserver + etcd with the suite's own CRDs (test/e2e/crds): needs nothing outside the repo.
import { ownCrdSet } from './harness/crds.js';
import { readSettings } from './harness/settings.js';
import { defineSuite } from './harness/suite.js';
import { SCENARIOS } from './scenarios/index.js';

const settings = readSettings();
defineSuite(settings, ownCrdSet(settings.repoRoot), SCENARIOS);
