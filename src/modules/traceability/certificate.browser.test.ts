import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startTestServer } from '../../testing/harness.js';
import { buildChain } from './testing.js';

/** Debian's Chromium (.ci/run installs it); the test skips, saying so, only when it is absent. */
const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;

test('a person opening a certificate on a phone sees the producer, the region, the roast date and the QR code', { skip }, async () => {
  const server = await startTestServer();
  const org = await server.createOrg('enterprise', 'Firstcrack Rösterei');
  const chain = await buildChain(org);
  const issued = await org.call('traceability.issueCertificate', { roastedLotId: chain.secondRoast.roastedLotId });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  const certificate = issued.body;

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const response = await page.goto(`${server.url}${certificate.publicPath}`, { waitUntil: 'load' });
    assert.equal(response?.status(), 200);

    const text = await page.locator('body').innerText();
    const roastDay = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(certificate.snapshot.roastedLot.roastedAt));
    for (const shown of ['Where this coffee comes from', 'Gerba Cooperative', 'Bensa, Sidama, Ethiopia', 'Finca La Esperanza', 'Huila, Colombia', `roasted on ${roastDay}`, chain.secondRoast.lotCode]) {
      assert.ok(text.includes(shown), `the page shows "${shown}":\n${text}`);
    }
    assert.ok(await page.getByRole('heading', { name: 'Gerba Cooperative' }).isVisible(), 'the producer Gerba Cooperative is shown as a heading');
    assert.ok(await page.getByRole('link', { name: 'Open map' }).isVisible(), 'the Open map link is visible');

    const qr = page.getByRole('img', { name: 'QR code linking to this certificate' });
    await qr.scrollIntoViewIfNeeded();
    assert.ok(await qr.isVisible(), 'the QR code is visible');
    const rendered = await qr.evaluate((img: HTMLImageElement) => ({ complete: img.complete, width: img.naturalWidth, shown: img.getBoundingClientRect().width }));
    assert.ok(rendered.complete && rendered.width > 0, `the QR image loaded: ${JSON.stringify(rendered)}`);
    assert.ok(rendered.shown >= 150 && rendered.shown <= 390, `the QR code is shown at a scannable size: ${JSON.stringify(rendered)}`);

    // Readable on a phone: nothing wider than the screen, and nothing fetched from anywhere else.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    assert.deepEqual(requested.filter((url) => !url.startsWith(server.url)), []);
    if (process.env.CERTIFICATE_SCREENSHOT) await page.screenshot({ path: process.env.CERTIFICATE_SCREENSHOT, fullPage: true });
  } finally {
    await browser.close();
  }
});
