// JSON schema of the policy file (apiVersion hookkeeper.io/v1alpha1, kind Policy). Every field is optional:
// what a file leaves out comes from the embedded default (src/infrastructure/config/defaults.ts).
import {
  MACHINE_GROUPS,
  MAX_HOOKS_PER_STAGE_LIMIT,
  MAX_IMPLIED_OWNERS,
  UNVERIFIED_REMOVAL_VALUES,
  WILDCARD_GRANTS_VALUES,
} from '../../core/policy.js';
import { RULE_IDS } from '../../core/registry.js';

const stringList = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true } as const;

const labelSelector = {
  type: 'object',
  additionalProperties: false,
  properties: {
    matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'operator'],
        properties: {
          key: { type: 'string', minLength: 1 },
          operator: { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
          values: stringList,
        },
      },
    },
  },
} as const;

const hook = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'owner'],
  properties: { name: { type: 'string' }, owner: { type: 'string' } },
} as const;

const objectSelector = {
  type: 'object',
  additionalProperties: false,
  required: ['kinds'],
  properties: {
    kinds: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['group', 'kind'],
        properties: { group: { type: 'string' }, kind: { type: 'string', minLength: 1 } },
      },
    },
    namespaces: stringList,
    labelSelector,
  },
} as const;

const serviceAccounts = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['namespace', 'name'],
    properties: { namespace: { type: 'string', minLength: 1 }, name: { type: 'string', minLength: 1 } },
  },
} as const;

const parentAction = { enum: ['deny', 'warn', 'allow'] } as const;

/** A children rule; the loader checks what a schema cannot say (templates, key syntax, owner registry). */
const childRule = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'match', 'parent'],
  properties: {
    name: { type: 'string', minLength: 1 },
    match: objectSelector,
    parent: {
      type: 'object',
      additionalProperties: false,
      required: ['apiVersion', 'kind', 'resource', 'nameFrom'],
      properties: {
        apiVersion: {
          type: 'string',
          pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?v[0-9]+((alpha|beta)[0-9]+)?$',
        },
        kind: { type: 'string', pattern: '^[A-Z][A-Za-z0-9]*$' },
        resource: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
        namespaced: { type: 'boolean' },
        // Exactly one source: the label or annotation holding the parent's name, or a name template.
        nameFrom: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          maxProperties: 1,
          properties: {
            label: { type: 'string', minLength: 1 },
            annotation: { type: 'string', minLength: 1 },
            template: { type: 'string', minLength: 1 },
          },
        },
      },
    },
    finalizer: { type: 'string', minLength: 1 },
    controller: { type: 'boolean' },
    blockOwnerDeletion: { type: 'boolean' },
    onMissingParent: parentAction,
    onExistingController: { enum: ['deny', 'nonController'] },
    onDeletingParent: parentAction,
    finalizerRemovers: stringList,
  },
} as const;

export const POLICY_SCHEMA = {
  $id: 'https://hookkeeper.io/schemas/policy.json',
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind'],
  properties: {
    apiVersion: { const: 'hookkeeper.io/v1alpha1' },
    kind: { const: 'Policy' },
    enforcement: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(RULE_IDS.map((id) => [id, { enum: ['deny', 'warn', 'off'] }])),
    },
    reservedHooks: { type: 'array', items: hook },
    owners: {
      type: 'object',
      // A hook with an empty owner (kubeadm's kcp-cleanup) can never be registered, so is never identity-checked.
      propertyNames: { minLength: 1 },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          users: stringList,
          groups: stringList,
          serviceAccounts,
        },
      },
    },
    // A key, not a hook name: the annotation key is what a Cluster API hook is, and it carries the stage. Which keys
    // are hook keys is the loader's check (src/infrastructure/config/implied-owners.ts), worded better than a regular expression.
    impliedOwners: {
      type: 'array',
      maxItems: MAX_IMPLIED_OWNERS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['hook', 'owner'],
        properties: {
          hook: { type: 'string', minLength: 1 },
          owner: { type: 'string', minLength: 1 },
        },
      },
    },
    strictOwners: { type: 'boolean' },
    unverifiedRemoval: { enum: UNVERIFIED_REMOVAL_VALUES },
    wildcardGrants: { enum: WILDCARD_GRANTS_VALUES },
    breakGlass: {
      type: 'object',
      additionalProperties: false,
      properties: { users: stringList, groups: stringList },
    },
    defaultHooks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'match', 'stage', 'hook'],
        properties: {
          name: { type: 'string', minLength: 1 },
          match: objectSelector,
          operations: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['CREATE', 'UPDATE'] } },
          stage: { enum: ['preDrain', 'preTerminate'] },
          hook,
        },
      },
    },
    quorumHooks: {
      type: 'array',
      maxItems: 16,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'match', 'stage', 'hooks', 'clusterLabel'],
        properties: {
          name: { type: 'string', minLength: 1 },
          match: objectSelector,
          stage: { enum: ['preDrain', 'preTerminate'] },
          hooks: { ...stringList, minItems: 1, maxItems: 16 },
          clusterLabel: { type: 'string', minLength: 1 },
        },
      },
    },
    children: { type: 'array', items: childRule },
    maxHooksPerStage: { type: 'integer', minimum: 1, maximum: MAX_HOOKS_PER_STAGE_LIMIT },
    migration: {
      type: 'object',
      additionalProperties: false,
      properties: {
        synchronizers: serviceAccounts,
        machineAPINamespace: { type: 'string', minLength: 1 },
        clusterAPINamespace: { type: 'string', minLength: 1 },
      },
    },
    machineControllers: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(MACHINE_GROUPS.map((g) => [g, serviceAccounts])),
    },
  },
} as const;
