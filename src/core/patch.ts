// Mutation by diff: rules change a structuredClone, and the JSON Patch is whatever differs from the original.
import jsonpatch from 'fast-json-patch';
import type { KubeObject, PatchOperation } from './types.js';

export function diff(original: KubeObject, mutated: KubeObject): PatchOperation[] {
  return jsonpatch.compare(original, mutated) as PatchOperation[];
}

/** RFC 6901 escaping of one reference token ("~" -> "~0", "/" -> "~1"), e.g. for annotation keys. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
