import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startTestServer } from '../src/testing/harness.js';
import { machineWithToken, postSamples } from '../src/modules/production/roast/telemetry/testing.js';
import { createUser } from '../src/modules/identity/service.js';
import { importRoastLog } from '../src/modules/production/roast/telemetry/importers/index.js';
// @ts-expect-error a plain ES module without types
import { buildWeb } from '../scripts/build-web.mjs';

declare global {
  interface Window {
    __firstcrack?: { live?: { samples: number; events: string[]; lastId: number; connection: string; framesPerSecond: number[]; drop(): void } };
    /** Every progress label and every busy button's words the page has shown (watchProgress). */
    __progressSeen?: string[];
  }
}

/** Debian's Chromium (.ci/run installs it); the test skips, saying so, only when it is absent. */
const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;
const LOG = ['../../shared/fixtures/roast-logs/profile2.alog', '../../../shared/fixtures/roast-logs/profile2.alog']
  .map((path) => new URL(path, import.meta.url).pathname)
  .find((path) => existsSync(path))!;
/** Where screenshots go when asked for (CONSOLE_SCREENSHOTS=dir, e.g. .screenshots/, which git ignores). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS;
if (SHOTS) mkdirSync(SHOTS, { recursive: true });

async function shoot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function assertFitsPhone(page: Page, what: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} scrolls sideways by ${overflow}px at 390 px`);
}

test('settings: an owner creates an API key in the console and uses it, and exports everything; a live roast gets first crack marked from the console and follows a chosen reference', { skip }, async () => {
  await buildWeb({ quiet: true });
  const server = await startTestServer();
  const org = await server.createOrg('enterprise', 'Settings Rösterei');
  const PASSWORD = 'an owner’s long password';
  await createUser(server.owner, { email: 'owner@example.com', orgId: org.id, role: 'owner', password: PASSWORD });
  const { machineId, token } = await machineWithToken(org, 'SET-1');
  const content = readFileSync(LOG, 'utf8');
  const earlier = await org.call('production.roast.importLoggerRoast', { content, batchNumber: 'EARLIER-1', chargeWeightKg: '12', dropWeightKg: '10.3' });
  assert.equal(earlier.status, 200, JSON.stringify(earlier.body));
  const viewerKey = await org.createKey('viewer');

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${server.url}/app/`, { waitUntil: 'load' });
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();

    // Settings: create a roaster key narrowed to production; its secret is shown once, and it works at once.
    await page.locator('#nav').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    const keyForm = page.locator('form[data-form="api-key"]');
    await keyForm.getByLabel('Role').selectOption('roaster');
    await keyForm.getByLabel(/Scopes/).fill('coffee.*');
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    const scopeError = keyForm.locator('[data-error-for="scopes"]');
    await scopeError.waitFor();
    assert.match(await scopeError.innerText(), /coffee/, 'the refusal is shown at the scopes field');
    await keyForm.getByLabel(/Scopes/).fill('production.*, catalog.location.read');
    await keyForm.getByLabel('Label').fill('Floor tablet');
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('[data-section="api-keys"] [data-secret-value]').innerText()).trim();
    assert.match(secret, /^fck_/);
    const used = await server.call(secret, 'catalog.location.listLocations');
    assert.equal(used.status, 200, 'the key made in the console works at once');
    assert.equal((await server.call(secret, 'inventory.green.listGreenLots')).status, 403, 'within its scopes only');
    const keyRow = page.locator('table[data-list="api-keys"] tr', { hasText: 'Floor tablet' });
    await keyRow.waitFor();
    await shoot(page, 'settings-key-1280');
    await page.locator('[data-section="api-keys"]').getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.locator('[data-secret-value]').count(), 0, 'the secret is gone once dismissed');
    assert.ok(!(await page.content()).includes(secret), 'and is nowhere on the page');

    // A member invited by email: the sign-in link is shown once.
    const memberForm = page.locator('form[data-form="member"]');
    await memberForm.getByLabel('Email').fill('roaster@example.com');
    await memberForm.getByLabel('Role').selectOption('roaster');
    await memberForm.getByRole('button', { name: 'Add member' }).click();
    assert.match(await page.locator('[data-section="members"] [data-secret-value]').innerText(), /#loginToken=fcl_/);
    await page.locator('table[data-list="members"] tr[data-member="roaster@example.com"]').waitFor();

    // Revoked from the console: refused at once.
    await keyRow.getByRole('button', { name: /Revoke/ }).click();
    await keyRow.waitFor({ state: 'detached' });
    assert.equal((await server.call(secret, 'catalog.location.listLocations')).status, 401, 'the revoked key is refused');

    // Everything the organization owns as one archive: built by a job, followed until its link is offered.
    const exportSection = page.locator('[data-section="organization-export"]');
    await exportSection.getByRole('button', { name: 'Export everything' }).click();
    const archiveLink = exportSection.locator('[data-export-ready] a');
    await archiveLink.waitFor({ timeout: 60_000 });
    const archive = await fetch(new URL((await archiveLink.getAttribute('href'))!, server.url));
    assert.equal(archive.status, 200);
    assert.deepEqual([...Buffer.from(await archive.arrayBuffer()).subarray(0, 2)], [0x1f, 0x8b], 'the archive is gzip');
    await shoot(page, 'settings-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFitsPhone(page, 'settings');
    await shoot(page, 'settings-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    // A live roast: the bridge posts samples without events; first crack is marked from the console.
    const batch = await org.call('production.roast.startRoastBatch', { batchNumber: 'MARK-1', machineId, chargeWeightKg: '12' });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    await page.goto(`${server.url}/app/#/batches/${batch.body.id}`);
    await page.waitForFunction(() => window.__firstcrack?.live?.connection === 'open');
    // The bridge's own shape: whole milliseconds, BT and ET.
    const samples = importRoastLog(content).curve.samples.map((s) => ({ t: Math.round(s.t), bt: s.bt, et: s.et }));
    let seq = 0;
    const post = async (from: number, to: number) => {
      for (let i = from; i < to; i += 20) {
        const res = await postSamples(server.url, token, batch.body.id, { seq: ++seq, samples: samples.slice(i, Math.min(i + 20, to)) });
        assert.equal(res.status, 202, JSON.stringify(res.body));
      }
    };
    const crackAt = Math.floor(samples.length * 0.8);
    await post(0, crackAt);
    await page.waitForFunction((n) => window.__firstcrack?.live?.samples === n, crackAt);
    await page.locator('[data-marks]').getByRole('button', { name: 'First crack' }).click();
    await page.waitForFunction(() => window.__firstcrack?.live?.events.includes('first_crack_start'));
    assert.match(await page.locator('[data-events-list]').innerText(), /FC at \d+:\d\d/, 'the marked event is listed');
    assert.match((await page.locator('.live-chart').getAttribute('data-events')) ?? '', /first_crack_start/, 'and drawn on the curve');

    // The reference curve: the earlier roast, chosen for this batch.
    await page.locator('[data-reference-chooser] select').selectOption({ label: 'EARLIER-1' });
    await page.waitForFunction(() => Number(document.querySelector('.live-chart')?.getAttribute('data-reference')) > 100);
    assert.equal((await org.call('production.roast.getRoastBatch', { id: batch.body.id })).body.referenceBatchId, earlier.body.id);
    await post(crackAt, samples.length);
    await page.waitForFunction((n) => window.__firstcrack?.live?.samples === n, samples.length);
    await shoot(page, 'live-marks-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFitsPhone(page, 'the live roast');
    await shoot(page, 'live-marks-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator('[data-marks]').getByRole('button', { name: 'Drop' }).click();
    await page.waitForFunction(() => window.__firstcrack?.live?.events.includes('drop'));

    // Completed from the console: the stored curve keeps the marked events, and the metrics use them.
    await page.getByLabel('Drop weight (kg)').fill('10.3');
    await page.getByRole('button', { name: 'Complete' }).click();
    await page.locator('table[data-table="metrics"]').waitFor();
    await page.waitForFunction(() => /first_crack_start/.test(document.querySelector('.chart')?.getAttribute('data-events') ?? ''));
    const done = await org.call('production.roast.getRoastBatch', { id: batch.body.id });
    assert.ok(done.body.metrics.firstCrackStartS > 0, 'first crack, marked from the console, is in the metrics');
    await shoot(page, 'batch-marked-done-1280');
    // In °F the chart redraws its temperatures and rates of rise in °F.
    await page.getByLabel('Temperature unit').selectOption('F');
    await page.waitForFunction(() => document.querySelector('.chart')?.getAttribute('data-temperature-unit') === 'F');
    await shoot(page, 'batch-marked-done-fahrenheit-1280');
    await page.getByLabel('Temperature unit').selectOption('C');

    // A viewer is offered neither the marks nor the settings.
    const viewerBatch = await org.call('production.roast.startRoastBatch', { batchNumber: 'MARK-2', machineId, chargeWeightKg: '12' });
    const viewer = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await viewer.goto(`${server.url}/app/`, { waitUntil: 'load' });
    await viewer.getByRole('tab', { name: 'API key' }).click();
    await viewer.getByLabel('API key').fill(viewerKey);
    await viewer.getByRole('button', { name: 'Sign in' }).click();
    await viewer.getByRole('heading', { name: 'Dashboard' }).waitFor();
    assert.equal(await viewer.locator('#nav a[href="#/settings"]').count(), 0, 'no Settings for a viewer');
    await viewer.goto(`${server.url}/app/#/batches/${viewerBatch.body.id}`);
    await viewer.waitForFunction(() => window.__firstcrack?.live?.connection === 'open');
    await viewer.locator('[data-reference-chooser]').waitFor();
    assert.equal(await viewer.locator('[data-marks]').count(), 0, 'no event buttons for a viewer');
    assert.equal(await viewer.locator('[data-reference-chooser] select').isDisabled(), true, 'the reference is shown, not changeable');
    await org.call('production.roast.abortRoastBatch', { id: viewerBatch.body.id, reason: 'test over' });
    assert.deepEqual(pageErrors, [], 'no script errors');
  } finally {
    await browser.close();
  }
});
