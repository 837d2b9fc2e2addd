// The Cluster API profile as the deployment ships it: the chart's policyProfile: cluster-api and the kustomize
// component webhook-config/components/cluster-api both install webhook-config/components/cluster-api/policy.yaml as
// the policy ConfigMap, and change nothing else; the chart refuses a profile next to a policy of its own, and native
// mode without a render of the profile. Skips without helm or kustomize unless CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { chartDir, findHelm, helmSkip, helmTemplate, requireHelm, runHelm } from '../helpers/helm.js';
import { findKustomize, kustomizeBuild, NO_KUSTOMIZE } from '../helpers/kustomize.js';

interface Doc {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
}

const PROFILE = 'webhook-config/components/cluster-api/policy.yaml';
const CHART_LINK = 'charts/hookkeeper/files/profiles/cluster-api.yaml';
const KCP_KEY = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup';
const profileText = (): string => readFileSync(join(packageRoot(), PROFILE), 'utf8');

const helm = findHelm();
const chart = chartDir(packageRoot());
const render = (args: readonly string[]): Doc[] => helmTemplate<Doc>(requireHelm(helm), chart, { args });
const policyOf = (docs: Doc[]): string => {
  const found = docs.filter((d) => d.kind === 'ConfigMap' && d.metadata.name === 'hookkeeper-policy');
  assert.equal(found.length, 1);
  return found[0]?.data?.['policy.yaml'] ?? '';
};
/** Everything but the policy ConfigMap, to compare renders by. */
const rest = (docs: Doc[]): Doc[] =>
  docs.filter((d) => !(d.kind === 'ConfigMap' && d.metadata.name === 'hookkeeper-policy'));

test('the profile loads, and implies the owner of kcp-cleanup', () => {
  const policy = parsePolicy(profileText(), PROFILE);
  const implied = policy.impliedOwners.find((i) => i.hook === KCP_KEY);
  assert.ok(implied, `${PROFILE} implies no owner for ${KCP_KEY}`);
  assert.deepEqual(policy.owners[implied.owner]?.serviceAccounts[0], {
    namespace: 'capi-kubeadm-control-plane-system',
    name: 'capi-kubeadm-control-plane-manager',
  });
});

test("the chart's profile is a link to the component's file, not a second copy", () => {
  const link = join(packageRoot(), CHART_LINK);
  assert.ok(lstatSync(link).isSymbolicLink(), `${CHART_LINK} must be a symbolic link to ${PROFILE}`);
  assert.equal(readlinkSync(link), relative(dirname(CHART_LINK), PROFILE));
});

test(
  'helm: policyProfile cluster-api installs the profile as the policy, and changes nothing the policy does not',
  { skip: helmSkip(helm) },
  () => {
    const openshift = render([]);
    const capi = render(['--set', 'policyProfile=cluster-api']);
    assert.equal(policyOf(capi).trimEnd(), profileText().trimEnd());
    assert.equal(policyOf(openshift), policyOf(render(['--set', 'policyProfile=openshift'])));
    assert.doesNotMatch(policyOf(openshift), /impliedOwners/);
    // The webhook configurations follow the policy: the profile sets defaultHooks, so the chart's broader conditions.
    const hooks = (docs: Doc[]) => rest(docs).filter((d) => !d.kind.endsWith('WebhookConfiguration'));
    assert.deepEqual(hooks(capi), hooks(openshift));
  },
);

test(
  'helm: policyProfile refuses a policy of its own, native mode without a render, and unknown profiles',
  { skip: helmSkip(helm) },
  () => {
    const error = (args: readonly string[]): string => {
      const res = runHelm(requireHelm(helm), ['template', 'hookkeeper', chart, '--namespace', 'hookkeeper', ...args]);
      assert.notEqual(res.status, 0, `helm template ${args.join(' ')} succeeded`);
      return res.stderr;
    };
    const capi = ['--set', 'policyProfile=cluster-api'];
    assert.match(
      error([...capi, '--set-string', 'policy=apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwners: true\n']),
      /policyProfile cluster-api installs the chart's Cluster API policy file, and policy sets more than apiVersion and kind/,
    );
    assert.match(
      error([...capi, '--set', 'admission.mode=native']),
      /policyProfile is cluster-api: render it with `hookkeeper admission-policy render --config charts\/hookkeeper\/files\/profiles\/cluster-api.yaml/,
    );
    assert.match(
      error(['--set', 'policyProfile=kubeadm']),
      /policyProfile.*value must be one of 'openshift', 'cluster-api'/,
    );
  },
);

test(
  'kustomize: the cluster-api component replaces the policy ConfigMap of an overlay, and nothing else',
  { skip: findKustomize() ? false : NO_KUSTOMIZE },
  async (t) => {
    const copy = await mkdtemp(join(tmpdir(), 'hookkeeper-profile-'));
    t.after(() => rm(copy, { recursive: true, force: true }));
    await cp(join(packageRoot(), 'webhook-config'), copy, { recursive: true });
    const overlay = join(copy, 'overlays', 'cert-manager');
    const without = kustomizeBuild<Doc>(findKustomize() ?? [], overlay);
    const kustomization = join(overlay, 'kustomization.yaml');
    await writeFile(
      kustomization,
      `${readFileSync(kustomization, 'utf8')}components:\n  - ../../components/cluster-api\n`,
    );
    const withProfile = kustomizeBuild<Doc>(findKustomize() ?? [], overlay);
    assert.equal(policyOf(withProfile), profileText());
    assert.deepEqual(rest(withProfile), rest(without));
  },
);
