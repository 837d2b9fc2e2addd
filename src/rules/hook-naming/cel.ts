// hook-naming in CEL: the CRD's lengths and pattern for {name, owner} hooks, apimachinery's qualified-name rules
// for Cluster API hook annotation keys; messages in the API server's words (src/core/field-errors.ts).
import { HOOK_ANNOTATION_PREFIX } from '../../core/capi.js';
import { QUALIFIED_NAME_DETAILS, QUALIFIED_NAME_FMT, QUALIFIED_NAME_MAX_LENGTH } from '../../core/qualified-name.js';
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
import { celWasStored } from '../../core/cel/carrier.js';
import { capitalize, cel, celJoin, celString, celVariable, type Cel } from '../../core/cel/text.js';
import type {
  CelStage,
  CelVariable,
  NativeContext,
  NativeValidating,
  NativeValidation,
  Outcome,
} from '../../core/cel/types.js';

const NAME = HOOK_NAME_LENGTH;
const OWNER = HOOK_OWNER_LENGTH;

function listOk(h: Cel): Cel {
  return cel`(size(${h}.name) >= ${NAME.min} && size(${h}.name) <= ${NAME.max} && ${h}.name.matches(${celString(HOOK_NAME_PATTERN)}) && size(${h}.owner) >= ${OWNER.min} && size(${h}.owner) <= ${OWNER.max})`;
}

/** The first problem of hook h, worded as checkString words it (src/rules/hook-naming/rule.ts). */
function listMessage(s: CelStage, i: Cel, h: Cel): Cel {
  const name = s.namePath(i, h);
  const owner = s.ownerPath(i, h);
  return celJoin(
    [
      cel`size(${h}.name) < ${NAME.min} ? ${tooShortMessage(NAME.min).toCel({ path: name, value: cel`${h}.name` })}`,
      cel`size(${h}.name) > ${NAME.max} ? ${tooLongMessage(NAME.max).toCel({ path: name })}`,
      cel`!${h}.name.matches(${celString(HOOK_NAME_PATTERN)}) ? ${patternMessage(HOOK_NAME_PATTERN).toCel({ path: name, value: cel`${h}.name` })}`,
      cel`size(${h}.owner) < ${OWNER.min} ? ${tooShortMessage(OWNER.min).toCel({ path: owner, value: cel`${h}.owner` })}`,
      tooLongMessage(OWNER.max).toCel({ path: owner }),
    ],
    ' : ',
  );
}

/**
 * A Cluster API hook key is valid when it is "<prefix>/<name>" and its lower-cased name part is a qualified
 * name's name part (the prefix is a valid DNS subdomain already): no '/', 1-63 bytes, the pattern.
 */
function keyOk(s: CelStage, h: Cel): Cel {
  const prefix = `${HOOK_ANNOTATION_PREFIX[s.stage]}/`;
  const part = cel`${h}.key.substring(${prefix.length}).lowerAscii()`;
  return cel`(${h}.key.startsWith(${celString(prefix)}) && !${part}.contains('/') && size(${part}) > 0 && size(bytes(${part})) <= ${QUALIFIED_NAME_MAX_LENGTH} && ${part}.matches(${celString(`^${QUALIFIED_NAME_FMT}$`)}))`;
}

/**
 * The first problem of a hook annotation key, as annotationHookNaming words it for "<prefix>/<name>" keys; a key
 * that only starts with the prefix gets the shape problem first (the webhook lists it after any qualified-name one).
 */
function keyMessage(s: CelStage, h: Cel): Cel {
  const prefix = HOOK_ANNOTATION_PREFIX[s.stage];
  const part = cel`${h}.key.substring(${prefix.length + 1}).lowerAscii()`;
  const detail = (text: string): Cel =>
    annotationKeyMessage.toCel({ path: celString(s.stagePath), key: cel`${h}.key`, detail: celString(text) });
  return celJoin(
    [
      cel`!${h}.key.startsWith(${celString(`${prefix}/`)}) ? ${detail(annotationShapeDetail(s.stage))}`,
      cel`${part}.contains('/') ? ${detail(QUALIFIED_NAME_DETAILS.shape)}`,
      cel`size(${part}) == 0 ? ${detail(QUALIFIED_NAME_DETAILS.empty)}`,
      cel`size(bytes(${part})) > ${QUALIFIED_NAME_MAX_LENGTH} ? ${detail(QUALIFIED_NAME_DETAILS.tooLong)}`,
      detail(QUALIFIED_NAME_DETAILS.pattern),
    ],
    ' : ',
  );
}

/**
 * A pattern check costs up to about 680 for a 256-character name against 1,000,000 per expression, so {name, owner}
 * hooks are checked in slices of CHUNK, one variable each (listing the slice's bad indices, then reading the next
 * slice's variable only if the list goes on), CHUNKS slices, the last taking the rest. hook-count's bound does not
 * make them unnecessary: it can be turned off, and it never shrinks what is already stored (the cost proof runs
 * without it: test/e2e/scenarios/cel-cost.ts; figures in docs/native-admission-policies.md). Slicing needs the CEL
 * lists library, in the environment from Kubernetes 1.35 on (compatibility version 1.34), so 1.34 checks a stage in
 * one expression.
 */
export const CHUNK = 1200;
export const CHUNKS = 32;

/** One validation per stage and outcome: problems an UPDATE introduced (enforced) or kept (existing). */
export function nativeHookNaming({ view, k8sMinor }: NativeContext): NativeValidating {
  const list = view.carrier.format === 'list';
  const variables: CelVariable[] = [];
  const validations: NativeValidation[] = [];
  const [i, h] = [cel`i`, cel`h`];
  for (const s of view.stages) {
    const ok = list ? listOk(h) : keyOk(s, h);
    // A list hook's problem may be in its name or its owner, so it was there when both were; an annotation key's
    // problem belongs to the key, so it was there when the key was, whatever value it had (or has now).
    const was = list ? celWasStored(s, h) : cel`(${s.id(h)} in ${s.oldIndex})`;
    for (const outcome of ['enforced', 'existing'] as const satisfies readonly Outcome[]) {
      // The stored object's index first: an unchanged hook is settled by one lookup, not a pattern match.
      const passes = outcome === 'enforced' ? cel`(${was} || ${ok})` : cel`(!${was} || ${ok})`;
      if (!list || k8sMinor < 35) {
        validations.push({
          outcome,
          expression: cel`${s.hooks}.all(h, ${passes})`,
          messageExpression: cel`${s.hooks}.transformList(i, h, !${passes}, ${list ? listMessage(s, i, h) : keyMessage(s, h)})[0]`,
          reason: 'Invalid',
        });
        continue;
      }
      const bad = `naming${capitalize(outcome)}${capitalize(s.stage)}`;
      // Slice c, then the rest as a variable read only when the list is longer: a short list costs one variable.
      for (let c = CHUNKS - 1; c >= 0; c--) {
        const [lo, hi] = [c * CHUNK, (c + 1) * CHUNK];
        const slice = cel`${s.hooks}.slice(${lo}, size(${s.hooks}) < ${hi} ? size(${s.hooks}) : ${hi}).transformList(i, h, !${passes}, i + ${lo})`;
        // The last slice takes whatever is left: past CHUNKS * CHUNK hooks its cost may pass the limit, and the
        // evaluation error refuses the request (failurePolicy Fail), never skips the check.
        const rest = cel`${s.hooks}.slice(${lo}, size(${s.hooks})).transformList(i, h, !${passes}, i + ${lo})`;
        variables.push({
          name: `${bad}${c === 0 ? '' : c}`,
          expression:
            c === CHUNKS - 1
              ? cel`size(${s.hooks}) <= ${lo} ? [] : ${rest}`
              : cel`size(${s.hooks}) <= ${lo} ? [] : ${slice} + (size(${s.hooks}) <= ${hi} ? [] : ${celVariable(`${bad}${c + 1}`)})`,
        });
      }
      const found = celVariable(bad);
      validations.push({
        outcome,
        expression: cel`size(${found}) == 0`,
        messageExpression: cel`[${found}[0]].map(i, [${s.hooks}[i]].map(h, ${listMessage(s, i, h)})[0])[0]`,
        reason: 'Invalid',
      });
    }
  }
  // No policy of its own: each matched policy costs the API server four CEL activations per request (conditions,
  // validations, messages, audit annotations), each building the request, the namespace and every variable, more
  // than these checks cost on an ordinary Machine. Without hooks they pass on empty lists. What the largest storable
  // Machine costs of the budget they share: docs/native-admission-policies.md, proved by the e2e suite (cel-cost.ts).
  return { variables, validations };
}
