// Which Machine `hookkeeper explain` was asked about, as kubectl names resources: "machine NAME", "machine/NAME", or
// qualified by API group ("machines.cluster.x-k8s.io/NAME") when both Machine kinds exist.
import { CAPI_GROUP } from '../../core/capi.js';
import { AppError } from '../../errors.js';

export const MAPI_GROUP = 'machine.openshift.io';

/** The Machine groups, in the order they are looked up. */
export const MACHINE_GROUPS: readonly string[] = [MAPI_GROUP, CAPI_GROUP];

export interface Target {
  /** The API groups the name may be in: both for "machine", one for a qualified form. */
  groups: readonly string[];
  /** Absent: with -f, the only Machine in the files. */
  name?: string;
}

function groupsOf(type: string): readonly string[] | undefined {
  const t = type.toLowerCase();
  if (t === 'machine' || t === 'machines') return MACHINE_GROUPS;
  for (const g of MACHINE_GROUPS) if (t === `machine.${g}` || t === `machines.${g}`) return [g];
  return undefined;
}

/** The qualified form of a Machine, as the ambiguity error and the docs write it. */
export function qualified(group: string, name: string): string {
  return `machines.${group}/${name}`;
}

/** TYPE NAME, TYPE/NAME, or (offline) TYPE alone or nothing. */
export function parseTarget(args: readonly string[], offline: boolean): Target {
  const [first, second, ...rest] = args;
  const usage = 'give machine NAME, machines.machine.openshift.io/NAME or machines.cluster.x-k8s.io/NAME';
  if (first === undefined) {
    if (offline) return { groups: MACHINE_GROUPS };
    throw new AppError('USAGE', `which Machine? ${usage}`);
  }
  const slash = first.indexOf('/');
  const type = slash < 0 ? first : first.slice(0, slash);
  const name = slash < 0 ? second : first.slice(slash + 1);
  const groups = groupsOf(type);
  if (!groups) throw new AppError('USAGE', `hookkeeper explains Machines only, not "${type}": ${usage}`);
  if (rest.length > 0 || (slash >= 0 && second !== undefined))
    throw new AppError('USAGE', `one Machine at a time: ${usage}`);
  if (name === undefined || name === '') {
    if (offline) return { groups };
    throw new AppError('USAGE', `which Machine? ${usage}`);
  }
  return { groups, name };
}
