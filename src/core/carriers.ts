// Where each handled kind keeps its lifecycle hooks. Rules see hooks, never kind-specific field layouts.
import { CAPI_CARRIERS } from './capi.js';
import { typeInvalid } from './field-errors.js';
import { dig, isRecord } from './guards.js';
import type { HookCarrier, HookEntry, HookReading, RawHook } from './carrier-types.js';
import type { GroupVersionKind, MachineStage, Stage, Violation } from './types.js';

/** A Machine's deletion stages, in the order its deletion passes them. */
export const MACHINE_STAGES: readonly MachineStage[] = ['preDrain', 'preTerminate'];

/** Every stage of every carrier: a Machine's, then a Cluster's upgrade. */
export const STAGES: readonly Stage[] = [...MACHINE_STAGES, 'beforeUpgrade'];

export type { HookCarrier, HookEntry, HookReading, RawHook };

function listCarrier(id: string, group: string, kind: string, live: boolean, root: readonly string[]): HookCarrier {
  const rootPath = root.join('.');
  return {
    id,
    group,
    kind,
    live,
    gatesDeletion: live,
    stages: MACHINE_STAGES,
    format: 'list',
    root,
    stagePath: (stage) => `${rootPath}.${stage}`,
    hookText: (_stage, name, owner) => `{name: ${name}, owner: ${owner}}`,
    hookId: (_stage, name) => name,
    read(obj) {
      const hooks: RawHook[] = [];
      const problems: Violation[] = [];
      if (obj === null) return { hooks, problems };
      const stanzas = dig(obj, root);
      if (stanzas === undefined || stanzas === null) return { hooks, problems };
      if (!isRecord(stanzas)) {
        problems.push(structural(rootPath, 'object', stanzas));
        return { hooks, problems };
      }
      for (const stage of MACHINE_STAGES) {
        const list = stanzas[stage];
        const stagePath = `${rootPath}.${stage}`;
        if (list === undefined || list === null) continue;
        if (!Array.isArray(list)) {
          problems.push(structural(stagePath, 'array', list));
          continue;
        }
        list.forEach((entry: unknown, index) => {
          const path = `${stagePath}[${index}]`;
          if (!isRecord(entry)) {
            problems.push(structural(path, 'object', entry));
            return;
          }
          hooks.push({
            stage,
            index,
            name: entry['name'],
            owner: entry['owner'],
            path,
            namePath: `${path}.name`,
            ownerPath: `${path}.owner`,
          });
        });
      }
      return { hooks, problems };
    },
    write(obj, stage, entries) {
      let parent: Record<string, unknown> = obj;
      for (const key of root) {
        const next = parent[key];
        if (!isRecord(next)) parent[key] = {};
        parent = parent[key] as Record<string, unknown>;
      }
      parent[stage] = entries.map((h) => ({ name: h.name, owner: h.owner }));
    },
  };
}

function structural(path: string, expected: string, value: unknown): Violation {
  return {
    rule: 'hook-naming',
    path,
    message: typeInvalid(path, value, expected).message,
    fix: `make ${path} an ${expected}`,
    key: `structure:${path}`,
  };
}

/** Machine API kinds, then Cluster API kinds (src/core/capi.ts). */
export const CARRIERS: readonly HookCarrier[] = [
  listCarrier('openshift-machine', 'machine.openshift.io', 'Machine', true, ['spec', 'lifecycleHooks']),
  listCarrier('openshift-machineset', 'machine.openshift.io', 'MachineSet', false, [
    'spec',
    'template',
    'spec',
    'lifecycleHooks',
  ]),
  listCarrier('openshift-controlplanemachineset', 'machine.openshift.io', 'ControlPlaneMachineSet', false, [
    'spec',
    'template',
    'machines_v1beta1_machine_openshift_io',
    'spec',
    'lifecycleHooks',
  ]),
  ...CAPI_CARRIERS,
];

export function carrierFor(
  gvk: GroupVersionKind,
  carriers: readonly HookCarrier[] = CARRIERS,
): HookCarrier | undefined {
  return carriers.find((c) => c.group === gvk.group && c.kind === gvk.kind);
}

/** A hook with well-formed name and owner, for rules that compare hooks. */
export interface Hook {
  stage: Stage;
  index: number;
  name: string;
  /**
   * What the hook is, for comparing old and new hooks: the annotation key for annotation carriers (two keys whose
   * names parse alike are two hooks, each blocking the deletion), the name for list carriers.
   */
  id: string;
  owner: string;
  path: string;
  namePath: string;
  ownerPath: string;
}

export function wellFormed(hooks: readonly RawHook[]): Hook[] {
  const out: Hook[] = [];
  for (const h of hooks) {
    if (typeof h.name !== 'string') continue;
    out.push({
      stage: h.stage,
      index: h.index,
      name: h.name,
      id: h.key ?? h.name,
      owner: typeof h.owner === 'string' ? h.owner : '',
      path: h.path,
      namePath: h.namePath,
      ownerPath: h.ownerPath,
    });
  }
  return out;
}
