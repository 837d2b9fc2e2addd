// Rule owner-references: at most one controller reference, as the API server enforces on write; checked here
// so offline CI (`hookkeeper validate`) sees it too. An object has a handful of owner references, so comparing with
// the stored object's is cheap whatever its hooks.
import { secondControllerMessage } from './messages.js';
import { and, concat, cond, eq, gt, int, say, str, variable, type Expr, type Str } from '../../core/expr/expr.js';
import { fieldIsTrue, fieldText } from '../../core/expr/fields.js';
import { listCheck } from '../../core/expr/list-check.js';
import { at, count, emptyList, exists, filter, map, type List } from '../../core/expr/lists.js';
import { metadataHas, metadataList, operationIs, STORED, type Root } from '../../core/expr/request.js';
import type { CarrierRuleModule } from '../context.js';

/** Each controller reference of an object as kind/name, in order: the first is the controller, any other an error. */
export const controllersOf = (root: Root): List<string> =>
  cond(
    metadataHas(root, 'ownerReferences'),
    map(
      filter(metadataList(root, 'ownerReferences'), 'r', (r) => fieldIsTrue(r, 'controller')),
      'r',
      (r) => concat(fieldText(r, 'kind'), str('/'), fieldText(r, 'name')),
    ),
    emptyList<string>(),
  );

const controllers = variable('controllers', controllersOf('object'));
const oldControllers = variable(
  'oldControllers',
  cond(and(operationIs('UPDATE'), STORED), controllersOf('oldObject'), emptyList<string>()),
);

const check = listCheck<string>({
  rule: 'owner-references',
  list: controllers,
  variables: [controllers, oldControllers],
  names: ['i', 'r'],
  passes: (i) => eq(i, int(0)),
  // What the key compares: the stored object had the same first controller and this one too.
  wasStored: (_i, r) =>
    and(
      gt(count(oldControllers), int(1)),
      eq(at(oldControllers, 0), at(controllers, 0)),
      exists(oldControllers, 'o', (o) => eq(o, r)),
    ),
  // The API server prints the whole list (Go's %#v of []OwnerReference); hookkeeper has always left it out.
  message: (r: Expr<string>): Str => say(secondControllerMessage, { first: at(controllers, 0), second: r }),
  path: 'metadata.ownerReferences',
  fix: (c, i) => `keep controller: true on one owner reference only (${c[0]} or ${c[i]})`,
  key: (c, i) => `controller:${c[0]}:${c[i]}`,
  reason: 'Invalid',
});

export const ownerReferencesRule: CarrierRuleModule<'owner-references'> = {
  id: 'owner-references',
  order: 80,
  enforcement: 'deny',
  ratchets: true,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['ownerReferences'] }),
  createReads: () => ({ parts: ['controllers'] }),
  facts: [],
  summary: 'at most one ownerReference is a controller',
  validate: check.validate,
  native: check.native,
};
