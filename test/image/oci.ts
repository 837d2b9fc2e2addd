// Reads an OCI image archive (what `buildah push oci-archive:` writes) the way a container runtime does: index ->
// manifest -> config and layers, and unpacks the layers in order into a root filesystem, whiteouts applied.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}
interface Manifest {
  config: Descriptor;
  layers: Descriptor[];
}

/** The parts of an OCI image configuration a runtime starts a container from. */
export interface ImageConfig {
  User?: string;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  Env?: string[];
  WorkingDir?: string;
  ExposedPorts?: Record<string, object>;
}

export interface Image {
  config: ImageConfig;
  /** Compressed size of every layer, as a registry stores and a node pulls them. */
  layerBytes: number;
  rootfs: string;
}

function blob(layout: string, digest: string): string {
  const [algorithm, hex] = digest.split(':');
  if (!algorithm || !hex || !/^[a-f0-9]+$/.test(hex)) throw new Error(`bad digest ${digest}`);
  return join(layout, 'blobs', algorithm, hex);
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Whiteout entries of one layer tarball, to delete lower content before the layer is unpacked over it. */
function whiteoutsOf(layerFile: string): string[] {
  const names = execFileSync('tar', ['-tzf', layerFile], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).split(
    '\n',
  );
  return names.filter((n) => basename(n).startsWith('.wh.'));
}

/** Unpack `archive` into `dir` (dir/layout, dir/rootfs); `dir` must be empty or absent. Needs root to keep owners. */
export function unpackImage(archive: string, dir: string): Image {
  const layout = join(dir, 'layout');
  const rootfs = join(dir, 'rootfs');
  mkdirSync(layout, { recursive: true });
  mkdirSync(rootfs, { recursive: true });
  execFileSync('tar', ['-xf', archive, '-C', layout]);
  const index = readJson<{ manifests: Descriptor[] }>(join(layout, 'index.json'));
  if (index.manifests.length !== 1 || !index.manifests[0])
    throw new Error(`${archive}: expected one image, found ${index.manifests.length}`);
  const manifest = readJson<Manifest>(blob(layout, index.manifests[0].digest));
  const config = readJson<{ config?: ImageConfig }>(blob(layout, manifest.config.digest)).config ?? {};
  let layerBytes = 0;
  for (const layer of manifest.layers) {
    if (!/tar\+gzip$/.test(layer.mediaType))
      throw new Error(`layer ${layer.digest}: media type ${layer.mediaType} not handled`);
    const file = blob(layout, layer.digest);
    layerBytes += statSync(file).size;
    // Opaque directories and deletions refer to lower layers: clear those first, then unpack this layer.
    const whiteouts = whiteoutsOf(file);
    for (const wh of whiteouts) {
      const target = join(rootfs, dirname(wh), basename(wh) === '.wh..wh..opq' ? '' : basename(wh).slice(4));
      if (relative(rootfs, target).startsWith('..'))
        throw new Error(`layer ${layer.digest}: whiteout ${wh} escapes the root`);
      if (basename(wh) === '.wh..wh..opq') {
        if (existsSync(target))
          for (const e of readdirSync(target)) rmSync(join(target, e), { recursive: true, force: true });
      } else {
        rmSync(target, { recursive: true, force: true });
      }
    }
    execFileSync('tar', ['-xzf', file, '-C', rootfs, '--same-owner', '--same-permissions', '--numeric-owner']);
    for (const wh of whiteouts) rmSync(join(rootfs, wh), { force: true });
  }
  return { config, layerBytes, rootfs };
}
