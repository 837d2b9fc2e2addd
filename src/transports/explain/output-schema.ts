// The JSON schema of `explain -o json` (MachineExplanation, src/core/explain/model.ts): the contract scripts rely on.
// Closed objects everywhere, so a field added to the model without a schema change fails the tests that check output
// against it; a field removed or renamed fails them too.
const str = { type: 'string' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const strings = { type: 'array', items: str } as const;
const oneOf = (...values: string[]) => ({ type: 'string', enum: values }) as const;

function closed(properties: Record<string, unknown>, required: readonly string[] = []): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, required, properties };
}

const evidence = closed({ basis: oneOf('field', 'condition', 'derived'), detail: str }, ['basis', 'detail']);
const condition = closed({ type: str, status: str, reason: str, message: str, lastTransitionTime: str, path: str }, [
  'type',
  'status',
  'path',
]);
const rbacRef = str;

const remover = closed(
  {
    via: oneOf('registry', 'rbac', 'rbac-wildcard', 'break-glass', 'anyone'),
    kind: oneOf('User', 'Group', 'ServiceAccount', 'Anyone'),
    name: str,
    namespace: str,
    binding: rbacRef,
    role: rbacRef,
    exists: oneOf('present', 'absent', 'unknown'),
  },
  ['via', 'kind', 'name'],
);

const hook = closed(
  {
    stage: oneOf('preDrain', 'preTerminate'),
    name: str,
    owner: str,
    ownerImplied: { const: true },
    path: str,
    holds: oneOf('now', 'next', 'passed', 'none'),
    protection: closed(
      {
        status: oneOf('protected', 'unprotected', 'unknown'),
        by: { type: 'array', items: oneOf('registry', 'rbac') },
        reason: str,
      },
      ['status', 'by', 'reason'],
    ),
    removers: { type: 'array', items: remover },
    controller: closed(
      {
        description: str,
        health: closed({ reporter: str, health: oneOf('healthy', 'unhealthy', 'unknown'), basis: str }, [
          'reporter',
          'health',
          'basis',
        ]),
      },
      ['description'],
    ),
    nextStep: closed({ actor: str, checks: strings, command: str, for: str, warnings: strings }, [
      'actor',
      'checks',
      'warnings',
    ]),
  },
  ['stage', 'name', 'owner', 'path', 'holds', 'protection', 'removers', 'nextStep'],
);

const step = oneOf('preDrain', 'preTerminate', 'drain', 'volumeDetach', 'infrastructure', 'other');

export const MACHINE_EXPLANATION_SCHEMA = closed(
  {
    apiVersion: { const: 'hookkeeper.io/v1alpha1' },
    kind: { const: 'MachineExplanation' },
    source: oneOf('cluster', 'file'),
    machine: closed(
      { apiVersion: str, kind: { const: 'Machine' }, resource: str, namespace: str, name: str, uid: str },
      ['apiVersion', 'kind', 'resource', 'name'],
    ),
    authoritativeAPI: closed({ spec: str, status: str, note: str }, ['note']),
    deletion: closed(
      {
        deleting: { type: 'boolean' },
        since: str,
        forSeconds: int,
        waitingAt: closed({ step, evidence, since: str, sinceEvidence: evidence, forSeconds: int }, [
          'step',
          'evidence',
        ]),
        conditions: { type: 'array', items: condition },
        startTimes: { type: 'object', additionalProperties: str },
        notes: strings,
      },
      ['deleting', 'conditions', 'startTimes', 'notes'],
    ),
    node: closed(
      { name: str, status: oneOf('present', 'absent', 'unknown', 'none'), cordoned: { type: 'boolean' }, detail: str },
      ['status', 'detail'],
    ),
    hooks: { type: 'array', items: hook },
    quorum: closed(
      {
        name: str,
        hooks: strings,
        stage: oneOf('preDrain', 'preTerminate'),
        namespace: str,
        cluster: str,
        protected: { type: 'boolean' },
        state: oneOf('at-risk', 'clear', 'unknown'),
        unprotectedDeleting: strings,
        detail: str,
        fix: str,
      },
      ['name', 'hooks', 'stage', 'namespace', 'cluster', 'protected', 'state', 'unprotectedDeleting', 'detail'],
    ),
    summary: str,
    notes: strings,
  },
  ['apiVersion', 'kind', 'source', 'machine', 'deletion', 'node', 'hooks', 'summary', 'notes'],
);
