// `audit`'s check of the CRDs that carry hooks: each version whose schema no longer keeps them is named in a note; a
// CRD not installed is left to the carriers' listing, and one the caller may not read is said not checked.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { hookSchemaNotes } from '../../src/transports/audit/hook-schemas.js';
import type { CrdRead } from '../../src/infrastructure/kube/crds.js';

interface Crd {
  spec: { versions: { schema: { openAPIV3Schema: { properties: Record<string, { properties?: object }> } } }[] };
}
const crd = (file: string): Crd =>
  parse(readFileSync(join(import.meta.dirname, '..', 'e2e', 'crds', file), 'utf8')) as Crd;

function reader(stored: Record<string, CrdRead>): (name: string) => Promise<CrdRead> {
  return (name) => Promise.resolve(stored[name] ?? { absent: true });
}

describe('audit: the schemas of the CRDs that carry hooks', () => {
  test('a version that lost the hook fields is named; kept, absent and annotation CRDs say nothing', async () => {
    const machines = crd('machine.openshift.io_machines.yaml');
    const [version] = machines.spec.versions;
    assert.ok(version);
    const spec = version.schema.openAPIV3Schema.properties['spec'] as Record<string, unknown>;
    assert.deepEqual(await hookSchemaNotes(reader({ 'machines.machine.openshift.io': { crd: machines } })), []);
    delete spec['x-kubernetes-preserve-unknown-fields'];
    delete (spec['properties'] as Record<string, unknown>)['lifecycleHooks'];
    const notes = await hookSchemaNotes(
      reader({
        'machines.machine.openshift.io': { crd: machines },
        'machinesets.machine.openshift.io': { crd: crd('machine.openshift.io_machinesets.yaml') },
        'machines.cluster.x-k8s.io': { unreadable: 'never asked: hooks in annotations' },
      }),
    );
    assert.deepEqual(notes, [
      'hook schema: customresourcedefinitions/machines.machine.openshift.io version v1beta1 does not keep spec.lifecycleHooks (preDrain and preTerminate lists of {name, owner} strings): the API server prunes the hooks of every Machine at its next write; restore the field (static self-protection refuses this change to all but break-glass)',
    ]);
  });

  test('CRDs the caller may not read: one note per reason', async () => {
    const why = 'the caller may not get customresourcedefinitions';
    const notes = await hookSchemaNotes(
      reader({
        'machines.machine.openshift.io': { unreadable: why },
        'machinesets.machine.openshift.io': { unreadable: why },
      }),
    );
    assert.deepEqual(notes, [
      `hook schemas of machines.machine.openshift.io, machinesets.machine.openshift.io: not checked (${why})`,
    ]);
  });
});
