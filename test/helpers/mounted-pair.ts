// A certificate pair mounted as the kubelet mounts a Secret, so tests rotate it the way a cluster does.
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CertKeyPem } from '../../src/infrastructure/certs/pki.js';

/**
 * The kubelet's Secret volume: each version in a directory of its own, "..data" a symlink to the current one, and
 * the files symlinks through "..data". Renaming a new "..data" over the old swaps certificate and key in one step.
 */
export class MountedPair {
  private version = 0;

  constructor(
    private readonly certFile: string,
    private readonly keyFile: string,
  ) {}

  private get dir(): string {
    return dirname(this.certFile);
  }

  /** Turns the plain files hookkeeper was started with into the kubelet layout, content unchanged (no reload). */
  async adopt(): Promise<void> {
    await this.publish({
      certPem: await readFile(this.certFile, 'utf8'),
      keyPem: await readFile(this.keyFile, 'utf8'),
    });
    for (const file of [this.certFile, this.keyFile]) {
      await symlink(join('..data', basename(file)), `${file}.link`);
      await rename(`${file}.link`, file);
    }
  }

  async publish(pair: CertKeyPem): Promise<void> {
    const version = `..v${++this.version}`;
    await mkdir(join(this.dir, version));
    await writeFile(join(this.dir, version, basename(this.certFile)), pair.certPem);
    await writeFile(join(this.dir, version, basename(this.keyFile)), pair.keyPem, { mode: 0o600 });
    await symlink(version, join(this.dir, '..data_tmp'));
    await rename(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
  }
}
