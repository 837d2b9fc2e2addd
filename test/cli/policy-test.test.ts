// `hookkeeper test DIR`: a team's own policy tested by files that name a request and the verdict, messages,
// warnings and hooks it must end with. Exit 0 all pass, 1 some fail, 2 a test file (or what it names) is unusable.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { cli } from '../helpers/cli.js';
import { docSection } from '../helpers/docs.js';

async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hk-policy-test-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

const POLICY = `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
owners:
  team/storage:
    serviceAccounts: [{namespace: storage-system, name: volume-drainer}]
unverifiedRemoval: deny
breakGlass: {groups: [platform-oncall]}
defaultHooks:
  - name: storage-volume-drain
    match:
      kinds: [{group: machine.openshift.io, kind: Machine}]
      labelSelector: {matchLabels: {storage.example.com/node: "true"}}
    stage: preDrain
    hook: {name: VolumeDrain, owner: team/storage}
`;

function machineYaml(preDrain: Array<[string, string]>, labels = '{storage.example.com/node: "true"}'): string {
  const hooks = preDrain.map(([name, owner]) => `{name: ${name}, owner: ${owner}}`).join(', ');
  return `apiVersion: machine.openshift.io/v1beta1
kind: Machine
metadata:
  name: storage-0
  namespace: openshift-machine-api
  labels: ${labels}
spec:
  lifecycleHooks:
    preDrain: [${hooks}]
`;
}

const HOOKED = machineYaml([
  ['VolumeDrain', 'team/storage'],
  ['SnapshotBeforeDrain', 'team/backup'],
]);
const WITHOUT_VOLUME_DRAIN = machineYaml([['SnapshotBeforeDrain', 'team/backup']]);
const WITHOUT_SNAPSHOT = machineYaml([['VolumeDrain', 'team/storage']]);

function suite(cases: string, head = ''): string {
  return `apiVersion: hookkeeper.io/v1alpha1\nkind: PolicyTest\npolicy: policy.yaml\n${head}cases:\n${cases}`;
}

/** A removal of team/storage's hook by alice: the policy denies it. */
const ALICE_REMOVES = `    oldObject: old.yaml
    object: new.yaml
    identity: {user: alice}
`;

function files(tests: Record<string, string>): Record<string, string> {
  return { 'policy.yaml': POLICY, 'old.yaml': HOOKED, 'new.yaml': WITHOUT_VOLUME_DRAIN, ...tests };
}

describe('hookkeeper test: the worked example', () => {
  test('examples/policy-tests passes, one PASS line per case and a summary', async () => {
    const r = await cli(['test', 'examples/policy-tests']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    const summary = lines.pop() ?? '';
    assert.match(summary, /^(\d+) cases in 2 files: \1 passed, 0 failed$/);
    const count = Number(/^(\d+)/.exec(summary)?.[1]);
    assert.ok(count >= 8, summary);
    const caseLines = lines.filter((l) => /^(PASS|FAIL) /.test(l));
    assert.equal(caseLines.length, count);
    assert.ok(
      caseLines.every((l) => /^PASS examples\/policy-tests\/(etcd|storage)\.hookkeeper-test\.yaml:\d+ /.test(l)),
      r.stdout,
    );
    assert.equal(r.stderr, '');
  });

  test("docs/cli.md's example: its output lines are the example's, its YAML is the storage test file's", async () => {
    const section = docSection('docs/cli.md', "## `hookkeeper test`: a policy's own tests");
    const r = await cli(['test', 'examples/policy-tests']);
    const shown = /```\n\$ hookkeeper test examples\/policy-tests\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = shown.split('\n').filter((l) => l !== '' && l !== '...');
    assert.ok(lines.length >= 3, section);
    for (const line of lines) assert.ok(r.stdout.split('\n').includes(line), `not in the output: ${line}`);
    // Each line of the YAML shown, comments aside, is a line of the storage test file, in order.
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const file = (await readFile('examples/policy-tests/storage.hookkeeper-test.yaml', 'utf8')).split('\n');
    let at = 0;
    for (const line of yaml
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, ''))
      .filter((l) => l.trim() !== '')) {
      const found = file.findIndex((l, i) => i >= at && l.replace(/\s+#.*$/, '') === line);
      assert.ok(found !== -1, `not in examples/policy-tests/storage.hookkeeper-test.yaml (in order): ${line}`);
      at = found + 1;
    }
  });
});

describe('hookkeeper test: a case that should fail fails, saying expected and got', () => {
  test('verdict: expected allowed, got denied, with the denial', async () => {
    const cwd = await dirWith(
      files({
        'storage.hookkeeper-test.yaml': suite(`  - name: alice strips the drain hook
${ALICE_REMOVES}    expect: {allowed: true}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], 'FAIL storage.hookkeeper-test.yaml:5 alice strips the drain hook');
    assert.equal(lines[1], '  expected allowed, got denied:');
    assert.match(
      lines[2] ?? '',
      /^ {4}spec\.lifecycleHooks\.preDrain\[0\]: Forbidden: "alice" may not remove preDrain hook "VolumeDrain" owned by "team\/storage"/,
    );
    assert.match(r.stdout, /\n1 case in 1 file: 0 passed, 1 failed\n$/);
  });

  test('verdict: expected denied, got allowed', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: the owner removes its hook
    oldObject: old.yaml
    object: new.yaml
    identity: {serviceAccount: {namespace: storage-system, name: volume-drainer}}
    expect: {allowed: false}
`),
      }),
    );
    const r = await cli(['test', cwd]);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^FAIL .*a\.hookkeeper-test\.yaml:5 the owner removes its hook\n {2}expected denied, got allowed\n/,
    );
  });

  test('a message fragment the denial lacks fails, the denial quoted', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: wrong words
${ALICE_REMOVES}    expect:
      allowed: false
      messages: ['may not remove preDrain hook "VolumeDrain"', 'only the storage team may']
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /^FAIL a\.hookkeeper-test\.yaml:5 wrong words\n/);
    assert.match(
      r.stdout,
      /\n {2}expected a denial message containing "only the storage team may", got:\n {4}spec\.lifecycleHooks/,
    );
    // The fragment that is there is not reported.
    assert.doesNotMatch(r.stdout, /containing "may not remove/);
  });

  test('warnings: a missing fragment fails, and [] fails when there is one', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: break-glass without its warning
    oldObject: old.yaml
    object: new.yaml
    identity: {user: bob, groups: [platform-oncall]}
    expect: {allowed: true, warnings: []}
  - name: a warning that is not given
    object: new.yaml
    expect: {allowed: true, warnings: ['deprecated']}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /FAIL a\.hookkeeper-test\.yaml:5 break-glass without its warning\n {2}expected no warnings, got:\n {4}break-glass: bob may remove preDrain hook VolumeDrain of team\/storage; audited\n/,
    );
    assert.match(
      r.stdout,
      /FAIL a\.hookkeeper-test\.yaml:10 a warning that is not given\n {2}expected a warning containing "deprecated", got none\n/,
    );
    assert.match(r.stdout, /\n2 cases in 1 file: 0 passed, 2 failed\n$/);
  });

  test('hooks: the mutated object must carry exactly the hooks named per stage', async () => {
    const cwd = await dirWith(
      files({
        'bare.yaml': machineYaml([]),
        'a.hookkeeper-test.yaml': suite(`  - name: the drain hook is added
    object: bare.yaml
    expect:
      allowed: true
      hooks:
        preDrain: [{name: VolumeDrain, owner: team/storage}, {name: Extra, owner: team/x}]
        preTerminate: []
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /\n {2}expected preDrain hooks \[VolumeDrain \(team\/storage\), Extra \(team\/x\)\], got \[VolumeDrain \(team\/storage\)\]\n/,
    );
    assert.doesNotMatch(r.stdout, /preTerminate/);
  });

  test('every mismatch of a case is listed, not only the first', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: all wrong
${ALICE_REMOVES}    expect:
      allowed: true
      warnings: ['x']
      hooks: {preDrain: []}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /expected allowed, got denied/);
    assert.match(r.stdout, /expected a warning containing "x", got none/);
    assert.match(r.stdout, /expected preDrain hooks \[\], got \[SnapshotBeforeDrain \(team\/backup\)\]/);
  });

  test('one failing case among passing ones: exit 1, the others PASS', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: denied as expected
${ALICE_REMOVES}    expect: {allowed: false}
  - name: wrongly expected allowed
${ALICE_REMOVES}    expect: {allowed: true}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^PASS a\.hookkeeper-test\.yaml:5 denied as expected\n( {2}note: .*\n)*FAIL a\.hookkeeper-test\.yaml:10 wrongly/,
    );
  });
});

describe('hookkeeper test: finding test files and hooks of every carrier', () => {
  test('*.hookkeeper-test.yml counts, hidden directories do not, a file named on the command line runs', async () => {
    const one = (name: string): string =>
      suite(`  - name: ${name}\n    object: new.yaml\n    expect: {allowed: true}\n`);
    const cwd = await dirWith(
      files({
        // Paths are relative to the test file.
        'sub/a.hookkeeper-test.yml': one('yml')
          .replace('policy.yaml', '../policy.yaml')
          .replace('new.yaml', '../new.yaml'),
        '.hidden/b.hookkeeper-test.yaml': one('hidden'),
        'named.yaml': one('named'),
      }),
    );
    const r = await cli(['test', '.', 'named.yaml'], { cwd });
    assert.equal(r.code, 0, r.stdout);
    assert.deepEqual(
      r.stdout.split('\n').filter((l) => l.startsWith('PASS')),
      ['PASS sub/a.hookkeeper-test.yml:5 yml', 'PASS named.yaml:5 named'],
    );
  });

  test('a Cluster API Machine: the hooks are its annotations, read per stage', async () => {
    const cwd = await dirWith({
      'policy.yaml': `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
defaultHooks:
  - name: drain-volumes
    match: {kinds: [{group: cluster.x-k8s.io, kind: Machine}]}
    stage: preTerminate
    hook: {name: volumes, owner: team/storage}
`,
      'capi.hookkeeper-test.yaml': `apiVersion: hookkeeper.io/v1alpha1
kind: PolicyTest
policy: policy.yaml
cases:
  - name: a Cluster API Machine gets the annotation
    object:
      apiVersion: cluster.x-k8s.io/v1beta1
      kind: Machine
      metadata:
        name: m-0
        namespace: default
        annotations: {pre-drain.delete.hook.machine.cluster.x-k8s.io/etcd: team/etcd}
      spec: {clusterName: c}
    expect:
      allowed: true
      hooks:
        preDrain: [{name: etcd, owner: team/etcd}]
        preTerminate: [{name: volumes, owner: team/storage}, {name: other, owner: team/x}]
`,
    });
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /\n {2}expected preTerminate hooks \[volumes \(team\/storage\), other \(team\/x\)\], got \[volumes \(team\/storage\)\]\n/,
    );
    assert.doesNotMatch(r.stdout, /preDrain hooks/);
  });
});

describe('hookkeeper test: identity and RBAC grants', () => {
  test('a grant naming the owner lets its subject remove the hook; without grants the registry decides, noted', async () => {
    const remove = `    oldObject: old.yaml
    object: no-snapshot.yaml
    identity: {serviceAccount: {namespace: backup-system, name: snapshotter}}
`;
    const cwd = await dirWith(
      files({
        'no-snapshot.yaml': WITHOUT_SNAPSHOT,
        'granted.hookkeeper-test.yaml': suite(
          `  - name: granted
${remove}    expect: {allowed: true}
  - name: a grant to someone else does not count
${remove}    grants: [{owner: team/backup, subject: {kind: User, name: carol}}]
    expect: {allowed: false}
  - name: a grant in another namespace does not count
${remove}    grants:
      - {owner: team/backup, namespace: other, subject: {kind: ServiceAccount, namespace: backup-system, name: snapshotter}}
    expect: {allowed: false}
  - name: a group grant counts
${remove}    grants: [{owner: team/backup, subject: {kind: Group, name: system:serviceaccounts:backup-system}}]
    expect: {allowed: true}
`,
          `grants:\n  - {owner: team/backup, subject: {kind: ServiceAccount, namespace: backup-system, name: snapshotter}}\n`,
        ),
        'registry.hookkeeper-test.yaml': suite(`  - name: registry only
${remove}    expect: {allowed: false}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 0, r.stdout);
    // The outcome that RBAC could change, judged without grants, says so under its PASS line.
    assert.match(
      r.stdout,
      /PASS registry\.hookkeeper-test\.yaml:5 registry only\n {2}note: no grants declared: judged by the policy's owners registry and break-glass only; an RBAC grant \(remove on hookowners\.hookkeeper\.io\/<owner>\) could change this outcome in a cluster: declare grants to test it\n/,
    );
    assert.doesNotMatch(r.stdout.split('registry.hookkeeper-test')[0] ?? '', /note:/);
  });

  test('wildcard rights (owner "*") are not ownership under wildcardGrants deny', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: cluster-admin
    grants: [{owner: '*', subject: {kind: Group, name: system:masters}}]
    oldObject: old.yaml
    object: new.yaml
    identity: {user: admin, groups: [system:masters]}
    expect:
      allowed: false
      messages: ['act for every hook owner, which is not ownership']
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 0, r.stdout);
  });

  test('a service account identity is matched as the API server names it', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: owner by service account
    oldObject: old.yaml
    object: new.yaml
    identity: {serviceAccount: {namespace: storage-system, name: volume-drainer}}
    expect: {allowed: true}
`),
      }),
    );
    const r = await cli(['test', '-o', 'json', '.'], { cwd });
    assert.equal(r.code, 0, r.stdout);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(report.files[0].cases[0].userInfo, {
      username: 'system:serviceaccount:storage-system:volume-drainer',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:storage-system', 'system:authenticated'],
    });
  });
});

describe("hookkeeper test: child resources' parents, as stated", () => {
  const CHILD_POLICY = `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
children:
  - name: virtualmachine-pods
    match:
      kinds: [{group: "", kind: Pod}]
      labelSelector: {matchExpressions: [{key: vm.kubevirt.io/name, operator: Exists}]}
    parent: {apiVersion: kubevirt.io/v1, kind: VirtualMachine, resource: virtualmachines, nameFrom: {label: vm.kubevirt.io/name}}
    onMissingParent: deny
    onDeletingParent: deny
`;
  const POD = `apiVersion: v1
kind: Pod
metadata: {name: virt-launcher-testvm-x7k2p, namespace: vms, labels: {vm.kubevirt.io/name: testvm}}
spec: {containers: [{name: compute, image: quay.io/kubevirt/virt-launcher:v1.4.0}]}
`;
  const VM = (extra = '') =>
    `apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: testvm, namespace: vms, uid: 6a1f3c2e${extra}}\n`;
  const childSuite = (cases: string, head = ''): string =>
    `apiVersion: hookkeeper.io/v1alpha1\nkind: PolicyTest\npolicy: policy.yaml\n${head}cases:\n${cases}`;

  test('a parent stated exists, one not stated does not, a deleting one is deleting, a failed lookup is judged', async () => {
    const cwd = await dirWith({
      'policy.yaml': CHILD_POLICY,
      'pod.yaml': POD,
      'vm.yaml': VM(),
      'children.hookkeeper-test.yaml': childSuite(
        `  - name: created under its VirtualMachine
    object: pod.yaml
    expect: {allowed: true, warnings: []}
  - name: no VirtualMachine
    object: pod.yaml
    parents: []
    expect: {allowed: false, messages: ['parent VirtualMachine "testvm" in namespace "vms" does not exist']}
  - name: its VirtualMachine is deleting
    object: pod.yaml
    parents: [{apiVersion: kubevirt.io/v1, kind: VirtualMachine, metadata: {name: testvm, namespace: vms, uid: u1, deletionTimestamp: '2026-11-21T11:00:00Z'}}]
    expect: {allowed: false, messages: ['is being deleted']}
  - name: the lookup failed
    object: pod.yaml
    parentsUnavailable: Error
    expect: {allowed: false, messages: ['the test case states the lookup failed']}
`,
        'parents: [vm.yaml]\n',
      ),
      'unstated.hookkeeper-test.yaml': childSuite(`  - name: parents not stated
    object: pod.yaml
    expect: {allowed: true}
`),
    });
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /\n5 cases in 2 files: 5 passed, 0 failed\n$/);
    // Only where no parent is stated does a case say the child rules judged none.
    const notes = r.stdout.split('\n').filter((l) => l.includes('note: a child-resource rule selects this kind'));
    assert.equal(notes.length, 1, r.stdout);
    assert.match(
      r.stdout,
      /PASS unstated\.hookkeeper-test\.yaml:5 parents not stated\n {2}note: .*declare parents to test it\n/,
    );
  });

  test('parents beside parentsUnavailable, a parent without a name, one stated twice: input errors', async () => {
    const cwd = await dirWith({
      'policy.yaml': CHILD_POLICY,
      'pod.yaml': POD,
      'vm.yaml': VM(),
      'bad.hookkeeper-test.yaml': childSuite(
        `  - name: both
    object: pod.yaml
    parents: [vm.yaml]
    parentsUnavailable: Timeout
    expect: {allowed: true}
  - name: nameless
    object: pod.yaml
    parents: [{apiVersion: kubevirt.io/v1, kind: VirtualMachine, metadata: {namespace: vms}}]
    expect: {allowed: true}
  - name: twice
    object: pod.yaml
    parents: [vm.yaml, vm.yaml]
    expect: {allowed: true}
`,
      ),
    });
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stdout, /cases\[0\]\.parentsUnavailable: states that the lookup failed beside parents/);
    assert.match(r.stdout, /cases\[1\]\.parents\[0\]: the object has no metadata\.name/);
    assert.match(
      r.stdout,
      /cases\[2\]\.parents\[1\]: kubevirt\.io\/VirtualMachine vms\/testvm is stated twice \(parents\[0\]\)/,
    );
  });
});

describe('hookkeeper test: input errors (exit 2)', () => {
  test('an unknown key: file:line, the path as written, did you mean', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: typo
    object: new.yaml
    expect: {allowd: true}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:7 cases\[0\]\.expect\.allowd: unknown key "allowd": did you mean "allowed"\?\n/m,
    );
    assert.match(r.stdout, /^a\.hookkeeper-test\.yaml:7 cases\[0\]\.expect: must have required property 'allowed'\n/m);
    assert.match(r.stdout, /\n0 cases in 1 file: 0 passed, 0 failed; 1 file could not be run\n$/);
  });

  test('kind must be PolicyTest; a case whose object file is missing is named with its line', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': `apiVersion: hookkeeper.io/v1alpha1
kind: PolicyTst
policy: policy.yaml
cases:
  - name: missing
    object: nowhere.yaml
    expect: {allowed: true}
`,
        'b.hookkeeper-test.yaml': suite(`  - name: missing
    object: nowhere.yaml
    expect: {allowed: true}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stdout, /^a\.hookkeeper-test\.yaml:2 kind: must be "PolicyTest"$/m);
    assert.match(r.stdout, /^b\.hookkeeper-test\.yaml:6 cases\[0\]\.object: cannot read nowhere\.yaml: /m);
  });

  test("a broken file is reported beside the other files' results, not instead of them", async () => {
    const cwd = await dirWith(
      files({
        'bad.hookkeeper-test.yaml': 'apiVersion: [',
        'good.hookkeeper-test.yaml': suite(`  - name: denied
${ALICE_REMOVES}    expect: {allowed: false}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stdout, /^bad\.hookkeeper-test\.yaml:1: /m);
    assert.match(r.stdout, /^PASS good\.hookkeeper-test\.yaml:5 denied$/m);
    assert.match(r.stdout, /\n1 case in 2 files: 1 passed, 0 failed; 1 file could not be run\n$/);
  });

  test('the policy a test names must load: its problems are listed with their file and line', async () => {
    const cwd = await dirWith(
      files({
        'policy.yaml': 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwner: true\n',
        'a.hookkeeper-test.yaml': suite(`  - name: x
    object: new.yaml
    expect: {allowed: true}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stdout, /^policy\.yaml:3 strictOwner: unknown key "strictOwner": did you mean "strictOwners"\?$/m);
  });

  test('what cannot be checked by the schema: operation against objects, messages on an allowed case', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: update without old
    operation: UPDATE
    object: new.yaml
    expect: {allowed: true}
  - name: allowed with messages
    object: new.yaml
    identity: {user: a, serviceAccount: {namespace: n, name: s}}
    expect: {allowed: true, messages: [x]}
  - name: allowed with messages
    oldObject: old.yaml
    expect: {allowed: true, hooks: {preDrain: []}}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stdout, /^a\.hookkeeper-test\.yaml:6 cases\[0\]\.operation: UPDATE needs object and oldObject$/m);
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:12 cases\[1\]\.expect\.messages: a case expected to be allowed has no denial to match: expect allowed: false, or remove messages$/m,
    );
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:11 cases\[1\]\.identity: give user or serviceAccount, not both$/m,
    );
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:13 cases\[2\]\.name: "allowed with messages" names another case too \(line 9\)$/m,
    );
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:15 cases\[2\]\.expect\.hooks: a DELETE leaves no object to carry hooks$/m,
    );
  });

  test('one pass: a case with a schema error still has its other problems reported, semantic ones too', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: many problems
    operation: UPDATE
    object: nowhere.yaml
    identity: {user: a, serviceAccount: {namespace: n, name: s}, group: [x]}
    expect: {allowed: true, messages: [x], warning: [y]}
  - name: many problems
    oldObject: old.yaml
    expect: {allowd: true, hooks: {preDrain: []}}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    const problems = r.stdout.split('\n').filter((l) => l.startsWith('a.hookkeeper-test.yaml:'));
    assert.deepEqual(problems, [
      'a.hookkeeper-test.yaml:6 cases[0].operation: UPDATE needs object and oldObject',
      'a.hookkeeper-test.yaml:7 cases[0].object: cannot read nowhere.yaml: no such file or directory',
      'a.hookkeeper-test.yaml:8 cases[0].identity.group: unknown key "group": did you mean "groups"?',
      'a.hookkeeper-test.yaml:8 cases[0].identity: give user or serviceAccount, not both',
      'a.hookkeeper-test.yaml:9 cases[0].expect.warning: unknown key "warning": did you mean "warnings"?',
      'a.hookkeeper-test.yaml:9 cases[0].expect.messages: a case expected to be allowed has no denial to match: expect allowed: false, or remove messages',
      'a.hookkeeper-test.yaml:10 cases[1].name: "many problems" names another case too (line 5)',
      "a.hookkeeper-test.yaml:12 cases[1].expect: must have required property 'allowed'",
      'a.hookkeeper-test.yaml:12 cases[1].expect.allowd: unknown key "allowd": did you mean "allowed"?',
      'a.hookkeeper-test.yaml:12 cases[1].expect.hooks: a DELETE leaves no object to carry hooks',
    ]);
  });

  test('objects: one object per file, with apiVersion and kind, old and new the same object; grant subjects', async () => {
    const cwd = await dirWith(
      files({
        'two.yaml': `${WITHOUT_VOLUME_DRAIN}---\n${HOOKED}`,
        'other.yaml': HOOKED.replace('name: storage-0', 'name: storage-1'),
        'a.hookkeeper-test.yaml': suite(`  - name: two objects
    object: two.yaml
    expect: {allowed: true}
  - name: no kind
    object: {metadata: {name: x}}
    expect: {allowed: true}
  - name: renamed
    oldObject: other.yaml
    object: new.yaml
    expect: {allowed: true}
  - name: a service account without its namespace
    object: new.yaml
    grants: [{owner: team/x, subject: {kind: ServiceAccount, name: sa}}]
    expect: {allowed: true}
  - name: a duplicate key
    object: new.yaml
    object: old.yaml
    expect: {allowed: 'yes'}
`),
      }),
    );
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:6 cases\[0\]\.object: two\.yaml holds 2 YAML documents; a case names a file holding one object$/m,
    );
    assert.match(r.stdout, /^a\.hookkeeper-test\.yaml:9 cases\[1\]\.object: the object has no apiVersion and kind$/m);
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:12 cases\[2\]\.oldObject: is not the same object as object \(API group, kind, namespace and name\)$/m,
    );
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:17 cases\[3\]\.grants\[0\]\.subject: a ServiceAccount subject needs its namespace$/m,
    );
    assert.match(
      r.stdout,
      /^a\.hookkeeper-test\.yaml:21 cases\[4\]\.object: duplicate key "object" \(first at line 20\)$/m,
    );
    assert.match(r.stdout, /^a\.hookkeeper-test\.yaml:22 cases\[4\]\.expect\.allowed: must be boolean$/m);
  });

  test('no test files under the path is an input error, not a pass', async () => {
    const cwd = await dirWith({ 'policy.yaml': POLICY, 'tests.yaml': suite('') });
    const r = await cli(['test', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /hookkeeper test: no test files \(\*\.hookkeeper-test\.yaml or \*\.hookkeeper-test\.yml\) under \.\n/,
    );
  });

  test('a path that does not exist', async () => {
    const r = await cli(['test', 'no/such/dir'], { cwd: tmpdir() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /hookkeeper test: cannot read no\/such\/dir: /);
  });

  test('-o must be a format', async () => {
    const r = await cli(['test', '-o', 'xml', 'examples/policy-tests']);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /hookkeeper test: -o\/--output: "xml" is not an output format; give one of text, json, yaml, junit/,
    );
  });

  test('-o yaml is the JSON report as YAML, as kubectl prints it', async () => {
    const json = await cli(['test', '-o', 'json', 'examples/policy-tests']);
    const yaml = await cli(['test', '-o', 'yaml', 'examples/policy-tests']);
    assert.equal(yaml.code, json.code, yaml.stderr);
    assert.deepEqual(YAML.parse(yaml.stdout), JSON.parse(json.stdout));
  });
});

describe('hookkeeper test: -o json and -o junit', () => {
  test('json: a report with each case, what it got and each failure as expected and got', async () => {
    const cwd = await dirWith(
      files({
        'a.hookkeeper-test.yaml': suite(`  - name: wrongly expected allowed
${ALICE_REMOVES}    expect: {allowed: true}
`),
      }),
    );
    const r = await cli(['test', '-o', 'json', '.'], { cwd });
    assert.equal(r.code, 1);
    const report = JSON.parse(r.stdout);
    assert.equal(report.apiVersion, 'hookkeeper.io/v1alpha1');
    assert.equal(report.kind, 'PolicyTestReport');
    assert.deepEqual(report.summary, { files: 1, cases: 1, passed: 0, failed: 1, errors: 0 });
    const c = report.files[0].cases[0];
    assert.equal(c.name, 'wrongly expected allowed');
    assert.equal(c.line, 5);
    assert.equal(c.passed, false);
    assert.equal(c.operation, 'UPDATE');
    assert.equal(c.got.allowed, false);
    assert.deepEqual(
      c.failures.map((f: { expectation: string; expected: unknown; got: unknown }) => [
        f.expectation,
        f.expected,
        f.got,
      ]),
      [['allowed', true, false]],
    );
    assert.match(c.got.messages[0], /may not remove preDrain hook "VolumeDrain"/);
  });

  test('junit: a testsuite per file, a failure per failed case, an error per file that could not run', async () => {
    const cwd = await dirWith(
      files({
        'bad.hookkeeper-test.yaml': suite(`  - name: x\n    expect: {}\n`),
        'good.hookkeeper-test.yaml': suite(
          `  - name: denied
${ALICE_REMOVES}    expect: {allowed: false}
  - name: wrongly <allowed>
${ALICE_REMOVES}    expect: {allowed: true}
`,
          'grants: []\n',
        ),
      }),
    );
    const r = await cli(['test', '-o', 'junit', '.'], { cwd });
    assert.equal(r.code, 2);
    assert.match(
      r.stdout,
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="hookkeeper test" tests="3" failures="1" errors="1"/,
    );
    assert.match(r.stdout, /<testsuite name="bad\.hookkeeper-test\.yaml" tests="1" failures="0" errors="1"/);
    // The file's first problem is the error's message; every problem is its text, in one pass.
    assert.match(r.stdout, /<error message="[^"]*cases\[0\]: give object \(CREATE\)/);
    assert.match(r.stdout, /<\/error>/);
    assert.match(
      r.stdout,
      /\nbad\.hookkeeper-test\.yaml:6 cases\[0\]\.expect: must have required property &apos;allowed&apos;<\/error>/,
    );
    assert.match(r.stdout, /<testsuite name="good\.hookkeeper-test\.yaml" tests="2" failures="1" errors="0"/);
    assert.match(r.stdout, /<testcase classname="good\.hookkeeper-test\.yaml" name="denied"\/>/);
    assert.match(
      r.stdout,
      /<testcase classname="good\.hookkeeper-test\.yaml" name="wrongly &lt;allowed&gt;">\n\s*<failure message="expected allowed, got denied">/,
    );
  });
});
