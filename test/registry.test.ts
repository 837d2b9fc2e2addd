// The rule registry against everything that must agree with it: the rule table of docs/rules.md, the carriers and the
// resource table, the webhook rules in webhook-config/ (the chart renders the same rules: test/deploy/helm.test.ts),
// the ClusterRole; and the lists derived from it (policy schema, default enforcement, audit metrics).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import YAML from 'yaml';
import { runAudit } from '../src/transports/audit/run.js';
import type { Policy } from '../src/core/policy.js';
import type { Enforcement, KubeObject, RuleId } from '../src/core/types.js';
import type { ResourceRef } from '../src/core/resources.js';
import { resourceName, type Lister } from '../src/infrastructure/kube/types.js';
import { CrdSet } from '../src/transports/validate/crd.js';
import { DEFAULT_USER } from '../src/transports/validate/report.js';
import { validateInputs } from '../src/transports/validate/run.js';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_POLICY } from '../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../src/infrastructure/config/load.js';
import { POLICY_SCHEMA } from '../src/infrastructure/config/schema.js';
import { CARRIERS } from '../src/core/carriers.js';
import { evaluate } from '../src/core/engine.js';
import { MUTATING, RULE_IDS, RULES, VALIDATING } from '../src/core/registry.js';
import { packageRoot } from '../src/compilers/deploy/render.js';
import { carrierResources, KNOWN_RESOURCES } from '../src/core/resources.js';
import { reviewInput } from './fixtures/input.js';
import { cli } from './helpers/cli.js';
import { docSection } from './helpers/docs.js';
import { ETCD, machine } from './fixtures/openshift.js';
import { renderRegistry, renderRulesDoc } from '../scripts/render-rules.js';

const root = packageRoot();

interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
}
interface Webhook {
  name: string;
  rules: WebhookRule[];
}
interface RbacRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

function yamlDoc<T>(path: string): T {
  const [doc] = parseAllDocuments(readFileSync(join(root, path), 'utf8')) as unknown as Array<{ toJS(): T }>;
  return (doc as { toJS(): T }).toJS();
}

/** "group/plural" for every resource a list of webhook rules matches with an operation. */
function matched(rules: readonly WebhookRule[], operation: string): Set<string> {
  return new Set(
    rules
      .filter((r) => r.operations.includes(operation))
      .flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((p) => `${g}/${p}`))),
  );
}

/** The rule table of docs/rules.md: rule id, default enforcement, sources. */
function documentedRules(): Array<{ id: string; enforcement: string; sources: string }> {
  return docSection('docs/rules.md', '# Rules')
    .split('\n')
    .filter((l) => /^\| `[a-z-]+` \|/.test(l))
    .map((l) => {
      const cells = l.split(' | ');
      return {
        id: (cells[0] ?? '').replace(/^\| `|`$/g, ''),
        enforcement: cells.at(-2) ?? '',
        sources: (cells.at(-1) ?? '').replace(/ \|$/, ''),
      };
    });
}

const carrierResource = new Set(carrierResources(CARRIERS).resources.map((r) => `${r.group}/${r.plural}`));

test('the ids, the registry and docs/rules.md are what npm run render:rules writes from the rule folders', async () => {
  for (const { file, text } of [...renderRegistry(root), await renderRulesDoc(root)])
    assert.equal(readFileSync(join(root, file), 'utf8'), text, `${file} is stale: run npm run render:rules`);
});

test("every code span of a rule folder's README.md reaches docs/rules.md as written, never read as a link", () => {
  const doc = readFileSync(join(root, 'docs/rules.md'), 'utf8');
  const rules = readdirSync(join(root, 'src/rules'), { withFileTypes: true }).filter((e) => e.isDirectory());
  assert.ok(rules.length > 10, 'found the rule folders');
  for (const { name } of rules) {
    const text = readFileSync(join(root, 'src/rules', name, 'README.md'), 'utf8').replace(/\s*\n\s*/g, ' ');
    for (const [span] of text.matchAll(/`[^`]*`/g)) assert.ok(doc.includes(span), `${name}'s ${span} in docs/rules.md`);
  }
});

describe('the rule registry', () => {
  test('docs/rules.md lists every rule once, in registry order, with its default enforcement and where it runs', () => {
    assert.deepEqual(
      documentedRules(),
      RULES.map((r) => ({ id: r.id, enforcement: r.enforcement, sources: r.sources.join(', ') })),
    );
  });

  test('rule ids are unique; the policy schema and the default policy are derived from the registry', () => {
    assert.equal(new Set(RULE_IDS).size, RULE_IDS.length);
    // The id list (a leaf, src/rules/rule-ids.ts) names the registry's rules, in its order.
    assert.deepEqual(
      RULES.map((r) => r.id),
      RULE_IDS,
    );
    assert.deepEqual(Object.keys(POLICY_SCHEMA.properties.enforcement.properties), RULE_IDS);
    assert.deepEqual(DEFAULT_POLICY.enforcement, Object.fromEntries(RULES.map((r) => [r.id, r.enforcement])));
    for (const id of RULE_IDS) {
      const policy = parsePolicy(
        `apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement:\n  ${id}: warn\n`,
        'p.yaml',
      );
      assert.equal(policy.enforcement[id], 'warn', id);
    }
  });

  test('every rule has a validate or a mutate function, and runs somewhere', () => {
    for (const r of RULES) {
      assert.ok('validate' in r || 'mutate' in r, r.id);
      assert.ok(r.sources.length > 0 || 'mutate' in r, r.id);
    }
    assert.deepEqual(
      VALIDATING.admission.map((r) => r.id),
      RULES.filter((r) => r.sources.includes('admission')).map((r) => r.id),
    );
  });

  test('every rule that validates at admission says what it reads of an UPDATE (the validating webhook is derived from it)', () => {
    for (const r of VALIDATING.admission) {
      const reads = r.updateReads?.(DEFAULT_POLICY);
      assert.ok(reads !== undefined, `${r.id} validates at admission but declares no updateReads`);
    }
  });

  test('every rule that runs at admission declares its native form: CEL validations or mutations, or webhookOnly', () => {
    const admission = RULES.filter((r) => r.sources.includes('admission') || r.mutate !== undefined);
    assert.ok(admission.length > 0);
    for (const r of admission) {
      const native: unknown = r.native;
      assert.ok(native !== undefined, `${r.id} runs at admission but declares no native form`);
      if (typeof native === 'object' && native !== null && 'webhookOnly' in native) {
        const why = native.webhookOnly;
        assert.ok(
          typeof why === 'string' && why.length > 20 && !why.includes('\n'),
          `${r.id}: webhookOnly is one sentence`,
        );
      }
    }
    // Child-resource rules need parent lookups: webhook-only.
    for (const r of RULES.filter((x) => x.selects === 'children')) {
      assert.ok(r.native !== undefined && 'webhookOnly' in r.native, `${r.id} is webhook-only`);
    }
  });

  test('audit --help and validate --help list the rules each runs, from the registry', async () => {
    const listed = (help: string): string[] =>
      [...help.matchAll(/^ {2}([a-z-]+) +\[(?:deny|warn|off)\] /gm)].map((m) => m[1] ?? '');
    assert.deepEqual(
      listed((await cli(['audit', '--help'])).stdout),
      VALIDATING.audit.map((r) => r.id),
    );
    const validate = VALIDATING.validate.map((r) => r.id);
    assert.deepEqual(listed((await cli(['validate', '--help'])).stdout), [
      ...validate,
      ...MUTATING.map((r) => r.id).filter((id) => !validate.includes(id)),
    ]);
  });

  test('enforcement is applied by the engine for every rule: off silences it, warn turns its denial into a warning', () => {
    const input = {
      ...reviewInput({
        operation: 'CREATE',
        object: machine({ role: 'worker', preDrain: [{ name: 'bad name', owner: 'x' }] }),
      }),
      source: 'validate' as const,
    };
    const deny = evaluate(DEFAULT_POLICY, input);
    assert.deepEqual([...new Set(deny.denials.map((v) => v.rule))], ['hook-naming']);
    const warn = evaluate(
      { ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, 'hook-naming': 'warn' } },
      input,
    );
    assert.deepEqual(
      [warn.denials.length, warn.warnings.map((v) => v.message)],
      [0, deny.denials.map((v) => v.message)],
    );
    assert.equal(
      evaluate({ ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, 'hook-naming': 'off' } }, input)
        .warnings.length,
      0,
    );
  });
});

describe('carriers, the resource table, the webhook rules and the ClusterRole agree', () => {
  test("every carrier has a resource in the table, and every resource in the table is a carrier's", () => {
    assert.deepEqual(carrierResources(CARRIERS).notes, []);
    assert.deepEqual(
      KNOWN_RESOURCES.map((r) => `${r.group}/${r.kind}`).sort(),
      CARRIERS.map((c) => `${c.group}/${c.kind}`).sort(),
    );
  });

  test("the validating webhook sends CREATE and UPDATE of exactly the carriers' resources, at the versions the audit lists", () => {
    const config = yamlDoc<{ webhooks: Webhook[] }>('webhook-config/base/validating-webhook-configuration.yaml');
    const rules = config.webhooks.flatMap((w) => w.rules);
    assert.deepEqual(matched(rules, 'CREATE'), carrierResource);
    assert.deepEqual(matched(rules, 'UPDATE'), carrierResource);
    for (const r of KNOWN_RESOURCES) {
      assert.ok(
        rules.some(
          (w) => w.apiGroups.includes(r.group) && w.resources.includes(r.plural) && w.apiVersions.includes(r.version),
        ),
        `${r.plural}.${r.group}/${r.version}`,
      );
    }
  });

  test('the mutating webhook sends CREATE of exactly the resources a carrier mutating rule writes (Machines)', () => {
    const config = yamlDoc<{ webhooks: Webhook[] }>('webhook-config/base/mutating-webhook-configuration.yaml');
    const mutatesCarriers = RULES.some((r) => r.selects === 'carriers' && 'mutate' in r);
    // Default hooks gate a deletion: a Cluster's upgrade hooks are never added, so Clusters are not sent.
    const live = carrierResources(CARRIERS.filter((c) => c.gatesDeletion && mutatesCarriers)).resources.map(
      (r) => `${r.group}/${r.plural}`,
    );
    assert.deepEqual(
      matched(
        config.webhooks.flatMap((w) => w.rules),
        'CREATE',
      ),
      new Set(live),
    );
  });

  test("the ClusterRole reads every carrier's resource and the facts the rules need, and nothing else", () => {
    const role = yamlDoc<{ rules: RbacRule[] }>('webhook-config/base/cluster-role.yaml');
    const granted = new Set(role.rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((p) => `${g}/${p}`))));
    const needsAccounts = RULES.some((r) => (r.facts as readonly string[]).includes('serviceAccounts'));
    // Hook ownership through RBAC (src/infrastructure/kube/rbac-index.ts, src/infrastructure/kube/subject-access-review.ts).
    const ownerGrants = ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'].map(
      (p) => `rbac.authorization.k8s.io/${p}`,
    );
    assert.deepEqual(
      granted,
      new Set([
        ...carrierResource,
        ...(needsAccounts ? ['/serviceaccounts'] : []),
        ...ownerGrants,
        'authorization.k8s.io/subjectaccessreviews',
      ]),
    );
    for (const r of role.rules) {
      const verbs = r.resources.includes('serviceaccounts')
        ? ['get', 'list']
        : r.resources.includes('subjectaccessreviews')
          ? ['create']
          : r.apiGroups.includes('rbac.authorization.k8s.io')
            ? ['list', 'watch']
            : ['get', 'list', 'watch'];
      assert.deepEqual(r.verbs, verbs, r.resources.join(','));
    }
  });
});

function withEnforcement(id: RuleId, e: Enforcement): Policy {
  return { ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, [id]: e } };
}

describe('the rules that were special cases of one transport are configurable like the others', () => {
  const severities = (policy: Policy, text: string, old?: string, crds?: CrdSet): string[][] =>
    validateInputs([{ file: 'n.yaml', text }], old === undefined ? undefined : [{ file: 'o.yaml', text: old }], {
      policy,
      userInfo: DEFAULT_USER,
      ...(crds ? { crds } : {}),
    }).results.flatMap((r) => r.findings.map((f) => [f.rule, f.severity]));

  test('capi-migration: a warning by default, a denial under deny, nothing under off', () => {
    const text = YAML.stringify(
      machine({ role: 'worker', preDrain: [{ name: 'example.com/Backup', owner: 'backup-controller' }] }),
    );
    assert.deepEqual(severities(DEFAULT_POLICY, text), [['capi-migration', 'warn']]);
    assert.deepEqual(severities(withEnforcement('capi-migration', 'deny'), text), [['capi-migration', 'deny']]);
    assert.deepEqual(severities(withEnforcement('capi-migration', 'off'), text), []);
  });

  test('crd-schema: denials by default, ratcheted on UPDATE with a note in the fix; warn and off as for any rule', () => {
    const crds = CrdSet.parse([
      { file: 'w.yaml', text: readFileSync(new URL('./fixtures/validate-crd-widgets.yaml', import.meta.url), 'utf8') },
    ]);
    const widget = (spec: Record<string, unknown>): string =>
      YAML.stringify({
        apiVersion: 'example.hookkeeper.io/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'ns' },
        spec,
      });
    const text = widget({ size: 'huge', replicas: 99 });
    const old = widget({ size: 'huge' });
    assert.deepEqual(severities(DEFAULT_POLICY, text, old, crds), [
      ['crd-schema', 'warn'],
      ['crd-schema', 'deny'],
    ]);
    const [ratcheted] =
      validateInputs([{ file: 'n.yaml', text }], [{ file: 'o.yaml', text: old }], {
        policy: DEFAULT_POLICY,
        userInfo: DEFAULT_USER,
        crds,
      }).results[0]?.findings ?? [];
    assert.match(
      ratcheted?.fix ?? '',
      / \(the current object has this problem already, so the API server lets the update through\)$/,
    );
    assert.deepEqual(severities(withEnforcement('crd-schema', 'warn'), text, old, crds), [
      ['crd-schema', 'warn'],
      ['crd-schema', 'warn'],
    ]);
    assert.deepEqual(severities(withEnforcement('crd-schema', 'off'), text, old, crds), []);
  });

  test('stuck-deletion and orphaned-owner: failures by default, warnings under warn, nothing under off', async () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const stuck: KubeObject = machine({ name: 'stuck', preDrain: [ETCD], deletionTimestamp: '2026-11-21T10:00:00Z' });
    const lister: Lister = {
      async *list(resource: ResourceRef) {
        if (resourceName(resource) === 'machines.machine.openshift.io') yield [stuck];
      },
    };
    const audit = async (policy: Policy): Promise<string[][]> =>
      (
        await runAudit({
          lister,
          policy,
          now: () => now,
          stuckAfterMs: 30 * 60_000,
          serviceAccountExists: () => Promise.resolve(false),
        })
      ).findings.map((f) => [f.rule, f.result]);
    assert.deepEqual(await audit(DEFAULT_POLICY), [
      ['stuck-deletion', 'fail'],
      ['orphaned-owner', 'fail'],
    ]);
    assert.deepEqual(await audit(withEnforcement('stuck-deletion', 'warn')), [
      ['orphaned-owner', 'fail'],
      ['stuck-deletion', 'warn'],
    ]);
    assert.deepEqual(
      await audit({
        ...withEnforcement('stuck-deletion', 'off'),
        enforcement: { ...DEFAULT_POLICY.enforcement, 'stuck-deletion': 'off', 'orphaned-owner': 'off' },
      }),
      [],
    );
  });
});
