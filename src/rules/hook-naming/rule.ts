// Rule hook-naming: the openshift/api CRD's constraints on hook names and owners, and apimachinery's on Cluster
// API hook annotation keys, in the API server's words, so `hookkeeper validate` in CI, the webhook and the
// cluster all say the same thing.
import { HOOK_ANNOTATION_PREFIX, parseHookAnnotationKey } from '../../core/capi.js';
import { quote } from '../../core/guards.js';
import type { HookCarrier, RawHook } from '../../core/carriers.js';
import { required, typeInvalid } from '../../core/field-errors.js';
import { annotationKeyErrors } from '../../core/qualified-name.js';
import type { Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { nativeHookNaming } from './cel.js';
import { HOOK_NAME_PATTERN } from '../../core/hook-name.js';
import {
  annotationKeyMessage,
  annotationShapeDetail,
  HOOK_NAME_LENGTH,
  HOOK_OWNER_LENGTH,
  patternMessage,
  tooLongMessage,
  tooShortMessage,
} from './messages.js';
import { hookNamingDivergences } from './divergences.js';

export { HOOK_NAME_PATTERN };
const HOOK_NAME_RE = new RegExp(HOOK_NAME_PATTERN);

interface StringLimits {
  min: number;
  max: number;
  pattern?: { source: string; re: RegExp };
}

export const NAME_LIMITS: StringLimits = {
  ...HOOK_NAME_LENGTH,
  pattern: { source: HOOK_NAME_PATTERN, re: HOOK_NAME_RE },
};
const OWNER_LIMITS: StringLimits = { ...HOOK_OWNER_LENGTH };

/** Checks one string field as OpenAPI v3 validation in the API server does (lengths count characters). */
export function checkString(
  path: string,
  value: unknown,
  limits: StringLimits,
): Array<{ message: string; check: string }> {
  if (value === undefined || value === null) return [{ message: required(path).message, check: 'required' }];
  if (typeof value !== 'string') {
    return [{ message: typeInvalid(path, value, 'string').message, check: 'type' }];
  }
  const out: Array<{ message: string; check: string }> = [];
  const length = [...value].length;
  if (length < limits.min) {
    out.push({ message: tooShortMessage(limits.min).toJs({ path, value }), check: 'min' });
  }
  if (length > limits.max) {
    out.push({ message: tooLongMessage(limits.max).toJs({ path }), check: 'max' });
  }
  if (limits.pattern && !limits.pattern.re.test(value)) {
    out.push({ message: patternMessage(limits.pattern.source).toJs({ path, value }), check: 'pattern' });
  }
  return out;
}

function hookLabel(h: RawHook): string {
  return typeof h.name === 'string' ? `hook ${quote(h.name)}` : `the hook at ${h.path}`;
}

export function listHookNaming(hooks: readonly RawHook[]): Violation[] {
  const out: Violation[] = [];
  for (const h of hooks) {
    const ref =
      typeof h.name === 'string' && typeof h.owner === 'string'
        ? { stage: h.stage, name: h.name, owner: h.owner }
        : undefined;
    for (const [field, path, value, limits] of [
      ['name', h.namePath, h.name, NAME_LIMITS],
      ['owner', h.ownerPath, h.owner, OWNER_LIMITS],
    ] as const) {
      for (const problem of checkString(path, value, limits)) {
        out.push({
          rule: 'hook-naming',
          path,
          message: problem.message,
          fix:
            field === 'name'
              ? `give ${hookLabel(h)} a name of 3-256 characters: CamelCase, or prefixed with a DNS subdomain (foo.example.com/CamelCase)`
              : `give ${hookLabel(h)} an owner of 3-512 characters naming who removes it (e.g. clusteroperator/etcd)`,
          ...(ref ? { hook: ref } : {}),
          key: `naming:${h.stage}:${quote(h.name)}:${quote(h.owner)}:${field}:${problem.check}`,
        });
      }
    }
  }
  return out;
}

/**
 * Cluster API hooks: the key must be an annotation key the API server accepts (a qualified name), said in
 * ValidateAnnotations' words, which also covers templates, whose annotations the API server does not check.
 */
export function annotationHookNaming(carrier: HookCarrier, hooks: readonly RawHook[]): Violation[] {
  const out: Violation[] = [];
  for (const h of hooks) {
    const key = h.key ?? '';
    const at = carrier.stagePath(h.stage);
    const prefix = HOOK_ANNOTATION_PREFIX[h.stage];
    const name = typeof h.name === 'string' ? h.name : '';
    const ref = typeof h.owner === 'string' ? { hook: { stage: h.stage, name, owner: h.owner } } : {};
    const problems = annotationKeyErrors(key).map((detail) => ({ detail, check: detail }));
    if (!parseHookAnnotationKey(key, carrier.stages)?.canonical) {
      problems.push({ detail: annotationShapeDetail(h.stage), check: 'shape' });
    }
    for (const p of problems) {
      out.push({
        rule: 'hook-naming',
        path: at,
        message: annotationKeyMessage.toJs({ path: at, key, detail: p.detail }),
        fix: `name the hook with 1-63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric, and no '/' (the annotation key is ${prefix}/<name>)`,
        ...ref,
        key: `naming:${h.stage}:${quote(key)}:${p.check}`,
      });
    }
    if (typeof h.owner !== 'string') {
      out.push({
        rule: 'hook-naming',
        path: h.ownerPath,
        message: typeInvalid(h.ownerPath, h.owner, 'string').message,
        fix: `make the value of annotation ${key} a string naming the hook's owner (it may be empty)`,
        key: `naming:${h.stage}:${quote(key)}:owner:type`,
      });
    }
  }
  return out;
}

export const hookNaming: Rule = ({ carrier, hooks }) => {
  const structural = hooks.problems;
  if (carrier.format === 'list') return { violations: [...structural, ...listHookNaming(hooks.hooks)] };
  return { violations: [...structural, ...annotationHookNaming(carrier, hooks.hooks)] };
};

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
  native: { validating: nativeHookNaming, readsNameIndex: true, divergences: hookNamingDivergences },
};
