// Rule capi-migration: Machine API hooks whose names cannot become Cluster API hook annotations, on objects that take
// part in the migration (participates.ts), where the conversion will meet them: at admission, in the audit and in
// `validate` alike, so the CI gate says what the cluster will. The conversion writes hook {name, owner} as the
// annotation "<stage prefix>/<name>: <owner>" (cluster-capi-operator, mapi2capi/machine.go); a name with a '/' gives
// the key a second one, and a name part over 63 characters passes the qualified-name limit.
import { HOOK_ANNOTATION_PREFIX } from '../../core/capi.js';
import { and, concat, cond, contains, int, le, ge, matches, not, or, say, size, str } from '../../core/expr/expr.js';
import { hookCheck } from '../../core/expr/hook-check.js';
import { quote } from '../../core/guards.js';
import { HOOK_NAME_PATTERN } from '../../core/hook-name.js';
import { QUALIFIED_NAME_DETAILS, QUALIFIED_NAME_MAX_LENGTH } from '../../core/qualified-name.js';
import { HOOK_NAME_LENGTH } from '../hook-naming/messages.js';
import type { CarrierRuleModule } from '../context.js';
import { unconvertibleMessage } from './messages.js';
import { participates } from './participates.js';

const check = hookCheck({
  rule: 'capi-migration',
  when: participates,
  carriers: (carrier) => carrier.format === 'list',
  passes: (h) => {
    // Names hook-naming refuses are its to report.
    const named = and(
      ge(size(h.name), int(HOOK_NAME_LENGTH.min)),
      le(size(h.name), int(HOOK_NAME_LENGTH.max)),
      matches(h.name, HOOK_NAME_PATTERN),
    );
    // The name pattern admits ASCII only, so characters are bytes.
    const convertible = and(not(contains(h.name, '/')), le(size(h.name), int(QUALIFIED_NAME_MAX_LENGTH)));
    return or(not(named), convertible);
  },
  message: (h, s) =>
    say(unconvertibleMessage, {
      path: h.namePath,
      name: h.name,
      key: concat(str(`${HOOK_ANNOTATION_PREFIX[s.stage]}/`), h.name),
      errors: cond(contains(h.name, '/'), str(QUALIFIED_NAME_DETAILS.shape), str(QUALIFIED_NAME_DETAILS.tooLong)),
    }),
  at: 'name',
  fix: (h) => {
    const namePart = h.name.slice(h.name.lastIndexOf('/') + 1);
    const suggestion = namePart !== h.name && namePart.length <= 63 ? ` (e.g. ${quote(namePart)})` : '';
    return `before migrating to Cluster API, rename the hook to a name without '/' of at most 63 characters${suggestion}, and update ${h.owner === '' ? 'its owner' : quote(h.owner)}, which removes it by name`;
  },
  ratchets: true,
  reason: 'Invalid',
  namesHook: true,
});

export const capiMigrationRule: CarrierRuleModule<'capi-migration'> = {
  id: 'capi-migration',
  order: 120,
  enforcement: 'warn',
  // A stored name only warns, so under deny an unrelated edit (a hook's owner removing it) is never blocked.
  ratchets: true,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  facts: [],
  summary: 'a Machine API hook name can become a Cluster API hook annotation key',
  // An UPDATE that only starts a migration (spec.authoritativeAPI) is not sent: the audit names its hooks.
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: ['hooks'] }),
  validate: check.validate,
  native: check.native,
};
