// Which Machine API objects take part in the migration to Cluster API, where capi-migration judges them at admission
// and in the audit: those that name an authoritative API (the TechPreview fields the migration sets and reads), and,
// once the policy configures the migration (its synchronizers), every one in the Machine API namespace it mirrors.
import { or, variable, type Variable } from '../../core/expr/expr.js';
import { namespaceIs, objectHas } from '../../core/expr/request.js';
import type { Policy } from '../../core/policy.js';

export function participates(policy: Policy): Variable<boolean> {
  const fields = or(objectHas(['spec', 'authoritativeAPI']), objectHas(['status', 'authoritativeAPI']));
  const configured = policy.migration.synchronizers.length > 0;
  return variable('migrating', configured ? or(fields, namespaceIs(policy.migration.machineAPINamespace)) : fields);
}
