// Which Machine API objects take part in the migration to Cluster API, where capi-migration judges them at admission
// and in the audit: those that name an authoritative API (the TechPreview fields the migration sets and reads), and,
// once the policy configures the migration (its synchronizers), every one in the Machine API namespace it mirrors.
import { CAPI_GROUP } from '../../capi.js';
import type { HookCarrier } from '../../carriers.js';
import { cel, celString, type Cel } from '../../cel/text.js';
import { dig } from '../../guards.js';
import type { Policy } from '../../policy.js';
import type { KubeObject } from '../../types.js';

export function participates(policy: Policy, carrier: HookCarrier, object: KubeObject | null, namespace?: string) {
  if (carrier.group === CAPI_GROUP || object === null) return false;
  if (dig(object, ['spec', 'authoritativeAPI']) !== undefined) return true;
  if (dig(object, ['status', 'authoritativeAPI']) !== undefined) return true;
  return migrationConfigured(policy) && namespace === policy.migration.machineAPINamespace;
}

const migrationConfigured = (policy: Policy): boolean => policy.migration.synchronizers.length > 0;

/** The same, in CEL over the request's object (its carrier is a Machine API one: native render selects it). */
export function celParticipates(policy: Policy): Cel {
  const fields = cel`((has(object.spec) && has(object.spec.authoritativeAPI)) || (has(object.status) && has(object.status.authoritativeAPI)))`;
  if (!migrationConfigured(policy)) return fields;
  return cel`(${fields} || request.namespace == ${celString(policy.migration.machineAPINamespace)})`;
}
