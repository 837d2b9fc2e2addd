// JSON schema of the policy file (apiVersion hookkeeper.io/v1alpha1, kind Policy). Every field is optional:
// what a file leaves out comes from the embedded default (src/config/defaults.ts).
import { RULE_IDS } from '../core/types.js';

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
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          users: stringList,
          groups: stringList,
          serviceAccounts: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['namespace', 'name'],
              properties: { namespace: { type: 'string', minLength: 1 }, name: { type: 'string', minLength: 1 } },
            },
          },
        },
      },
    },
    strictOwners: { type: 'boolean' },
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
          match: {
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
          },
          operations: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['CREATE', 'UPDATE'] } },
          stage: { enum: ['preDrain', 'preTerminate'] },
          hook,
        },
      },
    },
  },
} as const;
