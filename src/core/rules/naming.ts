// Rule hook-naming: the openshift/api CRD's constraints on hook names and owners, in the API server's words,
// so `hookkeeper validate` in CI, the webhook and the cluster all say the same thing.
import { quote } from '../guards.js';
import type { RawHook } from '../carriers.js';
import type { Violation } from '../types.js';
import type { Rule } from './context.js';

/** openshift/api machine/v1beta1 LifecycleHook.name pattern. */
export const HOOK_NAME_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';
const HOOK_NAME_RE = new RegExp(HOOK_NAME_PATTERN);

interface StringLimits {
  min: number;
  max: number;
  pattern?: { source: string; re: RegExp };
}

const NAME_LIMITS: StringLimits = { min: 3, max: 256, pattern: { source: HOOK_NAME_PATTERN, re: HOOK_NAME_RE } };
const OWNER_LIMITS: StringLimits = { min: 3, max: 512 };

/** Checks one string field as OpenAPI v3 validation in the API server does (lengths count characters). */
export function checkString(path: string, value: unknown, limits: StringLimits): Array<{ message: string; check: string }> {
  if (value === undefined || value === null) return [{ message: `${path}: Required value`, check: 'required' }];
  if (typeof value !== 'string') {
    const got = Array.isArray(value) ? 'array' : typeof value;
    return [{ message: `${path}: Invalid value: "${got}": ${path} in body must be of type string: "${got}"`, check: 'type' }];
  }
  const out: Array<{ message: string; check: string }> = [];
  const length = [...value].length;
  if (length < limits.min) {
    out.push({ message: `${path}: Invalid value: ${quote(value)}: ${path} in body should be at least ${limits.min} chars long`, check: 'min' });
  }
  if (length > limits.max) {
    out.push({ message: `${path}: Too long: may not be more than ${limits.max} bytes`, check: 'max' });
  }
  if (limits.pattern && !limits.pattern.re.test(value)) {
    out.push({ message: `${path}: Invalid value: ${quote(value)}: ${path} in body should match '${limits.pattern.source}'`, check: 'pattern' });
  }
  return out;
}

function hookLabel(h: RawHook): string {
  return typeof h.name === 'string' ? `hook ${quote(h.name)}` : `the hook at ${h.path}`;
}

export function listHookNaming(hooks: readonly RawHook[]): Violation[] {
  const out: Violation[] = [];
  for (const h of hooks) {
    const ref = typeof h.name === 'string' && typeof h.owner === 'string' ? { stage: h.stage, name: h.name, owner: h.owner } : undefined;
    for (const [field, path, value, limits] of [
      ['name', h.namePath, h.name, NAME_LIMITS],
      ['owner', h.ownerPath, h.owner, OWNER_LIMITS],
    ] as const) {
      for (const problem of checkString(path, value, limits)) {
        out.push({
          rule: 'hook-naming',
          path,
          message: problem.message,
          fix: field === 'name'
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

export const hookNaming: Rule = ({ carrier, hooks }) => {
  const structural = hooks.problems;
  if (carrier.format === 'list') return { violations: [...structural, ...listHookNaming(hooks.hooks)] };
  return { violations: structural };
};
