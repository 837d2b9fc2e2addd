// Rule capi-migration: Machine API hooks whose names cannot become Cluster API hook annotations (convertible.ts), on
// objects that take part in the migration (participates.ts), where the conversion will meet them: at admission, in
// the audit and in `validate` alike, so the CI gate says what the cluster will.
import type { CarrierRuleModule } from '../context.js';
import { nativeCapiMigration } from './cel.js';
import { capiMigrationWarnings } from './convertible.js';
import { participates } from './participates.js';

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
  validate: ({ policy, input, carrier, hooks }) => {
    if (!participates(policy, carrier, input.object, input.namespace)) return { violations: [] };
    return { violations: capiMigrationWarnings(carrier, hooks) };
  },
  native: { validating: nativeCapiMigration, readsNameIndex: true },
};
