// audit's view of static admission manifests: the answering API server's metrics against this policy's render.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { staticAdmissionStatus } from '../../src/transports/audit/static-admission.js';
import { manifestDirHash, staticFileText } from '../../src/compilers/deploy/static-files.js';
import { staticManifests } from '../../src/compilers/native/static.js';
import { DEFAULT_STATIC_ROOT } from '../../src/compilers/native/static-layout.js';

const ID = 'sha256:73095bbbe8f317654631b5a70d7c53951e472e19c3daa5b71a50958a5e82991b';

/** The lines kube-apiserver v1.37.2 serves (label order and spelling as seen there). */
function metrics(validatingHash: string, mutatingHash: string, failures = 0): string {
  const m = 'apiserver_manifest_admission_config_controller';
  return [
    `# TYPE ${m}_automatic_reloads_total counter`,
    `${m}_automatic_reloads_total{apiserver_id_hash="${ID}",plugin="MutatingAdmissionPolicy",status="success"} 1`,
    `${m}_automatic_reloads_total{apiserver_id_hash="${ID}",plugin="ValidatingAdmissionPolicy",status="success"} 2`,
    ...(failures > 0
      ? [
          `${m}_automatic_reloads_total{apiserver_id_hash="${ID}",plugin="ValidatingAdmissionPolicy",status="failure"} ${failures}`,
        ]
      : []),
    `${m}_last_config_info{apiserver_id_hash="${ID}",hash="${validatingHash}",plugin="ValidatingAdmissionPolicy"} 1`,
    `${m}_last_config_info{apiserver_id_hash="${ID}",hash="${mutatingHash}",plugin="MutatingAdmissionPolicy"} 1`,
    'apiserver_request_total{code="200"} 5',
  ].join('\n');
}

function renderedHashes(): [string, string] {
  const render = staticManifests(DEFAULT_POLICY, {
    k8sVersion: '1.37',
    root: DEFAULT_STATIC_ROOT,
    selfProtection: { webhookConfigurations: ['hookkeeper'] },
  });
  const [v, m] = render.files.map((f) => manifestDirHash([{ name: 'hookkeeper.yaml', content: staticFileText(f) }]));
  assert.ok(v && m);
  return [v, m];
}

describe('audit: static admission manifests from the API server metrics', () => {
  test("this policy's render in force: both plugins match, the API server named", () => {
    const [v, m] = renderedHashes();
    const status = staticAdmissionStatus({ text: metrics(v, m) }, DEFAULT_POLICY);
    assert.equal(status.apiServer, ID);
    assert.deepEqual(
      status.plugins.map((p) => [p.plugin, p.hash, p.matchesPolicy, p.failedReloads]),
      [
        ['ValidatingAdmissionPolicy', v, true, 0],
        ['MutatingAdmissionPolicy', m, true, 0],
      ],
    );
    assert.match(status.note, /ValidatingAdmissionPolicy sha256:\w+: hookkeeper's render of this policy/);
  });

  test('another set in force, and refused reloads, are said', () => {
    const [, m] = renderedHashes();
    const other = `sha256:${'0'.repeat(64)}`;
    const status = staticAdmissionStatus({ text: metrics(other, m, 3) }, DEFAULT_POLICY);
    assert.equal(status.plugins[0]?.matchesPolicy, false);
    assert.equal(status.plugins[0]?.failedReloads, 3);
    assert.match(status.note, /not the render of this policy.*3 reload\(s\) refused, the last good set stays/);
  });

  test('none configured, and metrics the caller may not read', () => {
    const none = staticAdmissionStatus({ text: 'apiserver_request_total{code="200"} 5\n' }, DEFAULT_POLICY);
    assert.deepEqual(none.plugins, []);
    assert.match(none.note, /reports none \(no metric/);
    const emptied = staticAdmissionStatus(
      {
        text: 'apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="sha256:1",hash="",plugin="ValidatingAdmissionPolicy"} 1\n',
      },
      DEFAULT_POLICY,
    );
    assert.deepEqual(emptied.plugins, []);
    assert.match(emptied.note, /reports none in force \(an empty set for ValidatingAdmissionPolicy\)/);
    const denied = staticAdmissionStatus({ unreadable: 'the caller may not get /metrics' }, DEFAULT_POLICY);
    assert.equal(denied.readable, false);
    assert.match(denied.note, /not checked \(the caller may not get \/metrics\)/);
  });
});
