// A bound on how many entries a stage holds, compiled once for both engines: each stage's entries are counted in
// classes, each class with its bound, and a class over its bound is a violation unless the stored object already
// held at least as many (an UPDATE over the bound may shrink or keep a class, never grow it: then it only warns).
// Ratcheting by count, not by key: the shape returns its own warnings, so the module does not ratchet.
import type { HookCarrier } from '../carriers.js';
import { celCarrier } from '../cel/carrier.js';
import type {
  CelStage,
  CelVariable,
  NativeContext,
  NativeValidatingForm,
  NativeValidating,
  NativeValidation,
} from '../cel/types.js';
import type { Policy } from '../policy.js';
import type { Rule } from '../../rules/context.js';
import type { RuleId, Violation } from '../types.js';
import { compiledPer, hookEnvOf } from './compiled.js';
import { stageEntries } from './entries.js';
import { ge, gt, int, le, or, type Bool, type Int, type Str, type Variable } from './expr.js';
import { count, type List } from './lists.js';

/** One class of a stage's entries: its count now and in the stored object (none on CREATE), and its bound. */
export interface CountClass {
  now: Int;
  stored: Int;
  bound: number;
  message: Str;
  fix: string;
  key: string;
}

export interface CountCheck {
  rule: RuleId;
  /**
   * A stage's classes, given its entries now and stored, and the variables their counts read (declared once in
   * CEL, evaluated once per request). The classes split the entries: none counts more than the stage holds.
   */
  classes: (
    policy: Policy,
    carrier: HookCarrier,
    s: CelStage,
    entries: { now: List<unknown>; stored: List<unknown> },
  ) => { variables: readonly Variable<number>[]; classes: readonly CountClass[] };
  reason: 'Invalid' | 'Forbidden';
}

interface CompiledStage {
  path: string;
  /** No longer than the smallest bound: every class is within its own, settled by size() alone. */
  short: Bool;
  variables: readonly Variable<number>[];
  /** Each class with its two tests, the same in both engines: within its bound; the stored object held as many. */
  classes: readonly { c: CountClass; within: Bool; keeps: Bool; grows: Bool }[];
}

export function countCheck(check: CountCheck): { validate: Rule; native: NativeValidatingForm } {
  const compile = compiledPer((policy: Policy, carrier: HookCarrier): CompiledStage[] =>
    celCarrier(carrier).stages.map((s) => {
      const entries = { now: stageEntries(carrier, s, false), stored: stageEntries(carrier, s, true) };
      const { variables, classes } = check.classes(policy, carrier, s, entries);
      const smallest = Math.min(...classes.map((c) => c.bound));
      return {
        path: s.stagePath,
        short: le(count(entries.now), int(smallest)),
        variables,
        classes: classes.map((c) => ({
          c,
          within: le(c.now, int(c.bound)),
          keeps: ge(c.stored, c.now),
          grows: gt(c.now, c.stored),
        })),
      };
    }),
  );

  const validate: Rule = (ctx) => {
    const { policy, carrier } = ctx;
    const env = hookEnvOf(ctx);
    const violations: Violation[] = [];
    const warnings: Violation[] = [];
    for (const { path, short, classes } of compile(policy, carrier)) {
      if (short.js(env)) continue;
      for (const { c, within, keeps } of classes) {
        if (within.js(env)) continue;
        // The stored object is counted only for a class over its bound: not on every UPDATE.
        const violation: Violation = { rule: check.rule, path, message: c.message.js(env), fix: c.fix, key: c.key };
        (keeps.js(env) ? warnings : violations).push(violation);
      }
    }
    return { violations, warnings };
  };

  const validating = ({ policy, view }: NativeContext): NativeValidating => {
    const variables: CelVariable[] = [];
    const validations: NativeValidation[] = [];
    for (const { short, variables: vars, classes } of compile(policy, view.carrier)) {
      for (const v of vars) variables.push(v.declaration);
      for (const { c, within, keeps, grows } of classes) {
        // Enforced: the stored object held at least as many; existing warns of those it held, as the webhook does.
        for (const [outcome, ratchet] of [
          ['enforced', keeps],
          ['existing', grows],
        ] as const) {
          validations.push({
            outcome,
            expression: or(short, within, ratchet).cel,
            messageExpression: c.message.cel,
            reason: check.reason,
          });
        }
      }
    }
    return { variables, validations };
  };

  return { validate, native: { validating, readsNameIndex: false } };
}
