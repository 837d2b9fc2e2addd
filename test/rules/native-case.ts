// One rule case through the rendered native policies in process (test/native/evaluator), held to what the case
// expects: the same verdict, unless a divergence of src/compilers/native/notes.ts covers the request and the case says
// `native: differs`; the same words (one of the webhook's denials, warnings among its warnings) and hooks unless a
// divergence covers them.
import { clip, MAX_VIOLATION_BYTES } from '../../src/admission/limits.js';
import type { Policy } from '../../src/core/policy.js';
import type { Decision, ReviewInput } from '../../src/core/types.js';
import { covering, noteText, type Divergence } from '../../src/compilers/native/notes.js';
import type { LoadedCase } from '../../src/transports/policy-test/load.js';
import { compare, hooksOf, subjectMatches, warningsOf } from '../../src/transports/policy-test/run.js';
import { EVERY_OWNER, NATIVE_DIFFERS, type Grant } from '../../src/transports/policy-test/schema.js';
import { admit, type CompiledPolicies } from '../native/evaluator/admission.js';
import type { Authorize } from '../native/evaluator/cel.js';

export interface NativeSubject {
  policy: Policy;
  compiled: CompiledPolicies;
  divergences: readonly Divergence[];
}

/** The CEL authorizer's answers from a case's grants, as the API server's RBAC would give them; none without. */
export function authorizeFrom(grants: readonly Grant[] | undefined, input: ReviewInput): Authorize {
  return (q) =>
    q.group === 'hookkeeper.io' &&
    q.resource === 'hookowners' &&
    q.verb === 'remove' &&
    (grants ?? []).some(
      (g) =>
        (g.namespace === undefined || g.namespace === q.namespace) &&
        (g.owner === EVERY_OWNER || g.owner === q.name) &&
        subjectMatches(g.subject, input.userInfo),
    );
}

/** What native mode did otherwise than the case expects (empty: it agrees), and the divergences that excused it. */
export function nativeProblems(
  subject: NativeSubject,
  c: LoadedCase,
  judged: { input: ReviewInput; decision: Decision },
): { problems: string[]; covered: string[] } {
  const { input, decision } = judged;
  const native = admit(subject.compiled, input, { authorize: authorizeFrom(c.grants, input) });
  const decidedBy = [
    ...new Set([
      ...[...decision.denials, ...decision.warnings, ...decision.notices].map((v) => v.rule),
      ...(native.denial?.rule ? [native.denial.rule] : []),
      ...native.warnings.flatMap((w) => (w.rule ? [w.rule] : [])),
    ]),
  ];
  const covered = covering(subject.divergences, decidedBy, input);
  const verdict = (allowed: boolean): string => (allowed ? 'allowed' : 'denied');
  const said = native.denial ? `: ${JSON.stringify(native.denial.message)}` : '';
  if (native.allowed !== c.expect.allowed) {
    if (covered.length === 0)
      return {
        problems: [
          `native mode: ${verdict(native.allowed)}${said}, expected ${verdict(c.expect.allowed)}; no divergence of ` +
            `src/compilers/native/notes.ts covers this request (rules: ${decidedBy.join(', ') || 'none'})`,
        ],
        covered: [],
      };
    if (c.native !== NATIVE_DIFFERS)
      return {
        problems: [
          `native mode: ${verdict(native.allowed)}${said}, expected ${verdict(c.expect.allowed)}, as a divergence ` +
            `declares (${covered.map(noteText).join(' | ')}): say \`native: ${NATIVE_DIFFERS}\` in the case`,
        ],
        covered: [],
      };
    return { problems: [], covered: covered.map(noteText) };
  }
  if (c.native === NATIVE_DIFFERS)
    return {
      problems: [`native mode: ${verdict(native.allowed)} as expected, yet the case says native: ${NATIVE_DIFFERS}`],
      covered: [],
    };
  // A divergence of the verdict that happens not to change it may still change the words.
  if (covered.length > 0) return { problems: [], covered: [] };
  const wordsDiffer = subject.divergences.some(
    (d) => d.wordsDiffer !== undefined && (d.rule === 'messages' || decidedBy.includes(d.rule)) && d.wordsDiffer(input),
  );
  const problems: string[] = [];
  if (!wordsDiffer && native.denial) {
    // The API server reports the denying policy's first failed validation: one of the webhook's, as it cuts them.
    const message = native.denial.message;
    if (!decision.denials.some((d) => clip(d.message, MAX_VIOLATION_BYTES) === message))
      problems.push(`native mode's denial is none of the webhook's: ${JSON.stringify(message)}`);
    const fragments = c.expect.messages ?? [];
    if (fragments.length > 0 && !fragments.some((f) => message.includes(f)))
      problems.push(`native mode's denial contains none of the expected messages: ${JSON.stringify(message)}`);
  }
  if (!wordsDiffer && native.allowed) {
    // One warning per validation where the webhook may give one per hook: each of native's must be one of its.
    const webhook = new Set(warningsOf(decision));
    const warned = native.warnings.map((w) => w.message);
    for (const w of warned)
      if (!webhook.has(w)) problems.push(`native mode warns what the webhook does not: ${JSON.stringify(w)}`);
    const fragments = c.expect.warnings;
    if (fragments?.length === 0 && warned.length > 0)
      problems.push(`native mode warns, expected no warnings: ${JSON.stringify(warned)}`);
    if (fragments && fragments.length > 0 && !fragments.some((f) => warned.some((w) => w.includes(f))))
      problems.push(`native mode gives none of the expected warnings: ${JSON.stringify(warned)}`);
  }
  if (native.allowed) {
    // The hooks after native mode's mutation, compared as `hookkeeper test` compares the webhook's.
    const hooks = hooksOf(c, native.object);
    const got = { allowed: c.expect.allowed, messages: [], warnings: [], ...(hooks ? { hooks } : {}) };
    const asExpected = {
      ...c,
      expect: { allowed: c.expect.allowed, ...(c.expect.hooks ? { hooks: c.expect.hooks } : {}) },
    };
    for (const f of compare(asExpected, got)) problems.push(`native mode: ${f.message}`);
  }
  return { problems, covered: [] };
}
