// Whether the CRDs that carry hooks still keep them: the API server prunes what a version's schema lacks, so a schema
// without the hook fields erases every stored hook at its object's next write (static mode refuses that change;
// src/compilers/native/hook-schema.ts). The audit reads each CRD as stored and says which versions lost them.
import { hookCrds, versionsWithoutHooks, type HookCrd } from '../../core/hook-crds.js';
import type { CrdRead } from '../../infrastructure/kube/crds.js';

export async function hookSchemaNotes(
  read: (name: string) => Promise<CrdRead>,
  crds: readonly HookCrd[] = hookCrds(),
): Promise<string[]> {
  const notes: string[] = [];
  const unreadable = new Map<string, string[]>();
  for (const c of crds) {
    if (!c.root) continue; // annotations: no schema prunes them
    const got = await read(c.name);
    if ('absent' in got) continue; // the carrier's listing says it is not installed
    if ('unreadable' in got) {
      unreadable.set(got.unreadable, [...(unreadable.get(got.unreadable) ?? []), c.name]);
      continue;
    }
    const lost = versionsWithoutHooks(got.crd, c.root);
    if (lost.length === 0) continue;
    notes.push(
      `hook schema: customresourcedefinitions/${c.name} version ${lost.join(', ')} does not keep ${c.root.join('.')} (preDrain and preTerminate lists of {name, owner} strings): the API server prunes the hooks of every ${c.kind} at its next write; restore the field (static self-protection refuses this change to all but break-glass)`,
    );
  }
  for (const [why, names] of unreadable) notes.push(`hook schemas of ${names.join(', ')}: not checked (${why})`);
  return notes;
}
