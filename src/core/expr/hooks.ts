// The hooks of a carrier's stages as expressions: in CEL the carrier's variables (cel/carrier.ts), in JavaScript the
// hooks the engine already read (carriers.ts), each well-formed hook a {name, owner} with its identity, as CEL sees
// a schema-valid one. The only leaves a hook rule's predicate reads.
import { HOOK_ANNOTATION_PREFIX } from '../capi.js';
import { wellFormed, type Hook, type HookCarrier, type HookReading } from '../carriers.js';
import { celCarrier, celWasStored } from '../cel/carrier.js';
import { cel, celList } from '../cel/text.js';
import type { CelStage } from '../cel/types.js';
import type { Policy } from '../policy.js';
import type { ReviewInput, Stage } from '../types.js';
import { bound, leaf, type Bool, type Env, type Expr, type Str } from './expr.js';
import type { RequestEnv } from './request.js';
import type { List } from './lists.js';
import type { StringMap } from './maps.js';

/** What a hook rule's expressions read in the webhook: the request's hooks, read once by the engine. */
export class HookEnv implements Env {
  // Each made on first use: most requests a rule sees end at its `when`, before any hook is read.
  memo: Map<string, unknown> | undefined;
  private lists: Map<string, Hook[]> | undefined;
  private formedNow: Hook[] | undefined;
  private formedOld: Hook[] | undefined;
  private stored: Map<Stage, Set<string>> | undefined;
  private indexes: Map<string, Map<string, string>> | undefined;

  constructor(
    readonly hooks: HookReading,
    readonly oldHooks: HookReading,
    readonly input: ReviewInput,
    readonly policy: Policy,
  ) {}

  /** A stage's well-formed hooks, in order. */
  stage(stage: Stage, old: boolean): readonly Hook[] {
    const key = `${old ? 'old:' : ''}${stage}`;
    this.lists ??= new Map();
    let list = this.lists.get(key);
    if (!list) {
      const all = old
        ? (this.formedOld ??= wellFormed(this.oldHooks.hooks))
        : (this.formedNow ??= wellFormed(this.hooks.hooks));
      list = all.filter((h) => h.stage === stage);
      this.lists.set(key, list);
    }
    return list;
  }

  /** A stage's hooks by identity, to their owner (the first, where a stage names one twice: CEL fails there). */
  index(stage: Stage, old: boolean): ReadonlyMap<string, string> {
    const key = `${old ? 'old:' : ''}${stage}`;
    this.indexes ??= new Map();
    let index = this.indexes.get(key);
    if (!index) {
      index = new Map();
      for (const h of this.stage(stage, old)) if (!index.has(h.id)) index.set(h.id, h.owner);
      this.indexes.set(key, index);
    }
    return index;
  }

  /** A hook of `stage` with this identity and owner was stored (any of them, where a stage names one twice). */
  wasStored(stage: Stage, id: string, owner: string): boolean {
    this.stored ??= new Map();
    let set = this.stored.get(stage);
    if (!set) {
      set = new Set(this.stage(stage, true).map((h) => `${h.id}\u0000${h.owner}`));
      this.stored.set(stage, set);
    }
    return set.has(`${id}\u0000${owner}`);
  }
}

const hookEnv = (env: Env): HookEnv => env as HookEnv;

/**
 * The object carries a hook in any stage: the hooks the engine read where a rule runs, else (a webhook condition's
 * predicate, src/core/update-reads.ts) the carrier's reading of the request's object.
 */
export function carriesHooks(carrier: HookCarrier): Bool {
  return leaf(cel`(${celCarrier(carrier).hasHooks})`, (env) => {
    const reading = env instanceof HookEnv ? env.hooks : carrier.read((env as unknown as RequestEnv).input.object);
    return reading.hooks.length > 0;
  });
}

/** One hook inside a comprehension over a stage: its fields, and where it is written (for messages). */
export interface HookVar {
  readonly name: Str;
  readonly owner: Str;
  /** What old and new hooks are compared by: the name in a list, the annotation key on Cluster API. */
  readonly id: Str;
  readonly namePath: Str;
  readonly ownerPath: Str;
  readonly path: Str;
  /** The hook itself, set by the comprehension. */
  readonly value: Expr<Hook>;
  readonly set: (hook: Hook) => void;
}

/** A stage of a carrier, as both compilers read it. */
export interface StageView {
  readonly stage: Stage;
  readonly stagePath: string;
  readonly hooks: Expr<readonly Hook[]>;
  /** The stage's hooks by identity, to their owner: in the object, and in the stored object (UPDATE only). */
  readonly index: StringMap;
  readonly oldIndex: StringMap;
  /** The identities a hook named `n` may have in this stage (on Cluster API, two keys may give one name). */
  named(n: Str): List<string>;
  /** True when hook `h` was stored with the same identity and owner (what ratcheting and the freeze compare). */
  wasStored(h: HookVar): Bool;
  /** The comprehension variables over this stage's hooks: CEL's `i, h`. */
  hook(): HookVar;
}

export function stageView(carrier: HookCarrier, s: CelStage): StageView {
  const stage = s.stage;
  return {
    stage,
    stagePath: carrier.stagePath(stage),
    hooks: leaf(s.hooks, (env) => hookEnv(env).stage(stage, false)),
    index: leaf(s.index, (env) => hookEnv(env).index(stage, false)),
    oldIndex: leaf(s.oldIndex, (env) => hookEnv(env).index(stage, true)),
    named: (n) => {
      const text = celList(s.named(n.cel));
      if (carrier.format === 'list') return leaf(text, (env) => [n.js(env)]);
      // "<prefix>/<n>", and n itself when it is a key that only starts with the prefix ('' is in no index).
      const slashed = `${HOOK_ANNOTATION_PREFIX[stage]}/`;
      return leaf(text, (env) => {
        const name = n.js(env);
        return [slashed + name, name.startsWith(slashed) ? '' : name];
      });
    },
    wasStored: (h) =>
      leaf(celWasStored(s, h.value.cel), (env) => {
        const hook = h.value.js(env);
        return hookEnv(env).wasStored(stage, hook.id, hook.owner);
      }),
    hook: () => {
      const h = bound<Hook>('h');
      const i = cel`i`;
      const field = (text: ReturnType<typeof cel>, pick: (hook: Hook) => string): Str =>
        leaf(text, (env) => pick(h.js(env)));
      return {
        value: h,
        set: h.set,
        name: field(cel`h.name`, (x) => x.name),
        owner: field(cel`h.owner`, (x) => x.owner),
        id: field(s.id(h.cel), (x) => x.id),
        namePath: field(s.namePath(i, h.cel), (x) => x.namePath),
        ownerPath: field(s.ownerPath(i, h.cel), (x) => x.ownerPath),
        path: field(s.hookPath(i, h.cel), (x) => x.path),
      };
    },
  };
}

/**
 * Whether a predicate compares with the stored hooks (wasStored), whose CEL reads the stored stage's index of hooks
 * by name: a stage naming one hook twice fails to build it, a divergence native render declares. Found by building
 * the predicate once over a stage that records the call, never by searching the CEL it renders.
 */
export function readsStored(passes: (h: HookVar, s: StageView) => Bool): boolean {
  let read = false;
  const probe: CelStage = {
    stage: 'preDrain',
    hooks: cel`hooks`,
    oldHooks: cel`oldHooks`,
    index: cel`index`,
    oldIndex: cel`oldIndex`,
    id: (h) => h,
    named: (n) => [n],
    stagePath: '',
    hookPath: () => cel`''`,
    namePath: () => cel`''`,
    ownerPath: () => cel`''`,
  };
  const view = stageView({ stagePath: () => '' } as unknown as HookCarrier, probe);
  passes(view.hook(), {
    ...view,
    wasStored: (h) => {
      read = true;
      return view.wasStored(h);
    },
  });
  return read;
}
