import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer } from '../src/testing/harness.js';
import { createUser } from '../src/modules/identity/service.js';
import { postShots, shot } from '../src/modules/cafe/testing.js';
// @ts-expect-error a plain ES module without types
import { buildWeb } from '../scripts/build-web.mjs';

/**
 * The console's areas, driven as a new roastery would: one browser, a desktop and a phone page reused across every
 * page. Each page is screenshot at 1280 and 390 px when CONSOLE_SCREENSHOTS names a folder (`.screenshots/` is
 * git-ignored), checked to fit 390 px, and checked with axe-core: no serious or critical violation.
 */
const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;
const SHOTS = process.env.CONSOLE_SCREENSHOTS;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PASSWORD = 'a roaster’s long password';

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

async function axe(page: Page, what: string) {
  // Through the debugger protocol, which the console's Content-Security-Policy (no inline script) does not govern.
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE);
  // A string, not a function: the test runner's transform would add helpers the page lacks.
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`,
  )) as Violation[];
  assert.deepEqual(violations, [], `axe-core on ${what}: ${JSON.stringify(violations, null, 1)}`);
}

async function fitsPhone(page: Page, what: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} scrolls sideways by ${overflow}px at 390 px`);
}

async function shoot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function signIn(page: Page, url: string, email: string) {
  await page.goto(`${url}/app/`, { waitUntil: 'load' });
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

test('a new roastery runs its business from the console: every area’s main flow, at 1280 and 390 px, accessible', { skip }, async () => {
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  await buildWeb({ quiet: true });
  const server = await startTestServer();
  const org = await server.createOrg('enterprise', 'Neue Rösterei');
  await createUser(server.owner, { email: 'owner@example.com', orgId: org.id, role: 'admin', password: PASSWORD });
  await createUser(server.owner, { email: 'viewer@example.com', orgId: org.id, role: 'viewer', password: PASSWORD });

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const pageErrors: string[] = [];
  const desk = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  try {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
    for (const p of [desk, phone]) p.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(desk, server.url, 'owner@example.com');
    await signIn(phone, server.url, 'owner@example.com');
    const go = (path: string) => desk.goto(`${server.url}/app/#${path}`);
    /** Looks at a page on both screens: screenshots, 390 px fit, axe-core. */
    const look = async (path: string, name: string, ready: string) => {
      await go(path);
      await desk.locator(ready).first().waitFor();
      await axe(desk, name);
      await shoot(desk, `${name}-1280`);
      // The same address again is no navigation: read the page anew.
      if (phone.url() === `${server.url}/app/#${path}`) await phone.reload();
      else await phone.goto(`${server.url}/app/#${path}`);
      await phone.locator(ready).first().waitFor();
      await fitsPhone(phone, name);
      await shoot(phone, `${name}-390`);
    };

    await axe(desk, 'the dashboard');
    await shoot(desk, 'dashboard-1280');

    // Catalog: a location (refused without its kind, at the field), a machine with its bridge token, a product.
    await go('/catalog/locations');
    await desk.getByRole('button', { name: 'New location' }).click();
    const newLocation = desk.locator('form[data-form="new-locations"]');
    await newLocation.getByLabel('Name', { exact: true }).fill('Roastery');
    await newLocation.getByRole('button', { name: 'Create' }).click();
    await newLocation.locator('[data-error-for="code"]').waitFor();
    await newLocation.getByLabel('Code', { exact: true }).fill('RST');
    await newLocation.getByLabel('Kind').selectOption('roastery');
    await newLocation.getByLabel('City').fill('Hamburg');
    await newLocation.getByRole('button', { name: 'Create' }).click();
    await desk.locator('table[data-list="locations"] tr', { hasText: 'RST' }).waitFor();
    await look('/catalog/locations', 'catalog-locations', 'table[data-list="locations"] tbody tr');

    await go('/catalog/producers');
    await desk.getByRole('button', { name: 'New producer' }).click();
    const newProducer = desk.locator('form[data-form="new-producers"]');
    await newProducer.getByLabel('Name', { exact: true }).fill('Gerba Cooperative');
    await newProducer.getByLabel('Code', { exact: true }).fill('GERBA');
    await newProducer.getByLabel('Kind').selectOption('cooperative');
    await newProducer.getByLabel(/Latitude/).fill('95');
    await newProducer.getByLabel(/Longitude/).fill('38.7');
    await newProducer.getByRole('button', { name: 'Create' }).click();
    await newProducer.locator('[data-error-for="latitude"]').waitFor();
    await newProducer.getByLabel(/Latitude/).fill('6.2');
    await newProducer.getByRole('button', { name: 'Create' }).click();
    await desk.locator('table[data-list="producers"] [data-coordinates]').waitFor();
    await look('/catalog/producers', 'catalog-producers', 'table[data-list="producers"] tbody tr');

    await go('/catalog/machines');
    await desk.getByRole('button', { name: 'New machine' }).click();
    const newMachine = desk.locator('form[data-form="new-machines"]');
    await newMachine.getByLabel('Name', { exact: true }).fill('Probat P12');
    await newMachine.getByLabel('Code', { exact: true }).fill('P12');
    await newMachine.getByLabel(/Capacity/).fill('12');
    await newMachine.getByLabel('Connectivity').selectOption('bridge');
    await newMachine.getByRole('button', { name: 'Create' }).click();
    const machineRow = desk.locator('table[data-list="machines"] tr', { hasText: 'P12' });
    await machineRow.getByRole('button', { name: 'Issue bridge token' }).click();
    assert.match(await machineRow.locator('[data-bridge-token]').innerText(), /fcb_|\w{20,}/, 'the bridge token is shown');
    await look('/catalog/machines', 'catalog-machines', 'table[data-list="machines"] tbody tr');

    await go('/catalog/products');
    await desk.getByRole('button', { name: 'New product' }).click();
    const newProduct = desk.locator('form[data-form="new-products"]');
    await newProduct.getByLabel('Name', { exact: true }).fill('House espresso 1 kg');
    await newProduct.getByLabel('SKU').fill('HOUSE-1K');
    await newProduct.getByLabel('Format').selectOption('whole_bean');
    await newProduct.getByLabel(/Net weight/).fill('1');
    await newProduct.getByRole('button', { name: 'Create' }).click();
    await desk.locator('table[data-list="products"] tr', { hasText: 'HOUSE-1K' }).waitFor();
    // Edit: the product's price without a currency is refused at the currency.
    await desk.locator('table[data-list="products"] tr', { hasText: 'HOUSE-1K' }).getByRole('button', { name: /Edit/ }).click();
    const editProduct = desk.locator('form[data-form="edit-products"]');
    await editProduct.getByLabel('List price').fill('24.50');
    await editProduct.getByRole('button', { name: 'Save' }).click();
    await editProduct.locator('[data-error-for="currency"]').waitFor();
    await editProduct.getByLabel(/Currency/).fill('EUR');
    await editProduct.getByRole('button', { name: 'Save' }).click();
    await desk.locator('table[data-list="products"] tr', { hasText: /24\.50* EUR/ }).waitFor();
    await look('/catalog/products', 'catalog-products', 'table[data-list="products"] tbody tr');
    await look('/catalog/partners', 'catalog-partners', 'table[data-list="partners"]');

    // Units: pounds in the list, and a location's CSV of the whole list.
    await go('/catalog/products');
    await desk.locator('table[data-list="products"] tbody tr').first().waitFor();
    await desk.getByLabel('Weight unit').selectOption('lb');
    await desk.locator('table[data-list="products"] tr', { hasText: '2.2 lb' }).waitFor();
    await desk.getByLabel('Weight unit').selectOption('kg');
    await go('/catalog/locations');
    await desk.locator('table[data-list="locations"] tbody tr').first().waitFor();
    const [download] = await Promise.all([desk.waitForEvent('download'), desk.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    assert.match(csv, /^\ufeff?Code,Name,Kind,City,Status\r\nRST,Roastery,roastery,Hamburg,active\r\n$/, `the CSV of the locations: ${JSON.stringify(csv)}`);

    // Inventory: a green lot received into the roastery from the producer.
    await go('/lots/new');
    const newLot = desk.locator('form[data-form="new-lot"]');
    await newLot.getByLabel('Name', { exact: true }).fill('Gerba natural');
    await newLot.getByLabel('Lot code').fill('GL-001');
    await newLot.getByLabel('Weight (kg)').fill('60');
    await newLot.getByLabel('Producer').selectOption({ label: 'Gerba Cooperative (GERBA)' });
    await newLot.getByLabel('Location').selectOption({ label: 'Roastery (RST)' });
    await newLot.getByRole('button', { name: 'Create lot' }).click();
    await desk.getByRole('heading', { name: /GL-001/ }).waitFor();
    await look('/lots', 'lots', 'table[data-list="lots"] tbody tr');
    await look('/lots/new', 'lot-new', 'form[data-form="new-lot"]');

    // Orders: a customer, then an order on the lot, confirmed.
    await go('/customers');
    await desk.getByRole('button', { name: 'New customer' }).click();
    const newCustomer = desk.locator('form[data-form="new-customers"]');
    await newCustomer.getByLabel('Name', { exact: true }).fill('Café Hafen');
    await newCustomer.getByLabel('Code', { exact: true }).fill('HAFEN');
    await newCustomer.getByLabel(/Currency/).fill('EUR');
    await newCustomer.getByRole('button', { name: 'Create' }).click();
    await desk.locator('table[data-list="customers"] tr', { hasText: 'HAFEN' }).waitFor();
    await look('/customers', 'customers', 'table[data-list="customers"] tbody tr');
    await go('/orders/new');
    const newOrder = desk.locator('form[data-form="new-order"]');
    await newOrder.locator('select[name="customerId"]').selectOption({ label: 'Café Hafen (HAFEN)' });
    await newOrder.getByLabel('Order number').fill('SO-1');
    await newOrder.getByLabel(/Line 1: lot/).selectOption({ label: 'green GL-001' });
    await newOrder.getByLabel(/Quantity/).fill('5');
    await newOrder.getByRole('button', { name: 'Create order' }).click();
    await newOrder.locator('[data-error-for="lines.0.unitPrice"]').waitFor();
    await newOrder.getByLabel(/Unit price/).fill('12.50');
    await newOrder.getByRole('button', { name: 'Create order' }).click();
    await desk.getByRole('heading', { name: /SO-1\s+draft/ }).waitFor();
    await look('/orders/new', 'order-new', 'form[data-form="new-order"]');
    await desk.goBack();
    await desk.getByRole('button', { name: 'Confirm' }).click();
    await desk.getByRole('heading', { name: /SO-1\s+confirmed/ }).waitFor();
    await look('/orders', 'orders', 'table[data-list="orders"] tbody tr');

    // Quality: the lot and an outside coffee cupped blind by two cuppers, finalized, identities revealed.
    await go('/quality/cupping/new');
    const newCupping = desk.locator('form[data-form="new-cupping"]');
    await newCupping.getByLabel('Name', { exact: true }).fill('Arrival cupping');
    await newCupping.getByLabel('Session number').fill('CUP-1');
    await newCupping.getByLabel('Mode').selectOption('blind');
    await newCupping.getByLabel('Green lots on the table').selectOption({ label: 'GL-001 Gerba natural' });
    await newCupping.getByLabel(/Outside coffees/).fill('Competitor espresso');
    await newCupping.getByRole('button', { name: 'Create session' }).click();
    await desk.getByRole('heading', { name: /Arrival cupping\s+open/ }).waitFor();
    await look(desk.url().split('#')[1]!, 'cupping-table', '[data-coffee]');
    const coffees = desk.locator('[data-coffee]');
    assert.equal(await coffees.count(), 2, 'two coffees on the table');
    assert.equal(await desk.locator('[data-identity]').count(), 0, 'blind: no identity shown before finalizing');
    const codes = await coffees.evaluateAll((els) => els.map((e) => e.getAttribute('data-coffee')!));
    for (const [cupper, bump] of [['Ana', 3], ['Ben', 1]] as const) {
      for (const code of codes) {
        await desk.getByRole('button', { name: `Score ${code}` }).click();
        const sheet = desk.locator(`form[data-form="score-${code}"]`);
        // The stepper cannot leave the quarter-point scale: 10.00 is its top, 6.00 its bottom.
        const flavor = sheet.locator(`[data-stepper="${code}-flavor"]`);
        for (let i = 0; i < 12; i++) await flavor.getByRole('button', { name: 'Flavor: more' }).click({ force: true }).catch(() => {});
        assert.equal(await flavor.getByRole('spinbutton').getAttribute('aria-valuenow'), '10', 'flavor stops at 10.00');
        assert.ok(await flavor.getByRole('button', { name: 'Flavor: more' }).isDisabled(), 'no step past 10.00');
        const aroma = sheet.getByRole('spinbutton', { name: 'Fragrance / aroma' });
        await aroma.focus();
        for (let i = 0; i < bump; i++) await desk.keyboard.press('ArrowUp');
        assert.equal(await aroma.getAttribute('aria-valuenow'), String(7.5 + bump * 0.25), 'arrow keys step a quarter point');
        await sheet.getByLabel('Cupper').fill(cupper);
        await sheet.getByLabel(/Descriptors/).fill('blueberry, cocoa');
        if (cupper === 'Ana' && code === codes[0]) await shoot(desk, 'cupping-score-1280');
        await sheet.getByRole('button', { name: 'Save score' }).click();
        await sheet.waitFor({ state: 'detached' });
      }
    }
    await desk.getByRole('button', { name: 'Finalize' }).click();
    await desk.getByRole('heading', { name: /Arrival cupping\s+finalized/ }).waitFor();
    assert.equal(await desk.locator('[data-identity]').count(), 2, 'the identities are revealed');
    assert.match(await desk.locator('[data-coffee]', { hasText: 'GL-001' }).innerText(), /Mean\s+\d+\.\d+[\s\S]*Spread \(σ\)\s+\d/, 'mean and spread shown');
    await look(desk.url().split('#')[1]!, 'cupping-results', '[data-result]');
    await look('/quality/cupping', 'cupping', 'table[data-list="cupping-sessions"] tbody tr');

    // Grading: a wet lot fails with its reasons and is quarantined; the lot shows it and offers no reserve; released with a reason.
    await go('/quality/grading');
    const grading = desk.locator('form[data-form="grading"]');
    await grading.getByLabel('Green lot').selectOption({ label: 'GL-001 Gerba natural' });
    await grading.getByLabel('Standard').selectOption('sca');
    await grading.getByLabel('Moisture (%)').fill('14.5');
    await grading.getByRole('button', { name: 'Record' }).click();
    await grading.locator('[data-error-for="waterActivity"]').waitFor();
    await grading.getByLabel(/Water activity/).fill('0.62');
    await grading.getByLabel('Primary defects').fill('0');
    await grading.getByLabel('Secondary defects').fill('3');
    await grading.getByRole('button', { name: 'Record' }).click();
    await desk.locator('[data-grading-result="fail"]').waitFor();
    assert.ok((await desk.locator('[data-grading-result] [data-passed="false"]').count()) >= 1, 'the failing checks are listed');
    await look('/quality/grading', 'grading', 'table[data-list="gradings"] tbody tr');
    await look('/quality/quarantine', 'quarantine', 'table[data-list="quarantined-lots"] tbody tr');
    await go('/lots');
    await desk.getByRole('link', { name: 'GL-001' }).click();
    await desk.locator('[data-quarantine]').waitFor();
    assert.equal(await desk.getByRole('group', { name: 'Lot actions' }).getByRole('button', { name: 'Reserve' }).count(), 0, 'a quarantined lot is offered no reserve');
    await axe(desk, 'a quarantined lot');
    await shoot(desk, 'lot-quarantined-1280');
    await desk.getByRole('button', { name: 'Release from quarantine' }).click();
    await desk.locator('form[data-form="release"]').getByLabel(/Why/).fill('re-dried, measured 11.2 %');
    await desk.locator('form[data-form="release"]').getByRole('button', { name: 'Release' }).click();
    await desk.locator('[data-quarantine]').waitFor({ state: 'detached' });
    await desk.getByRole('group', { name: 'Lot actions' }).getByRole('button', { name: 'Reserve' }).waitFor();

    // Sourcing: a partner, a contract with a line, confirmed, a shipment booked and received line by line into a lot.
    await go('/catalog/partners');
    await desk.getByRole('button', { name: 'New partner' }).click();
    const newPartner = desk.locator('form[data-form="new-partners"]');
    await newPartner.getByLabel('Name', { exact: true }).fill('Addis Exporters');
    await newPartner.getByLabel('Code', { exact: true }).fill('ADDIS');
    await newPartner.getByLabel(/Types/).selectOption(['exporter']);
    await newPartner.getByRole('button', { name: 'Create' }).click();
    await desk.locator('table[data-list="partners"] tr', { hasText: 'ADDIS' }).waitFor();
    await go('/sourcing/contracts/new');
    const newContract = desk.locator('form[data-form="new-contract"]');
    await newContract.getByLabel('Partner (seller)').selectOption({ label: 'Addis Exporters (ADDIS)' });
    await newContract.getByLabel('Contract number').fill('C-2026-1');
    await newContract.getByLabel('Currency').fill('USD');
    await newContract.getByLabel('Origin').fill('Ethiopia Guji');
    await newContract.getByLabel(/Weight \(kg\)/).fill('1200');
    await newContract.getByRole('button', { name: 'Create contract' }).click();
    await newContract.locator('[data-error-for="lines.0.pricePerKg"]').waitFor();
    await newContract.getByLabel('Price per kg').fill('7.40');
    await newContract.getByRole('button', { name: 'Create contract' }).click();
    await desk.getByRole('heading', { name: /C-2026-1\s+draft/ }).waitFor();
    await desk.getByRole('button', { name: 'Mark pending' }).click();
    await desk.getByRole('button', { name: 'Mark confirmed' }).click();
    await desk.getByRole('heading', { name: /C-2026-1\s+confirmed/ }).waitFor();
    await desk.getByRole('button', { name: 'Add a milestone' }).click();
    const milestone = desk.locator('form[data-form="new-milestone"]');
    await milestone.getByLabel('Kind').selectOption('vessel_arrival');
    await milestone.getByLabel('Due on').fill('2026-12-20');
    await milestone.getByRole('button', { name: 'Add' }).click();
    await desk.locator('[data-milestone="vessel_arrival"]').waitFor();
    await desk.getByRole('button', { name: 'Book a shipment' }).click();
    const shipment = desk.locator('form[data-form="new-shipment"]');
    await shipment.getByLabel(/Reference/).fill('BL-77');
    await shipment.getByLabel(/Weight/).fill('1200');
    await shipment.getByRole('button', { name: 'Book' }).click();
    await desk.getByRole('button', { name: 'Receive BL-77' }).click();
    const receive = desk.locator('form[data-form="receive-BL-77"]');
    await receive.getByLabel('Into location').selectOption({ label: 'Roastery (RST)' });
    await receive.getByLabel(/Line 1 .*lot code/).fill('GUJI-77');
    await receive.getByLabel(/Weight received/).fill('1195.5');
    await receive.getByRole('button', { name: 'Receive' }).click();
    await desk.locator('[data-shipment="BL-77"][data-status="received"]').waitFor();
    assert.match(await desk.locator('table[data-list="contract-lines"] tr[data-line="1"] [data-received]').innerText(), /1,?195\.5 kg/, 'the line shows what was received');
    await look(desk.url().split('#')[1]!, 'contract', '[data-shipment="BL-77"]');
    await look('/sourcing/contracts', 'contracts', 'table[data-list="contracts"] tbody tr');
    await look('/sourcing/positions', 'positions', 'table[data-list="positions"]');
    await look('/sourcing/samples', 'samples', 'table[data-list="samples"]');

    // Inventory: a packaging material received, a bill of materials for the product, its explosion; a blend and its availability.
    await go('/inventory/materials');
    await desk.getByRole('button', { name: 'New material' }).click();
    const newMaterial = desk.locator('form[data-form="new-materials"]');
    await newMaterial.getByLabel('Name', { exact: true }).fill('1 kg valve bag');
    await newMaterial.getByLabel('SKU').fill('BAG-1K');
    await newMaterial.getByLabel('Kind').selectOption('bag');
    await newMaterial.getByRole('button', { name: 'Create' }).click();
    const bagRow = desk.locator('table[data-list="materials"] tr', { hasText: 'BAG-1K' });
    await bagRow.getByRole('button', { name: /adjust BAG-1K/i }).click();
    const adjust = desk.locator('form[data-form="adjust-BAG-1K"]');
    await adjust.getByLabel('Reason').selectOption('receive');
    await adjust.getByLabel(/Change/).fill('500');
    await adjust.getByRole('button', { name: 'Save' }).click();
    await desk.locator('table[data-list="materials"] [data-on-hand="500.000"]').waitFor();
    await look('/inventory/materials', 'materials', 'table[data-list="materials"] tbody tr');
    await go('/inventory/bom');
    await desk.getByLabel('Product').selectOption({ label: 'House espresso 1 kg (HOUSE-1K)' });
    const bom = desk.locator('form[data-form="bom"]');
    await bom.getByLabel(/Line 1: material/).selectOption({ label: 'BAG-1K 1 kg valve bag' });
    await bom.getByLabel('Quantity').fill('1');
    await bom.getByRole('button', { name: 'Publish' }).click();
    await desk.locator('[data-bom-version="1"]').waitFor();
    const explode = desk.locator('form[data-form="explode"]');
    await explode.getByLabel('Products planned').fill('600');
    await explode.getByRole('button', { name: 'Explode' }).click();
    await desk.locator('[data-explosion="short"] tr[data-short="true"]').waitFor();
    await axe(desk, 'the bill of materials');
    await shoot(desk, 'bom-1280');
    await go('/inventory/blends');
    await desk.getByRole('button', { name: 'New blend' }).click();
    const newBlend = desk.locator('form[data-form="new-blend"]');
    await newBlend.getByLabel('Name', { exact: true }).fill('House espresso');
    await newBlend.getByLabel('Code', { exact: true }).fill('HOUSE');
    await newBlend.getByLabel(/Component 1: lot/).selectOption({ label: 'GL-001 Gerba natural' });
    await newBlend.getByLabel(/Component 2: lot/).selectOption({ label: 'GUJI-77 Ethiopia Guji' }).catch(async () => {
      const options = await newBlend.getByLabel(/Component 2: lot/).locator('option').allInnerTexts();
      await newBlend.getByLabel(/Component 2: lot/).selectOption({ label: options.find((o) => o.startsWith('GUJI-77'))! });
    });
    await newBlend.getByLabel('Share (%)').nth(0).fill('60');
    await newBlend.getByLabel('Share (%)').nth(1).fill('30');
    await newBlend.getByRole('button', { name: 'Create blend' }).click();
    await newBlend.locator('[role="alert"]').first().waitFor();
    assert.match(await newBlend.innerText(), /add up to exactly 100/, 'the ratios that do not add up are refused');
    await newBlend.getByLabel('Share (%)').nth(1).fill('40');
    await newBlend.getByRole('button', { name: 'Create blend' }).click();
    const blendRow = desk.locator('table[data-list="blends"] tr', { hasText: 'HOUSE' });
    await blendRow.getByLabel(/Check/).fill('10');
    await blendRow.getByRole('button', { name: 'Check' }).click();
    await blendRow.locator('[data-availability="available"]').waitFor();
    await look('/inventory/blends', 'blends', 'table[data-list="blends"] tbody tr');

    // Production: a profile, then a draft schedule generated from the order's demand, released.
    await go('/production/profiles');
    await desk.getByRole('button', { name: 'New profile' }).click();
    const newProfile = desk.locator('form[data-form="new-profiles"]');
    await newProfile.getByLabel('Name', { exact: true }).fill('Espresso medium');
    await newProfile.getByLabel('Code', { exact: true }).fill('ESP-M');
    await newProfile.getByLabel(/Drop temperature/).fill('212.5');
    await newProfile.getByRole('button', { name: 'Create' }).click();
    await desk.locator('table[data-list="profiles"] tr', { hasText: '212.5 °C' }).waitFor();
    await look('/production/profiles', 'profiles', 'table[data-list="profiles"] tbody tr');
    await go('/production/schedule');
    const generate = desk.locator('form[data-form="generate-schedule"]');
    await generate.getByLabel('Name', { exact: true }).fill('Monday');
    await generate.getByLabel('Roast on').fill('2026-12-07');
    await generate.getByRole('button', { name: 'Generate' }).click();
    await desk.getByRole('heading', { name: /Monday\s+draft/ }).waitFor();
    await look(desk.url().split('#')[1]!, 'schedule', 'table[data-list="scheduled-batches"]');
    await desk.getByRole('button', { name: 'Release to production' }).click();
    await desk.getByRole('heading', { name: /Monday\s+released/ }).waitFor();
    await look('/production/schedule', 'schedule-demand', 'form[data-form="generate-schedule"]');

    // Cafe: a site and its espresso machine, then the live bar moves as the machine posts its shots.
    await go('/cafe/sites');
    await desk.getByRole('button', { name: 'New site' }).click();
    const newSite = desk.locator('form[data-form="new-sites"]');
    await newSite.getByLabel('Name', { exact: true }).fill('Hafen bar');
    await newSite.getByLabel('Code', { exact: true }).fill('HAFEN-BAR');
    await newSite.getByLabel(/Time zone/).fill('Europe/Berlin');
    await newSite.getByRole('button', { name: 'Create' }).click();
    await desk.locator('table[data-list="sites"] tr', { hasText: 'HAFEN-BAR' }).waitFor();
    await go('/cafe/machines');
    await desk.getByRole('button', { name: 'New bar machine' }).click();
    const newBarMachine = desk.locator('form[data-form="new-bar-machines"]');
    await newBarMachine.locator('select[name="siteId"]').selectOption({ label: 'Hafen bar' });
    await newBarMachine.getByLabel('Name', { exact: true }).fill('Linea PB');
    await newBarMachine.getByLabel('Code', { exact: true }).fill('LINEA');
    await newBarMachine.locator('select[name="kind"]').selectOption('espresso_machine');
    await newBarMachine.getByLabel('Group heads').fill('2');
    await newBarMachine.getByRole('button', { name: 'Create' }).click();
    const barRow = desk.locator('table[data-list="bar-machines"] tr', { hasText: 'LINEA' });
    await barRow.getByRole('button', { name: 'Issue token' }).click();
    const barToken = (await barRow.locator('[data-bar-token] code').innerText()).trim();
    const barMachineId = (await barRow.getAttribute('data-id'))!;
    await look('/cafe/machines', 'cafe-machines', 'table[data-list="bar-machines"] tbody tr');
    await look('/cafe/sites', 'cafe-sites', 'table[data-list="sites"] tbody tr');
    await go('/cafe/live');
    await desk.locator('[data-live-bar]').waitFor();
    await desk.waitForFunction(() => (window as any).__firstcrackBar?.reads >= 1);
    assert.equal(await desk.locator('[data-head]').count(), 2, 'both group heads are listed, idle');
    const good = Array.from({ length: 3 }, () => shot({ group: 1 }));
    const posted = await postShots(server.url, barToken, barMachineId, { shots: good });
    assert.equal(posted.status, 202, JSON.stringify(posted.body));
    await desk.locator('[data-head="LINEA-1"][data-shots="3"]').waitFor();
    const bad = Array.from({ length: 5 }, () => shot({ group: 2, durationS: 9, yieldG: 60 }));
    assert.equal((await postShots(server.url, barToken, barMachineId, { shots: bad })).status, 202);
    await desk.locator('[data-head="LINEA-2"][data-failing="true"]').waitFor();
    await look(desk.url().split('#')[1]!, 'cafe-live', '[data-head="LINEA-2"][data-failing="true"]');
    await look(`/cafe/performance`, 'cafe-performance', 'svg.perf-chart');
    await go('/cafe/reconciliations');
    const reconcile = desk.locator('form[data-form="reconcile"]');
    await reconcile.locator('select[name="siteId"]').selectOption({ label: 'Hafen bar' });
    await reconcile.getByLabel('Business day').fill(new Date().toISOString().slice(0, 10));
    await reconcile.getByRole('button', { name: 'Reconcile' }).click();
    await desk.locator('table[data-list="reconciliations"] tbody tr').first().waitFor();
    await look('/cafe/reconciliations', 'cafe-reconciliations', 'table[data-list="reconciliations"] tbody tr');

    // Webhooks: an endpoint whose secret is shown once, rotated (a new one shown once); deliveries; the event feed.
    await go('/webhooks/endpoints');
    await desk.getByRole('button', { name: 'New endpoint' }).click();
    const newEndpoint = desk.locator('form[data-form="new-endpoint"]');
    await newEndpoint.getByLabel(/URL/).fill('https://hooks.example.com/firstcrack');
    await newEndpoint.getByRole('button', { name: 'Create' }).click();
    const shown = desk.locator('[data-secret] code');
    await shown.waitFor();
    const first = await shown.innerText();
    assert.match(first, /^whsec_/, 'the signing secret is shown at creation');
    await desk.getByRole('button', { name: 'Rotate secret' }).click();
    await desk.waitForFunction((before) => document.querySelector('[data-secret] code')?.textContent !== before, first);
    await desk.reload();
    await desk.locator('table[data-list="endpoints"] tbody tr').waitFor();
    assert.equal(await desk.locator('[data-secret]').count(), 0, 'the secret is not shown again');
    await look('/webhooks/endpoints', 'webhooks', 'table[data-list="endpoints"] tbody tr');
    await look('/webhooks/deliveries', 'webhook-deliveries', '[data-list="deliveries"], .data-list p.muted');
    await look('/webhooks/events', 'webhook-events', 'table[data-list="events"] tbody tr');

    // A viewer sees the catalog and no button that would be refused.
    const viewer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(viewer, server.url, 'viewer@example.com');
    await viewer.goto(`${server.url}/app/#/catalog/machines`);
    await viewer.locator('table[data-list="machines"] tbody tr').first().waitFor();
    assert.equal(await viewer.getByRole('button', { name: /New machine|Edit|Issue bridge token|Deactivate/ }).count(), 0, 'a viewer is offered no write');

    assert.deepEqual(pageErrors, [], 'no errors in the pages');
  } catch (error) {
    // What the page showed when it failed, beside the screenshots.
    if (SHOTS) await desk.screenshot({ path: join(SHOTS, 'failure.png'), fullPage: true }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
});
