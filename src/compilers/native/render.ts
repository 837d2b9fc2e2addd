// renderNativePolicies: the same Policy the webhook enforces, compiled to ValidatingAdmissionPolicies,
// MutatingAdmissionPolicies and their bindings (in apply order), with a note for every divergence. Pure: no I/O.
// No params objects: the policy's data (registry, reserved hooks, break-glass) is compiled into the expressions as
// CEL literals, so there is no ConfigMap to keep in step, no paramRef to miss, and nothing for RBAC to read.
import type { Policy } from '../../core/policy.js';
import type { KubeObject } from '../../core/types.js';
import { mutatingObjects } from './mutating.js';
import { divergences, noteText, type Divergence } from './notes.js';
import { validatingObjects } from './validating.js';
import { apiVersionsFor } from './version.js';

export interface NativeRender {
  objects: KubeObject[];
  /** One sentence per divergence (and the API versions' gate, where one is needed): render's stderr. */
  notes: string[];
  /** The divergences as values: which rule, and on which requests the verdict may differ (the e2e corpus checks). */
  divergences: Divergence[];
}

export function renderNativePolicies(policy: Policy, options: { k8sVersion: string }): NativeRender {
  const versions = apiVersionsFor(options.k8sVersion);
  const validating = validatingObjects(policy, versions);
  const mutating = mutatingObjects(policy, versions);
  const found = divergences(policy);
  const notes = found.map(noteText);
  if (versions.note && mutating.policies.length > 0) notes.unshift(versions.note);
  return {
    objects: [...validating.policies, ...mutating.policies, ...validating.bindings, ...mutating.bindings],
    notes,
    divergences: found,
  };
}
