// Rule crd-schema: the object against its CustomResourceDefinition's schema, as the API server will check it. The
// transport compiles the schema (src/transports/validate/crd.ts) and passes the check as a fact; this rule only files findings.
import type { Violation } from '../../core/types.js';
import type { ChildRuleModule, InputContext, RuleResult } from '../context.js';

const NONE: RuleResult = Object.freeze({ violations: [] });

export function crdSchema({ input }: InputContext): RuleResult {
  const check = input.context?.schema;
  if (!check || !input.object) return NONE;
  const violations: Violation[] = check(input.object).map((f) => ({
    rule: 'crd-schema',
    path: f.path,
    keys: f.keys,
    message: f.message,
    fix: f.fix,
    key: f.message,
  }));
  return { violations };
}

export const crdSchemaRule: ChildRuleModule<'crd-schema'> = {
  // Ratchets as the API server ratchets CRD validation on UPDATE; only `validate --crd` supplies the schema.
  id: 'crd-schema',
  order: 160,
  enforcement: 'deny',
  ratchets: true,
  sources: ['validate'],
  selects: 'objects',
  facts: ['schema'],
  ratchetNote: 'the current object has this problem already, so the API server lets the update through',
  summary: "the object matches its CustomResourceDefinition's schema (`validate --crd`)",
  validate: crdSchema,
};
