import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeProcess, holderRuns } from './owner.js';
import { STAGING_PREFIX } from './snapshot.js';

/**
 * What a backup killed mid-way (`kill -9`, a host reboot, cron's timeout) leaves behind, and who may remove it.
 *
 * A backup writes two kinds of scratch: a staging folder inside the data directory (`backup-staging-…`, the
 * copy or dump being packed) and the output file's `.partial` (the tar being written; renamed onto the real
 * name only once complete and fsync'd). Both names carry their owner: the backup process's pid and, on Linux,
 * its start time (src/db/owner.ts), so a reused pid is not taken for the dead run. A leftover is removed, by
 * the next backup and by the service at start (staging folders), only when that owner no longer runs: never
 * one of a backup still running, even one run by another user (kill(pid, 0) answering EPERM counts as running).
 * A pid reused by an unrelated process keeps a leftover until that process ends: it errs on keeping.
 *
 * Names from before owners were recorded (`backup-staging-<hex>`, `firstcrack-<time>.tar.gz.partial`) are
 * removed once older than LEGACY_AGE_MS: no backup takes that long on the data sizes measured (README).
 */

const LEGACY_AGE_MS = 6 * 3600_000;

/** This process, as a leftover's name records it: `pid-starttime` (or `pid`). */
const ownerTag = () => describeProcess(process.pid).replace(' ', '-');

const ownerRuns = (pid: string, startTime: string | undefined) => holderRuns(startTime ? `${pid} ${startTime}` : pid);

export const stagingName = () => `${STAGING_PREFIX}${ownerTag()}-${randomBytes(6).toString('hex')}`;

/** Where a backup to `file` is written until it is complete. */
export const partialPath = (file: string) => `${file}.firstcrack-${ownerTag()}.partial`;

const STAGING = new RegExp(`^${STAGING_PREFIX}(\\d+)(?:-(\\d+))?-[0-9a-f]+$`);
const LEGACY_STAGING = new RegExp(`^${STAGING_PREFIX}[0-9a-f]+$`);
const PARTIAL = /^.+\.firstcrack-(\d+)(?:-(\d+))?\.partial$/;
const LEGACY_PARTIAL = /^firstcrack-.*\.tar\.gz\.partial$/;

function removeDead(dir: string, owned: RegExp, legacy: RegExp): string[] {
  if (!existsSync(dir)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const match = owned.exec(name);
    let stale: boolean;
    if (match) stale = Number(match[1]) !== process.pid && !ownerRuns(match[1], match[2]);
    else if (legacy.test(name)) {
      try {
        stale = Date.now() - statSync(path).mtimeMs > LEGACY_AGE_MS;
      } catch {
        continue; // gone meanwhile
      }
    } else continue;
    if (!stale) continue;
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

/** Removes the staging folders of backups no longer running from the data directory; answers their paths. */
export const removeStaleStaging = (dataDir: string) => removeDead(dataDir, STAGING, LEGACY_STAGING);

/** Removes the `.partial` files of backups no longer running from `dir` (a backup's output folder). */
export const removeStalePartials = (dir: string) => removeDead(dir, PARTIAL, LEGACY_PARTIAL);
