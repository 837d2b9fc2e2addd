// The Policy a checked file gives: each field the file sets replaces the default's whole, except those merged key by
// key (enforcement, migration, machineControllers), and lists get their defaults item by item.
import type { Policy } from '../../core/policy.js';
import { withChildDefaults } from './children.js';
import { DEFAULT_POLICY } from './defaults.js';
import type { PolicyFile } from './policy-file.js';

/** A field given in the file replaces the default field as a whole; enforcement merges rule by rule. */
export function mergeWithDefaults(raw: PolicyFile): Policy {
  const d = DEFAULT_POLICY;
  const owners =
    raw.owners === undefined
      ? d.owners
      : Object.fromEntries(
          Object.entries(raw.owners).map(([owner, ids]) => [
            owner,
            { users: ids.users ?? [], groups: ids.groups ?? [], serviceAccounts: ids.serviceAccounts ?? [] },
          ]),
        );
  return structuredClone<Policy>({
    enforcement: { ...d.enforcement, ...raw.enforcement },
    reservedHooks: raw.reservedHooks ?? d.reservedHooks,
    owners,
    impliedOwners: raw.impliedOwners ?? d.impliedOwners,
    strictOwners: raw.strictOwners ?? d.strictOwners,
    unverifiedRemoval: raw.unverifiedRemoval ?? d.unverifiedRemoval,
    wildcardGrants: raw.wildcardGrants ?? d.wildcardGrants,
    breakGlass:
      raw.breakGlass === undefined
        ? d.breakGlass
        : { users: raw.breakGlass.users ?? [], groups: raw.breakGlass.groups ?? [] },
    defaultHooks:
      raw.defaultHooks === undefined
        ? d.defaultHooks
        : raw.defaultHooks.map((r) => ({ ...r, operations: r.operations ?? ['CREATE', 'UPDATE'] })),
    quorumHooks: raw.quorumHooks ?? d.quorumHooks,
    children: raw.children === undefined ? d.children : raw.children.map(withChildDefaults),
    maxHooksPerStage: raw.maxHooksPerStage ?? d.maxHooksPerStage,
    // Field by field: a file naming only its own synchronizer keeps OpenShift's namespaces.
    migration: { ...d.migration, ...raw.migration },
    // Group by group: a file naming only its Cluster API controllers keeps the Machine API's.
    machineControllers: { ...d.machineControllers, ...raw.machineControllers },
  });
}
