// Reading one test file: YAML with positions -> schema (ajv, every error) -> what a schema cannot say -> the
// objects and the policy it names. Every problem comes back at once, as "file:line path: message".
import { gvkOf } from '../../core/api-version.js';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { metadata } from '../../core/guards.js';
import { escapePointerToken } from '../../core/pointer.js';
import { MAX_QUORUM_MACHINES } from '../../core/quorum.js';
import { KNOWN_RESOURCES } from '../../core/resources.js';
import type { Policy } from '../../core/policy.js';
import type { GroupVersionKind, KubeObject, Operation, QuorumFact } from '../../core/types.js';
import { checkDocument, compileSchema } from '../../infrastructure/config/document.js';
import { parsePolicy } from '../../infrastructure/config/load.js';
import type { YamlDocument } from '../../infrastructure/config/yaml.js';
import { parseManifests } from '../../infrastructure/manifests/documents.js';
import { AppError, type Problem } from '../../errors.js';
import { fsReason } from './discover.js';
import {
  RULE_CASES_SCHEMA,
  TEST_SCHEMA,
  type Expectation,
  type Grant,
  type Identity,
  type ListFailure,
  type LookupFailure,
  type ObjectSource,
  type TestCase,
  type TestFile,
} from './schema.js';

const validateSchema = compileSchema<TestFile>(TEST_SCHEMA);
let validateRuleCases: typeof validateSchema | undefined;

export interface LoadOptions {
  /** A rule's own cases (src/rules/<id>/cases.yaml): a case may say `native: differs`. */
  ruleCases?: boolean;
}

export interface LoadedCase {
  name: string;
  /** The line the case starts on. */
  line: number;
  operation: Operation;
  kind: GroupVersionKind;
  object: KubeObject | null;
  oldObject: KubeObject | null;
  identity: Identity | undefined;
  /** A rule case's declaration that native mode decides this request otherwise (only with `ruleCases`). */
  native?: TestCase['native'];
  /** The case's grants, else the file's; undefined when neither declares any (RBAC not modelled). */
  grants: readonly Grant[] | undefined;
  /**
   * The cluster's Machines a quorum hook's removal is judged against, or why their list failed: the case's else the
   * file's; undefined when neither states either (the list `serve` makes is not modelled, so quorum-protection judges
   * nothing).
   */
  quorum?: QuorumFact;
  /**
   * The parents serve's lookups would find, or why they failed: the case's else the file's; undefined when neither
   * states either (parents are not looked up offline, so the child rules judge no parent).
   */
  parents?: StatedParents;
  expect: Expectation;
}

/** The parent objects a case or file states, or that serve's lookups failed and why. */
export type StatedParents = { objects: readonly KubeObject[] } | { unavailable: LookupFailure };

export interface LoadedFile {
  file: string;
  /** The policy file as named from the working directory, once the file names one. */
  policyFile?: string;
  policy?: Policy;
  cases: LoadedCase[];
  /** Anything that keeps the file from running; non-empty means no case of it ran. */
  problems: Problem[];
}

/** Policies by absolute path: several test files usually share one. */
export type PolicyCache = Map<string, Promise<Policy | Problem[]>>;

/** A path relative to a test file, as named from the working directory. */
function beside(testFile: string, path: string): string {
  return isAbsolute(path) ? path : join(dirname(testFile), path);
}

const isMapping = (v: unknown): v is KubeObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function loadTestFile(
  file: string,
  cwd: string,
  policies: PolicyCache,
  options: LoadOptions = {},
): Promise<LoadedFile> {
  const fail = (problems: Problem[]): LoadedFile => ({ file, cases: [], problems });
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (err) {
    return fail([{ file, message: `cannot read: ${fsReason(err)}` }]);
  }
  const schema = options.ruleCases
    ? (validateRuleCases ??= compileSchema<TestFile>(RULE_CASES_SCHEMA))
    : validateSchema;
  const checked = checkDocument(text, file, schema, { merge: true, what: 'a PolicyTest' });
  if (!('doc' in checked)) return fail(checked.problems);
  const { doc, at, problems } = checked;
  // Where the schema found something wrong: that value (and what is under it) is not read further. An unknown key
  // leaves its mapping usable (the key is ignored), and a missing key marks the key, not the mapping holding it.
  const schemaPaths = checked.schemaErrors
    .filter((e) => e.unknown === undefined)
    .map(({ error, pointer }) =>
      error.keyword === 'required'
        ? `${pointer}/${escapePointerToken(String(error.params['missingProperty']))}`
        : pointer,
    );
  const schemaValid = (pointer: string): boolean =>
    !schemaPaths.some((p) => p === pointer || p.startsWith(`${pointer}/`));
  // Past the schema, read only what passed it, field by field: a case's schema errors and its other problems are
  // all reported in one pass (a typo in expect does not hide an object file that is missing).
  const raw = (isMapping(doc.value) ? doc.value : {}) as Partial<TestFile>;
  const cases: LoadedCase[] = [];
  const firstByName = new Map<string, number>();
  const list = Array.isArray(raw.cases) ? raw.cases : [];
  const fileGrants = schemaValid('/grants') ? raw.grants : undefined;
  if (fileGrants) problems.push(...grantProblems(fileGrants, '/grants', at));
  const fileMachines = await statedCluster(raw, '', schemaValid, file, cwd, at, problems);
  const fileParents = await statedParents(raw, '', schemaValid, file, cwd, at, problems);
  for (const [i, c] of list.entries()) {
    const base = `/cases/${i}`;
    // Not a mapping: nothing in it to read.
    if (!isMapping(c) || schemaPaths.includes(base)) continue;
    const line = doc.lineOf(base) ?? doc.line;
    if (schemaValid(`${base}/name`)) {
      const first = firstByName.get(c.name);
      if (first !== undefined)
        problems.push(at(`${base}/name`, `${JSON.stringify(c.name)} names another case too (line ${first})`));
      else firstByName.set(c.name, doc.lineOf(`${base}/name`) ?? line);
    }
    const loaded = await loadCase(c, base, line, file, cwd, at, schemaValid, fileMachines, fileParents);
    problems.push(...loaded.problems);
    if (loaded.case && schemaValid(base)) cases.push({ ...loaded.case, grants: c.grants ?? fileGrants });
  }
  let policyFile: string | undefined;
  let policy: Policy | undefined;
  if (typeof raw.policy === 'string' && schemaValid('/policy')) {
    policyFile = beside(file, raw.policy);
    const got = await policyAt(policyFile, cwd, policies);
    if (Array.isArray(got)) problems.push(...got.map((p) => (p.file === undefined ? at('/policy', p.message) : p)));
    else policy = got;
  }
  // In file order, as the policy loader lists them (a problem without a line first); the policy's own after. Once
  // each: the file's clusterMachines are checked against every case's API, and say a wrong one once.
  const once = new Set<string>();
  const ordered = problems
    .filter((p) => {
      const key = JSON.stringify([p.file, p.path, p.line, p.message]);
      return once.has(key) ? false : (once.add(key), true);
    })
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) => Number(a.p.file !== file) - Number(b.p.file !== file) || (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i,
    )
    .map(({ p }) => p);
  return {
    file,
    ...(policyFile === undefined ? {} : { policyFile }),
    ...(policy ? { policy } : {}),
    cases,
    problems: ordered,
  };
}

type At = (pointer: string, message: string) => Problem;

/** A ServiceAccount subject has a namespace; a User or Group has none (RBAC refuses such a binding). */
function grantProblems(grants: readonly Grant[], base: string, at: At): Problem[] {
  const out: Problem[] = [];
  grants.forEach((g, j) => {
    const path = `${base}/${j}/subject`;
    if (g.subject.kind === 'ServiceAccount' && g.subject.namespace === undefined)
      out.push(at(path, 'a ServiceAccount subject needs its namespace'));
    if (g.subject.kind !== 'ServiceAccount' && g.subject.namespace !== undefined)
      out.push(at(`${path}/namespace`, `a ${g.subject.kind} subject has no namespace`));
  });
  return out;
}

/** The operation a case's objects make: both is an UPDATE, a new object alone a CREATE, an old one alone a DELETE. */
function operationOf(c: TestCase): Operation | undefined {
  if (c.object !== undefined && c.oldObject !== undefined) return 'UPDATE';
  if (c.object !== undefined) return 'CREATE';
  if (c.oldObject !== undefined) return 'DELETE';
  return undefined;
}

const NEEDS: Record<'CREATE' | 'UPDATE' | 'DELETE', string> = {
  CREATE: 'object and no oldObject',
  UPDATE: 'object and oldObject',
  DELETE: 'oldObject and no object',
};

async function loadCase(
  c: TestCase,
  base: string,
  line: number,
  file: string,
  cwd: string,
  at: At,
  schemaValid: (pointer: string) => boolean,
  fileMachines: StatedCluster | undefined,
  fileParents: StatedParents | undefined,
): Promise<{ case?: Omit<LoadedCase, 'grants'>; problems: Problem[] }> {
  const problems: Problem[] = [];
  // Each check reads only fields the schema passed (`schemaValid`); the rest already have their schema problem.
  const ok = (key: string): boolean => schemaValid(`${base}/${key}`);
  const derived = operationOf(c);
  if (derived === undefined) problems.push(at(base, 'give object (CREATE), oldObject (DELETE) or both (UPDATE)'));
  else if (c.operation !== undefined && ok('operation') && c.operation !== derived)
    problems.push(at(`${base}/operation`, `${c.operation} needs ${NEEDS[c.operation]}`));
  if (ok('identity') && c.identity?.user !== undefined && c.identity.serviceAccount !== undefined)
    problems.push(at(`${base}/identity`, 'give user or serviceAccount, not both'));
  if (ok('grants') && c.grants) problems.push(...grantProblems(c.grants, `${base}/grants`, at));
  const expect = isMapping(c.expect) ? (c.expect as TestCase['expect']) : undefined;
  if (expect && ok('expect/allowed') && ok('expect/messages') && expect.allowed && expect.messages !== undefined)
    problems.push(
      at(
        `${base}/expect/messages`,
        'a case expected to be allowed has no denial to match: expect allowed: false, or remove messages',
      ),
    );
  if (expect && ok('expect/hooks') && derived === 'DELETE' && expect.hooks !== undefined)
    problems.push(at(`${base}/expect/hooks`, 'a DELETE leaves no object to carry hooks'));
  const read = (key: 'object' | 'oldObject'): Promise<KubeObject | null> => {
    const source = c[key];
    return source === undefined || !ok(key)
      ? Promise.resolve(null)
      : objectAt(source, `${base}/${key}`, file, cwd, at, problems);
  };
  const object = await read('object');
  const oldObject = await read('oldObject');
  const subject = object ?? oldObject;
  const kind = subject ? gvkOf(subject) : undefined;
  if (object && oldObject && kind) {
    const oldKind = gvkOf(oldObject);
    const same = (a: KubeObject, b: KubeObject, key: 'namespace' | 'name'): boolean =>
      metadata(a)[key] === metadata(b)[key];
    if (
      !oldKind ||
      oldKind.group !== kind.group ||
      oldKind.kind !== kind.kind ||
      !same(object, oldObject, 'namespace') ||
      !same(object, oldObject, 'name')
    )
      problems.push(at(`${base}/oldObject`, 'is not the same object as object (API group, kind, namespace and name)'));
  }
  const stated = (await statedCluster(c, base, schemaValid, file, cwd, at, problems)) ?? fileMachines;
  if (stated && 'machines' in stated && kind) problems.push(...sameApi(stated.machines, kind, at));
  const parents = (await statedParents(c, base, schemaValid, file, cwd, at, problems)) ?? fileParents;
  if (problems.length > 0 || derived === undefined || !kind) return { problems };
  return {
    case: {
      name: c.name,
      line,
      operation: derived,
      kind,
      object,
      oldObject,
      identity: c.identity,
      ...(stated ? { quorum: quorumFact(stated) } : {}),
      ...(parents ? { parents } : {}),
      ...(c.native === undefined ? {} : { native: c.native }),
      expect: c.expect,
    },
    problems,
  };
}

/** An object written inline, or read from the one-object file a path names; problems are added, null returned. */
async function objectAt(
  source: string | Record<string, unknown>,
  pointer: string,
  file: string,
  cwd: string,
  at: At,
  problems: Problem[],
): Promise<KubeObject | null> {
  let object: unknown = source;
  if (typeof source === 'string') {
    const path = beside(file, source);
    let text: string;
    try {
      text = await readFile(resolve(cwd, path), 'utf8');
    } catch (err) {
      problems.push(at(pointer, `cannot read ${path}: ${fsReason(err)}`));
      return null;
    }
    let docs: YamlDocument[];
    try {
      // A manifest of its own: read as kubectl would read it (`validate` reads it alike).
      docs = parseManifests(text, path);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      problems.push(...(err.problems.length > 0 ? err.problems : [{ file: path, message: err.message }]));
      return null;
    }
    if (docs.length !== 1) {
      problems.push(at(pointer, `${path} holds ${docs.length} YAML documents; a case names a file holding one object`));
      return null;
    }
    object = (docs[0] as YamlDocument).value;
  }
  const what = typeof source === 'string' ? beside(file, source) : 'the object';
  if (!isMapping(object)) {
    problems.push(at(pointer, `${what} is not a Kubernetes object (a mapping)`));
    return null;
  }
  if (!gvkOf(object)) {
    problems.push(at(pointer, `${what} has no apiVersion and kind`));
    return null;
  }
  return object;
}

/** Stated Machines, each with where it was stated. */
type StatedMachines = ReadonlyArray<{ object: KubeObject; pointer: string }>;

/** What a case or file states of serve's list: the Machines it found, or that it failed and why. */
type StatedCluster = { machines: StatedMachines } | { unavailable: ListFailure };

/**
 * A lookup a case or the file (`base` '') states: the objects it found (`list`), or that it failed and why
 * (`failed`); both at once say two things of one lookup (`both` words it).
 */
function statedLookup<F extends string>(
  listed: readonly ObjectSource[] | undefined,
  failure: F | undefined,
  keys: { base: string; list: string; failed: string; both: string },
  schemaValid: (pointer: string) => boolean,
  at: At,
  problems: Problem[],
): { list: readonly ObjectSource[] } | { failed: F } | undefined {
  const { base, list, failed } = keys;
  if (listed !== undefined && failure !== undefined) {
    problems.push(at(`${base}/${failed}`, `states that ${keys.both}: state one of them`));
    return undefined;
  }
  if (failure !== undefined && schemaValid(`${base}/${failed}`)) return { failed: failure };
  if (listed === undefined || !schemaValid(`${base}/${list}`)) return undefined;
  return { list: listed };
}

/** The list a case or the file (`base` '') states: clusterMachines, or clusterMachinesUnavailable. */
async function statedCluster(
  raw: Pick<TestCase, 'clusterMachines' | 'clusterMachinesUnavailable'>,
  base: string,
  schemaValid: (pointer: string) => boolean,
  file: string,
  cwd: string,
  at: At,
  problems: Problem[],
): Promise<StatedCluster | undefined> {
  const keys = {
    base,
    list: 'clusterMachines',
    failed: 'clusterMachinesUnavailable',
    both: 'the list failed beside clusterMachines, the list it found',
  } as const;
  const stated = statedLookup(raw.clusterMachines, raw.clusterMachinesUnavailable, keys, schemaValid, at, problems);
  if (!stated) return undefined;
  if ('failed' in stated) return { unavailable: stated.failed };
  const machines = await machinesAt(stated.list, `${base}/clusterMachines`, file, cwd, at, problems);
  return machines ? { machines } : undefined;
}

/**
 * The parents a case or the file (`base` '') states: parents, or parentsUnavailable. Each parent is an object with a
 * name, stated once (a cluster holds one of each).
 */
async function statedParents(
  raw: Pick<TestCase, 'parents' | 'parentsUnavailable'>,
  base: string,
  schemaValid: (pointer: string) => boolean,
  file: string,
  cwd: string,
  at: At,
  problems: Problem[],
): Promise<StatedParents | undefined> {
  const keys = {
    base,
    list: 'parents',
    failed: 'parentsUnavailable',
    both: 'the lookup failed beside parents, what it found',
  } as const;
  const stated = statedLookup(raw.parents, raw.parentsUnavailable, keys, schemaValid, at, problems);
  if (!stated) return undefined;
  if ('failed' in stated) return { unavailable: stated.failed };
  const before = problems.length;
  const objects: KubeObject[] = [];
  const seen = new Map<string, number>();
  for (const [i, source] of stated.list.entries()) {
    const here = `${base}/parents/${i}`;
    const object = await objectAt(source, here, file, cwd, at, problems);
    if (!object) continue;
    const meta = metadata(object);
    const name = typeof meta['name'] === 'string' ? meta['name'] : '';
    const what = typeof source === 'string' ? beside(file, source) : 'the object';
    if (name === '') {
      problems.push(at(here, `${what} has no metadata.name: a lookup finds a parent by its name`));
      continue;
    }
    const gvk = gvkOf(object) as GroupVersionKind;
    const namespace = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
    const id = `${gvk.group}/${gvk.kind} ${namespace === '' ? name : `${namespace}/${name}`}`;
    const first = seen.get(id);
    if (first !== undefined) problems.push(at(here, `${id} is stated twice (parents[${first}]): a cluster holds one`));
    else seen.set(id, i);
    objects.push(object);
  }
  return problems.length > before ? undefined : { objects };
}

/** The quorum fact serve would have had. */
function quorumFact(stated: StatedCluster): QuorumFact {
  return 'machines' in stated
    ? { found: true, machines: stated.machines.map((m) => m.object) }
    : { found: false, reason: stated.unavailable, message: 'the test case states the list failed' };
}

const MACHINE_GROUPS = KNOWN_RESOURCES.filter((r) => r.kind === 'Machine').map((r) => r.group);

/**
 * A clusterMachines list read as manifests, as a case's objects are: each a Machine, a name at most once, no more than
 * one lookup lists (beyond it serve refuses the removal, so a longer list states no cluster serve could judge).
 */
async function machinesAt(
  sources: readonly (string | Record<string, unknown>)[],
  pointer: string,
  file: string,
  cwd: string,
  at: At,
  problems: Problem[],
): Promise<StatedMachines | undefined> {
  if (sources.length > MAX_QUORUM_MACHINES) {
    problems.push(
      at(
        pointer,
        `states ${sources.length} Machines, more than the ${MAX_QUORUM_MACHINES} one lookup lists (serve refuses such a removal as TooMany); state at most ${MAX_QUORUM_MACHINES}`,
      ),
    );
    return undefined;
  }
  const before = problems.length;
  const out: { object: KubeObject; pointer: string }[] = [];
  const seen = new Map<string, number>();
  for (const [i, source] of sources.entries()) {
    const here = `${pointer}/${i}`;
    const object = await objectAt(source, here, file, cwd, at, problems);
    if (!object) continue;
    const gvk = gvkOf(object) as GroupVersionKind;
    const what = typeof source === 'string' ? beside(file, source) : 'the object';
    if (gvk.kind !== 'Machine' || !MACHINE_GROUPS.includes(gvk.group)) {
      const api = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
      problems.push(at(here, `${what} is a ${api} ${gvk.kind}, not a Machine (${MACHINE_GROUPS.join(' or ')})`));
      continue;
    }
    const meta = metadata(object);
    const text = (v: unknown): string => (typeof v === 'string' ? v : '');
    // A list returns stored Machines, each named in its namespace; one without would silently count for no cluster.
    if (text(meta['namespace']) === '' || text(meta['name']) === '') {
      problems.push(at(here, `${what} has no metadata.namespace or metadata.name: a listed Machine has both`));
      continue;
    }
    const id = `${text(meta['namespace'])}/${text(meta['name'])}`;
    const first = seen.get(id);
    if (first !== undefined)
      problems.push(at(here, `Machine ${id} is stated twice (clusterMachines[${first}]): a cluster holds one`));
    else seen.set(id, i);
    out.push({ object, pointer: here });
  }
  // The Machines read are kept even past a problem: each case still checks their API against its own.
  return problems.length > before && out.length === 0 ? undefined : out;
}

/** The stated Machines of the case's API: a lookup lists the collection of the request's own kind. */
function sameApi(machines: StatedMachines, kind: GroupVersionKind, at: At): Problem[] {
  if (kind.kind !== 'Machine') return [];
  return machines.flatMap(({ object, pointer }) => {
    const group = (gvkOf(object) as GroupVersionKind).group;
    return group === kind.group
      ? []
      : [
          at(
            pointer,
            `the object is a ${group} Machine; the case's object is a ${kind.group} one, and a lookup lists that API's Machines only`,
          ),
        ];
  });
}

/** The policy at a path, loaded once per run with the loader `serve` uses; its problems name its own file and lines. */
function policyAt(path: string, cwd: string, policies: PolicyCache): Promise<Policy | Problem[]> {
  const key = resolve(cwd, path);
  let got = policies.get(key);
  if (!got) {
    got = (async () => {
      let text: string;
      try {
        text = await readFile(key, 'utf8');
      } catch (err) {
        return [{ message: `cannot read ${path}: ${fsReason(err)}` }];
      }
      try {
        return parsePolicy(text, path);
      } catch (err) {
        if (err instanceof AppError && err.code === 'CONFIG_INVALID')
          return err.problems.length > 0 ? [...err.problems] : [{ file: path, message: err.message }];
        throw err;
      }
    })();
    policies.set(key, got);
  }
  return got;
}
