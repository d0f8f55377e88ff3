import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer } from '../src/testing/harness.js';
import { buildChain } from '../src/modules/traceability/testing.js';
import { confirmedOrder } from '../src/modules/orders/testing.js';
import { machineWithToken, postSamples } from '../src/modules/production/roast/telemetry/testing.js';
import { importLot } from '../src/modules/inventory/green/testing.js';
import { addMembership, createUser } from '../src/modules/identity/service.js';
import { replayRoast } from '../src/modules/production/roast/telemetry/replay.js';
import { importRoastLog } from '../src/modules/production/roast/telemetry/importers/index.js';
// @ts-expect-error a plain ES module without types
import { buildWeb } from '../scripts/build-web.mjs';

/** What the live view exposes for tests (web/src/pages/batches.tsx, LiveHook). */
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
/** The shared fixtures sit beside the checkout (/work/main) or beside a worktree's parent (/work/wt/<name>). */
const LOG = ['../../shared/fixtures/roast-logs/profile2.alog', '../../../shared/fixtures/roast-logs/profile2.alog']
  .map((path) => new URL(path, import.meta.url).pathname)
  .find((path) => existsSync(path))!;
/** profile2.alog logs every 5 s: 50 times as fast is 10 samples a second, the fastest loggers' rate. */
const SPEED = 50;
/** Where screenshots go when asked for (CONSOLE_SCREENSHOTS=dir). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS;

const launch = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

async function shoot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** At 390 px nothing may be wider than the screen (a wide table or graph scrolls inside its own box). */
async function assertFitsPhone(page: Page, what: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} scrolls sideways by ${overflow}px at 390 px`);
}

/**
 * Records what the page shows while something is under way: each Progress (data-progress) and each busy button
 * (aria-busy, disabled). A MutationObserver sees every rendered state, however briefly it was on screen.
 */
function watchProgress(page: Page) {
  // A string, not a function: the test runner's transform would add helpers to a function that the page lacks.
  return page.addInitScript(`
    const seen = (window.__progressSeen = []);
    const note = (el) => {
      const label = el.getAttribute('data-progress');
      if (label) seen.push(label);
      if (el instanceof HTMLButtonElement && el.getAttribute('aria-busy') === 'true' && el.disabled) seen.push('button: ' + el.textContent.trim());
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes' && r.target instanceof Element) note(r.target);
        for (const n of r.addedNodes) if (n instanceof Element) [n, ...n.querySelectorAll('[data-progress], button[aria-busy]')].forEach(note);
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-progress', 'aria-busy'] });
  `);
}

const progressSeen = (page: Page) => page.evaluate(() => window.__progressSeen ?? []);

async function signInAsUser(page: Page, url: string, email: string, password: string, screenshot?: string) {
  await page.goto(`${url}/app/`, { waitUntil: 'load' });
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  if (screenshot) await shoot(page, screenshot);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

async function signInWithKey(page: Page, url: string, key: string, screenshot?: string) {
  await page.goto(`${url}/app/`, { waitUntil: 'load' });
  await page.getByRole('tab', { name: 'API key' }).click();
  if (screenshot) await shoot(page, screenshot);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

test('the console: sign in, adjust a lot and see its ledger row, watch a replayed roast live, complete it, trace it, open its certificate', { skip }, async () => {
  await buildWeb({ quiet: true });
  const server = await startTestServer();
  const org = await server.createOrg('enterprise', 'Firstcrack Rösterei');
  const chain = await buildChain(org);
  const { machineId, token } = await machineWithToken(org, 'CON-1');
  const profile = await org.call('production.profile.createProfile', { name: 'Gerba filter', code: 'GF-1', targetDropTempC: 205, targetTotalTimeS: 760, targetDtrPct: 22 });
  assert.equal(profile.status, 200, JSON.stringify(profile.body));
  const viewerKey = await org.createKey('viewer');
  const PASSWORD = 'a roaster’s long password';
  await createUser(server.owner, { email: 'admin@example.com', orgId: org.id, role: 'admin', password: PASSWORD });
  // A roast on the profile before: the live view draws it behind as the curve to follow.
  const earlier = await org.call('production.roast.importLoggerRoast', { content: readFileSync(LOG, 'utf8'), batchNumber: 'EARLIER-1', profileId: profile.body.id, chargeWeightKg: '12', dropWeightKg: '10.3' });
  assert.equal(earlier.status, 200, JSON.stringify(earlier.body));
  // Something for each card of the dashboard: stock at a location, a material to reorder, an order to allocate.
  const store = await org.call('catalog.location.createLocation', { name: 'Main store', code: 'STORE', kind: 'warehouse' });
  assert.equal(store.status, 200, JSON.stringify(store.body));
  const moved = await org.call('inventory.green.transferGreenLotToLocation', { id: chain.blendBase.id, fromLocationId: null, toLocationId: store.body.id, weightKg: '10' });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  const bags = await org.call('inventory.material.createMaterial', { sku: 'BAG-250', name: '250 g valve bag', kind: 'bag', reorderPoint: '500' });
  assert.equal(bags.status, 200, JSON.stringify(bags.body));
  const order = await confirmedOrder(org, [{ roastedLotId: chain.firstRoast.roastedLotId, quantityKg: '1' }]);

  const browser: Browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requested: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await watchProgress(page);

    // Sign in as a user (an admin of the organization) and land on the dashboard.
    await signInAsUser(page, server.url, 'admin@example.com', PASSWORD, 'login-1280');
    await page.locator('[data-card="stock"] table').waitFor();
    await page.locator('[data-card="orders"]').getByRole('link', { name: order.orderNumber }).waitFor();
    assert.match(await page.locator('[data-card="stock"]').innerText(), /Main store \(STORE\)\s+10 kg/, 'green stock by location');
    assert.match(await page.locator('[data-card="materials"]').innerText(), /250 g valve bag/);
    await shoot(page, 'dashboard-1280');

    // The waiting order: allocate it, then fulfil it.
    await page.locator('[data-card="orders"]').getByRole('link', { name: order.orderNumber }).click();
    await page.getByRole('button', { name: 'Allocate (FEFO)' }).click();
    await page.getByText('Allocated in full.').waitFor();
    assert.ok((await progressSeen(page)).includes('button: Allocating…'), 'the Allocate button was disabled, saying "Allocating…", while it ran');
    await page.getByRole('button', { name: 'Fulfil' }).click();
    await page.getByText('Fulfilled.').waitFor();
    await page.getByRole('heading', { name: new RegExp(`${order.orderNumber}\\s+fulfilled`) }).waitFor();
    await shoot(page, 'order-1280');

    // Find the lot, adjust it, see the ledger row.
    await page.getByRole('link', { name: 'Green lots' }).click();
    await page.getByLabel('Search lots').fill(chain.ethiopia.lotCode);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: chain.ethiopia.lotCode, exact: true }).click();
    await page.getByRole('heading', { name: new RegExp(chain.ethiopia.lotCode) }).waitFor();
    await page.getByRole('button', { name: 'Adjust' }).click();
    // The server's refusal is shown at the field it names.
    const form = page.locator('form[data-action="adjust"]');
    await form.getByLabel(/Change/).fill('-100000');
    await form.getByRole('button', { name: 'Save' }).click();
    const fieldError = form.locator('[data-error-for="deltaKg"]');
    await fieldError.waitFor();
    assert.match(await fieldError.innerText(), /kg/, 'the problem names the stock at the deltaKg field');
    await shoot(page, 'lot-refused-1280');
    await form.getByLabel(/Change/).fill('-1.5');
    await form.getByLabel('Reason').selectOption('shrinkage');
    await form.getByLabel('Comment').fill('mice');
    await form.getByRole('button', { name: 'Save' }).click();
    const row = page.locator('table[data-list="ledger"] tr[data-kind="shrinkage"]');
    await row.waitFor();
    assert.equal(await row.getAttribute('data-delta'), '-1.500');
    assert.match(await row.innerText(), /mice/);
    await shoot(page, 'lot-1280');

    // Transfer: more than the unassigned balance holds is refused at the weight; then 2 kg moves to the store.
    const ledger = page.locator('table[data-list="ledger"]');
    await page.getByRole('button', { name: 'Transfer' }).click();
    const transfer = page.locator('form[data-action="transfer"]');
    await transfer.locator('select[name="fromLocationId"]').selectOption({ label: 'Unassigned' });
    await transfer.locator('select[name="toLocationId"]').selectOption({ label: 'Main store (STORE)' });
    await transfer.getByLabel('Weight (kg)').fill('100000');
    await transfer.getByRole('button', { name: 'Save' }).click();
    const weightError = transfer.locator('[data-error-for="weightKg"]');
    await weightError.waitFor();
    assert.match(await weightError.innerText(), /unassigned balance holds [\d.]+ kg/i, `the refusal names the balance at the weight field: ${await weightError.innerText()}`);
    assert.equal(await transfer.locator('.field-error').count(), 1, 'the refusal is shown at the one field it names');
    await shoot(page, 'lot-transfer-refused-1280');
    await transfer.getByLabel('Weight (kg)').fill('2');
    await transfer.getByRole('button', { name: 'Save' }).click();
    await ledger.locator('tr[data-kind="transfer_in"][data-delta="2.000"]').waitFor();
    assert.ok((await progressSeen(page)).includes('button: Transferring…'), 'the Save button was disabled, saying "Transferring…", while the transfer ran');
    assert.equal(await ledger.locator('tr[data-kind="transfer_out"][data-delta="-2.000"]').count(), 1, 'two kg left the unassigned balance');
    assert.match(await ledger.locator('tr[data-kind="transfer_in"][data-delta="2.000"]').innerText(), /STORE/, 'and arrived at the store');
    assert.match(await page.locator('section', { has: page.getByRole('heading', { name: 'Balances' }) }).innerText(), /Main store \(STORE\)\s+2 kg/, 'the balance at the store');

    // Reserve: a reserve row, and the lot's reserved weight.
    await page.getByRole('button', { name: 'Reserve' }).click();
    const reserve = page.locator('form[data-action="reserve"]');
    await reserve.getByLabel('Weight (kg)').fill('3');
    await reserve.getByRole('button', { name: 'Save' }).click();
    await ledger.locator('tr[data-kind="reserve"]').waitFor();
    // The lot and its ledger are read again side by side after a save: the ledger's answer may come first.
    await page.locator('.facts', { hasText: /Reserved\s+3 kg/ }).waitFor({ timeout: 10_000 }).catch(() => {});
    assert.match(await page.locator('.facts').innerText(), /Reserved\s+3 kg/, 'the lot shows 3 kg reserved');

    // Split: a new lot, linked from the notice, with its own split_in row.
    const childCode = `${chain.ethiopia.lotCode}-S`;
    await page.getByRole('button', { name: 'Split' }).click();
    const split = page.locator('form[data-action="split"]');
    await split.getByLabel('Weight (kg)').fill('4');
    await split.getByLabel('New lot code').fill(childCode);
    await split.getByRole('button', { name: 'Save' }).click();
    await ledger.locator('tr[data-kind="split_out"][data-delta="-4.000"]').waitFor();
    await page.getByRole('link', { name: childCode }).click();
    await page.getByRole('heading', { name: new RegExp(childCode) }).waitFor();
    await ledger.locator('tr[data-kind="split_in"]').waitFor();
    assert.equal(await ledger.locator('tr[data-kind="split_in"]').getAttribute('data-delta'), '4.000', 'the new lot holds the 4 kg split off');

    // Merge: back on the parent, the new lot merged into it.
    await page.goto(`${server.url}/app/#/lots/${chain.ethiopia.id}`);
    await page.getByRole('button', { name: 'Merge' }).click();
    const merge = page.locator('form[data-action="merge"]');
    await merge.locator('select[name="sourceIds"] option', { hasText: childCode }).waitFor({ state: 'attached' });
    const sourceValue = await merge.locator('select[name="sourceIds"] option', { hasText: childCode }).getAttribute('value');
    await merge.locator('select[name="sourceIds"]').selectOption([sourceValue!]);
    await merge.getByRole('button', { name: 'Save' }).click();
    await ledger.locator('tr[data-kind="merge_in"]').waitFor();
    assert.equal(await ledger.locator('tr[data-kind="merge_in"]').getAttribute('data-delta'), '4.000', 'the 4 kg came back by merge');
    await shoot(page, 'lot-actions-1280');
    await page.locator('#nav').getByRole('link', { name: 'Green lots' }).click();
    await page.locator('table[data-list="lots"] tbody tr').first().waitFor();
    await shoot(page, 'lots-1280');

    // Start a batch from the console: a refusal at its fields, then its live view, then abort it.
    await page.getByRole('link', { name: 'Roasts' }).click();
    await page.getByRole('button', { name: 'Start a batch' }).click();
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.locator('[data-error-for="batchNumber"]').waitFor();
    await page.locator('[data-error-for="chargeWeightKg"]').waitFor();
    await page.getByLabel('Batch number').fill('MANUAL-1');
    await page.getByLabel('Charge weight (kg)').fill('12');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.waitForFunction(() => window.__firstcrack?.live?.connection === 'open');
    await page.getByLabel('Notes').fill('burner fault');
    await page.getByRole('button', { name: 'Abort' }).click();
    await page.getByText(/aborted: burner fault/).waitFor();

    // A replayed roast, watched live.
    const content = readFileSync(LOG, 'utf8');
    const expected = importRoastLog(content).curve;
    let batchId = '';
    const started = new Promise<string>((resolve) => {
      void replayRoast({
        baseUrl: server.url, token: org.key, machineId, bridgeToken: token, content, speed: SPEED, batchNumber: 'LIVE-1', chargeWeightKg: '12', profileId: profile.body.id,
        onBatch: (batch) => resolve(batch.id),
      }).catch((error) => pageErrors.push(`replay: ${error}`));
    });
    batchId = await started;
    await page.getByRole('link', { name: 'Roasts' }).click();
    await page.getByRole('link', { name: 'LIVE-1' }).click();
    const chart = page.locator('.live-chart');
    await chart.waitFor();
    const samples = () => page.evaluate(() => window.__firstcrack?.live?.samples ?? 0);
    await page.waitForFunction(() => (window.__firstcrack?.live?.samples ?? 0) >= 20);
    const early = await samples();
    await page.waitForFunction((n) => (window.__firstcrack?.live?.samples ?? 0) > n + 10, early);
    assert.ok((await samples()) > early, 'the live chart gains points as they arrive');

    // A dropped connection resumes where it left off: nothing missed, nothing twice.
    await page.evaluate(() => window.__firstcrack!.live!.drop());
    await page.waitForFunction(() => window.__firstcrack?.live?.connection === 'open');
    await page.waitForFunction(() => window.__firstcrack?.live?.events.includes('first_crack_start'));
    assert.ok(Number(await chart.getAttribute('data-reference')) > 100, 'the profile\'s earlier roast is drawn behind as the reference');
    assert.match((await chart.getAttribute('data-events')) ?? '', /first_crack_start/, 'first crack is marked on the chart');
    await shoot(page, 'live-1280');
    await page.waitForFunction((n) => window.__firstcrack?.live?.samples === n && window.__firstcrack.live.events.includes('drop'), expected.samples.length, { timeout: 120_000 });
    const live = await page.evaluate(() => window.__firstcrack!.live!);
    assert.deepEqual(live.events, expected.events.map((e) => e.type), 'every event marked once, in order');
    const fps = live.framesPerSecond.slice(1);
    console.log(`live view at ${(SPEED / 5).toFixed(0)} samples/s: ${live.samples} samples; frames per second while live: min ${Math.min(...fps)}, median ${fps.sort((a, b) => a - b)[fps.length >> 1]}`);
    const dtr = await page.locator('[data-value="dtr"]').innerText();
    assert.match(dtr, /%/, `the development ratio is shown: ${dtr}`);

    // Complete it from the console: the completed batch's curve and metrics.
    await page.getByLabel('Drop weight (kg)').fill('10.3');
    await page.getByRole('button', { name: 'Complete' }).click();
    await page.locator('table[data-table="metrics"]').waitFor();
    // The stored curve is drawn whole.
    await page.waitForFunction((n) => document.querySelector('.chart')?.getAttribute('data-samples') === String(n), expected.samples.length);
    await page.locator('table[data-table="comparison"]').waitFor();
    await shoot(page, 'batch-done-1280');

    // A logger file imported from the roasts page: read, uploaded, opened as a completed batch.
    await page.locator('#nav').getByRole('link', { name: 'Roasts' }).click();
    await page.locator('table[data-list="batches"] tbody tr').first().waitFor();
    await shoot(page, 'batches-1280');
    await page.getByRole('button', { name: 'Import a logger file' }).click();
    const importForm = page.locator('form[data-form="import"]');
    await importForm.getByLabel(/Logger file/).setInputFiles(LOG);
    await importForm.getByLabel('Batch number').fill('IMPORTED-1');
    await importForm.getByLabel(/Charge weight/).fill('12');
    await importForm.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('heading', { name: /IMPORTED-1\s+completed/ }).waitFor();
    assert.ok((await progressSeen(page)).includes('Uploading and importing profile2.alog…'), 'the import showed its progress while the file went up');
    await page.waitForFunction((n) => document.querySelector('.chart')?.getAttribute('data-samples') === String(n), expected.samples.length);

    // A report: a range that ends before it starts is refused at its field; then one is followed until ready.
    await page.locator('#nav').getByRole('link', { name: 'Reports' }).click();
    const reportForm = page.locator('form[data-form="report"]');
    await reportForm.getByLabel('Kind').selectOption('production_summary');
    await reportForm.getByLabel('From', { exact: true }).fill('2026-02-01');
    await reportForm.getByLabel('To', { exact: true }).fill('2026-01-01');
    await reportForm.getByRole('button', { name: 'Generate' }).click();
    await reportForm.locator('[data-error-for="to"]').waitFor();
    assert.match(await reportForm.locator('[data-error-for="to"]').innerText(), /before from/, 'the range problem is shown at "To"');
    await reportForm.getByLabel('Kind').selectOption('inventory_valuation');
    await reportForm.getByRole('button', { name: 'Generate' }).click();
    const readyReport = reportForm.locator('[data-report-done]');
    await readyReport.waitFor({ timeout: 60_000 });
    const reportId = await readyReport.getAttribute('data-report-done');
    const reportProgress = await progressSeen(page);
    assert.ok(reportProgress.includes('Asking for the report…'), 'generating showed its progress');
    assert.ok(reportProgress.includes('button: Asking for the report…'), 'the Generate button was disabled while the report was asked for');
    console.log(`report progress seen: ${[...new Set(reportProgress.filter((l) => /report/i.test(l)))].join(' | ')}`);
    await page.locator(`table[data-list="reports"] tr[data-report="${reportId}"][data-status="ready"]`).waitFor();
    await readyReport.getByRole('button', { name: 'Download' }).click();
    const pdfHref = await readyReport.getByRole('link', { name: 'PDF' }).getAttribute('href');
    const pdf = await page.request.get(new URL(pdfHref!, server.url).href);
    assert.equal(pdf.status(), 200, 'the signed PDF link works');
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    await shoot(page, 'reports-1280');

    // The trace of the chain's roasted lot, drawn as a graph, and its certificate.
    await page.goto(`${server.url}/app/#/trace/roasted_lot/${chain.secondRoast.roastedLotId}`);
    const graph = page.locator('svg.trace-graph');
    await graph.waitFor();
    assert.ok((await graph.locator('[data-kind="producer"]').count()) >= 2, 'both producers are in the graph');
    await page.getByRole('button', { name: 'Issue a certificate' }).click();
    const link = page.getByRole('link', { name: 'Open certificate' }).first();
    await link.waitFor();
    await shoot(page, 'trace-1280');
    const [certificatePage] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await certificatePage.waitForLoadState('load');
    assert.ok(await certificatePage.getByRole('heading', { name: 'Gerba Cooperative' }).isVisible(), 'the certificate names the producer');
    await certificatePage.close();
    await page.locator('#nav').getByRole('link', { name: 'Certificates' }).click();
    await page.locator('[data-certificate]').first().waitFor();
    await shoot(page, 'certificates-1280');

    // The same pages at 390 px.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const small = await phone.newPage();
    small.on('pageerror', (error) => pageErrors.push(String(error)));
    small.on('request', (request) => requested.push(request.url()));
    // The JavaScript of a first load of the dashboard, measured gzip-compressed as a server would send it.
    const scripts: Promise<Buffer>[] = [];
    const collect = (response: import('playwright-core').Response) => {
      if (response.request().resourceType() === 'script') scripts.push(response.body());
    };
    small.on('response', collect);
    await signInAsUser(small, server.url, 'admin@example.com', PASSWORD, 'login-390');
    await small.locator('[data-card="stock"] table').waitFor();
    small.off('response', collect);
    const bodies = await Promise.all(scripts);
    const gzipBytes = bodies.reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
    console.log(`dashboard first load: ${bodies.length} script(s), ${bodies.reduce((s, b) => s + b.length, 0)} bytes, ${gzipBytes} bytes gzip`);
    assert.ok(gzipBytes < 300 * 1024, `the dashboard's first load is ${gzipBytes} bytes of JavaScript (gzip), over 300 KB`);
    await assertFitsPhone(small, 'the dashboard');
    await shoot(small, 'dashboard-390');
    for (const [path, name, ready] of [
      ['/lots', 'lots', 'table[data-list="lots"] tbody tr'],
      [`/lots/${chain.ethiopia.id}`, 'lot', 'table[data-list="ledger"] tr[data-kind]'],
      ['/batches', 'batches', 'table[data-list="batches"] tbody tr'],
      [`/batches/${batchId}`, 'batch', 'table[data-table="metrics"]'],
      [`/trace/roasted_lot/${chain.secondRoast.roastedLotId}`, 'trace', 'svg.trace-graph'],
      ['/certificates', 'certificates', '[data-certificate]'],
      ['/orders', 'orders', 'table[data-list="orders"] tbody tr'],
      [`/orders/${order.id}`, 'order', '[data-line]'],
      ['/reports', 'reports', 'table[data-list="reports"] tr[data-status="ready"]'],
    ] as const) {
      await small.goto(`${server.url}/app/#${path}`);
      await small.locator(ready).first().waitFor();
      await assertFitsPhone(small, `the ${name} page`);
      await shoot(small, `${name}-390`);
    }
    // A lot action's form and the opened menu at 390 px.
    await small.goto(`${server.url}/app/#/lots/${chain.ethiopia.id}`);
    await small.getByRole('button', { name: 'Transfer' }).click();
    await small.locator('form[data-action="transfer"]').waitFor();
    await assertFitsPhone(small, 'the transfer form');
    await shoot(small, 'lot-transfer-390');
    await small.getByRole('button', { name: 'Menu' }).click();
    await small.locator('#nav').getByRole('link', { name: 'Reports' }).waitFor();
    await assertFitsPhone(small, 'the opened menu');
    await shoot(small, 'menu-390');
    await phone.close();

    // A viewer's API key (the second sign-in tab): the lot, but no button the service would refuse.
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewer = await viewerContext.newPage();
    await signInWithKey(viewer, server.url, viewerKey);
    await viewer.goto(`${server.url}/app/#/lots/${chain.ethiopia.id}`);
    await viewer.locator('table[data-list="ledger"] tr[data-kind]').first().waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'Adjust' }).count(), 0, 'a viewer is offered no Adjust');
    assert.equal(await viewer.getByRole('group', { name: 'Lot actions' }).count(), 0, 'a viewer is offered no lot actions');
    await viewerContext.close();

    assert.deepEqual(pageErrors, [], 'no errors in the pages');
    assert.deepEqual(requested.filter((url) => !url.startsWith(server.url)), [], 'nothing is fetched from anywhere else');
  } finally {
    await browser.close();
  }
});

test('a user signs in with email and password, works with their role, follows a live batch, and switches organization', { skip }, async () => {
  await buildWeb({ quiet: true });
  const server = await startTestServer();
  const nord = await server.createOrg('enterprise', 'Rösterei Nord');
  const sued = await server.createOrg('enterprise', 'Café Süd');
  const nordLot = await importLot(nord, { name: 'Nord lot' });
  const suedLot = await importLot(sued, { name: 'Süd lot' });
  const password = 'correct horse battery staple';
  const { userId } = await createUser(server.owner, { email: 'ana@example.com', orgId: nord.id, role: 'roaster', password });
  await addMembership(server.owner, { userId, orgId: sued.id, role: 'viewer' });
  // A batch roasting in Nord, fed a few samples by its bridge.
  const { machineId, token } = await machineWithToken(nord, 'USR-1');
  const batch = await nord.call('production.roast.startRoastBatch', { batchNumber: 'USER-LIVE', machineId, chargeWeightKg: '10' });
  assert.equal(batch.status, 200, JSON.stringify(batch.body));
  const samples = Array.from({ length: 30 }, (_, i) => ({ t: i * 1000, bt: 200 - i, et: 230 }));
  const posted = await postSamples(server.url, token, batch.body.id, { seq: 1, samples, events: [{ type: 'charge', t: 0 }] });
  assert.equal(posted.status, 202, JSON.stringify(posted.body));

  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${server.url}/app/`, { waitUntil: 'load' });
    await page.getByLabel('Email').fill('ana@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /Wrong email or password/);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    assert.equal(await page.locator('.who .badge').innerText(), 'roaster');

    // As a roaster in Nord: adjust a lot through /rpc/v1 with the user's session.
    await page.goto(`${server.url}/app/#/lots/${nordLot.id}`);
    await page.getByRole('button', { name: 'Adjust' }).click();
    const form = page.locator('form[data-action="adjust"]');
    await form.getByLabel(/Change/).fill('2');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.locator('table[data-list="ledger"] tr[data-kind="adjust"]').waitFor();

    // The live stream with the user's session (no stream ticket: Authorization and X-Service-Org).
    await page.goto(`${server.url}/app/#/batches/${batch.body.id}`);
    await page.waitForFunction(() => (window.__firstcrack?.live?.samples ?? 0) === 30);
    const more = await postSamples(server.url, token, batch.body.id, { seq: 2, samples: [{ t: 30_000, bt: 171, et: 230 }] });
    assert.equal(more.status, 202, JSON.stringify(more.body));
    await page.waitForFunction(() => window.__firstcrack?.live?.samples === 31);
    await shoot(page, 'live-user-1280');
    // The live view at 390 px: readouts, phase bar, chart and finish form fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => (document.querySelector('.live-chart canvas') as HTMLCanvasElement | null)?.clientWidth! <= 390);
    await assertFitsPhone(page, 'the live view');
    await shoot(page, 'live-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Switch to Café Süd, where the same user is a viewer: its lots, and no action offered.
    await page.getByLabel('Organization').selectOption(sued.id);
    await page.waitForFunction(() => document.querySelector('.who .badge')?.textContent === 'viewer');
    await page.goto(`${server.url}/app/#/lots/${suedLot.id}`);
    await page.locator('table[data-list="ledger"] tr[data-kind]').first().waitFor();
    assert.equal(await page.getByRole('group', { name: 'Lot actions' }).count(), 0, 'a viewer is offered no lot actions');
    await page.goto(`${server.url}/app/#/lots/${nordLot.id}`);
    await page.getByRole('alert').first().waitFor();
    assert.match(await page.getByRole('alert').first().innerText(), /not found|No green lot/i, 'Nord’s lot is not found from Süd');

    // Signing out ends the session on the service.
    const sessionToken = await page.evaluate(() => JSON.parse(sessionStorage.getItem('firstcrack.console.session')!).token);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/auth/logout')), page.getByRole('button', { name: 'Sign out' }).click()]);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const after = await server.call(sessionToken, 'inventory.green.listGreenLots', {}, { headers: { 'x-service-org': nord.id } });
    assert.equal(after.status, 401, 'the session ended with sign-out');
    assert.deepEqual(pageErrors, [], 'no errors in the pages');
  } finally {
    await browser.close();
  }
});
