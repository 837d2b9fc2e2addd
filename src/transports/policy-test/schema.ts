// The test file of `hookkeeper test` (apiVersion hookkeeper.io/v1alpha1, kind PolicyTest): its JSON schema and
// its type. What a schema cannot say (an operation against the objects given, one identity) is checked in load.ts.
import type { ParentFact, QuorumFact, Stage } from '../../core/types.js';

export const TEST_API_VERSION = 'hookkeeper.io/v1alpha1';
export const TEST_KIND = 'PolicyTest';

/** How test files are found under a directory: the name says what a file is, before it is read. */
export const TEST_FILE_SUFFIXES = ['.hookkeeper-test.yaml', '.hookkeeper-test.yml'] as const;

/** A grant's owner that stands for every owner: an RBAC rule without resourceNames (cluster-admin's). */
export const EVERY_OWNER = '*';

export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

/** An RBAC subject, as a RoleBinding writes it. */
export interface Subject {
  kind: SubjectKind;
  name: string;
  namespace?: string;
}

/** remove on hookowners.hookkeeper.io/<owner>, bound to a subject: cluster-wide, or in one namespace. */
export interface Grant {
  owner: string;
  subject: Subject;
  namespace?: string;
}

export interface Identity {
  user?: string;
  serviceAccount?: { namespace: string; name: string };
  groups?: string[];
}

export interface ExpectedHook {
  name: string;
  owner: string;
}

export interface Expectation {
  allowed: boolean;
  messages?: string[];
  warnings?: string[];
  hooks?: Partial<Record<Stage, ExpectedHook[]>>;
}

/** An object inline, or the path of a file holding one (relative to the test file). */
export type ObjectSource = string | Record<string, unknown>;

/** Why serve's list of the cluster's Machines failed, as the quorum fact says it. */
export type ListFailure = Extract<QuorumFact, { found: false }>['reason'];
/** Every reason a failed list has (the record makes a new one in QuorumFact a type error here). */
const LIST_FAILURE: Record<ListFailure, true> = { Timeout: true, Error: true, TooMany: true };
export const LIST_FAILURES = Object.keys(LIST_FAILURE) as ListFailure[];

/** Why serve's lookup of a child's parent failed, as the parent fact says it (not found is a parent not stated). */
export type LookupFailure = Exclude<Extract<ParentFact, { found: false }>['reason'], 'NotFound'>;
const LOOKUP_FAILURE: Record<LookupFailure, true> = { Timeout: true, Error: true };
export const LOOKUP_FAILURES = Object.keys(LOOKUP_FAILURE) as LookupFailure[];

export interface TestCase {
  name: string;
  /**
   * A rule's own cases only (src/rules/<id>/cases.yaml, loaded with `ruleCases`): native mode's verdict on this
   * request differs from the expected one, as a divergence of src/compilers/native/notes.ts declares.
   */
  native?: typeof NATIVE_DIFFERS;
  operation?: 'CREATE' | 'UPDATE' | 'DELETE';
  object?: ObjectSource;
  oldObject?: ObjectSource;
  identity?: Identity;
  grants?: Grant[];
  clusterMachines?: ObjectSource[];
  clusterMachinesUnavailable?: ListFailure;
  parents?: ObjectSource[];
  parentsUnavailable?: LookupFailure;
  expect: Expectation;
}

export interface TestFile {
  apiVersion: typeof TEST_API_VERSION;
  kind: typeof TEST_KIND;
  policy: string;
  grants?: Grant[];
  clusterMachines?: ObjectSource[];
  clusterMachinesUnavailable?: ListFailure;
  parents?: ObjectSource[];
  parentsUnavailable?: LookupFailure;
  cases: TestCase[];
}

const name = { type: 'string', minLength: 1 } as const;
const strings = { type: 'array', items: name } as const;
const objectSource = { type: ['string', 'object'], minLength: 1 } as const;

/**
 * The cluster's Machines a quorum hook's removal is judged against (the list `serve` makes): each inline or a file.
 * Their kind and count are checked in load.ts, in hookkeeper's words.
 */
const clusterMachines = { type: 'array', items: objectSource } as const;
/** Instead of clusterMachines: serve's list failed, for this reason (quorum-protection then refuses the removal). */
const clusterMachinesUnavailable = { enum: LIST_FAILURES } as const;

/** The parent objects the cluster holds (what serve's lookups find); a parent a child names and no entry is, is not found. */
const parents = { type: 'array', items: objectSource } as const;
/** Instead of parents: serve's lookup failed, for this reason (child-parent then applies onMissingParent). */
const parentsUnavailable = { enum: LOOKUP_FAILURES } as const;

const grants = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['owner', 'subject'],
    properties: {
      owner: name,
      namespace: name,
      subject: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'name'],
        properties: { kind: { enum: ['User', 'Group', 'ServiceAccount'] }, name, namespace: name },
      },
    },
  },
} as const;

const hooks = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'owner'],
    properties: { name: { type: 'string' }, owner: { type: 'string' } },
  },
} as const;

/** The one value of a rule case's `native`. */
export const NATIVE_DIFFERS = 'differs';

export const TEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind', 'policy', 'cases'],
  properties: {
    apiVersion: { const: TEST_API_VERSION },
    kind: { const: TEST_KIND },
    policy: name,
    grants,
    clusterMachines,
    clusterMachinesUnavailable,
    parents,
    parentsUnavailable,
    cases: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'expect'],
        properties: {
          name,
          operation: { enum: ['CREATE', 'UPDATE', 'DELETE'] },
          object: objectSource,
          oldObject: objectSource,
          identity: {
            type: 'object',
            additionalProperties: false,
            properties: {
              user: name,
              serviceAccount: {
                type: 'object',
                additionalProperties: false,
                required: ['namespace', 'name'],
                properties: { namespace: name, name },
              },
              groups: strings,
            },
          },
          grants,
          clusterMachines,
          clusterMachinesUnavailable,
          parents,
          parentsUnavailable,
          expect: {
            type: 'object',
            additionalProperties: false,
            required: ['allowed'],
            properties: {
              allowed: { type: 'boolean' },
              messages: { ...strings, minItems: 1 },
              warnings: strings,
              hooks: {
                type: 'object',
                additionalProperties: false,
                properties: { preDrain: hooks, preTerminate: hooks, beforeUpgrade: hooks },
              },
            },
          },
        },
      },
    },
  },
} as const;

/**
 * The schema of a rule's own cases (src/rules/<id>/cases.yaml): a PolicyTest whose cases may also say `native:
 * differs`. Only the rules' tests load with it; `hookkeeper test` refuses the key as unknown.
 */
export const RULE_CASES_SCHEMA = {
  ...TEST_SCHEMA,
  properties: {
    ...TEST_SCHEMA.properties,
    cases: {
      ...TEST_SCHEMA.properties.cases,
      items: {
        ...TEST_SCHEMA.properties.cases.items,
        properties: { ...TEST_SCHEMA.properties.cases.items.properties, native: { const: NATIVE_DIFFERS } },
      },
    },
  },
} as const;
