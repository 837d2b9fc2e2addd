// An object's apiVersion read as the API server reads it: "<group>/<version>", or a bare version for the core group.
import type { GroupVersionKind, KubeObject } from './types.js';

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash === -1
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The object's group, version and kind; undefined when apiVersion or kind is missing, empty or not a string. */
export function gvkOf(object: KubeObject): GroupVersionKind | undefined {
  const apiVersion = object['apiVersion'];
  const kind = object['kind'];
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || apiVersion === '' || kind === '') return undefined;
  return { ...parseApiVersion(apiVersion), kind };
}
