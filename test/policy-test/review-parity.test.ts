// `hookkeeper test` judges a case as `hookkeeper review` answers the same request: each case of the worked example,
// sent to `review` as the AdmissionReview the API server would send, gets the same verdict, warnings and hooks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { carrierFor } from '../../src/core/carriers.js';
import type { KubeObject } from '../../src/core/types.js';
import { findTestFiles } from '../../src/transports/policy-test/discover.js';
import { loadTestFile, type LoadedCase, type PolicyCache } from '../../src/transports/policy-test/load.js';
import { runCase, userInfoOf } from '../../src/transports/policy-test/run.js';
import { cli } from '../helpers/cli.js';
import { applyPatch, type Operation } from '../helpers/json-patch.js';

function admissionReview(c: LoadedCase): object {
  const subject = (c.object ?? c.oldObject) as KubeObject;
  const meta = subject['metadata'] as { name?: string; namespace?: string };
  const { group, version, kind } = c.kind;
  const resource = { group, version, resource: `${kind.toLowerCase()}s` };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '3f1c9e1a-0d7b-4f5e-8a41-5c2b7d9e6f10',
      kind: c.kind,
      resource,
      requestKind: c.kind,
      requestResource: resource,
      ...(meta.name ? { name: meta.name } : {}),
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      operation: c.operation,
      userInfo: userInfoOf(c.identity),
      object: c.object,
      oldObject: c.oldObject,
      dryRun: false,
    },
  };
}

function hooksOf(c: LoadedCase, object: KubeObject | null): string[] {
  const carrier = carrierFor(c.kind);
  if (!carrier || !object) return [];
  return carrier.read(object).hooks.map((h) => `${h.stage} ${String(h.name)} ${String(h.owner)}`);
}

describe('hookkeeper test and hookkeeper review agree', () => {
  test('every case of examples/policy-tests, judged without grants or clusterMachines (review consults neither RBAC nor the cluster)', async () => {
    const policies: PolicyCache = new Map();
    const files = await findTestFiles(['examples/policy-tests'], process.cwd());
    let compared = 0;
    for (const file of files) {
      const loaded = await loadTestFile(file, process.cwd(), policies);
      assert.deepEqual(loaded.problems, []);
      const policy = loaded.policy;
      assert.ok(policy && loaded.policyFile);
      for (const c of loaded.cases) {
        const ours = runCase({ ...c, grants: undefined, quorum: undefined }, policy);
        const r = await cli(['review', '--config', loaded.policyFile], {
          stdin: JSON.stringify(admissionReview(c)),
        });
        assert.equal(r.stderr, '', `${file}: ${c.name}`);
        const response = (JSON.parse(r.stdout) as { response: Record<string, unknown> }).response;
        assert.equal(ours.got.allowed, response['allowed'], `${file}: ${c.name}`);
        // The answer's warnings are capped at 8; the examples have fewer.
        assert.deepEqual(ours.got.warnings, response['warnings'] ?? [], `${file}: ${c.name}`);
        if (ours.got.allowed) {
          const patch = response['patch'] as string | undefined;
          const patched = patch
            ? applyPatch(c.object, JSON.parse(Buffer.from(patch, 'base64').toString()) as Operation[])
            : c.object;
          const got = ours.got.hooks
            ? [
                ...(ours.got.hooks.preDrain ?? []).map((h) => `preDrain ${h.name} ${h.owner}`),
                ...(ours.got.hooks.preTerminate ?? []).map((h) => `preTerminate ${h.name} ${h.owner}`),
                ...(ours.got.hooks.beforeUpgrade ?? []).map((h) => `beforeUpgrade ${h.name} ${h.owner}`),
              ]
            : [];
          assert.deepEqual(got.sort(), hooksOf(c, patched).sort(), `${file}: ${c.name}`);
        } else {
          const status = response['status'] as { message: string };
          for (const m of ours.got.messages) assert.ok(status.message.includes(m), `${file}: ${c.name}: ${m}`);
        }
        compared++;
      }
    }
    assert.ok(compared >= 8, `only ${compared} cases compared`);
  });
});
