// The parts of admission.k8s.io/v1 AdmissionReview that hookkeeper relies on. Anything else may be present.
// https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#request

export const MAX_UID_LENGTH = 256;

export const ADMISSION_REVIEW_SCHEMA = {
  type: 'object',
  required: ['apiVersion', 'kind', 'request'],
  properties: {
    apiVersion: { const: 'admission.k8s.io/v1' },
    kind: { const: 'AdmissionReview' },
    request: {
      type: 'object',
      required: ['uid', 'kind', 'operation', 'userInfo'],
      properties: {
        // The API server sends a UUID (36 characters) and every answer echoes it: a longer one cannot be real.
        uid: { type: 'string', minLength: 1, maxLength: MAX_UID_LENGTH },
        kind: {
          type: 'object',
          required: ['group', 'version', 'kind'],
          properties: { group: { type: 'string' }, version: { type: 'string' }, kind: { type: 'string' } },
        },
        namespace: { type: 'string' },
        name: { type: 'string' },
        operation: { enum: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] },
        userInfo: {
          type: 'object',
          properties: {
            username: { type: 'string' },
            uid: { type: 'string' },
            groups: { type: 'array', items: { type: 'string' } },
            // map[string][]string (authentication/v1 UserInfo.Extra); a nil value marshals as null.
            extra: {
              type: 'object',
              additionalProperties: { type: ['array', 'null'], items: { type: 'string' } },
            },
          },
        },
        object: { type: ['object', 'null'] },
        oldObject: { type: ['object', 'null'] },
        dryRun: { type: 'boolean' },
      },
    },
  },
} as const;
