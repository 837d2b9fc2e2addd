// The webhooks' derived conditions (src/core/cel/webhook-conditions.ts) change no verdict and no patch: for every review
// of the end-to-end differential corpus (what the rule unit tests built, kept as data), variants of them that
// touch one field, and fuzzed edits, under several policies, a request the validating condition skips gets from the
// webhook what writing the stored object back unchanged gets (allowed, no patch, no warning beyond those about what
// was stored), and a request the mutating webhook is not sent gets no patch. The conditions run in process (CEL).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import { handle } from '../../src/admission/handle.js';
import { parseAdmissionReview } from '../../src/admission/parse.js';
import type { AdmissionResult } from '../../src/admission/response.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import {
  mutatingObjectSelector,
  mutatingWebhookCondition,
  validatingCreateCondition,
  validatingUpdateCondition,
} from '../../src/core/cel/webhook-conditions.js';
import { reviewName } from '../../src/core/migration.js';
import type { Policy } from '../../src/core/policy.js';
import { matchesLabels } from '../../src/core/selector.js';
import type { KubeObject, ReviewInput, TwinFact } from '../../src/core/types.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { capiPolicy, PRE_DRAIN } from '../fixtures/capi.js';
import { readCorpus } from '../fixtures/review-corpus.js';
import { admissionReview, ETCD, type ReviewOptions } from '../fixtures/openshift.js';
import { celCondition, type MatchVariables } from '../helpers/cel.js';
import { allPaths, withValueAt, type Json } from '../helpers/hardening-json.js';

const root = packageRoot();
const MACHINES = [
  { group: 'machine.openshift.io', kind: 'Machine' },
  { group: 'cluster.x-k8s.io', kind: 'Machine' },
];

const fixturePolicy = (name: string): Policy => {
  const file = join(root, 'test', 'fixtures', name);
  return parsePolicy(readFileSync(file, 'utf8'), file);
};
const withDefault = (body: string): Policy =>
  parsePolicy(`apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n${body}`, 'inline.yaml');

const POLICIES: ReadonlyArray<readonly [string, Policy]> = [
  ['default', DEFAULT_POLICY],
  ['capi', capiPolicy()],
  ['strictOwners', withDefault('strictOwners: true\nunverifiedRemoval: deny')],
  ['missing-default-hook: deny', withDefault('enforcement:\n  missing-default-hook: deny')],
  ['default-hooks: off', withDefault('enforcement:\n  default-hooks: off\n  hook-naming: warn')],
  ['children: virtualmachine', fixturePolicy('children-virtualmachine-policy.yaml')],
  ['children: database', fixturePolicy('children-database-policy.yaml')],
];

interface Case {
  source: string;
  review: ReviewOptions;
}

interface Checked {
  input: ReviewInput;
  vars: MatchVariables;
}

function build(review: ReviewOptions): Checked | undefined {
  const body = admissionReview(review);
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return undefined;
  const request = body['request'] as Record<string, unknown>;
  return {
    input: parsed.review.input,
    vars: { request, object: request['object'] ?? null, oldObject: request['oldObject'] ?? null },
  };
}

/** What the webhook answers, without what differs by request alone (nothing does: uid is added later). */
const validate = (policy: Policy, input: ReviewInput): AdmissionResult => handle('validate', policy, input).result;

/** Whether every warning and audit annotation of `a` is also one of `b`'s. */
function within(a: AdmissionResult, b: AdmissionResult): boolean {
  const warnings = new Set(b.warnings);
  return (
    a.warnings.every((w) => warnings.has(w)) &&
    Object.entries(a.auditAnnotations).every(([k, v]) => b.auditAnnotations[k] === v)
  );
}

/** Twins a CREATE of a Machine could be judged against: the other API's copy carrying the etcd hook, or none read. */
function adverseTwins(input: ReviewInput): TwinFact[] {
  if (input.kind.kind !== 'Machine') return [];
  const name = reviewName(input) ?? '';
  const twin: KubeObject =
    input.kind.group === 'machine.openshift.io'
      ? {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Machine',
          metadata: { name, annotations: { [`${PRE_DRAIN}/${ETCD.name}`]: ETCD.owner } },
        }
      : {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          metadata: { name },
          spec: { lifecycleHooks: { preDrain: [ETCD] } },
        };
  return [
    { found: true, object: twin },
    { found: false, reason: 'Timeout', message: 'no answer' },
  ];
}

class Proof {
  readonly validating: (vars: MatchVariables) => boolean;
  readonly validatingCreate: (vars: MatchVariables) => boolean;
  readonly mutating: (vars: MatchVariables) => boolean;
  readonly selector;
  skippedUpdates = 0;
  skippedCreates = 0;
  unsentCreates = 0;
  constructor(
    readonly name: string,
    readonly policy: Policy,
  ) {
    this.validating = celCondition('validating', validatingUpdateCondition(policy).expression);
    // The CREATE webhook (machine-creates) carries its own condition; the UPDATE webhook never sees a CREATE.
    this.validatingCreate = celCondition('validating CREATE', validatingCreateCondition(policy).expression);
    this.mutating = celCondition('mutating', mutatingWebhookCondition(policy).expression);
    this.selector = mutatingObjectSelector(policy, MACHINES);
  }

  /** Checks one request; returns a failure message, or undefined. */
  check(c: Case): string | undefined {
    const built = build(c.review);
    if (!built) return undefined;
    const { input, vars } = built;
    const where = `${this.name}: ${c.source} (${input.operation} ${input.kind.group}/${input.kind.kind})`;
    let sent: boolean;
    try {
      sent = input.operation === 'CREATE' ? this.validatingCreate(vars) : this.validating(vars);
    } catch (e) {
      // An error fails the request under failurePolicy Fail: that would change a verdict.
      return `${where}: the validating condition failed: ${(e as Error).message}`;
    }
    if (input.operation === 'CREATE' && !sent) {
      this.skippedCreates++;
      // Whatever twin the transport might find (one carrying a protected hook, or none readable), a skipped CREATE is
      // not judged against it (src/core/migration.ts createJudgedAgainstTwin).
      for (const twin of [undefined, ...adverseTwins(input)]) {
        const got = validate(this.policy, twin ? { ...input, context: { ...input.context, twin } } : input);
        if (!got.allowed) return `${where}: skipped, but the webhook denies it: ${got.status?.message ?? ''}`;
        if ((got.patch?.length ?? 0) > 0 || got.warnings.length > 0 || Object.keys(got.auditAnnotations).length > 0)
          return `${where}: skipped, but the webhook says something of it: ${JSON.stringify(got)}`;
      }
    } else if (input.operation !== 'UPDATE' && !sent) return `${where}: a ${input.operation} was skipped`;
    else if (!sent) {
      this.skippedUpdates++;
      const got = validate(this.policy, input);
      const stored = validate(this.policy, { ...input, object: input.oldObject });
      if (!got.allowed) return `${where}: skipped, but the webhook denies it: ${got.status?.message ?? ''}`;
      if (got.patch && got.patch.length > 0) return `${where}: skipped, but the webhook patches it`;
      if (!within(got, stored))
        return `${where}: skipped, but the webhook warns beyond what was stored: ${JSON.stringify(got.warnings)} vs ${JSON.stringify(stored.warnings)}`;
    }
    if (input.operation === 'CREATE' || input.operation === 'UPDATE') {
      let mutateSent: boolean;
      try {
        const isMachine = MACHINES.some((k) => k.group === input.kind.group && k.kind === input.kind.kind);
        // The API server sends when object or oldObject matches the objectSelector.
        const labelsOf = (o: unknown): unknown =>
          ((o as KubeObject | null)?.['metadata'] as Record<string, unknown> | undefined)?.['labels'];
        const selected =
          !isMachine ||
          this.selector === undefined ||
          matchesLabels(this.selector, labelsOf(vars.object)) ||
          (vars.oldObject !== null && matchesLabels(this.selector, labelsOf(vars.oldObject)));
        mutateSent = selected && this.mutating(vars);
      } catch (e) {
        return `${where}: the mutating condition failed: ${(e as Error).message}`;
      }
      if (!mutateSent) {
        if (input.operation === 'CREATE') this.unsentCreates++;
        const patch = handle('mutate', this.policy, input).result.patch ?? [];
        if (patch.length > 0) return `${where}: not sent to /mutate, but it would be patched: ${JSON.stringify(patch)}`;
      }
    }
    return undefined;
  }
}

const metaOf = (o: KubeObject): Record<string, unknown> => (o['metadata'] ?? {}) as Record<string, unknown>;

function edited(o: KubeObject, edit: (meta: Record<string, unknown>, obj: KubeObject) => void): KubeObject {
  const copy = structuredClone(o);
  copy['metadata'] = { ...metaOf(copy) };
  edit(copy['metadata'] as Record<string, unknown>, copy);
  return copy;
}

/** Requests one field away from a recorded one: the common writes, and writes of each part a rule reads. */
function variants(c: Case): Case[] {
  const { review } = c;
  const out: Case[] = [c];
  const add = (what: string, r: ReviewOptions): void => void out.push({ source: `${c.source} ${what}`, review: r });
  const base = review.operation === 'UPDATE' ? review.oldObject : review.operation === 'CREATE' ? review.object : null;
  if (!base) return out;
  const update = (what: string, edit: (meta: Record<string, unknown>, obj: KubeObject) => void): void =>
    add(what, { ...review, operation: 'UPDATE', oldObject: base, object: edited(base, edit) });
  const label = (key: string, value: string | undefined) => (meta: Record<string, unknown>) => {
    const labels = { ...((meta['labels'] ?? {}) as Record<string, string>) };
    if (value === undefined) delete labels[key];
    else labels[key] = value;
    meta['labels'] = labels;
  };
  update('+ a label', label('example.com/touched', 'yes'));
  update('+ an annotation', (meta) => {
    meta['annotations'] = { ...((meta['annotations'] ?? {}) as Record<string, string>), 'example.com/note': 'x' };
  });
  update('+ providerID', (_m, obj) => {
    obj['spec'] = { ...((obj['spec'] ?? {}) as Record<string, unknown>), providerID: 'aws:///us-east-1b/i-0' };
  });
  update('as a worker', label('machine.openshift.io/cluster-api-machine-role', 'worker'));
  update('as a master', label('machine.openshift.io/cluster-api-machine-role', 'master'));
  update('+ control-plane label', label('cluster.x-k8s.io/control-plane', ''));
  update('- control-plane label', label('cluster.x-k8s.io/control-plane', undefined));
  update('- finalizers', (meta) => void delete meta['finalizers']);
  update('+ a finalizer', (meta) => {
    meta['finalizers'] = [...((meta['finalizers'] ?? []) as string[]), 'example.com/f'];
  });
  update('+ ownerReferences', (meta) => {
    meta['ownerReferences'] = [
      { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
      { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
    ];
  });
  update('marked deleting', (meta) => void (meta['deletionTimestamp'] = '2026-11-21T00:00:00Z'));
  if (review.operation === 'UPDATE' && review.object)
    add('+ a label on the new object', { ...review, object: edited(review.object, label('example.com/touched', 'y')) });
  if (review.operation === 'CREATE') {
    const worker = edited(base, label('machine.openshift.io/cluster-api-machine-role', 'worker'));
    add('created as a worker', { ...review, object: worker });
    add('created without a control-plane label', {
      ...review,
      object: edited(base, label('cluster.x-k8s.io/control-plane', undefined)),
    });
  }
  return out;
}

let corpus: Case[] = [];

const METADATA_KEYS = ['labels', 'annotations'] as const;
const LABEL_KEYS = [
  'machine.openshift.io/cluster-api-machine-role',
  'cluster.x-k8s.io/control-plane',
  'example.com/other',
  'pre-drain.delete.hook.machine.cluster.x-k8s.io/fuzzed',
  'pre-terminate.delete.hook.machine.cluster.x-k8s.io',
] as const;

describe('the derived webhook conditions change no verdict and no patch', () => {
  before(() => {
    const recorded = readCorpus(root);
    corpus = recorded.flatMap((r) => variants({ source: r.source, review: r }));
  });

  for (const [name, policy] of POLICIES) {
    test(`policy ${name}: every recorded request and its one-field variants`, () => {
      assert.ok(corpus.length > 1000, `only ${corpus.length} requests recorded`);
      const proof = new Proof(name, policy);
      const failures = corpus.flatMap((c) => proof.check(c) ?? []);
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failures`);
      // Not vacuous: the common writes are skipped, and some CREATE is not sent to /mutate.
      assert.ok(proof.skippedUpdates > 100, `only ${proof.skippedUpdates} updates skipped`);
      assert.ok(proof.skippedCreates > 10, `only ${proof.skippedCreates} creates skipped`);
      assert.ok(proof.unsentCreates > 10, `only ${proof.unsentCreates} creates not sent to /mutate`);
    });
  }

  test('fuzzed edits of recorded objects, under every policy', () => {
    const updates = corpus.filter((c) => c.review.operation === 'UPDATE' && c.review.oldObject);
    assert.ok(updates.length > 100);
    const proofs = POLICIES.map(([name, policy]) => new Proof(name, policy));
    const value: fc.Arbitrary<Json> = fc.oneof(
      fc.constant(null),
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.constant<Json>({}),
      fc.constant<Json>([]),
      fc.constant({ name: 'EtcdQuorumOperator', owner: 'clusteroperator/etcd' }),
    );
    const run = fc.check(
      fc.property(
        fc.constantFrom(...updates),
        fc.array(fc.tuple(fc.nat(), fc.option(value, { nil: undefined })), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.array(
          fc.tuple(
            fc.constantFrom(...METADATA_KEYS),
            fc.constantFrom(...LABEL_KEYS),
            fc.option(fc.constantFrom('', 'master', 'worker', 'x'), { nil: undefined }),
          ),
          { maxLength: 3 },
        ),
        (c, edits, fromOld, metaEdits) => {
          const start = (fromOld ? c.review.oldObject : c.review.object) as KubeObject;
          let object: unknown = start;
          // Anything below spec and status; metadata only as ObjectMeta can hold it (the API server decodes it typed).
          for (const [at, v] of edits) {
            const paths = allPaths(object).filter((p) => p.length > 0 && (p[0] === 'spec' || p[0] === 'status'));
            const path = paths[at % Math.max(paths.length, 1)];
            if (path) object = withValueAt(object, path, v);
          }
          for (const [field, key, v] of metaEdits) object = withValueAt(object, ['metadata', field, key], v);
          const review = { ...c.review, object: object as KubeObject };
          for (const proof of proofs) {
            const failure = proof.check({ source: `${c.source} fuzzed`, review });
            if (failure !== undefined) throw new Error(failure);
          }
        },
      ),
      { numRuns: 400 },
    );
    // The failure's own words (fast-check's report gives only the counterexample).
    const cause = run.errorInstance instanceof Error ? run.errorInstance.message : undefined;
    assert.equal(run.failed, false, `${cause ?? ''}\n${fc.defaultReportMessage(run) ?? ''}`.slice(0, 4000));
  });
});
