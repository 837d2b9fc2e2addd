// The compiler: per-rule enforcement picks the policy and binding action, the policy's data is compiled in, the
// rules the policy turns off leave no CEL, and no expression nests one pass over hooks inside another.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { MAX_HOOKS_PER_STAGE_LIMIT, MAX_IMPLIED_OWNERS, type Policy } from '../../src/core/policy.js';
import { MAX_VIOLATION_BYTES } from '../../src/admission/limits.js';
import { CHUNK, CHUNKS } from '../../src/rules/hook-naming/rule.js';
import { newlySelectedCel } from '../../src/rules/default-hooks/cel.js';
import { DEFAULT_HOOK_CONDITION_NAME, UPDATE_CONDITION_NAME } from '../../src/core/cel/webhook-conditions.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';
import { conditionHolds } from './evaluator/admission.js';
import { RULES } from '../../src/core/registry.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { ACTIONS, bindingGroupOf, reachable } from '../../src/compilers/native/validating.js';
import { WILDCARD_PROBE_OWNER } from '../../src/core/ownership.js';

interface Vap {
  kind: string;
  metadata: { name: string };
  spec: {
    policyName?: string;
    validationActions?: string[];
    variables?: Array<{ name: string; expression: string }>;
    validations?: Array<{ expression: string; messageExpression: string }>;
    mutations?: Array<{ jsonPatch: { expression: string } }>;
    matchConditions?: Array<{ name: string; expression: string }>;
    matchConstraints?: { objectSelector?: unknown; namespaceSelector?: unknown };
  };
}

const render = (policy: Policy): { objects: Vap[]; notes: string[] } => {
  const r = renderNativePolicies(policy, { k8sVersion: '1.36' });
  return { objects: r.objects as unknown as Vap[], notes: r.notes };
};
const named = (objects: Vap[], name: string): Vap | undefined =>
  objects.find((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === name);
const text = (o: Vap | undefined): string => JSON.stringify(o?.spec ?? {});
const policyWith = (patch: Partial<Policy>): Policy => ({ ...structuredClone(DEFAULT_POLICY), ...patch });

/** Every CEL expression of the rendered objects. */
function expressions(objects: Vap[]): string[] {
  return objects.flatMap((o) => [
    ...(o.spec.variables ?? []).map((v) => v.expression),
    ...(o.spec.validations ?? []).flatMap((v) => [v.expression, v.messageExpression]),
    ...(o.spec.mutations ?? []).map((m) => m.jsonPatch.expression),
  ]);
}

const HOOK_LISTS =
  /variables\.(preDrain|preTerminate|oldPreDrain|oldPreTerminate|changed|stage|annotations|oldAnnotations)\.(all|exists|exists_one|filter|map|transformList|transformMapEntry)\(/g;

/** The argument text of the call whose "(" is at `open`. */
function callArguments(expr: string, open: number): string {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < expr.length; i++) {
    const c = expr[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return expr.slice(open + 1, i);
  }
  throw new Error(`unbalanced expression: ${expr}`);
}

describe('renderNativePolicies', () => {
  test('where violations go: enforced under deny -> Deny; warn, ratcheted and unverified -> Warn+Audit; break-glass -> its own Warn+Audit', () => {
    assert.equal(bindingGroupOf('enforced', 'deny'), 'deny');
    assert.equal(bindingGroupOf('enforced', 'warn'), 'warn');
    assert.equal(bindingGroupOf('existing', 'deny'), 'warn');
    assert.equal(bindingGroupOf('warn', 'deny'), 'warn');
    assert.equal(bindingGroupOf('breakGlass', 'deny'), 'break-glass');
    const { objects } = render(DEFAULT_POLICY);
    for (const b of objects.filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding')) {
      const group = b.metadata.name.endsWith('-break-glass')
        ? 'break-glass'
        : b.metadata.name.endsWith('-warn')
          ? 'warn'
          : 'deny';
      assert.deepEqual(b.spec.validationActions, ACTIONS[group], b.metadata.name);
      assert.equal(b.spec.policyName, b.metadata.name);
    }
    assert.match(text(named(objects, 'hookkeeper-openshift-machine-removal-break-glass')), /break-glass: /);
    // Templates have no hooks removed from a deleting object: no break-glass policy.
    assert.equal(named(objects, 'hookkeeper-openshift-machineset-removal-break-glass'), undefined);
  });

  test('gates: removal checks run only for an UPDATE that changes the hooks, the rest only on objects with hooks', () => {
    const objects = render(DEFAULT_POLICY).objects as unknown as Array<
      Vap & { spec: { matchConditions?: Array<{ name: string }> } }
    >;
    const conditions = (name: string): string[] =>
      (
        objects.find((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === name)?.spec.matchConditions ??
        []
      ).map((c) => c.name);
    assert.deepEqual(conditions('hookkeeper-openshift-machine-removal'), ['not-finishing-deletion', 'changes-hooks']);
    assert.deepEqual(conditions('hookkeeper-openshift-machine-removal-break-glass'), [
      'not-finishing-deletion',
      'break-glass-changes-hooks',
    ]);
    assert.deepEqual(conditions('hookkeeper-openshift-machine'), [
      'not-finishing-deletion',
      'carries-hooks-or-owner-references',
      UPDATE_CONDITION_NAME,
    ]);
    // Ratcheting's warnings only (the default policy warns about nothing else): nothing to say on CREATE, which the
    // policy does not match (below), so no condition asks for the operation.
    assert.deepEqual(conditions('hookkeeper-openshift-machine-warn'), [
      'not-finishing-deletion',
      'carries-hooks-or-owner-references',
      UPDATE_CONDITION_NAME,
    ]);
  });

  test("the carrier's update condition: a label update of a hooked Machine meets no validation, a hook change does", () => {
    const objects = render(DEFAULT_POLICY).objects as unknown as Array<
      Vap & { spec: { matchConditions?: Array<{ name: string; expression: string }> } }
    >;
    const evaluated = (name: string, input: ReviewInput): boolean =>
      (objects.find((o) => o.metadata.name === name)?.spec.matchConditions ?? []).every((c) =>
        conditionHolds(c.expression, input),
      );
    const stored = machine({ preDrain: [ETCD] });
    const meta = stored['metadata'] as { labels?: Record<string, string> };
    const relabelled = { ...stored, metadata: { ...meta, labels: { ...meta.labels, team: 'a' } } };
    const update = (next: KubeObject): ReviewInput =>
      reviewInput({ operation: 'UPDATE', object: next, oldObject: stored, user: USERS.alice });
    for (const name of ['hookkeeper-openshift-machine', 'hookkeeper-openshift-machine-warn']) {
      assert.equal(evaluated(name, update(relabelled)), false, name);
      assert.equal(evaluated(name, update(machine({ preDrain: [ETCD, { name: 'b', owner: 'team/b' }] }))), true, name);
      assert.equal(evaluated(name, reviewInput({ operation: 'CREATE', object: stored, user: USERS.alice })), true);
    }
  });

  test('a policy whose validations all concern stored hooks (ratcheting, removal, break-glass) matches UPDATE only', () => {
    const operations = (objects: Vap[]): Record<string, string[]> =>
      Object.fromEntries(
        objects
          .filter((o) => o.kind === 'ValidatingAdmissionPolicy')
          .map((o) => [
            o.metadata.name,
            (o.spec as { matchConstraints: { resourceRules: Array<{ operations: string[] }> } }).matchConstraints
              .resourceRules[0]?.operations ?? [],
          ]),
      );
    const both = ['CREATE', 'UPDATE'];
    const update = ['UPDATE'];
    // Every rule that warns by default made to deny: the warn policy then holds ratcheting's warnings alone.
    const warnedByDefault = RULES.filter((r) => DEFAULT_POLICY.enforcement[r.id] === 'warn').map((r) => [r.id, 'deny']);
    const base = operations(
      render(policyWith({ enforcement: { ...DEFAULT_POLICY.enforcement, ...Object.fromEntries(warnedByDefault) } }))
        .objects,
    );
    for (const carrier of ['openshift-machine', 'capi-machine']) {
      assert.deepEqual(base[`hookkeeper-${carrier}`], both, carrier);
      assert.deepEqual(base[`hookkeeper-${carrier}-warn`], update, carrier);
      assert.deepEqual(base[`hookkeeper-${carrier}-removal`], update, carrier);
      assert.deepEqual(base[`hookkeeper-${carrier}-removal-warn`], update, carrier);
      assert.deepEqual(base[`hookkeeper-${carrier}-removal-break-glass`], update, carrier);
    }
    // A rule whose problems a CREATE can have, moved to warn, takes its warn policy back to CREATE as well.
    const warned = operations(
      render(
        policyWith({ enforcement: { ...DEFAULT_POLICY.enforcement, 'single-owner': 'warn', 'hook-naming': 'warn' } }),
      ).objects,
    );
    assert.deepEqual(warned['hookkeeper-openshift-machine-warn'], both);
  });

  test('no namespace is left unguarded: neither a namespaceSelector nor a condition on request.namespace', () => {
    const objects = render(DEFAULT_POLICY).objects as unknown as Array<
      Vap & { spec: { matchConditions?: Array<{ name: string; expression: string }> } }
    >;
    const policies = objects.filter((o) => o.kind.endsWith('AdmissionPolicy'));
    assert.ok(policies.length > 0);
    for (const p of policies) {
      assert.doesNotMatch(
        JSON.stringify(p.spec.matchConditions ?? []),
        /!\(request\.namespace in|hookkeeper"|kube-system/,
        p.metadata.name,
      );
      assert.doesNotMatch(JSON.stringify(p.spec.matchConstraints), /NotIn|kube-system/, p.metadata.name);
    }
    const map = policies.find((o) => o.kind === 'MutatingAdmissionPolicy');
    // The default-hook rule's own namespaces, only.
    assert.deepEqual(map?.spec.matchConstraints?.namespaceSelector, {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['openshift-machine-api'] }],
    });
  });

  test("hook-naming shares each carrier's policy of its outcome: no policy of its own, no activation of its own", () => {
    const objects = render(DEFAULT_POLICY).objects;
    const policies = objects.filter((o) => o.kind === 'ValidatingAdmissionPolicy').map((o) => o.metadata.name);
    assert.deepEqual(
      policies.filter((n) => n.includes('-naming')),
      [],
    );
    for (const carrier of ['openshift-machine', 'openshift-machineset', 'capi-machine', 'capi-machinedeployment']) {
      // Enforced problems in the deny policy, ratcheted ones in the warn policy, before the other rules' checks.
      for (const name of [`hookkeeper-${carrier}`, `hookkeeper-${carrier}-warn`]) {
        const messages = (named(objects, name)?.spec.validations ?? []).map((v) => (v as { message?: string }).message);
        assert.match(messages[0] ?? '', /^hookkeeper hook-naming:/, name);
      }
    }
  });

  test("per-rule enforcement: warn moves a rule's validations to the warn policy, off removes them", () => {
    const base = render(DEFAULT_POLICY).objects;
    assert.match(text(named(base, 'hookkeeper-openshift-machine')), /is reserved for owner/);
    const warned = render(
      policyWith({ enforcement: { ...DEFAULT_POLICY.enforcement, 'single-owner': 'warn', 'hook-naming': 'warn' } }),
    ).objects;
    assert.doesNotMatch(text(named(warned, 'hookkeeper-openshift-machine')), /is reserved for owner/);
    assert.match(text(named(warned, 'hookkeeper-openshift-machine-warn')), /is reserved for owner/);
    assert.doesNotMatch(text(named(warned, 'hookkeeper-openshift-machine')), /should match/);
    assert.match(text(named(warned, 'hookkeeper-openshift-machine-warn')), /should match/);
    const off = render(
      policyWith({ enforcement: { ...DEFAULT_POLICY.enforcement, 'deletion-freeze': 'off', 'default-hooks': 'off' } }),
    );
    assert.doesNotMatch(expressions(off.objects).join('\n'), /immutable when machine is marked for deletion/);
    assert.ok(!off.objects.some((o) => o.kind.startsWith('Mutating')));
  });

  test("a warned violation reads '<rule>: <message>' as the webhook's warning does; a notice keeps its own words", () => {
    const { objects } = render(
      policyWith({
        enforcement: { ...DEFAULT_POLICY.enforcement, 'single-owner': 'warn' },
        unverifiedRemoval: 'warn',
      }),
    );
    const messages = (name: string): string[] =>
      (named(objects, name)?.spec.validations ?? []).map((v) => v.messageExpression);
    const warned = messages('hookkeeper-openshift-machine-warn');
    assert.ok(warned.some((m) => m.startsWith('"single-owner: " + (')));
    // Each prefixed with the id of a rule with a validating native form (the registry's).
    const validating = RULES.filter((r) => r.native !== undefined && 'validating' in r.native).map((r) => r.id);
    assert.ok(
      warned.every((m) => validating.some((id) => m.startsWith(`${JSON.stringify(`${id}: `)} + (`))),
      warned.join('\n'),
    );
    // The denying policy's messages are the webhook's denial words, without a rule name.
    assert.ok(messages('hookkeeper-openshift-machine').every((m) => !/^["'][a-z-]+: ["'] \+/.test(m)));
    // unverifiedRemoval's and break-glass's warnings are notices: the webhook says them as they are.
    for (const name of [
      'hookkeeper-openshift-machine-removal-warn',
      'hookkeeper-openshift-machine-removal-break-glass',
    ]) {
      assert.ok(messages(name).length > 0, name);
      assert.ok(
        messages(name).every((m) => !/^["'][a-z-]+: ["'] \+/.test(m)),
        name,
      );
    }
  });

  test('the policy data is compiled into the expressions as literals: registry, reserved hooks, break-glass', () => {
    const policy = policyWith({
      owners: {
        'team/storage': {
          users: ['bob'],
          groups: ['storage-admins'],
          serviceAccounts: [{ namespace: 'st', name: 'op' }],
        },
      },
      reservedHooks: [{ name: 'StorageHold', owner: 'team/storage' }],
      breakGlass: { users: ['root'], groups: [] },
    });
    // No default hooks: their hook is compiled in too (missing-default-hook).
    const all = expressions(
      render({ ...policy, defaultHooks: [] }).objects.filter((o) => o.kind === 'ValidatingAdmissionPolicy'),
    ).join('\n');
    assert.match(
      all,
      /"team\/storage": \{'u': \{"bob": true, "system:serviceaccount:st:op": true\}, 'g': \{"storage-admins": true\}\}/,
    );
    assert.match(all, /\{"StorageHold": "team\/storage"\}/);
    assert.match(all, /request\.userInfo\.username in \{"root": true\}/);
    assert.doesNotMatch(all, /clusteroperator\/etcd/);
  });

  test('unverifiedRemoval and strictOwners: what each compiles to, and the notes that say where native differs', () => {
    const allow = render(policyWith({ unverifiedRemoval: 'allow' }));
    assert.doesNotMatch(expressions(allow.objects).join('\n'), /unverified: hook/);
    assert.ok(allow.notes.some((n) => n.includes("unverifiedRemoval's outcome (allow)")));
    const deny = render(policyWith({ unverifiedRemoval: 'deny' }));
    assert.match(expressions(deny.objects).join('\n'), /unverifiedRemoval is deny/);
    assert.ok(!deny.notes.some((n) => n.includes('CEL cannot list')));
    const strict = render(policyWith({ strictOwners: true }));
    assert.match(text(named(strict.objects, 'hookkeeper-capi-machineset')), /strictOwners is on/);
    assert.ok(strict.notes.some((n) => n.includes('strictOwners')));
  });

  test('default hooks: the rule selector becomes the policy match (kinds, namespaces, labels, operations)', () => {
    const { objects } = render(DEFAULT_POLICY);
    const map = objects.find((o) => o.kind === 'MutatingAdmissionPolicy');
    assert.ok(map);
    const match = JSON.stringify(map.spec.matchConstraints);
    assert.match(match, /"operator":"In","values":\["openshift-machine-api"\]/);
    assert.match(
      match,
      /"objectSelector":\{"matchExpressions":\[\{"key":"machine.openshift.io\/cluster-api-machine-role","operator":"In","values":\["master","arbiter"\]\}\]\}/,
    );
    assert.match(match, /"operations":\["CREATE","UPDATE"\]/);
    // The objectSelector matches stored or new labels: the condition keeps the UPDATE that makes the Machine match.
    assert.deepEqual(map.spec.matchConditions, [
      {
        name: DEFAULT_HOOK_CONDITION_NAME,
        expression: `request.operation == 'CREATE' || (${newlySelectedCel(DEFAULT_POLICY.defaultHooks[0]!, false)})`,
      },
    ]);
    const createOnly = render(
      policyWith({ defaultHooks: DEFAULT_POLICY.defaultHooks.map((r) => ({ ...r, operations: ['CREATE'] as const })) }),
    ).objects.find((o) => o.kind === 'MutatingAdmissionPolicy');
    assert.equal(createOnly?.spec.matchConditions, undefined);
  });

  test("default hooks: a spec that is no object is replaced whole, as the webhook's write does; malformed stanzas are left", () => {
    const map = render(DEFAULT_POLICY).objects.find((o) => o.kind === 'MutatingAdmissionPolicy');
    const patch = map?.spec.mutations?.[0]?.jsonPatch.expression ?? '';
    assert.match(
      patch,
      /type\(object\.spec\) != map \? \[JSONPatch\{op: "replace", path: "\/spec", value: \{"lifecycleHooks"/,
    );
    // Tested only once spec is known to be there, and before anything reads inside it.
    assert.ok(patch.indexOf('!(has(object.spec))') < patch.indexOf('type(object.spec)'));
    assert.ok(patch.indexOf('type(object.spec)') < patch.indexOf('has(object.spec.lifecycleHooks)'));
    assert.doesNotMatch(patch, /type\(object\.spec\.lifecycleHooks\)/);
  });

  test('default hooks: a hook already right is a JSONPatch test that cannot hold, never an empty patch (no re-decode)', () => {
    const rule = DEFAULT_POLICY.defaultHooks[0];
    assert.ok(rule);
    const policy = policyWith({
      defaultHooks: [
        rule,
        {
          ...rule,
          name: 'capi',
          match: { kinds: [{ group: 'cluster.x-k8s.io', kind: 'Machine' }] },
          stage: 'preTerminate',
        },
      ],
    });
    const patches = render(policy)
      .objects.filter((o) => o.kind === 'MutatingAdmissionPolicy')
      .map((o) => o.spec.mutations?.[0]?.jsonPatch.expression ?? '');
    assert.equal(patches.length, 2);
    const [list, annotations] = patches;
    // The API server keeps the object as it was when a test fails (ErrTestFailed); an empty patch is still applied:
    // the object encoded, patched, decoded and compared again.
    assert.match(
      list ?? '',
      /== "clusteroperator\/etcd" \? \[JSONPatch\{op: "test", path: "\/spec\/lifecycleHooks\/preDrain", value: \[\]\}\] : \[JSONPatch\{op: "replace"/,
    );
    assert.match(
      annotations ?? '',
      // The condition is carriesRuleHook's (default-hooks/decision.ts), parenthesized.
      /== "clusteroperator\/etcd"\) \? \[JSONPatch\{op: "test", path: "\/metadata\/annotations", value: \{\}\}\] : \[JSONPatch\{op: "add"/,
    );
  });

  test('CEL cost stays linear: no pass over a hook list is nested inside another pass over a hook list', () => {
    const policy = policyWith({ strictOwners: true, unverifiedRemoval: 'warn' });
    const exprs = expressions(render(policy).objects);
    let passes = 0;
    for (const expr of exprs) {
      for (const m of expr.matchAll(HOOK_LISTS)) {
        passes++;
        const inner = callArguments(expr, (m.index ?? 0) + m[0].length - 1);
        assert.doesNotMatch(inner, HOOK_LISTS, `nested pass in: ${expr}`);
      }
    }
    assert.ok(passes > 50, 'the check saw the hook passes');
    // The check itself catches nesting.
    const nested = 'variables.preDrain.all(h, variables.oldPreDrain.exists(o, o.name == h.name))';
    assert.throws(() => assert.doesNotMatch(callArguments(nested, nested.indexOf('(')), HOOK_LISTS));
  });

  test("deletion-freeze's message is cut where the webhook cuts a violation", () => {
    const freeze = expressions(render(DEFAULT_POLICY).objects).find((e) => e.includes('immutable when machine'));
    assert.match(
      freeze ?? '',
      new RegExp(`size\\(m\\) > ${MAX_VIOLATION_BYTES} \\? m\\.substring\\(0, ${MAX_VIOLATION_BYTES - 3}\\)`),
    );
  });

  test('hook-naming checks patterns in slices from 1.35 (a short list reads one slice), one pass per stage on 1.34', () => {
    const v136 = render(DEFAULT_POLICY).objects;
    const deny = named(v136, 'hookkeeper-openshift-machine');
    const slices = (deny?.spec.variables ?? []).filter((v) => v.expression.includes('.slice('));
    assert.equal(slices.length, CHUNKS * 2, 'each stage, enforced (the deny policy)');
    assert.ok(slices.some((v) => v.expression.includes(`.slice(${(CHUNKS - 1) * CHUNK}, `)));
    const first = slices.find((v) => v.expression.includes('.slice(0, '));
    assert.match(first?.expression ?? '', new RegExp(`<= ${CHUNK} \\? \\[\\] : variables\\.`));
    const v134 = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: '1.34' }).objects as unknown as Vap[];
    assert.doesNotMatch(text(named(v134, 'hookkeeper-openshift-machine')), /\.slice\(/);
    assert.match(text(named(v134, 'hookkeeper-openshift-machine')), /should match/);
  });

  test('every policy stays under 128 KiB, so kubectl apply can keep it in its 256 KiB last-applied annotation', () => {
    const many = policyWith({ unverifiedRemoval: 'warn', strictOwners: true });
    for (const o of render(many).objects) assert.ok(JSON.stringify(o).length < 128 * 1024, o.metadata.name);
  });

  test("impliedOwners at their bound, longest keys: every expression under the CEL parser's 100,000 code points", () => {
    // kube-apiserver refuses a policy whose expression is longer (cel-go's default expression size code point
    // limit); each implied owner is a conditional of its key and owner, so it must appear once, not in every message.
    const prefix = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/';
    const implied = Array.from({ length: MAX_IMPLIED_OWNERS }, (_, i) => ({
      hook: prefix + `k${i}`.padEnd(63, 'x'),
      owner: `o${i}`.padEnd(512, 'x'),
    }));
    const objects = render(policyWith({ impliedOwners: implied, maxHooksPerStage: MAX_HOOKS_PER_STAGE_LIMIT })).objects;
    const longest = Math.max(...expressions(objects).map((e) => [...e].length));
    assert.ok(longest < 100_000, `the longest expression has ${longest} code points`);
    for (const o of objects) assert.ok(JSON.stringify(o).length < 128 * 1024, o.metadata.name);
  });

  test('authorizer checks per policy: at most 16 owners, one more for the wildcard probe, within the runtime budget', () => {
    // kube-apiserver's per-evaluation runtime budget (celconfig.RuntimeCELCostBudget) and an authorizer check's cost.
    const RUNTIME_BUDGET = 10_000_000;
    const CHECK = 350_000;
    for (const patch of [
      {},
      { wildcardGrants: 'warn' as const },
      { unverifiedRemoval: 'deny' as const },
      { unverifiedRemoval: 'warn' as const, wildcardGrants: 'warn' as const },
      { unverifiedRemoval: 'allow' as const, wildcardGrants: 'warn' as const },
    ]) {
      for (const o of render(policyWith(patch)).objects) {
        const checks = (o.spec.variables ?? []).filter((v) => v.expression.includes('.check(')).length;
        assert.ok(checks * CHECK < RUNTIME_BUDGET, `${o.metadata.name} ${JSON.stringify(patch)}: ${checks} checks`);
      }
    }
  });

  test('the wildcard probe: one check of the reserved owner, read only after RBAC allowed an owner, never in a message', () => {
    for (const wildcardGrants of ['deny', 'warn'] as const) {
      const objects = render(policyWith({ wildcardGrants })).objects;
      const probe = objects.flatMap((o) => (o.spec.variables ?? []).filter((v) => v.name === 'wildcardRights'));
      assert.ok(probe.length > 0, wildcardGrants);
      for (const v of probe) assert.ok(v.expression.includes(`.name(${JSON.stringify(WILDCARD_PROBE_OWNER)})`));
      for (const o of objects) {
        const variables = new Map((o.spec.variables ?? []).map((v) => [v.name, v.expression]));
        for (const v of o.spec.validations ?? []) {
          // A message expression has no authorizer: no variable it reaches may call one.
          for (const r of reachable(variables, [v.messageExpression]))
            assert.doesNotMatch(r.expression, /authorizer/, `${o.metadata.name}: message reaches ${r.name}`);
          // The probe only after an owner's own check allowed it (&& evaluates left to right, lazily).
          const at = v.expression.indexOf('variables.wildcardRights');
          if (at >= 0) assert.match(v.expression.slice(0, at), /Granted\d+ && !?$/, v.expression);
        }
      }
    }
  });

  test('wildcardGrants: deny compiles a denial in the removal policy; warn a warning in the removal-warn policy', () => {
    const deny = render(DEFAULT_POLICY).objects;
    const said = (named(deny, 'hookkeeper-openshift-machine-removal')?.spec.validations ?? [])
      .map((v) => v.messageExpression)
      .filter((m) => m.includes('wildcardGrants is deny'));
    assert.equal(said.length, 1);
    // The webhook's words (test/core/wildcard-grants.test.ts): "act for" comes after the user, in CEL as there.
    assert.ok(
      said[0]?.includes(
        `"RBAC lets " + strings.quote(request.userInfo.username) + " act for every hook owner, which is not ownership, `,
      ),
      said[0],
    );
    assert.match(
      text(named(deny, 'hookkeeper-openshift-machine-removal')),
      /which is not ownership, and wildcardGrants is deny/,
    );
    assert.doesNotMatch(expressions(deny).join('\n'), /wildcard RBAC: /);
    const warn = render(policyWith({ wildcardGrants: 'warn', unverifiedRemoval: 'allow' })).objects;
    assert.match(text(named(warn, 'hookkeeper-openshift-machine-removal-warn')), /wildcard RBAC: /);
    assert.doesNotMatch(expressions(warn).join('\n'), /wildcardGrants is deny/);
  });

  test('authorizer checks: one per variable (350,000 each against a 1,000,000 per-expression limit), none in a message', () => {
    const objects = render(DEFAULT_POLICY).objects;
    for (const o of objects) {
      for (const v of o.spec.variables ?? []) assert.ok((v.expression.match(/\.check\(/g) ?? []).length <= 1, v.name);
      for (const v of o.spec.validations ?? []) {
        assert.doesNotMatch(v.expression, /authorizer/);
        assert.doesNotMatch(v.messageExpression, /variables\.granted/);
      }
    }
  });
});
