// End-to-end with upstream's CRDs (OpenShift -Default, Cluster API v1.10.10, OpenReports and wgpolicyk8s.io reports)
// from ../shared/crds: the same scenarios against the schemas real clusters install. Skipped with a message when the
// copies are absent; CI must have them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { upstreamCrdSet } from '../../testing/control-plane/crds.js';
import { readSettings } from './harness/settings.js';
import { defineSuite } from './harness/suite.js';
import { scenarios } from './scenarios/index.js';

const settings = readSettings();
const crds = upstreamCrdSet(settings.sharedCrdDir);
if (!('missing' in crds)) {
  defineSuite(settings, crds, scenarios({ crdIndependent: false, modes: settings.modes }));
} else if (settings.ci) {
  test('upstream CRDs are present (required when CI=true)', () => {
    assert.fail(`${crds.missing} (set HOOKKEEPER_E2E_SHARED_CRDS to their directory)`);
  });
} else {
  test(
    'hookkeeper against kube-apiserver with upstream CRDs',
    { skip: `${crds.missing}; set HOOKKEEPER_E2E_SHARED_CRDS or run from a checkout next to shared/` },
    () => undefined,
  );
}
