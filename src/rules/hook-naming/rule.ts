// Rule hook-naming: the openshift/api CRD's constraints on hook names and owners, and apimachinery's on Cluster
// API hook annotation keys, in the API server's words, so `hookkeeper validate` in CI, the webhook and the
// cluster all say the same thing. Each constraint is written once (constraintCheck): the webhook lists every one a
// hook breaks, native mode the first; entries CEL never sees (a field that is not a string) are the webhook's alone.
import { HOOK_ANNOTATION_PREFIX } from '../../core/capi.js';
import type { RawHook } from '../../core/carriers.js';
import { required, typeInvalid } from '../../core/field-errors.js';
import { quote } from '../../core/guards.js';
import { HOOK_NAME_PATTERN } from '../../core/hook-name.js';
import {
  DNS1123_SUBDOMAIN_FMT,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  PREFIX_PART_DETAILS,
  QUALIFIED_NAME_DETAILS,
  QUALIFIED_NAME_FMT,
  QUALIFIED_NAME_MAX_LENGTH,
} from '../../core/qualified-name.js';
import type { NativeContext, NativeValidating } from '../../core/cel/types.js';
import { constraintCheck, type Constraint } from '../../core/expr/constraint-check.js';
import {
  bound,
  byteSize,
  eq,
  ge,
  gt,
  int,
  keptFor,
  le,
  lowerKey,
  matches,
  minus,
  not,
  or,
  say,
  size,
  startsWith,
  str,
  type Bool,
  type Expr,
  type Str,
} from '../../core/expr/expr.js';
import type { HookVar, StageView } from '../../core/expr/hooks.js';
import { at, count, split } from '../../core/expr/lists.js';
import { hasKey } from '../../core/expr/maps.js';
import type { Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import {
  annotationKeyMessage,
  annotationShapeDetail,
  HOOK_NAME_LENGTH,
  HOOK_OWNER_LENGTH,
  patternMessage,
  tooLongMessage,
  tooShortMessage,
} from './messages.js';

export { HOOK_NAME_PATTERN };

/** A string field's OpenAPI bounds: lengths in characters, and a pattern. */
export interface StringLimits {
  min: number;
  max: number;
  pattern?: string;
}

export const NAME_LIMITS: StringLimits = Object.freeze({ ...HOOK_NAME_LENGTH, pattern: HOOK_NAME_PATTERN });
export const OWNER_LIMITS: StringLimits = Object.freeze({ ...HOOK_OWNER_LENGTH });

/** A string's constraints as OpenAPI v3 validation in the API server checks them, each with its name in keys. */
function stringConstraints(value: Str, path: Str, limits: StringLimits) {
  // One size for both bounds: counted once per value in JavaScript.
  const length = size(value);
  const out = [
    { check: 'min', holds: ge(length, int(limits.min)), message: say(tooShortMessage(limits.min), { path, value }) },
    { check: 'max', holds: le(length, int(limits.max)), message: say(tooLongMessage(limits.max), { path }) },
  ];
  // Read after the length bounds: in CEL a pattern's cost grows with the string, so it runs on bounded ones only.
  if (limits.pattern !== undefined)
    out.push({
      check: 'pattern',
      holds: matches(value, limits.pattern),
      message: say(patternMessage(limits.pattern), { path, value }),
    });
  return out;
}

const compiledLimits = new WeakMap<StringLimits, ReturnType<typeof compileLimits>>();
function compileLimits(limits: StringLimits) {
  const [value, path] = [bound<string>('value'), bound<string>('path')];
  return { value, path, constraints: stringConstraints(value, path, limits) };
}

/**
 * Checks one string field as OpenAPI v3 validation in the API server does, with the constraints the rule holds
 * hooks to (the policy loader checks the hooks it writes with it, and the webhook a hook another field of which is
 * malformed).
 */
export function checkString(
  path: string,
  value: unknown,
  limits: StringLimits,
): Array<{ message: string; check: string }> {
  if (value === undefined || value === null) return [{ message: required(path).message, check: 'required' }];
  if (typeof value !== 'string') return [{ message: typeInvalid(path, value, 'string').message, check: 'type' }];
  let compiled = compiledLimits.get(limits);
  if (!compiled) compiledLimits.set(limits, (compiled = compileLimits(limits)));
  compiled.value.set(value);
  compiled.path.set(path);
  const env = { memo: undefined };
  return compiled.constraints
    .filter((c) => !c.holds.js(env))
    .map((c) => ({ message: c.message.js(env), check: c.check }));
}

const hookLabel = (name: unknown, path: string): string =>
  typeof name === 'string' ? `hook ${quote(name)}` : `the hook at ${path}`;
const FIX = {
  name: (label: string) =>
    `give ${label} a name of 3-256 characters: CamelCase, or prefixed with a DNS subdomain (foo.example.com/CamelCase)`,
  owner: (label: string) =>
    `give ${label} an owner of 3-512 characters naming who removes it (e.g. clusteroperator/etcd)`,
};
/** A list hook's violations are compared by stage, name, owner, field and constraint. */
const listKey = (stage: string, name: unknown, owner: unknown, field: string, check: string): string =>
  `naming:${stage}:${quote(name)}:${quote(owner)}:${field}:${check}`;

export const CHUNK = 1200;
export const CHUNKS = 32;

// Machine API: each hook's name and owner as the openshift/api CRD bounds them.
const listNaming = constraintCheck({
  rule: 'hook-naming',
  carriers: (carrier) => carrier.format === 'list',
  constraints: (h) =>
    (
      [
        ['name', h.name, h.namePath, NAME_LIMITS],
        ['owner', h.owner, h.ownerPath, OWNER_LIMITS],
      ] as const
    ).flatMap(([field, value, path, limits]) =>
      stringConstraints(value, path, limits).map((c): Constraint => ({
        holds: c.holds,
        message: c.message,
        at: field,
        fix: (hook) => FIX[field](hookLabel(hook.name, hook.path)),
        key: (hook) => listKey(hook.stage, hook.name, hook.owner, field, c.check),
      })),
    ),
  // A list hook's problem may be in its name or its owner, so it was there when both were.
  stored: (h, s) => s.wasStored(h),
  reason: 'Invalid',
  namesHook: true,
  // A hook whose owner is not a string is worded below (a name that is not one leaves no well-formed hook).
  skips: (env) => {
    let paths: Set<string> | undefined;
    for (const h of env.hooks.hooks) if (typeof h.owner !== 'string') (paths ??= new Set()).add(h.path);
    return paths && ((hook) => paths.has(hook.path));
  },
  /**
   * A pattern check costs up to about 680 for a 256-character name against 1,000,000 per expression, so native mode
   * checks {name, owner} hooks in slices of CHUNK, CHUNKS of them, the last taking the rest. hook-count's bound does
   * not make them unnecessary: it can be turned off, and it never shrinks what is already stored (the cost proof runs
   * without it: test/e2e/scenarios/cel-cost.ts; figures in docs/native-admission-policies.md). Slicing needs the CEL
   * lists library, in the environment from Kubernetes 1.35 on (compatibility version 1.34).
   */
  slices: { variable: 'naming', size: CHUNK, count: CHUNKS, fromMinor: 35 },
});

/**
 * apimachinery's ValidateAnnotations on one hook key (IsQualifiedName of the lowered key: split at '/', an optional
 * DNS-subdomain prefix part, a name part of 1-63 bytes), in its order, then the hook's own shape: "<prefix>/<name>".
 * Each constraint holds where an earlier one ends the check, as apimachinery stops there.
 */
function keyConstraints(h: HookVar, s: StageView): { holds: Bool; detail: string; check?: string }[] {
  const prefix = HOOK_ANNOTATION_PREFIX[s.stage];
  // The documented form: its prefix part is the stage's prefix, a DNS subdomain, so that part is not read again.
  // Each read by several constraints: computed once per hook in JavaScript.
  const kept = <T>(e: Expr<T>): Expr<T> => keptFor(h.value, e);
  const documented = kept(startsWith(h.id, `${prefix}/`));
  const parts = kept(split(h.id, '/'));
  const n = kept(count(parts));
  const prefixPart = lowerKey(at(parts, 0));
  const name = kept(at(parts, minus(n, int(1))));
  const lowered = kept(lowerKey(name));
  const more = kept(gt(n, int(2)));
  const noPrefix = kept(or(documented, not(eq(n, int(2)))));
  // A key starts with a hook prefix, so its prefix part is never empty (PREFIX_PART_DETAILS.empty).
  return [
    { holds: le(n, int(2)), detail: QUALIFIED_NAME_DETAILS.shape },
    {
      holds: or(noPrefix, le(byteSize(prefixPart), int(DNS1123_SUBDOMAIN_MAX_LENGTH))),
      detail: PREFIX_PART_DETAILS.tooLong,
    },
    { holds: or(noPrefix, matches(prefixPart, `^${DNS1123_SUBDOMAIN_FMT}$`)), detail: PREFIX_PART_DETAILS.pattern },
    { holds: or(more, gt(size(name), int(0))), detail: QUALIFIED_NAME_DETAILS.empty },
    {
      holds: or(more, eq(size(name), int(0)), le(byteSize(lowered), int(QUALIFIED_NAME_MAX_LENGTH))),
      detail: QUALIFIED_NAME_DETAILS.tooLong,
    },
    // After the lengths: in CEL it runs on at most 63 bytes.
    { holds: or(more, matches(lowered, `^${QUALIFIED_NAME_FMT}$`)), detail: QUALIFIED_NAME_DETAILS.pattern },
    { holds: documented, detail: annotationShapeDetail(s.stage), check: 'shape' },
  ];
}

// Cluster API: each hook's annotation key is one the API server accepts, which also covers templates, whose
// annotations the API server does not check.
const keyNaming = constraintCheck({
  rule: 'hook-naming',
  carriers: (carrier) => carrier.format === 'annotations',
  constraints: (h, s) =>
    keyConstraints(h, s).map(({ holds, detail, check }) => ({
      holds,
      message: say(annotationKeyMessage, { path: str(s.stagePath), key: h.id, detail: str(detail) }),
      at: 'stage',
      fix: () =>
        `name the hook with 1-63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric, and no '/' (the annotation key is ${HOOK_ANNOTATION_PREFIX[s.stage]}/<name>)`,
      // Named by their words, but for the hook's own shape.
      key: (hook) => `naming:${hook.stage}:${quote(hook.id)}:${check ?? detail}`,
    })),
  // A key's problem belongs to the key, so it was there when the key was, whatever value it had (or has now).
  stored: (h, s) => hasKey(s.oldIndex, h.id),
  reason: 'Invalid',
  namesHook: true,
});

/** A list hook a field of which is not a string: that field's structural problem, the other's constraints. */
function malformedListHook(h: RawHook): Violation[] {
  const out: Violation[] = [];
  for (const [field, path, value, limits] of [
    ['name', h.namePath, h.name, NAME_LIMITS],
    ['owner', h.ownerPath, h.owner, OWNER_LIMITS],
  ] as const) {
    for (const problem of checkString(path, value, limits))
      out.push({
        rule: 'hook-naming',
        path,
        message: problem.message,
        fix: FIX[field](hookLabel(h.name, h.path)),
        key: listKey(h.stage, h.name, h.owner, field, problem.check),
      });
  }
  return out;
}

/** An annotation hook whose value is not a string (CEL reads it as empty; the API server stores strings only). */
function ownerNotString(h: RawHook): Violation {
  return {
    rule: 'hook-naming',
    path: h.ownerPath,
    message: typeInvalid(h.ownerPath, h.owner, 'string').message,
    fix: `make the value of annotation ${h.key ?? ''} a string naming the hook's owner (it may be empty)`,
    key: `naming:${h.stage}:${quote(h.key ?? '')}:owner:type`,
  };
}

export const hookNaming: Rule = (ctx) => {
  const { carrier, hooks } = ctx;
  const list = carrier.format === 'list';
  const violations = [...hooks.problems, ...(list ? listNaming : keyNaming).validate(ctx).violations];
  for (const h of hooks.hooks) {
    if (list && (typeof h.name !== 'string' || typeof h.owner !== 'string'))
      for (const v of malformedListHook(h)) violations.push(v);
    else if (!list && typeof h.owner !== 'string') violations.push(ownerNotString(h));
  }
  return { violations };
};

function nativeHookNaming(ctx: NativeContext): NativeValidating {
  return (ctx.view.carrier.format === 'list' ? listNaming : keyNaming).native.validating(ctx);
}

export const hookNamingRule: CarrierRuleModule<'hook-naming'> = {
  id: 'hook-naming',
  order: 10,
  enforcement: 'deny',
  ratchets: true,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: ['hooks'] }),
  facts: [],
  summary:
    "hook names and owners meet the openshift/api CRD's constraints; Cluster API hook annotation keys are qualified names",
  validate: hookNaming,
  native: { validating: nativeHookNaming, readsNameIndex: true },
};
