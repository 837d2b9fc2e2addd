// Rule capi-migration: Machine API hooks whose names cannot become Cluster API hook annotations (the check is in
// src/core/capi-migration.ts). Advisory, and only `hookkeeper validate` runs it, so CI sees it before a migration.
import { capiMigrationWarnings } from '../../capi-migration.js';
import type { CarrierRuleModule } from '../context.js';

export const capiMigrationRule: CarrierRuleModule<'capi-migration'> = {
  id: 'capi-migration',
  order: 120,
  enforcement: 'warn',
  ratchets: false,
  sources: ['validate'],
  selects: 'carriers',
  facts: [],
  // It judges the object's hooks as they are, whatever the update changes.
  judgesFinalizerRemovals: true,
  summary: 'a Machine API hook name can become a Cluster API hook annotation key',
  validate: ({ carrier, hooks }) => ({ violations: capiMigrationWarnings(carrier, hooks) }),
};
