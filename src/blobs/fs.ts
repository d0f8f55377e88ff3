import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
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

  async close(): Promise<void> {}
}

export const blobDir = (dataDir: string) => join(dataDir, 'blobs');
