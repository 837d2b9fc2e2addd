// Rule deletion-freeze: once a Machine is marked for deletion its hooks may only be removed, never added or
// changed. Mirrors machine-api-operator's Machine webhook check and message, stanza by stanza.
import { and, say, str, variable } from '../../core/expr/expr.js';
import { DELETION_MARKED, operationIs } from '../../core/expr/request.js';
import { stageCheck } from '../../core/expr/stage-check.js';
import type { CarrierRuleModule } from '../context.js';
import { deletionFreezeMessage, goHookMessage, STAGE_WORDS } from './messages.js';

const check = stageCheck({
  rule: 'deletion-freeze',
  when: () => variable('deleting', and(operationIs('UPDATE'), DELETION_MARKED)),
  carriers: (carrier) => carrier.gatesDeletion,
  // By identity and owner: on Cluster API two keys whose names parse alike are two hooks, so swapping their owners
  // changes both.
  passes: (h, s) => s.wasStored(h),
  // Go's %+v of each hook of a []LifecycleHook, space-separated, as machine-api-operator prints them.
  item: (h) => say(goHookMessage, { name: h.name, owner: h.owner }),
  separator: ' ',
  message: (s, hooks) =>
    say(deletionFreezeMessage, { path: str(s.stagePath), stageWords: str(STAGE_WORDS[s.stage]), hooks }),
  fix: 'the machine is deleting: hooks can only be removed now; add hooks before deleting the machine',
  key: (stage, failing) => `freeze:${stage}:${failing.map((h) => `${h.id}/${h.owner}`).join(',')}`,
  reason: 'Forbidden',
});

export const deletionFreezeRule: CarrierRuleModule<'deletion-freeze'> = {
  id: 'deletion-freeze',
  order: 60,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks', 'deletionTimestamp'] }),
  createReads: () => ({ parts: [] }),
  facts: [],
  summary: 'a deleting Machine may lose hooks but not gain or change them',
  validate: check.validate,
  native: check.native,
};
