// Rule owner-references: at most one controller reference, as the API server enforces on write; checked here
// so offline CI (`hookkeeper validate`) sees it too.
import { secondControllerMessage } from './messages.js';
import { isRecord, metadata, quote } from '../../guards.js';
import type { Violation } from '../../types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { nativeOwnerReferences } from './cel.js';

export const ownerReferences: Rule = ({ input }) => {
  const refs = metadata(input.object)['ownerReferences'];
  if (!Array.isArray(refs)) return { violations: [] };
  const violations: Violation[] = [];
  let controller = '';
  for (const ref of refs) {
    if (!isRecord(ref) || ref['controller'] !== true) continue;
    // Not String(): an object with its own "toString" key (JSON can carry one) makes String() throw.
    const text = (v: unknown): string => (typeof v === 'string' ? v : quote(v));
    const current = `${text(ref['kind'])}/${text(ref['name'])}`;
    if (controller === '') {
      controller = current;
      continue;
    }
    violations.push({
      rule: 'owner-references',
      path: 'metadata.ownerReferences',
      // The API server prints the whole list (Go's %#v of []OwnerReference); hookkeeper has always left it out.
      message: secondControllerMessage.toJs({ first: controller, second: current }),
      fix: `keep controller: true on one owner reference only (${controller} or ${current})`,
      key: `controller:${controller}:${current}`,
    });
  }
  return { violations };
};

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
  validate: ownerReferences,
  native: { validating: nativeOwnerReferences, readsNameIndex: false },
};
