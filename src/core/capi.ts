// Cluster API keeps hooks as annotations rather than {name, owner} lists: a Machine's deletion hooks
// ("pre-drain.delete.hook.machine.cluster.x-k8s.io/<name>: <owner>") and a Cluster's upgrade hooks
// ("before-upgrade.hook.cluster.cluster.x-k8s.io/<name>"); these carriers read and write them so every rule applies.
import type { HookCarrier, HookReading, RawHook } from './carrier-types.js';
import { typeInvalid } from './field-errors.js';
import { dig, isRecord, quote } from './guards.js';
import type { Stage, Violation } from './types.js';

export const CAPI_GROUP = 'cluster.x-k8s.io';

/**
 * cluster-api's PreDrainDeleteHookAnnotationPrefix and PreTerminateDeleteHookAnnotationPrefix (Machines), and
 * BeforeClusterUpgradeHookAnnotationPrefix (Clusters, api/core/v1beta2/common_types.go; read by the topology
 * controller, exp/topology/desiredstate/lifecycle_hooks.go, with strings.HasPrefix and whatever the value).
 */
export const HOOK_ANNOTATION_PREFIX: Readonly<Record<Stage, string>> = Object.freeze({
  preDrain: 'pre-drain.delete.hook.machine.cluster.x-k8s.io',
  preTerminate: 'pre-terminate.delete.hook.machine.cluster.x-k8s.io',
  beforeUpgrade: 'before-upgrade.hook.cluster.cluster.x-k8s.io',
});

export function hookAnnotationKey(stage: Stage, name: string): string {
  return `${HOOK_ANNOTATION_PREFIX[stage]}/${name}`;
}

export interface ParsedHookKey {
  stage: Stage;
  name: string;
  /** "<prefix>/<name>", the documented form. */
  canonical: boolean;
}

/**
 * The hook an annotation key declares, if any. The Machine controller counts every key that merely starts with
 * the prefix (strings.HasPrefix, no "/" required), so such keys are hooks here too, or they would slip past
 * the deletion freeze; lacking a "/<name>" part, their name is the whole key. Only the carrier's own `stages` count:
 * a Machine's before-upgrade annotation gates nothing, nor a Cluster's pre-drain one.
 */
export function parseHookAnnotationKey(key: string, stages: readonly Stage[]): ParsedHookKey | undefined {
  for (const stage of stages) {
    const prefix = HOOK_ANNOTATION_PREFIX[stage];
    if (!key.startsWith(prefix)) continue;
    return key.startsWith(`${prefix}/`)
      ? { stage, name: key.slice(prefix.length + 1), canonical: true }
      : { stage, name: key, canonical: false };
  }
  return undefined;
}

function notAnObject(path: string, value: unknown): Violation {
  return {
    rule: 'hook-naming',
    path,
    message: typeInvalid(path, value, 'object').message,
    fix: `make ${path} a map of string keys to string values`,
    key: `structure:${path}`,
  };
}

/** What an annotation carrier is: a Machine, a template of Machines, or a Cluster (upgrade hooks). */
type AnnotationRole = 'machine' | 'template' | 'cluster';

export function annotationCarrier(
  id: string,
  group: string,
  kind: string,
  role: AnnotationRole,
  root: readonly string[],
): HookCarrier {
  const rootPath = root.join('.');
  const stages: readonly Stage[] = role === 'cluster' ? ['beforeUpgrade'] : ['preDrain', 'preTerminate'];
  return {
    id,
    group,
    kind,
    live: role !== 'template',
    gatesDeletion: role === 'machine',
    stages,
    format: 'annotations',
    root,
    stagePath: () => rootPath,
    hookText: (stage, name, owner) => `${hookAnnotationKey(stage, name)}: ${quote(owner)}`,
    hookId: hookAnnotationKey,
    read(obj): HookReading {
      const hooks: RawHook[] = [];
      const problems: Violation[] = [];
      const annotations = obj === null ? undefined : dig(obj, root);
      if (annotations === undefined || annotations === null) return { hooks, problems };
      if (!isRecord(annotations)) return { hooks, problems: [notAnObject(rootPath, annotations)] };
      const count: Record<Stage, number> = { preDrain: 0, preTerminate: 0, beforeUpgrade: 0 };
      for (const [key, value] of Object.entries(annotations)) {
        const parsed = parseHookAnnotationKey(key, stages);
        if (!parsed) continue;
        // apimachinery's field.Path.Key notation, e.g. metadata.annotations[pre-drain.delete.hook.machine.cluster.x-k8s.io/x].
        const path = `${rootPath}[${key}]`;
        // JSON null decodes to "" in a Go map[string]string, so the API server stores an empty owner.
        const owner = value === null ? '' : value;
        hooks.push({
          stage: parsed.stage,
          index: count[parsed.stage]++,
          name: parsed.name,
          owner,
          path,
          namePath: path,
          ownerPath: path,
          key,
        });
      }
      return { hooks, problems };
    },
    write(obj, stage, entries) {
      let parent: Record<string, unknown> = obj;
      for (const key of root) {
        if (!isRecord(parent[key])) parent[key] = {};
        parent = parent[key] as Record<string, unknown>;
      }
      // Keys are kept as found (only values change, or the key goes), so a rewrite touches no other annotation; an
      // entry is its key, so another key whose name parses alike is another hook, left as it is.
      const wanted = new Map(entries.map((h) => [h.id ?? hookAnnotationKey(stage, h.name), h.owner]));
      for (const key of Object.keys(parent)) {
        const parsed = parseHookAnnotationKey(key, stages);
        if (!parsed || parsed.stage !== stage) continue;
        const owner = wanted.get(key);
        if (owner === undefined) delete parent[key];
        else parent[key] = owner;
      }
      for (const [key, owner] of wanted) if (!Object.hasOwn(parent, key)) parent[key] = owner;
    },
  };
}

/** Served as v1beta1 and v1beta2 alike: carriers match on group and kind, and the hook annotations did not change. */
export const CAPI_CARRIERS: readonly HookCarrier[] = [
  annotationCarrier('capi-machine', CAPI_GROUP, 'Machine', 'machine', ['metadata', 'annotations']),
  annotationCarrier('capi-machineset', CAPI_GROUP, 'MachineSet', 'template', [
    'spec',
    'template',
    'metadata',
    'annotations',
  ]),
  annotationCarrier('capi-machinedeployment', CAPI_GROUP, 'MachineDeployment', 'template', [
    'spec',
    'template',
    'metadata',
    'annotations',
  ]),
  // Upgrade hooks (since v1.10): the topology controller holds a Cluster's new version while one is set.
  annotationCarrier('capi-cluster', CAPI_GROUP, 'Cluster', 'cluster', ['metadata', 'annotations']),
];
