import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { PgliteDatabase } from '../src/db/client.js';
import { createApp } from '../src/app.js';
import { MODULES } from '../src/modules/index.js';
import { createOrganization } from '../src/auth/organizations.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { preparePgliteTemplate } from '../src/testing/template.js';

/**
 * The disk filling up under the embedded service: its data directory (PGlite's files, blobs, live sessions)
 * on a small tmpfs of its own, filled to the last few kilobytes by a file the test then deletes.
 */
test('the disk fills (embedded): writes answer 507 storage_full, reads still work, nothing stored is damaged, and writes work again once space is freed', async (t) => {
  if (process.env.DATABASE_URL) return t.skip('DATABASE_URL is set: the disk filling is tested embedded (server mode, it is PostgreSQL’s disk)');
  const mount = mkdtempSync(join(tmpdir(), 'fc-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', mount], { stdio: 'pipe' });
  } catch (error) {
    rmSync(mount, { recursive: true, force: true });
    return t.skip(`cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
  }
  t.after(() => {
    execFileSync('umount', ['-l', mount]);
    rmSync(mount, { recursive: true, force: true });
  });
  const dataDir = join(mount, 'data');
  mkdirSync(dataDir);
  const db = await PgliteDatabase.open({ dataDir: join(dataDir, 'pgdata'), loadDataDir: new Blob([readFileSync(await preparePgliteTemplate())]) });
  const config = { ...loadConfig({}), dataDir, logLevel: process.env.LOG_LEVEL ?? 'silent' };
  const app = await createApp(config, { modules: MODULES, databases: { owner: db, service: db, close: () => db.close() }, rateWindows: GENEROUS_WINDOWS, failedAuthRateWindows: GENEROUS_WINDOWS });
  const url = await app.server.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    await db.close();
  });
  const org = await createOrganization(db, 'Full roastery', 'enterprise');
  const call = async (operation: string, input: unknown) => {
    const res = await fetch(`${url}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
  };
  const create = (code: string) => call('catalog.location.createLocation', { name: `Site ${code}`, code, kind: 'warehouse' });
  for (let i = 0; i < 5; i++) assert.equal((await create(`K${i}`)).status, 200);
  const before = await call('catalog.location.listLocations', {});

  // Fill the disk but for a few kilobytes: less than PostgreSQL needs to extend a table or write its log.
  const filler = join(mount, 'filler');
  const { bavail, bsize } = statfsSync(mount);
  writeFileSync(filler, Buffer.alloc(Math.max(0, Number(bavail) * Number(bsize) - 16 * 1024)));
  let full: Awaited<ReturnType<typeof call>> | undefined;
  // Pages not yet full take a few rows more: write until the disk refuses (a bounded number of times).
  for (let i = 0; i < 2000 && (!full || full.status === 200); i++) full = await call('catalog.location.createLocation', { name: `Overflow ${i}`, code: `F${i}`, kind: 'warehouse' });
  assert.equal(full!.status, 507, JSON.stringify(full!.body));
  assert.equal(full!.body.code, 'storage_full');
  assert.ok(Number(full!.retryAfter) > 0, 'Retry-After is a number of seconds');
  const stored = (await db.query<{ n: number }>(`select count(*)::int as n from locations where org_id = $1`, [org.organizationId]))[0].n;
  // Reads keep working, and what was stored before is intact.
  const during = await call('catalog.location.listLocations', {});
  assert.equal(during.status, 200, JSON.stringify(during.body));
  assert.deepEqual(during.body.items.slice(0, 5).map((l: { code: string }) => l.code).sort(), before.body.items.map((l: { code: string }) => l.code).sort());

  rmSync(filler);
  const after = await create('AFTER');
  assert.equal(after.status, 200, JSON.stringify(after.body));
  const rows = await db.query<{ n: number; events: number }>(
    `select (select count(*)::int from locations where org_id = $1) as n,
            (select count(*)::int from events where org_id = $1 and type = 'catalog.location.created') as events`,
    [org.organizationId],
  );
  assert.deepEqual(rows, [{ n: stored + 1, events: stored + 1 }], 'every stored location has its event; the refused write left nothing');
  const check = await db.query<{ ok: boolean }>(`select count(*) = count(distinct code) as ok from locations where org_id = $1`, [org.organizationId]);
  assert.deepEqual(check, [{ ok: true }]);
});
