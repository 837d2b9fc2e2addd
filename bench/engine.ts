// Figure 1: what the policy costs per review, in process, against JSON.parse of the same AdmissionReview text, and
// against the same policy's rendered admission policies evaluated in process (CEL as the single source, issue 36).
import { handle, type Webhook } from '../src/admission/handle.js';
import { parseAdmissionReview } from '../src/admission/parse.js';
import { DEFAULT_POLICY } from '../src/infrastructure/config/defaults.js';
import { carrierFor } from '../src/core/carriers.js';
import { cloneJson, copyForWrites, diff } from '../src/core/patch.js';
import type { KubeObject } from '../src/core/types.js';
import { renderNativePolicies } from '../src/compilers/native/render.js';
import {
  createMasterReview,
  createWorkerReview,
  removeEtcdHookReview,
  squatEtcdHookReview,
  statusUpdateReview,
  WORKER_TEMPLATE_HOOK,
} from '../test/fixtures/hardening-machine.js';
import { admit, compilePolicies, type CompiledPolicies } from '../test/native/evaluator/admission.js';
import { microsecondsPerCall, round } from './measure.js';

export interface EngineRow {
  name: string;
  webhook: Webhook;
  bytes: number;
  decision: string;
  jsonParseUs: number;
  envelopeUs: number;
  engineUs: number;
  /** engine / JSON.parse: the target is below 1. */
  ratio: number;
  /**
   * The policy's rendered admission policies (mutating, then validating) evaluated in process by the CEL library
   * the tests use, with the same verdict: what the webhook would pay with CEL as the one source of each rule.
   */
  celUs: number;
  /** For mutate: the copy of what rules may change and the diff that mutation-by-diff costs, inside engineUs. */
  cloneUs?: number;
  diffUs?: number;
  /** engineUs less the copy and the diff: the mutating rules and the validation of the mutated object. */
  rulesUs?: number;
  /** A deep copy of the whole object (cloneJson), and structuredClone, for comparison: what the engine used before. */
  fullCopyUs?: number;
  structuredCloneUs?: number;
}

const CASES: ReadonlyArray<{ name: string; webhook: Webhook; review: () => Record<string, unknown> }> = [
  {
    name: 'Machine CREATE, worker from a hooked MachineSet (figure 2 /validate)',
    webhook: 'validate',
    review: () => createWorkerReview(undefined, [WORKER_TEMPLATE_HOOK]),
  },
  { name: 'Machine UPDATE, status refresh by the machine controller', webhook: 'validate', review: statusUpdateReview },
  { name: 'Machine UPDATE, ordinary user removes the etcd hook', webhook: 'validate', review: removeEtcdHookReview },
  {
    name: "Machine UPDATE, ordinary user adds a hook under the etcd operator's name",
    webhook: 'validate',
    review: squatEtcdHookReview,
  },
  { name: 'Machine CREATE, control-plane Machine gets the etcd hook', webhook: 'mutate', review: createMasterReview },
];

/** The webhook's verdict and the native policies' must agree, or the CEL column would time another answer. */
function celVerdict(policies: CompiledPolicies, input: Parameters<typeof admit>[1]): string {
  const verdict = admit(policies, input, { authorize: () => false });
  if (!verdict.allowed) return 'denied';
  return verdict.object !== input.object ? 'patched' : 'allowed';
}

export function engineFigure(): EngineRow[] {
  const { objects } = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: 'v1.37.2' });
  const policies = compilePolicies(objects);
  return CASES.map(({ name, webhook, review }) => {
    const text = JSON.stringify(review());
    const body: unknown = JSON.parse(text);
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) throw new Error(`${name}: fixture is not a valid AdmissionReview: ${parsed.problems.join('; ')}`);
    const input = parsed.review.input;
    const outcome = handle(webhook, DEFAULT_POLICY, input);
    const decision = !outcome.result.allowed ? 'denied' : outcome.result.patch ? 'patched' : 'allowed';
    const fns: Record<string, () => unknown> = {
      parse: (): unknown => JSON.parse(text),
      envelope: () => parseAdmissionReview(body),
      engine: () => handle(webhook, DEFAULT_POLICY, input),
      cel: () => admit(policies, input, { authorize: () => false }),
    };
    const native = celVerdict(policies, input);
    if (native !== decision) throw new Error(`${name}: the webhook says ${decision}, the native policies ${native}`);
    const object = input.object as KubeObject;
    const mutated = outcome.mutation.mutated;
    if (webhook === 'mutate' && mutated) {
      const writes = [carrierFor(input.kind)?.root ?? []];
      fns['clone'] = () => copyForWrites(object, writes);
      fns['fullCopy'] = () => cloneJson(object);
      fns['structuredClone'] = () => structuredClone(object);
      fns['diff'] = () => diff(object, mutated);
    }
    const us = microsecondsPerCall(fns);
    const row: EngineRow = {
      name,
      webhook,
      bytes: Buffer.byteLength(text),
      decision,
      jsonParseUs: round(us['parse'] as number, 2),
      envelopeUs: round(us['envelope'] as number, 2),
      engineUs: round(us['engine'] as number, 2),
      ratio: round((us['engine'] as number) / (us['parse'] as number), 2),
      celUs: round(us['cel'] as number, 2),
    };
    if (us['clone'] !== undefined) row.cloneUs = round(us['clone'], 2);
    if (us['diff'] !== undefined) row.diffUs = round(us['diff'], 2);
    if (us['fullCopy'] !== undefined) row.fullCopyUs = round(us['fullCopy'], 2);
    if (us['structuredClone'] !== undefined) row.structuredCloneUs = round(us['structuredClone'], 2);
    if (us['clone'] !== undefined && us['diff'] !== undefined)
      row.rulesUs = round(Math.max(0, (us['engine'] as number) - us['clone'] - us['diff']), 2);
    return row;
  });
}
