// Static admission manifests as bytes on disk: the text `render --static` writes, and the hash an API server reports
// for a directory of them. Apart from src/compilers/native, which compiles values and reads no file format.
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import type { StaticFile } from '../native/static.js';

/**
 * The hash an API server reports for a plugin's directory (apiserver_manifest_admission_config_controller_last_config_info):
 * SHA-256 over each non-empty .yaml/.yml/.json file, in file-name order, each followed by a zero byte.
 */
export function manifestDirHash(
  files: ReadonlyArray<{ name: string; content: Uint8Array | string }>,
): string | undefined {
  const loaded = files
    .filter((f) => /\.(ya?ml|json)$/i.test(f.name) && f.content.length > 0)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (loaded.length === 0) return undefined;
  const hash = createHash('sha256');
  for (const f of loaded) hash.update(f.content).update(new Uint8Array([0]));
  return `sha256:${hash.digest('hex')}`;
}

/** A static file's bytes, as `render --static` writes them: YAML documents with no folded lines (CEL stays one line). */
export function staticFileText(file: StaticFile): string {
  const text = file.documents.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
