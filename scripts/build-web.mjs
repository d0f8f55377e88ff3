#!/usr/bin/env node
// Builds the web console (web/) into web/dist with Vite, unless the sources it is built from are unchanged since
// the last build (a content hash kept in web/dist/.source-hash): `npm ci` builds it once through `prepare`, and
// `npm start` (prestart) costs a few milliseconds when nothing changed. `--force` builds regardless.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'web', 'dist');
const stampFile = join(dist, '.source-hash');

/** Everything the bundle is made of: the console, the typed client, the role table, the build config and the lockfile. */
const SOURCES = ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/public', 'clients/typescript/src', 'src/auth/permissions.ts', 'package-lock.json'];

function files(path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { withFileTypes: true })
    .filter((entry) => !entry.name.endsWith('.js') || !path.startsWith('clients'))
    .flatMap((entry) => files(join(path, entry.name)));
}

export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(files).sort()) {
    hash.update(relative(root, join(root, file))).update('\0').update(readFileSync(join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

export async function buildWeb({ force = false, quiet = false } = {}) {
  const hash = sourceHash();
  if (!force && existsSync(stampFile) && existsSync(join(dist, 'index.html')) && readFileSync(stampFile, 'utf8') === hash) {
    if (!quiet) console.log('web console: up to date (web/dist)');
    return { built: false };
  }
  const { build } = await import('vite');
  await build({ configFile: join(root, 'web', 'vite.config.ts'), logLevel: quiet ? 'warn' : 'info' });
  writeFileSync(stampFile, hash);
  return { built: true };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildWeb({ force: process.argv.includes('--force') });
}
