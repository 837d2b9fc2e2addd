// Static admission manifests: the API render under static names, laid out per plugin, with self-protection of
// hookkeeper's API objects; and `render --static DIR` writing them whole.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../src/core/policy.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { staticManifests, staticSupport } from '../../src/compilers/native/static.js';
import {
  DEFAULT_STATIC_ROOT,
  STATIC_DIRS,
  STATIC_FILE,
  STATIC_SUFFIX,
} from '../../src/compilers/native/static-layout.js';
import { cli } from '../helpers/cli.js';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
}
interface Rule {
  apiGroups: string[];
  resources: string[];
  operations: string[];
  resourceNames?: string[];
}

const OPTIONS = {
  k8sVersion: '1.37',
  root: DEFAULT_STATIC_ROOT,
  selfProtection: { webhookConfigurations: ['hookkeeper'] },
};

function fileOf(render: ReturnType<typeof staticManifests>, path: string): Obj[] {
  const file = render.files.find((f) => f.path === path);
  assert.ok(file, path);
  return file.documents as Obj[];
}

const SELF = [
  'hookkeeper-self-protection',
  'hookkeeper-self-protection-break-glass',
  'hookkeeper-hook-schema',
  'hookkeeper-hook-schema-break-glass',
].map((n) => n + STATIC_SUFFIX);
/** The pair guarding hookkeeper's own API objects (the other pair guards the CRDs that carry hooks: hook-schema.test.ts). */
const OWN_OBJECTS = SELF.slice(0, 2);

describe('static admission manifests', () => {
  test('the API render under static names: every name and policyName carries the suffix, nothing else changes', () => {
    const api = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: '1.37' }).objects as unknown as Obj[];
    const render = staticManifests(DEFAULT_POLICY, OPTIONS);
    const validating = fileOf(render, `${STATIC_DIRS.validating}/${STATIC_FILE}`);
    const mutating = fileOf(render, `${STATIC_DIRS.mutating}/${STATIC_FILE}`);
    const unstatic = (o: Obj): Obj => {
      assert.ok(o.metadata.name.endsWith(STATIC_SUFFIX), o.metadata.name);
      const name = o.metadata.name.slice(0, -STATIC_SUFFIX.length);
      const policyName = o.spec['policyName'];
      if (policyName === undefined) return { ...o, metadata: { ...o.metadata, name } };
      assert.ok(typeof policyName === 'string' && policyName.endsWith(STATIC_SUFFIX));
      return {
        ...o,
        metadata: { ...o.metadata, name },
        spec: { ...o.spec, policyName: policyName.slice(0, -STATIC_SUFFIX.length) },
      };
    };
    const hookPolicies = validating.filter((o) => !SELF.includes(o.metadata.name));
    assert.deepEqual([...hookPolicies, ...mutating].map(unstatic), [
      ...api.filter((o) => o.kind.startsWith('Validating')),
      ...api.filter((o) => o.kind.startsWith('Mutating')),
    ]);
    assert.ok(mutating.length > 0, 'the default policy has a default hook: a mutating policy');
    for (const o of [...validating, ...mutating]) {
      assert.equal(o.apiVersion, 'admissionregistration.k8s.io/v1');
      assert.ok(!('paramKind' in o.spec) && !('paramRef' in o.spec));
    }
    for (const o of validating) assert.match(o.kind, /^ValidatingAdmissionPolicy(Binding)?$/);
    for (const o of mutating) assert.match(o.kind, /^MutatingAdmissionPolicy(Binding)?$/);
  });

  test('admission-configuration.yaml points each plugin at its directory under the root', () => {
    const render = staticManifests(DEFAULT_POLICY, { ...OPTIONS, root: '/srv/k8s/hk' });
    const [config] = fileOf(render, 'admission-configuration.yaml') as unknown as [
      { kind: string; plugins: { name: string; configuration: { kind: string; staticManifestsDir: string } }[] },
    ];
    assert.equal(config.kind, 'AdmissionConfiguration');
    assert.deepEqual(
      config.plugins.map((p) => [p.name, p.configuration.kind, p.configuration.staticManifestsDir]),
      [
        ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyConfiguration', '/srv/k8s/hk/validating-policies'],
        ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyConfiguration', '/srv/k8s/hk/mutating-policies'],
      ],
    );
    assert.throws(
      () => staticManifests(DEFAULT_POLICY, { ...OPTIONS, root: 'etc/k8s' }),
      /--static-root must be an absolute path/,
    );
  });

  test('versions: 1.37 loads them, 1.36 only behind the named gate, older is refused', () => {
    assert.equal(staticSupport('1.37'), undefined);
    assert.equal(staticSupport('v1.38.0'), undefined);
    assert.match(staticSupport('1.36') ?? '', /--feature-gates=ManifestBasedAdmissionControlConfig=true/);
    assert.throws(
      () => staticSupport('1.35'),
      /need Kubernetes 1\.37 .*ManifestBasedAdmissionControlConfig=true; got 1\.35/,
    );
    assert.match(
      staticManifests(DEFAULT_POLICY, { ...OPTIONS, k8sVersion: '1.36' }).notes[0] ?? '',
      /1\.36 loads static/,
    );
  });

  test("self-protection guards exactly hookkeeper's API objects, by name, against UPDATE and DELETE", () => {
    const api = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: '1.37' }).objects as unknown as Obj[];
    const render = staticManifests(DEFAULT_POLICY, {
      ...OPTIONS,
      selfProtection: { webhookConfigurations: ['hk-a', 'hk-b'] },
    });
    const policies = fileOf(render, `${STATIC_DIRS.validating}/${STATIC_FILE}`).filter(
      (o) => OWN_OBJECTS.includes(o.metadata.name) && o.kind === 'ValidatingAdmissionPolicy',
    );
    assert.equal(policies.length, 2);
    for (const p of policies) {
      const rules = (p.spec['matchConstraints'] as { resourceRules: Rule[] }).resourceRules;
      for (const r of rules) {
        assert.deepEqual(r.operations, ['UPDATE', 'DELETE']);
        // resourceNames would miss a delete of the whole collection (admission sees each object with no name).
        assert.equal(r.resourceNames, undefined);
      }
      const resources = rules.flatMap((r) => r.resources);
      const [which] = p.spec['matchConditions'] as { expression: string }[];
      assert.ok(which, 'a condition names the guarded objects');
      const guards = (resource: string, name: string) =>
        resources.includes(resource) &&
        which.expression.includes(`${JSON.stringify(resource)}: {`) &&
        which.expression.includes(`${JSON.stringify(name)}: true`);
      const plural: Record<string, string> = {
        ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
        ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
        MutatingAdmissionPolicy: 'mutatingadmissionpolicies',
        MutatingAdmissionPolicyBinding: 'mutatingadmissionpolicybindings',
      };
      for (const o of api) assert.ok(guards(plural[o.kind] ?? '?', o.metadata.name), o.metadata.name);
      for (const w of ['hk-a', 'hk-b']) {
        assert.ok(guards('validatingwebhookconfigurations', w));
        assert.ok(guards('mutatingwebhookconfigurations', w));
      }
      assert.ok(guards('customresourcedefinitions', 'hookowners.hookkeeper.io'));
    }
    const bindings = fileOf(render, `${STATIC_DIRS.validating}/${STATIC_FILE}`).filter(
      (o) => OWN_OBJECTS.includes(o.metadata.name) && o.kind === 'ValidatingAdmissionPolicyBinding',
    );
    assert.deepEqual(
      bindings.map((b) => [b.spec['policyName'], b.spec['validationActions']]),
      [
        [SELF[0], ['Deny']],
        [SELF[1], ['Warn', 'Audit']],
      ],
    );
  });

  test('without self-protection, and with a policy naming no break-glass identity (said in a note)', () => {
    const off = staticManifests(DEFAULT_POLICY, { ...OPTIONS, selfProtection: false });
    const names = fileOf(off, `${STATIC_DIRS.validating}/${STATIC_FILE}`).map((o) => o.metadata.name);
    assert.ok(!names.some((n) => SELF.includes(n)));
    const noGlass: Policy = { ...DEFAULT_POLICY, breakGlass: { users: [], groups: [] } };
    const on = staticManifests(noGlass, OPTIONS);
    assert.ok(on.notes.some((n) => /no break-glass identity/.test(n)));
  });
});

describe('hookkeeper admission-policy render --static DIR', () => {
  test('writes the three files, parseable, and says what it wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-static-'));
    const run = await cli(['admission-policy', 'render', '--static', dir, '--k8s-version', '1.37']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /wrote .*validating-policies\/hookkeeper\.yaml \(\d+ objects; directory hash sha256:[0-9a-f]{64}\)/,
    );
    assert.deepEqual(readdirSync(dir).sort(), [
      'admission-configuration.yaml',
      'mutating-policies',
      'validating-policies',
    ]);
    assert.deepEqual(readdirSync(join(dir, 'validating-policies')), ['hookkeeper.yaml']);
    const docs = parseAllDocuments(readFileSync(join(dir, 'validating-policies', 'hookkeeper.yaml'), 'utf8'));
    assert.ok(docs.every((d) => d.errors.length === 0));
    const config = parse(readFileSync(join(dir, 'admission-configuration.yaml'), 'utf8')) as { plugins: unknown[] };
    assert.equal(config.plugins.length, 2);
  });

  test('replaces a file by rename, never by writing into it, and leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-static-'));
    mkdirSync(join(dir, 'validating-policies'));
    const target = join(dir, 'validating-policies', 'hookkeeper.yaml');
    writeFileSync(target, 'old: content\n');
    const before = statSync(target).ino;
    const run = await cli(['admission-policy', 'render', '--static', dir, '--k8s-version', '1.37']);
    assert.equal(run.code, 0, run.stderr);
    assert.notEqual(statSync(target).ino, before, 'a new inode: the file was renamed into place');
    assert.deepEqual(readdirSync(join(dir, 'validating-policies')), ['hookkeeper.yaml']);
  });

  test('refusals: an old version (exit 2, naming the gate), --output with --static, static flags without it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-static-'));
    const old = await cli(['admission-policy', 'render', '--static', dir, '--k8s-version', '1.35']);
    assert.equal(old.code, 2);
    assert.match(old.stderr, /ManifestBasedAdmissionControlConfig/);
    assert.deepEqual(readdirSync(dir), [], 'nothing written');
    const json = await cli(['admission-policy', 'render', '--static', dir, '-o', 'json']);
    assert.equal(json.code, 2);
    assert.match(json.stderr, /-o\/--output: does not apply with --static/);
    const stray = await cli(['admission-policy', 'render', '--static-root', '/x']);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /--static-root: only applies with --static DIR; give --static DIR too/);
  });
});
