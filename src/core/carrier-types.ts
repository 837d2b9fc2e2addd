// What a carrier is (the kind-specific place an object keeps its hooks) and what reading one gives: types only, a
// leaf, so the carriers of both APIs (carriers.ts, capi.ts) are described without importing each other.
import type { KubeObject, Stage, Violation } from './types.js';

/** One hook as found in an object: name and owner are unvalidated JSON. */
export interface RawHook {
  stage: Stage;
  index: number;
  name: unknown;
  owner: unknown;
  /** Field path of the hook entry, e.g. spec.lifecycleHooks.preDrain[1]. */
  path: string;
  namePath: string;
  ownerPath: string;
  /** The annotation key that declares the hook (annotation carriers only): the hook's identity there. */
  key?: string;
}

/** A hook as a carrier writes it; `id` keeps an existing hook's identity (its annotation key). */
export interface HookEntry {
  name: string;
  owner: string;
  id?: string;
}

export interface HookReading {
  hooks: RawHook[];
  /** Structural problems (a stanza that is not a list, an entry that is not an object). */
  problems: Violation[];
}

export interface HookCarrier {
  id: string;
  group: string;
  kind: string;
  /**
   * Live carriers' hooks gate something of the object itself (a Machine's deletion, a Cluster's upgrade), so
   * owner-only removal applies. Templates get naming, single-owner and template-hook-removed only.
   */
  live: boolean;
  /**
   * The hooks gate the object's own deletion (Machines): the deletion freeze, default hooks, the controller's
   * finalizer, stuck deletions and `explain` apply. A Cluster's upgrade hooks are live but gate no deletion.
   */
  gatesDeletion: boolean;
  /** The stages this kind has, in order: a Machine's (and its templates') preDrain, preTerminate; a Cluster's beforeUpgrade. */
  stages: readonly Stage[];
  /** How hooks are written: a {name, owner} list per stage (Machine API) or annotations (Cluster API). */
  format: 'list' | 'annotations';
  /** Path (as keys) of the object holding the stages, used for reading, writing and messages. */
  root: readonly string[];
  /** Field path of one stage's hooks, for messages: spec.lifecycleHooks.preDrain, or metadata.annotations. */
  stagePath(stage: Stage): string;
  /** A hook as it is written in this carrier, for fix texts: {name: X, owner: Y}, or an annotation. */
  hookText(stage: Stage, name: string, owner: string): string;
  /**
   * The identity of a hook named `name` as this carrier writes it: what keeps the deletion waiting, so what rules
   * compare old and new hooks by. A list's name (the CRD's list-map key), or the annotation key "<prefix>/<name>".
   */
  hookId(stage: Stage, name: string): string;
  read(obj: KubeObject | null): HookReading;
  /** Replaces one stage's hooks in obj (a mutable copy). */
  write(obj: KubeObject, stage: Stage, hooks: readonly HookEntry[]): void;
}
