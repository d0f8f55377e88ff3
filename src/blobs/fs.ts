import type { Dirent } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { BlobStore } from './store.js';

/** Objects as files under one directory; each write is fsync'd and renamed into place, so a reader never sees half a file. */
export class FsBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(resolve(this.root) + '/')) throw new Error(`Blob key escapes the store: ${key}`);
    return path;
  }

  async put(key: string, body: Buffer | string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    const file = await open(partial, 'w');
    try {
      await file.writeFile(body);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(partial, path);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async deleteOrganizationObjects(orgId: string): Promise<number> {
    let deleted = 0;
    for (const { folder, files } of await this.organizationFolders(orgId)) {
      deleted += files.length;
      await rm(folder, { recursive: true, force: true });
    }
    return deleted;
  }

  async listOrganizationObjects(orgId: string): Promise<string[]> {
    const root = resolve(this.root);
    const keys = (await this.organizationFolders(orgId)).flatMap(({ files }) => files.map((f) => relative(root, join(f.parentPath, f.name)).split(sep).join('/')));
    return keys.sort();
  }

  /**
   * The organization's folder under each kind of object (`<kind>/<orgId>`) that exists, with the objects in it.
   * A `.partial` is a write under way (put renames it into place once durable): not an object yet.
   */
  private async organizationFolders(orgId: string): Promise<{ folder: string; files: Dirent[] }[]> {
    if (!/^[A-Za-z0-9_-]+$/.test(orgId)) throw new Error(`Not an organization id: ${orgId}`);
    const kinds = await readdir(this.root, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const found: { folder: string; files: Dirent[] }[] = [];
    for (const kind of kinds.filter((entry) => entry.isDirectory())) {
      const folder = this.pathOf(`${kind.name}/${orgId}`);
      const files = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => null);
      if (files) found.push({ folder, files: files.filter((f) => f.isFile() && !f.name.endsWith('.partial')) });
    }
    return found;
  }

  async close(): Promise<void> {}
}

export const blobDir = (dataDir: string) => join(dataDir, 'blobs');
