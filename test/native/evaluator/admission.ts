// An in-process evaluator of rendered admission policies, for tests: what the API server's admission chain does
// with hookkeeper's MutatingAdmissionPolicies (match, conditions, JSONPatch, reinvocation) and then its
// ValidatingAdmissionPolicies (match, conditions, variables, validations, messages, the binding's actions) on one
// request, so the differential tests compare native mode with the webhook without an API server.
import type { Environment } from '@marcbachmann/cel-js';
import type { KubeObject, ReviewInput } from '../../../src/core/types.js';
import { KNOWN_RESOURCES } from '../../../src/core/resources.js';
import {
  admissionEnvironment,
  Authorizer,
  defineVariables,
  prepare,
  Variables,
  type Authorize,
  type VariablesClass,
} from './cel.js';
import { fromCel, toCel } from './values.js';
import { applyPatch, type Operation } from '../../helpers/json-patch.js';

interface Named {
  name: string;
  expression: string;
}
interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}
interface ResourceRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
}
interface PolicySpec {
  failurePolicy?: 'Fail' | 'Ignore';
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  matchConstraints: { namespaceSelector?: Selector; objectSelector?: Selector; resourceRules: ResourceRule[] };
  matchConditions?: Named[];
  variables?: Named[];
  validations?: Array<{ expression: string; messageExpression?: string; message?: string }>;
  mutations?: Array<{ patchType: string; jsonPatch?: { expression: string } }>;
}

type Program = (ctx: Record<string, unknown>) => unknown;

/** One policy, its expressions parsed and type-checked once. */
interface Compiled {
  name: string;
  kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';
  spec: PolicySpec;
  actions: readonly string[];
  conditions: Array<{ name: string; run: Program }>;
  variables: Array<{ name: string; run: Program }>;
  vars: VariablesClass;
  validations: Array<{ run: Program; message?: Program; text: string; expression: string }>;
  mutations: Program[];
}

export type CompiledPolicies = readonly Compiled[];

/** A failed validation: its message, the rule that rendered it, and whether it failed to evaluate. */
export interface Failure {
  message: string;
  rule?: string;
  error?: boolean;
}

export interface NativeVerdict {
  allowed: boolean;
  /** The denying validation's message (the API server prefixes it with the policy and binding) and its rule. */
  denial?: Failure & { policy: string };
  /** Failed validations of Warn bindings, in the order of the policies and their validations. */
  warnings: Array<Failure & { policy: string }>;
  /** The object after the mutating policies (the request's own object when none changed it). */
  object: KubeObject | null;
}

function check(env: Environment, expression: string, where: string): { run: Program; type: string } {
  const program = env.parse(prepare(expression));
  const checked = program.check();
  if (!checked.valid || checked.type === undefined) throw new Error(`${where}: ${checked.error?.message ?? 'no type'}`);
  return { run: program, type: checked.type };
}

/**
 * Programs shared by every policy compiled without typed variables: one environment whose `variables` has every
 * name seen (dyn), one program per expression text (policies under other knobs share most of theirs).
 */
class SharedVariables extends Variables {}
const shared = {
  names: new Set<string>(),
  env: undefined as Environment | undefined,
  programs: new Map<string, Program>(),
};

function sharedProgram(expression: string, where: string): Program {
  let run = shared.programs.get(expression);
  if (run === undefined) {
    shared.env ??= admissionEnvironment(new Map([...shared.names].map((n) => [n, 'dyn'])), SharedVariables);
    run = check(shared.env, expression, where).run;
    shared.programs.set(expression, run);
  }
  return run;
}

/**
 * Parses and type-checks every expression of the policies. `typedVariables`: each variable typed by its expression,
 * in declaration order, and every expression checked against those types, as the API server checks a policy (an
 * environment per variable: slow); otherwise variables are dyn and programs shared between calls.
 */
export function compilePolicies(
  objects: readonly KubeObject[],
  options: { typedVariables?: boolean } = {},
): CompiledPolicies {
  const bindings = new Map<string, readonly string[]>();
  for (const o of objects) {
    if (o['kind'] === 'ValidatingAdmissionPolicyBinding' || o['kind'] === 'MutatingAdmissionPolicyBinding') {
      const spec = o['spec'] as { policyName: string; validationActions?: string[] };
      bindings.set(`${String(o['kind']).replace('Binding', '')}/${spec.policyName}`, spec.validationActions ?? []);
    }
  }
  const out: Compiled[] = [];
  for (const o of objects) {
    const kind = o['kind'];
    if (kind !== 'ValidatingAdmissionPolicy' && kind !== 'MutatingAdmissionPolicy') continue;
    const name = (o['metadata'] as { name: string }).name;
    const actions = bindings.get(`${kind}/${name}`);
    if (actions === undefined) continue;
    const spec = o['spec'] as PolicySpec;
    const names = (spec.variables ?? []).map((v) => v.name);
    let program: (expression: string, where: string) => Program;
    let vars: VariablesClass;
    const variables: Compiled['variables'] = [];
    // No variables in a matchCondition: checked where `variables` has no field.
    let conditionProgram: (expression: string, where: string) => Program;
    if (options.typedVariables) {
      vars = class PolicyVariables extends Variables {};
      defineVariables(vars, names);
      const types = new Map<string, string>();
      for (const v of spec.variables ?? []) {
        const checked = check(admissionEnvironment(types, vars), v.expression, `${name} variable ${v.name}`);
        types.set(v.name, checked.type);
        variables.push({ name: v.name, run: checked.run });
      }
      const env = admissionEnvironment(types, vars);
      program = (e, where) => check(env, e, where).run;
      const bare = admissionEnvironment(new Map(), vars);
      conditionProgram = (e, where) => check(bare, e, where).run;
    } else {
      vars = SharedVariables;
      if (names.some((n) => !shared.names.has(n))) {
        for (const n of names) shared.names.add(n);
        defineVariables(SharedVariables, names);
        shared.env = undefined;
      }
      for (const v of spec.variables ?? [])
        variables.push({ name: v.name, run: sharedProgram(v.expression, `${name} variable ${v.name}`) });
      program = sharedProgram;
      conditionProgram = sharedProgram;
    }
    out.push({
      name,
      kind,
      spec,
      actions,
      conditions: (spec.matchConditions ?? []).map((c) => ({
        name: c.name,
        run: conditionProgram(c.expression, `${name} matchCondition ${c.name}`),
      })),
      variables,
      vars,
      validations: (spec.validations ?? []).map((v, i) => ({
        run: program(v.expression, `${name} validation ${i}`),
        ...(v.messageExpression ? { message: program(v.messageExpression, `${name} message ${i}`) } : {}),
        text: v.message ?? '',
        expression: v.expression,
      })),
      mutations: (spec.mutations ?? []).map((m, i) => {
        if (m.patchType !== 'JSONPatch' || !m.jsonPatch) throw new Error(`${name}: mutation ${i} is not a JSONPatch`);
        return program(m.jsonPatch.expression, `${name} mutation ${i}`);
      }),
    });
  }
  return out;
}

function selects(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key] ?? '';
    const ok =
      e.operator === 'In'
        ? has && (e.values ?? []).includes(value)
        : e.operator === 'NotIn'
          ? !has || !(e.values ?? []).includes(value)
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

const labelsOf = (o: KubeObject | null): Record<string, string> =>
  (o?.['metadata'] as { labels?: Record<string, string> } | undefined)?.labels ?? {};

/** Kinds outside the carriers' table whose requests a static self-protection policy matches. */
const OTHER_PLURALS: Record<string, string> = {
  'apiextensions.k8s.io/CustomResourceDefinition': 'customresourcedefinitions',
};

const pluralOf = (input: ReviewInput): string | undefined =>
  KNOWN_RESOURCES.find((r) => r.group === input.kind.group && r.kind === input.kind.kind)?.plural ??
  OTHER_PLURALS[`${input.kind.group}/${input.kind.kind}`];

function matches(p: Compiled, input: ReviewInput, object: KubeObject | null, namespaceLabels: Record<string, string>) {
  const plural = pluralOf(input);
  const { resourceRules, namespaceSelector, objectSelector } = p.spec.matchConstraints;
  const any = (list: string[], value: string): boolean => list.includes('*') || list.includes(value);
  if (
    !resourceRules.some(
      (r) =>
        any(r.apiGroups, input.kind.group) &&
        any(r.apiVersions, input.kind.version) &&
        plural !== undefined &&
        any(r.resources, plural) &&
        any(r.operations, input.operation),
    )
  )
    return false;
  if (!selects(namespaceSelector, namespaceLabels)) return false;
  // The object's labels or the stored object's: either matching selects the request.
  return (
    selects(objectSelector, labelsOf(object)) ||
    (input.oldObject !== null && selects(objectSelector, labelsOf(input.oldObject)))
  );
}

export interface Cluster {
  /** The RBAC answer the authorizer gives. */
  authorize: Authorize;
  /** Labels of the request's namespace (kubernetes.io/metadata.name is added). */
  namespaceLabels?: Record<string, string>;
}

/** The activation of one policy: the request's values (converted once per object), its own variables. */
function activation(input: ReviewInput, object: KubeObject | null, cluster: Cluster, p: Compiled) {
  const base = { ...requestValues(input, object, cluster) };
  base['variables'] = new p.vars(new Map(p.variables.map((v) => [v.name, () => v.run(base)])));
  return base;
}

const converted = new WeakMap<object, Record<string, unknown>>();
function requestValues(input: ReviewInput, object: KubeObject | null, cluster: Cluster): Record<string, unknown> {
  const key = object ?? input;
  const known = converted.get(key);
  if (known && known['input'] === input) return known;
  const base: Record<string, unknown> = {
    input,
    object: toCel(object),
    // As the API server: the stored object on UPDATE and DELETE.
    oldObject: input.operation === 'UPDATE' || input.operation === 'DELETE' ? toCel(input.oldObject) : null,
    request: toCel({
      operation: input.operation,
      namespace: input.namespace ?? '',
      name: input.name ?? '',
      kind: input.kind,
      resource: { group: input.kind.group, version: input.kind.version, resource: pluralOf(input) ?? '' },
      userInfo: { username: input.userInfo.username, uid: input.userInfo.uid ?? '', groups: input.userInfo.groups },
      dryRun: input.dryRun,
    }),
    namespaceObject: toCel({ metadata: { name: input.namespace ?? '', labels: namespaceLabelsOf(input, cluster) } }),
    params: null,
    authorizer: new Authorizer(cluster.authorize),
  };
  converted.set(key, base);
  return base;
}

const namespaceLabelsOf = (input: ReviewInput, cluster: Cluster): Record<string, string> => ({
  ...cluster.namespaceLabels,
  'kubernetes.io/metadata.name': input.namespace ?? '',
});

/** The matchConditions: 'match', 'skip', or an error (which failurePolicy decides). */
function conditions(p: Compiled, ctx: Record<string, unknown>): 'match' | 'skip' | Error {
  for (const c of p.conditions) {
    try {
      const r = c.run(ctx);
      if (r === false) return 'skip';
      if (r !== true) return new Error(`matchCondition ${c.name} is not a bool`);
    } catch (e) {
      return e as Error;
    }
  }
  return 'match';
}

/** The API server's message for a failed validation: a usable message expression, else the message. */
function messageOf(v: Compiled['validations'][number], ctx: Record<string, unknown>): string {
  if (v.message) {
    try {
      const m = v.message(ctx);
      if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) return m;
    } catch {
      // As unset: the static message.
    }
  }
  return v.text || `failed expression: ${v.expression}`;
}

function mutateOnce(p: Compiled, input: ReviewInput, object: KubeObject, cluster: Cluster): KubeObject {
  const ctx = activation(input, object, cluster, p);
  const verdict = conditions(p, ctx);
  if (verdict !== 'match') {
    if (verdict === 'skip' || p.spec.failurePolicy !== 'Fail') return object;
    throw verdict;
  }
  let out = object;
  try {
    for (const m of p.mutations) {
      const ops = fromCel(m(ctx)) as Operation[];
      out = applyPatch(out, ops);
    }
  } catch (e) {
    // A failed test operation or an evaluation error: the object as it came, unless the policy fails closed.
    if (p.spec.failurePolicy === 'Fail') throw e;
    return object;
  }
  return out;
}

/** The request through the mutating policies, then the validating ones, as the API server orders admission. */
export function admit(policies: CompiledPolicies, input: ReviewInput, cluster: Cluster): NativeVerdict {
  let object = input.object;
  const mutating = policies.filter((p) => p.kind === 'MutatingAdmissionPolicy');
  if (object !== null) {
    let current: KubeObject = object;
    const ranAt = new Map<string, number>();
    let changes = 0;
    for (const p of mutating) {
      if (!matches(p, input, current, namespaceLabelsOf(input, cluster))) continue;
      const next = mutateOnce(p, input, current, cluster);
      if (!equal(next, current)) changes++;
      ranAt.set(p.name, changes);
      current = next;
    }
    // Reinvocation (IfNeeded): once more each policy whose object a later one changed.
    for (const p of mutating) {
      const at = ranAt.get(p.name);
      if (at === undefined || p.spec.reinvocationPolicy !== 'IfNeeded' || changes <= at) continue;
      current = mutateOnce(p, input, current, cluster);
    }
    object = current;
  }
  const warnings: NativeVerdict['warnings'] = [];
  for (const p of policies) {
    if (p.kind !== 'ValidatingAdmissionPolicy' || !matches(p, input, object, namespaceLabelsOf(input, cluster)))
      continue;
    const ctx = activation(input, object, cluster, p);
    const verdict = conditions(p, ctx);
    if (verdict === 'skip') continue;
    const failures: Failure[] = [];
    if (verdict instanceof Error) {
      if (p.spec.failurePolicy === 'Ignore') continue;
      failures.push({ message: `failed to evaluate matchConditions: ${verdict.message}` });
    } else {
      for (const v of p.validations) {
        let passed: unknown;
        try {
          passed = v.run(ctx);
        } catch (e) {
          if (p.spec.failurePolicy === 'Ignore') continue;
          failures.push({
            message: `expression '${v.expression.slice(0, 80)}' resulted in error: ${(e as Error).message}`,
            rule: ruleOf(v.text),
            error: true,
          });
          continue;
        }
        if (passed !== true) failures.push({ message: messageOf(v, ctx), rule: ruleOf(v.text) });
      }
    }
    if (failures.length === 0) continue;
    const first = failures[0] as Failure;
    if (p.actions.includes('Deny')) return { allowed: false, denial: { policy: p.name, ...first }, warnings, object };
    if (p.actions.includes('Warn')) for (const f of failures) warnings.push({ policy: p.name, ...f });
  }
  return { allowed: true, warnings, object };
}

/** A validation's rule, from the static message render gives it ("hookkeeper <rule>: <summary>"). */
function ruleOf(text: string): string | undefined {
  return /^hookkeeper ([a-z-]+):/.exec(text)?.[1];
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A webhook registration's matchCondition on a request (no variables, no authorizer answer needed). */
export function conditionHolds(expression: string, input: ReviewInput): boolean {
  const run = sharedProgram(expression, 'matchCondition');
  const ctx = {
    ...requestValues(input, input.object, { authorize: () => false }),
    variables: new SharedVariables(new Map()),
  };
  const r = run(ctx);
  if (typeof r !== 'boolean') throw new Error(`matchCondition ${expression} is not a bool`);
  return r;
}
