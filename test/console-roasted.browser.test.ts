import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startTestServer } from '../src/testing/harness.js';
import { makeGreenLot } from '../src/modules/inventory/green/testing.js';
import { roastLot } from '../src/modules/orders/testing.js';
// @ts-expect-error a plain ES module without types
import { buildWeb } from '../scripts/build-web.mjs';

/** Debian's Chromium (.ci/run installs it); the test skips, saying so, only when it is absent. */
const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;

test('the console’s roasted lots list marks lots past their best-before day', { skip }, async () => {
  await buildWeb({ quiet: true });
  const server = await startTestServer();
  const org = await server.createOrg('enterprise', 'Expiry roastery');
  const greenLotId = await makeGreenLot(org);
  const stale = await roastLot(org, { kg: '6', greenLotId, roastedAt: new Date(Date.now() - 100 * 86_400_000) });
  const fresh = await roastLot(org, { kg: '4', greenLotId, roastedAt: new Date(Date.now() - 86_400_000) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}/app/`, { waitUntil: 'load' });
    await page.getByRole('tab', { name: 'API key' }).click();
    await page.getByLabel('API key').fill(org.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('link', { name: 'Roasted lots' }).first().click();
    await page.locator('[data-list="roasted-lots"] tbody tr').nth(1).waitFor();
    const rows = await page.locator('[data-list="roasted-lots"] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-expired'), (tr as HTMLElement).innerText]));
    const row = (lotCode: string) => rows.find(([, text]) => text!.includes(lotCode))!;
    assert.equal(row(stale.lotCode)[0], 'true');
    assert.match(row(stale.lotCode)[1]!, /expired/);
    assert.equal(row(fresh.lotCode)[0], 'false');
    assert.doesNotMatch(row(fresh.lotCode)[1]!, /expired/);
    if (process.env.CONSOLE_SCREENSHOTS) await page.screenshot({ path: `${process.env.CONSOLE_SCREENSHOTS}/roasted-lots.png`, fullPage: true });
    await page.getByLabel('expired').check();
    await page.waitForFunction(() => document.querySelectorAll('[data-list="roasted-lots"] tbody tr').length === 1);
    assert.match(await page.locator('[data-list="roasted-lots"] tbody').innerText(), new RegExp(stale.lotCode));
  } finally {
    await browser.close();
  }
});
