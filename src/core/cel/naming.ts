// hook-naming in CEL: the CRD's lengths and pattern for {name, owner} hooks, apimachinery's qualified-name rules
// for Cluster API hook annotation keys; messages in the API server's words (src/core/field-errors.ts).
import { HOOK_ANNOTATION_PREFIX } from '../capi.js';
import { QUALIFIED_NAME_FMT, QUALIFIED_NAME_MAX_LENGTH } from '../qualified-name.js';
import { HOOK_NAME_PATTERN } from '../hook-name.js';
import { existed } from './carrier.js';
import { capitalize, str } from './text.js';
import type { CelStage, CelVariable, NativeContext, NativeValidating, NativeValidation, Outcome } from './types.js';

const NAME = { min: 3, max: 256 };
const OWNER = { min: 3, max: 512 };

function listOk(h: string): string {
  return (
    `(size(${h}.name) >= ${NAME.min} && size(${h}.name) <= ${NAME.max} && ${h}.name.matches(${str(HOOK_NAME_PATTERN)}) && ` +
    `size(${h}.owner) >= ${OWNER.min} && size(${h}.owner) <= ${OWNER.max})`
  );
}

/** The first problem of hook h, worded as checkString words it. */
function listMessage(s: CelStage, i: string, h: string): string {
  const name = s.namePath(i, h);
  const owner = s.ownerPath(i, h);
  const short = (path: string, field: string, min: number): string =>
    `${path} + ': Invalid value: ' + strings.quote(${h}.${field}) + ': ' + ${path} + ' in body should be at least ${min} chars long'`;
  const long = (path: string, max: number): string => `${path} + ': Too long: may not be more than ${max} bytes'`;
  return (
    `size(${h}.name) < ${NAME.min} ? ${short(name, 'name', NAME.min)} : ` +
    `size(${h}.name) > ${NAME.max} ? ${long(name, NAME.max)} : ` +
    `!${h}.name.matches(${str(HOOK_NAME_PATTERN)}) ? ${name} + ': Invalid value: ' + strings.quote(${h}.name) + ': ' + ${name} + ${str(` in body should match '${HOOK_NAME_PATTERN}'`)} : ` +
    `size(${h}.owner) < ${OWNER.min} ? ${short(owner, 'owner', OWNER.min)} : ${long(owner, OWNER.max)}`
  );
}

/**
 * A Cluster API hook key is valid when it is "<prefix>/<name>" and its lower-cased name part is a qualified
 * name's name part (the prefix is a valid DNS subdomain already): no '/', 1-63 bytes, the pattern.
 */
function keyOk(s: CelStage, h: string): string {
  const prefix = `${HOOK_ANNOTATION_PREFIX[s.stage]}/`;
  const part = `${h}.key.substring(${prefix.length}).lowerAscii()`;
  return (
    `(${h}.key.startsWith(${str(prefix)}) && !${part}.contains('/') && size(${part}) > 0 && ` +
    `size(bytes(${part})) <= ${QUALIFIED_NAME_MAX_LENGTH} && ${part}.matches(${str(`^${QUALIFIED_NAME_FMT}$`)}))`
  );
}

const QUALIFIED_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const EXAMPLES =
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/**
 * The first problem of a hook annotation key, as annotationHookNaming words it for "<prefix>/<name>" keys; a key
 * that only starts with the prefix gets the shape problem first (the webhook lists it after any qualified-name one).
 */
function keyMessage(s: CelStage, h: string): string {
  const prefix = HOOK_ANNOTATION_PREFIX[s.stage];
  const part = `${h}.key.substring(${prefix.length + 1}).lowerAscii()`;
  const at = str(`${s.stagePath}: Invalid value: `);
  const detail = (text: string): string => `${at} + strings.quote(${h}.key) + ${text}`;
  return (
    `!${h}.key.startsWith(${str(`${prefix}/`)}) ? ` +
    `${detail(str(`: an annotation key starting with "${prefix}" declares a ${s.stage} hook and must be "${prefix}/<name>"`))} : ` +
    `${part}.contains('/') ? ${detail(str(`: a qualified name ${QUALIFIED_ERR} ${EXAMPLES} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`))} : ` +
    `size(${part}) == 0 ? ${detail(str(': name part must be non-empty'))} : ` +
    `size(bytes(${part})) > ${QUALIFIED_NAME_MAX_LENGTH} ? ${detail(str(`: name part must be no more than ${QUALIFIED_NAME_MAX_LENGTH} bytes`))} : ` +
    detail(str(`: name part ${QUALIFIED_ERR} ${EXAMPLES}`))
  );
}

/**
 * A pattern check costs (1 + length) * 0.1 * (pattern length * 0.25): up to about 680 for a 256-character name,
 * against 1,000,000 per expression. So {name, owner} hooks are checked in slices of CHUNK, one variable each
 * (listing the slice's bad indices, then reading the next slice's variable only if the list goes on), CHUNKS
 * slices, the last taking the rest. Slicing needs the CEL lists library, in the environment from Kubernetes 1.35 on (compatibility
 * version 1.34), so 1.34 checks a stage in one expression.
 */
export const CHUNK = 1200;
export const CHUNKS = 32;

/** One validation per stage and outcome: problems an UPDATE introduced (enforced) or kept (existing). */
export function nativeHookNaming({ cel, k8sMinor }: NativeContext): NativeValidating {
  const list = cel.carrier.format === 'list';
  const variables: CelVariable[] = [];
  const validations: NativeValidation[] = [];
  for (const s of cel.stages) {
    const ok = (h: string): string => (list ? listOk(h) : keyOk(s, h));
    // A list hook's problem may be in its name or its owner, so it was there when both were; an annotation key's
    // problem belongs to the key, so it was there when the key was, whatever value it had (or has now).
    const was = (h: string): string => (list ? existed(s, h) : `(${s.id(h)} in ${s.oldIndex})`);
    for (const outcome of ['enforced', 'existing'] as const satisfies readonly Outcome[]) {
      // The stored object's index first: an unchanged hook is settled by one lookup, not a pattern match.
      const passes = (h: string): string =>
        outcome === 'enforced' ? `(${was(h)} || ${ok(h)})` : `(!${was(h)} || ${ok(h)})`;
      if (!list || k8sMinor < 35) {
        validations.push({
          outcome,
          expression: `${s.hooks}.all(h, ${passes('h')})`,
          messageExpression: `${s.hooks}.transformList(i, h, !${passes('h')}, ${list ? listMessage(s, 'i', 'h') : keyMessage(s, 'h')})[0]`,
          reason: 'Invalid',
        });
        continue;
      }
      const bad = `naming${capitalize(outcome)}${capitalize(s.stage)}`;
      // Slice c, then the rest as a variable read only when the list is longer: a short list costs one variable.
      for (let c = CHUNKS - 1; c >= 0; c--) {
        const [lo, hi] = [c * CHUNK, (c + 1) * CHUNK];
        const slice =
          `${s.hooks}.slice(${lo}, size(${s.hooks}) < ${hi} ? size(${s.hooks}) : ${hi})` +
          `.transformList(i, h, !${passes('h')}, i + ${lo})`;
        // The last slice takes whatever is left: past CHUNKS * CHUNK hooks its cost may pass the limit, and the
        // evaluation error refuses the request (failurePolicy Fail), never skips the check.
        const rest = `${s.hooks}.slice(${lo}, size(${s.hooks})).transformList(i, h, !${passes('h')}, i + ${lo})`;
        variables.push({
          name: `${bad}${c === 0 ? '' : c}`,
          expression:
            c === CHUNKS - 1
              ? `size(${s.hooks}) <= ${lo} ? [] : ${rest}`
              : `size(${s.hooks}) <= ${lo} ? [] : ${slice} + (size(${s.hooks}) <= ${hi} ? [] : variables.${bad}${c + 1})`,
        });
      }
      validations.push({
        outcome,
        expression: `size(variables.${bad}) == 0`,
        messageExpression: `[variables.${bad}[0]].map(i, [${s.hooks}[i]].map(h, ${listMessage(s, 'i', 'h')})[0])[0]`,
        reason: 'Invalid',
      });
    }
  }
  // No policy of its own: each matched policy costs the API server four CEL activations per request (conditions,
  // validations, messages, audit annotations), each building the request, the namespace and every variable, more
  // than these checks cost on an ordinary Machine. Without hooks they pass on empty lists. The budget they share: a
  // Machine at the size limit (5,400 names of 256 characters, about 680 each) costs about 3.7M here and as much again
  // when the message expressions recompute the variables, which leaves the other rules over 2M of the 10M per policy
  // evaluation (the e2e suite creates, relabels and empties one: test/e2e/scenarios/cel-cost.ts).
  return { variables, validations };
}
