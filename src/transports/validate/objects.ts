// Documents -> the objects `validate` reviews: plain manifests, the items of a List, and AdmissionReviews,
// each with where it came from (file, document, item, line) so every finding can point at its source.
import { parseApiVersion } from '../../core/api-version.js';
import { parseAdmissionReview } from '../../admission/parse.js';
import type { YamlDocument } from '../../infrastructure/config/yaml.js';
import { isRecord, metadata } from '../../core/guards.js';
import type { GroupVersionKind, KubeObject, ReviewInput } from '../../core/types.js';
import type { Problem } from '../../errors.js';

export type Keys = readonly (string | number)[];

export interface Origin {
  file: string;
  /** 1-based position of the YAML document among the file's non-empty documents. */
  document: number;
  /** Position in the List's items, from 0, when the object came from a List (the outer List's, for nested Lists). */
  item?: number;
  /** 1-based line of the document (of the item, once it has findings). */
  line: number;
}

interface Located {
  origin: Origin;
  doc: YamlDocument;
  /** Keys from the document root to the object (["items", 3], ["request", "object"], or none). */
  pointer: Keys;
}

export interface Manifest extends Located {
  type: 'manifest';
  object: KubeObject;
  gvk: GroupVersionKind;
  namespace?: string;
  name?: string;
}

/** An AdmissionReview document: its request is reviewed as the webhook would, operation and user included. */
export interface Review extends Located {
  type: 'review';
  uid: string;
  input: ReviewInput;
}

export type Subject = Manifest | Review;

/** How the new and the old manifests are matched: API group (not version), kind, namespace and name. */
export function objectKey(gvk: GroupVersionKind, namespace: string | undefined, name: string | undefined): string {
  return JSON.stringify([gvk.group, gvk.kind, namespace ?? '', name ?? '']);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * kustomize's own configuration (a Kustomization, a Component, a builtin generator's or transformer's config): read
 * by `kubectl apply -k` and `kustomize build`, never sent to the API server.
 */
export function isKustomizeConfig(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const apiVersion = value['apiVersion'];
  return (
    typeof apiVersion === 'string' && (apiVersion.startsWith('kustomize.config.k8s.io/') || apiVersion === 'builtin')
  );
}

/**
 * A document that is no attempt at a Kubernetes object: not a mapping, or a mapping with none of apiVersion, kind and
 * metadata (package.json, renovate.json, a values file, a kustomization.yaml without apiVersion), or kustomize's own
 * configuration. One with any of the three is a manifest, broken or not.
 */
export function isOtherToolsDocument(value: unknown): boolean {
  if (!isRecord(value)) return true;
  if (isKustomizeConfig(value)) return true;
  return !('apiVersion' in value) && !('kind' in value) && !('metadata' in value);
}

/** Turns one file's documents into subjects; what is not a Kubernetes object becomes a Problem (exit 2). */
export function subjectsOf(file: string, docs: readonly YamlDocument[], problems: Problem[]): Subject[] {
  const out: Subject[] = [];
  for (const doc of docs) {
    // An item's own line is looked up only for items with something to report (see run.ts): finding lines in
    // a large List would otherwise cost a full positional parse of it.
    const origin = (item?: number): Origin => ({
      file,
      document: doc.index + 1,
      ...(item === undefined ? {} : { item }),
      line: doc.line,
    });
    const value = doc.value;
    if (!isRecord(value)) {
      problems.push({
        file,
        line: doc.line,
        message: `document ${doc.index + 1} is not a Kubernetes object (got ${Array.isArray(value) ? 'a list' : typeof value})`,
      });
      continue;
    }
    // Never an object of the cluster's, wherever it is found (kubectl apply -k reads it; kustomize build drops it).
    if (isKustomizeConfig(value)) continue;
    const kind = str(value['kind']);
    if (value['apiVersion'] === 'admission.k8s.io/v1' && kind === 'AdmissionReview') {
      const parsed = parseAdmissionReview(value);
      if (!parsed.ok)
        problems.push({ file, line: doc.line, message: `${parsed.error}: ${parsed.problems.join('; ')}` });
      else
        out.push({
          type: 'review',
          origin: origin(),
          doc,
          pointer: ['request', 'object'],
          uid: parsed.review.uid,
          input: parsed.review.input,
        });
      continue;
    }
    const items = listItems(value);
    if (items) {
      items.forEach((item, i) => flatten(item, ['items', i], i));
      continue;
    }
    const m = manifest(value, file, origin(), doc, [], problems);
    if (m) out.push(m);

    /** A List's item, or the items of a List inside it, as kubectl flattens them (each reported under the outer item). */
    function flatten(item: unknown, pointer: Keys, top: number): void {
      const nested = listItems(item);
      if (nested) {
        nested.forEach((inner, i) => flatten(inner, [...pointer, 'items', i], top));
        return;
      }
      const m = manifest(item, file, origin(top), doc, pointer, problems);
      if (m) out.push(m);
    }
  }
  return out;
}

/**
 * The items of a list object (kind ending in List, with an items array), with apiVersion and kind filled in from
 * a typed list (MachineList may leave them off its items; `kind: List` items carry their own); else undefined.
 */
function listItems(value: unknown): unknown[] | undefined {
  if (!isRecord(value)) return undefined;
  const kind = str(value['kind']);
  const items = value['items'];
  if (kind === undefined || !kind.endsWith('List') || !Array.isArray(items)) return undefined;
  if (kind === 'List') return items as unknown[];
  const defaults = { apiVersion: value['apiVersion'], kind: kind.slice(0, -'List'.length) };
  return (items as unknown[]).map((item) => (isRecord(item) ? { ...defaults, ...item } : item));
}

function manifest(
  value: unknown,
  file: string,
  origin: Origin,
  doc: YamlDocument,
  pointer: Keys,
  problems: Problem[],
): Manifest | undefined {
  const where =
    origin.item === undefined ? `document ${origin.document}` : `document ${origin.document}, item ${origin.item}`;
  if (!isRecord(value)) {
    problems.push({ file, line: origin.line, message: `${where} is not a Kubernetes object` });
    return undefined;
  }
  const apiVersion = str(value['apiVersion']);
  const kind = str(value['kind']);
  if (!apiVersion || !kind) {
    const missing = [apiVersion ? '' : 'apiVersion', kind ? '' : 'kind'].filter(Boolean).join(' and ');
    problems.push({ file, line: origin.line, message: `${where} is not a Kubernetes object: ${missing} missing` });
    return undefined;
  }
  const { group, version } = parseApiVersion(apiVersion);
  const meta = metadata(value);
  const namespace = str(meta['namespace']);
  const name = str(meta['name']);
  return {
    type: 'manifest',
    origin,
    doc,
    pointer,
    object: value,
    gvk: { group, version, kind },
    ...(namespace === undefined ? {} : { namespace }),
    ...(name === undefined ? {} : { name }),
  };
}
