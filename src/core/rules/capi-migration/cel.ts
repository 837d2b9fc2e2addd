// capi-migration in CEL: on a Machine API object that takes part in the migration, each hook whose name Machine API
// accepts must make a valid Cluster API annotation key: no '/' in the name (a second one in the key) and a name part
// of at most 63 bytes (the name pattern admits ASCII only, so characters are bytes). A stored hook only warns.
import { HOOK_ANNOTATION_PREFIX } from '../../capi.js';
import { celWasStored } from '../../cel/carrier.js';
import { cel, celString, type Cel } from '../../cel/text.js';
import type { NativeContext, NativeValidating, NativeValidation } from '../../cel/types.js';
import { HOOK_NAME_PATTERN } from '../../hook-name.js';
import { HOOK_NAME_LENGTH } from '../hook-naming/messages.js';
import { QUALIFIED_NAME_DETAILS, QUALIFIED_NAME_MAX_LENGTH } from '../../qualified-name.js';
import { unconvertibleMessage } from './messages.js';
import { celParticipates } from './participates.js';

export function nativeCapiMigration({ policy, view }: NativeContext): NativeValidating {
  if (view.carrier.format !== 'list') return { variables: [], validations: [] };
  const [i, h] = [cel`i`, cel`h`];
  // Names hook-naming refuses are its to report, as the webhook leaves them.
  const named = cel`(size(${h}.name) >= ${HOOK_NAME_LENGTH.min} && size(${h}.name) <= ${HOOK_NAME_LENGTH.max} && ${h}.name.matches(${celString(HOOK_NAME_PATTERN)}))`;
  const convertible = cel`(!${h}.name.contains('/') && size(${h}.name) <= ${QUALIFIED_NAME_MAX_LENGTH})`;
  const validations: NativeValidation[] = [];
  for (const s of view.stages) {
    const ok = cel`(!${named} || ${convertible})`;
    const message: Cel = unconvertibleMessage.toCel({
      path: s.namePath(i, h),
      name: cel`${h}.name`,
      key: cel`${celString(`${HOOK_ANNOTATION_PREFIX[s.stage]}/`)} + ${h}.name`,
      errors: cel`(${h}.name.contains('/') ? ${celString(QUALIFIED_NAME_DETAILS.shape)} : ${celString(QUALIFIED_NAME_DETAILS.tooLong)})`,
    });
    for (const outcome of ['enforced', 'existing'] as const) {
      const passes =
        outcome === 'enforced' ? cel`(${ok} || ${celWasStored(s, h)})` : cel`(${ok} || !${celWasStored(s, h)})`;
      validations.push({
        outcome,
        expression: cel`!variables.migrating || ${s.hooks}.all(h, ${passes})`,
        messageExpression: cel`!variables.migrating ? '' : ${s.hooks}.transformList(i, h, !${passes}, ${message})[0]`,
        reason: 'Invalid',
      });
    }
  }
  return { variables: [{ name: 'migrating', expression: celParticipates(policy) }], validations };
}
