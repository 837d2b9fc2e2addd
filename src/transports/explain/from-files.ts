// `explain -f`: a saved Machine or a must-gather dump (many objects, Lists among them), read offline. The Machine is
// picked by the target (kind, name, -n); every cluster fact is unknown, and says so.
import { isRecord, metadata } from '../../core/guards.js';
import type { KubeObject } from '../../core/types.js';
import { machineCarrier } from '../../core/explain/explain.js';
import type { ExplainFacts } from '../../core/explain/model.js';
import { AppError } from '../../errors.js';
import { parseManifests } from '../../infrastructure/manifests/documents.js';
import { readInputs } from '../../infrastructure/manifests/inputs.js';
import { qualified, type Target } from './target.js';

const OFFLINE = 'offline (-f): not read from a cluster';

const OFFLINE_UNKNOWN = { status: 'unknown', reason: OFFLINE } as const;

export const OFFLINE_FACTS: ExplainFacts = Object.freeze({
  source: 'file',
  grants: OFFLINE_UNKNOWN,
  serviceAccounts: OFFLINE_UNKNOWN,
  node: OFFLINE_UNKNOWN,
  clusterOperators: {},
});

/** Objects of a document, Lists (v1 List, MachineList...) flattened as kubectl flattens them. */
function objectsOf(value: unknown, out: KubeObject[]): void {
  if (!isRecord(value)) return;
  if (typeof value['kind'] === 'string' && value['kind'].endsWith('List') && Array.isArray(value['items'])) {
    for (const item of value['items']) objectsOf(item, out);
    return;
  }
  out.push(value);
}

interface Candidate {
  file: string;
  object: KubeObject;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const groupOf = (o: KubeObject): string => text(o['apiVersion']).split('/')[0] ?? '';

function describe(c: Candidate): string {
  const m = metadata(c.object);
  const ns = text(m['namespace']);
  return `${qualified(groupOf(c.object), text(m['name']))}${ns ? ` -n ${ns}` : ''} (${c.file})`;
}

/**
 * The one Machine in the files that the target and namespace name, and every Machine of the files (its cluster's
 * quorum standing is read from them).
 */
export async function machineFromFiles(
  paths: readonly string[],
  target: Target,
  namespace: string | undefined,
  io: { cwd: string; readStdin: () => Promise<string> },
): Promise<{ object: KubeObject; machines: KubeObject[] }> {
  const inputs = await readInputs(paths, io);
  if (inputs.problems.length > 0)
    throw new AppError('INPUT_INVALID', 'cannot read the files', { problems: inputs.problems });
  const machines: Candidate[] = [];
  for (const f of inputs.files) {
    const objects: KubeObject[] = [];
    for (const doc of parseManifests(f.text, f.file)) objectsOf(doc.value, objects);
    for (const object of objects) if (machineCarrier(object)) machines.push({ file: f.file, object });
  }
  const matching = machines.filter((c) => {
    const m = metadata(c.object);
    return (
      target.groups.includes(groupOf(c.object)) &&
      (target.name === undefined || m['name'] === target.name) &&
      (namespace === undefined || m['namespace'] === namespace)
    );
  });
  const only = matching[0];
  if (matching.length === 1 && only) return { object: only.object, machines: machines.map((c) => c.object) };
  if (matching.length === 0)
    throw new AppError(
      'INPUT_INVALID',
      machines.length === 0
        ? `no Machine in ${inputs.files.map((f) => f.file).join(', ')}`
        : `no Machine ${target.name ? `"${target.name}" ` : ''}${namespace ? `in namespace ${namespace} ` : ''}among the ${machines.length} in the files`,
    );
  throw new AppError(
    'USAGE',
    `${matching.length} Machines match: name one (and -n NAMESPACE) of ${matching.slice(0, 10).map(describe).join(', ')}${matching.length > 10 ? ', ...' : ''}`,
  );
}
