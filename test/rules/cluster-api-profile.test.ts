// The shipped Cluster API profile's own cases (examples/cluster-api) hold on both engines, as every rule's cases do
// (cases.test.ts): the providers' empty-valued pre-terminate hooks are owned through impliedOwners, so an unrelated
// user's removal of kcp-cleanup is refused and the KubeadmControlPlane controller's allowed, by the webhook's engine
// and by the rendered native policies alike.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadTestFile } from '../../src/transports/policy-test/load.js';
import { judge, runCase } from '../../src/transports/policy-test/run.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { MAIN_K8S_VERSION } from '../../testing/control-plane/versions.js';
import { compilePolicies } from '../native/evaluator/admission.js';
import { nativeProblems } from './native-case.js';

const FILE = 'examples/cluster-api/control-plane-hooks.hookkeeper-test.yaml';
const loaded = await loadTestFile(FILE, process.cwd(), new Map());

describe('the Cluster API profile', () => {
  test(`${FILE} loads, with its policy`, () => {
    assert.deepEqual(loaded.problems, []);
    assert.ok(loaded.policy && loaded.cases.length > 0);
  });
  const policy = loaded.policy;
  if (!policy) return;
  const { objects, divergences } = renderNativePolicies(policy, { k8sVersion: MAIN_K8S_VERSION });
  const subject = { policy, compiled: compilePolicies(objects), divergences };
  for (const c of loaded.cases)
    test(c.name, (t) => {
      const failures = runCase(c, policy).failures.map((f) => `webhook: ${f.message}`);
      const { problems, covered } = nativeProblems(subject, c, judge(c, policy));
      for (const note of covered) t.diagnostic(`native mode differs, as declared: ${note}`);
      assert.deepEqual([...failures, ...problems], [], `${FILE}:${c.line} ${c.name}`);
    });
});
