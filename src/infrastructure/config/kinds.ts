// The kinds a default hook may select: the carriers whose hooks gate their deletion (Machines, src/core/carriers.ts),
// the only objects it is added to.
import { CARRIERS, carrierFor } from '../../core/carriers.js';
import { nearest } from './suggest.js';

const gk = (k: { group: string; kind: string }): string => `${k.group}/${k.kind}`;
const LIVE = CARRIERS.filter((c) => c.gatesDeletion);

/** Why `kind` cannot be selected by a default hook, or undefined when it can. */
export function defaultHookKindProblem(kind: { group: string; kind: string }): string | undefined {
  const carrier = carrierFor({ ...kind, version: '' });
  if (carrier?.gatesDeletion) return undefined;
  const known = LIVE.map(gk);
  if (carrier?.live)
    return `${gk(kind)} carries upgrade hooks, which are not added by default: default hooks gate a Machine's deletion, so select ${known.join(' or ')}`;
  if (carrier)
    return `${gk(kind)} holds a Machine template, and templates are not mutated: a default hook is added to the Machines it creates, so select ${known.join(' or ')}`;
  const near = nearest(gk(kind), known);
  const suggestion = LIVE.find((c) => gk(c) === near);
  return [
    `${JSON.stringify(gk(kind))} is not a kind hookkeeper adds default hooks to`,
    suggestion ? `: did you mean {group: ${suggestion.group}, kind: ${suggestion.kind}}?` : '',
    ` (kinds: ${known.join(', ')})`,
  ].join('');
}
