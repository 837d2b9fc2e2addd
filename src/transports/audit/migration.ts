// What `audit` says about the Machine API to Cluster API migration: for each Machine API Machine in the migration
// namespace whose status names an authoritative API, which copy is authoritative, and the same on every finding
// about either copy, so a stuck or refused Machine is read against the copy that is in force.
import { CAPI_GROUP } from '../../core/capi.js';
import { MAPI_GROUP, migrationState, type MigrationState } from '../../core/migration.js';
import type { Policy } from '../../core/policy.js';
import type { KubeObject } from '../../core/types.js';
import type { AuditFinding, AuditObjectRef, MigratedMachine } from './report.js';

export interface MigrationRecorder {
  /** Each audited object: a Machine API Machine in the migration namespace is noted. */
  see(object: KubeObject, ref: AuditObjectRef): void;
  /** The findings about either copy of a noted Machine, with its authoritative side. */
  annotate(findings: AuditFinding[]): void;
  machines(): MigratedMachine[];
  notes(): string[];
}

const group = (ref: AuditObjectRef): string => ref.apiVersion.split('/')[0] ?? '';

export function migrationRecorder(policy: Policy): MigrationRecorder {
  const { machineAPINamespace, clusterAPINamespace } = policy.migration;
  const seen = new Map<string, MigrationState>();
  const copyOf = (ref: AuditObjectRef): boolean =>
    ref.kind === 'Machine' &&
    ((group(ref) === MAPI_GROUP && ref.namespace === machineAPINamespace) ||
      (group(ref) === CAPI_GROUP && ref.namespace === clusterAPINamespace));
  return {
    see(object, ref) {
      if (ref.kind !== 'Machine' || group(ref) !== MAPI_GROUP || ref.namespace !== machineAPINamespace) return;
      const state = migrationState(object);
      if (state) seen.set(ref.name, state);
    },
    annotate(findings) {
      for (const f of findings) {
        const state = copyOf(f.object) ? seen.get(f.object.name) : undefined;
        if (state) f.authoritativeAPI = state.authoritative ?? state.status;
      }
    },
    machines: () => [...seen].map(([name, state]) => ({ name, ...state })),
    notes() {
      if (seen.size === 0) return [];
      const count = new Map<string, number>();
      for (const s of seen.values()) {
        const label = s.status === 'Migrating' ? `Migrating (to ${s.spec ?? 'no spec.authoritativeAPI'})` : s.status;
        count.set(label, (count.get(label) ?? 0) + 1);
      }
      const parts = [...count].map(([label, n]) => `${n} ${label}`).join(', ');
      return [
        `migration: ${seen.size} Machine${seen.size === 1 ? '' : 's'} in ${machineAPINamespace} name an authoritative API (${parts}); a finding about either copy (${MAPI_GROUP} in ${machineAPINamespace}, ${CAPI_GROUP} in ${clusterAPINamespace}) names it`,
      ];
    },
  };
}
