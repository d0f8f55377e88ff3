import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import QRCode from 'qrcode';
import { startTestServer } from '../../testing/harness.js';
import { importLot } from '../inventory/green/testing.js';
import { confirmedOrder, makeCustomer, roastLot } from '../orders/testing.js';
import { certificatePageSurfaces } from './public-page.js';
import { mountSurfaces, type SurfaceDeps } from '../../http/surface.js';
import { openRateLimiterFactory } from '../../ratelimit/limiter.js';
import { buildChain, shipFromLot, type Chain } from './testing.js';
import { assertProblem } from '../../testing/problems.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Firstcrack Rösterei');
const chain: Chain = await buildChain(org);

async function eventsOf(type: string) {
  return server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
}

async function issue(input: Record<string, unknown>) {
  const res = await org.call('traceability.issueCertificate', input);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

test('issueCertificate freezes the roasted lot’s chain with the order line and shipment, and mints a 128-bit public token', async () => {
  const lot = chain.firstRoast.roastedLotId;
  const certificate = await issue({ roastedLotId: lot, orderLineId: chain.nordShipment.lineId, fulfillmentId: chain.nordShipment.fulfillmentId });
  assert.match(certificate.id, /^cert_[0-9a-z]{26}$/);
  assert.match(certificate.token, /^[A-Za-z0-9_-]{22}$/);
  assert.equal(Buffer.from(certificate.token, 'base64url').length, 16);
  assert.equal(certificate.publicPath, `/c/${certificate.token}`);
  assert.equal(certificate.qrSvgPath, `/c/${certificate.token}/qr.svg`);
  assert.equal(certificate.qrPngPath, `/c/${certificate.token}/qr.png`);
  assert.deepEqual([certificate.roastedLotId, certificate.orderLineId, certificate.fulfillmentId], [lot, chain.nordShipment.lineId, chain.nordShipment.fulfillmentId]);

  const current = (await org.call('inventory.roast.getRoastedLotTraceability', { id: lot })).body;
  const { orderLine, fulfillment, issuedAt, epcisIdentity, ...frozenChain } = certificate.snapshot;
  // How its EPCIS document names things, frozen with it.
  assert.deepEqual(epcisIdentity, { publicUrl: 'https://firstcrack.invalid', organizationId: org.id, gs1CompanyPrefix: null, gtins: {}, timeZone: 'UTC' });
  // The chain as it is now, less the lot's `expired`, which depends on the day it is read.
  const { expired, ...lotAsIssued } = current.roastedLot;
  assert.equal(expired, false);
  assert.deepEqual(frozenChain, { ...current, roastedLot: lotAsIssued });
  assert.equal(issuedAt, certificate.issuedAt);
  assert.deepEqual(orderLine, {
    id: chain.nordShipment.lineId, orderId: chain.nordShipment.order.id, orderNumber: chain.nordShipment.order.orderNumber, lineNumber: 1,
    customer: { id: chain.nord.id, code: chain.nord.code, name: 'Café Nord' },
  });
  assert.deepEqual(fulfillment, { id: chain.nordShipment.fulfillmentId, orderId: chain.nordShipment.order.id, shippedAt: chain.nordShipment.order.fulfilledAt });

  const events = await eventsOf('traceability.certificate.issued');
  const { snapshot: _snapshot, ...announced } = certificate;
  assert.deepEqual(events.at(-1)!.data.certificate, announced);
  // Each certificate gets its own token.
  const again = await issue({ roastedLotId: lot });
  assert.notEqual(again.token, certificate.token);
  assert.equal(again.orderLineId, null);
});

test('a certificate stays as issued when merges, splits and consumption change the chain below it', async () => {
  const lot = chain.firstRoast.roastedLotId;
  const certificate = await issue({ roastedLotId: lot });
  // Later: another coffee is merged into the green lot the roast came from, the lot is split again and
  // roasted again, and the roasted lot ships more coffee.
  const late = await importLot(org, { name: 'Late arrival', weightKg: '20' });
  assert.equal((await org.call('inventory.green.mergeGreenLots', { targetId: chain.ethiopia.id, sourceIds: [late.id] })).status, 200);
  assert.equal((await org.call('inventory.green.splitGreenLot', { id: chain.ethiopia.id, weightKg: '5', newLotCode: `SPLIT-${Date.now()}` })).status, 200);
  await roastLot(org, { kg: '4', greenLotId: chain.ethiopia.id });
  await shipFromLot(org, { roastedLotId: lot, quantityKg: '2' }, chain.nord.id);

  const now = (await org.call('inventory.roast.getRoastedLotTraceability', { id: lot })).body;
  assert.ok(now.greenLots.some((g: any) => g.id === late.id), 'the live chain shows the merged lot');
  assert.equal(now.roastedLot.onHandKg, '3.000');
  const stored = await org.call('traceability.listCertificates', { filter: { roastedLotId: lot } }, { method: 'GET' });
  const same = stored.body.items.find((c: any) => c.id === certificate.id);
  assert.deepEqual(same, certificate);
  assert.ok(!same.snapshot.greenLots.some((g: any) => g.id === late.id), 'the stored certificate keeps the chain as issued, without the merged lot');
  assert.equal(same.snapshot.roastedLot.onHandKg, '5.000');
  // The public page shows the frozen chain too.
  const page = await (await server.request(certificate.publicPath)).text();
  assert.ok(!page.includes('Late arrival'), 'the public page does not show the lot merged later');
  // Certificates are append-only for the service role.
  if (server.kind === 'postgres') {
    await assert.rejects(
      server.app.databases.service.transaction((tx) => tx.query(`update certificates set snapshot = '{}' where id = $1`, [certificate.id]), { orgId: org.id }),
      /permission denied/,
    );
  }
});

test('issueCertificate refuses order lines and shipments that take nothing from the lot, and unknown references', async () => {
  const lot = chain.firstRoast.roastedLotId;
  const before = (await eventsOf('traceability.certificate.issued')).length;
  const refusals: [Record<string, unknown>, number, string, string][] = [
    [{ roastedLotId: lot, orderLineId: chain.suedShipment.lineId }, 409, 'not_in_chain', 'orderLineId'],
    [{ roastedLotId: lot, fulfillmentId: chain.suedShipment.fulfillmentId }, 409, 'not_in_chain', 'fulfillmentId'],
    [{ roastedLotId: chain.secondRoast.roastedLotId, orderLineId: chain.suedShipment.lineId, fulfillmentId: chain.nordShipment.fulfillmentId }, 409, 'not_in_chain', 'fulfillmentId'],
    [{ roastedLotId: 'rl_0000000000000000000000000a' }, 404, 'not_found', 'roastedLotId'],
    [{ roastedLotId: lot, orderLineId: 'sol_00000000000000000000000000' }, 404, 'not_found', 'orderLineId'],
    [{ roastedLotId: lot, fulfillmentId: 'ful_00000000000000000000000000' }, 404, 'not_found', 'fulfillmentId'],
    [{ roastedLotId: lot, token: 'mine' }, 400, 'invalid_input', 'token'],
  ];
  for (const [input, status, code, path] of refusals) {
    assertProblem(await org.call('traceability.issueCertificate', input), status, code, path);
  }
  assert.equal((await eventsOf('traceability.certificate.issued')).length, before);
  // A line that holds a claim on the lot (not yet shipped) draws on it.
  const pending = await confirmedOrder(org, [{ roastedLotId: chain.secondRoast.roastedLotId, quantityKg: '1' }], { customerId: (await makeCustomer(org)).id });
  assert.equal((await org.call('orders.allocateOrder', { id: pending.id })).body.complete, true);
  assert.equal((await org.call('traceability.issueCertificate', { roastedLotId: chain.secondRoast.roastedLotId, orderLineId: pending.lines[0].id })).status, 200);
});

test('listCertificates filters by roasted lot and issue day, newest first, with stable pages', async () => {
  const other = await server.createOrg();
  const lotA = await roastLot(other, { kg: '3' });
  const lotB = await roastLot(other, { kg: '3' });
  const first = (await other.call('traceability.issueCertificate', { roastedLotId: lotA.roastedLotId })).body;
  const second = (await other.call('traceability.issueCertificate', { roastedLotId: lotB.roastedLotId })).body;
  const third = (await other.call('traceability.issueCertificate', { roastedLotId: lotA.roastedLotId })).body;
  const ids = async (input: Record<string, unknown>) => {
    const res = await other.call('traceability.listCertificates', input, { method: 'GET' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((c: any) => c.id);
  };
  assert.deepEqual(await ids({}), [third.id, second.id, first.id]);
  assert.deepEqual(await ids({ filter: { roastedLotId: lotA.roastedLotId } }), [third.id, first.id]);
  const today = new Date().toISOString().slice(0, 10);
  assert.deepEqual(await ids({ filter: { issuedFrom: today, issuedTo: today } }), [third.id, second.id, first.id]);
  assert.deepEqual(await ids({ filter: { issuedTo: '2000-01-01' } }), []);
  assert.deepEqual(await ids({ filter: { issuedFrom: '2999-01-01' } }), []);
  const page = await other.call('traceability.listCertificates', { page: { limit: 2 } });
  const rest = await other.call('traceability.listCertificates', { page: { limit: 2, cursor: page.body.nextCursor } });
  assert.deepEqual([...page.body.items, ...rest.body.items].map((c: any) => c.id), [third.id, second.id, first.id]);
  assertProblem(await other.call('traceability.listCertificates', { filter: { token: third.token } }), 400, 'invalid_input', 'filter.token');
});

test('the public page shows the coffee’s journey without a credential, with its QR code as SVG and PNG', async () => {
  const certificate = await issue({ roastedLotId: chain.secondRoast.roastedLotId, orderLineId: chain.suedShipment.lineId });
  const res = await server.request(certificate.publicPath);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  const html = await res.text();
  const roastDay = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(certificate.snapshot.roastedLot.roastedAt));
  for (const text of [
    'Firstcrack Rösterei', 'Gerba Cooperative', 'Bensa, Sidama, Ethiopia', '1900–2200 m above sea level', 'washed', '74110, Heirloom',
    'Finca La Esperanza', 'Huila, Colombia', 'Ethiopia Gerba', 'Colombia Huila', chain.secondRoast.lotCode, roastDay,
    'https://www.openstreetmap.org/?mlat=6.5604&amp;mlon=38.7386', `src="/c/${certificate.token}/qr.svg"`,
  ]) {
    assert.ok(html.includes(text), `the page shows ${text}`);
  }
  assert.ok(!/<script|https?:\/\/(?!www\.openstreetmap\.org)/.test(html), 'no script and no external asset');
  assert.ok(!html.includes('Rösterei Süd'), 'the customer is not published');

  const svg = await server.request(certificate.qrSvgPath);
  assert.equal(svg.status, 200);
  assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
  // The code encodes the page's own address.
  const expected = await QRCode.toString(`${server.url}${certificate.publicPath}`, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  assert.equal(await svg.text(), expected);
  const png = await server.request(certificate.qrPngPath);
  assert.equal(png.headers.get('content-type'), 'image/png');
  assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).slice(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

test('an unknown or malformed token gets one plain 404 page that reveals nothing', async () => {
  const certificate = await issue({ roastedLotId: chain.firstRoast.roastedLotId });
  const unknown = certificate.token.slice(0, -2) + (certificate.token.endsWith('AA') ? 'BB' : 'AA');
  const answers = await Promise.all(
    [`/c/${unknown}`, '/c/short', `/c/${certificate.token}x`, `/c/${unknown}/qr.svg`, `/c/${encodeURIComponent('<script>')}/qr.png`].map(async (path) => {
      const res = await server.request(path);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    }),
  );
  for (const answer of answers) {
    assert.deepEqual(answer, answers[0]);
    assert.equal(answer.status, 404);
    assert.match(answer.type!, /^text\/html/);
  }
  assert.ok(answers[0].body.includes('Certificate not found'), 'the 404 page says the certificate is not found');
  assert.ok(!answers[0].body.includes(unknown), 'the 404 page does not echo the token');
});

test('the public page is rate limited per client address', async () => {
  const app = Fastify();
  const limiters = await openRateLimiterFactory();
  const limiter = limiters.limiter('public', [{ name: 'burst', points: 3, seconds: 60 }]);
  await mountSurfaces(app, certificatePageSurfaces, { deps: { db: server.app.databases.service } as SurfaceDeps, resolvers: [], authenticators: {}, limiter: () => limiter });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await app.inject({ method: 'GET', url: '/c/unknown-token', remoteAddress: '203.0.113.7' })).statusCode);
  assert.deepEqual(statuses, [404, 404, 404, 429]);
  const limited = await app.inject({ method: 'GET', url: '/c/unknown-token', remoteAddress: '203.0.113.7' });
  assert.ok(Number(limited.headers['retry-after']) > 0, `a 429 says when to retry: ${limited.headers['retry-after']}`);
  // Another address has its own budget.
  assert.equal((await app.inject({ method: 'GET', url: '/c/unknown-token', remoteAddress: '198.51.100.1' })).statusCode, 404);
  await app.close();
  await limiters.close();
});

test('the token lookup crosses organizations only through the SECURITY DEFINER function (server mode)', async (t) => {
  if (server.kind !== 'postgres') return t.skip('row-level security is enforced by the PostgreSQL server');
  const certificate = await issue({ roastedLotId: chain.firstRoast.roastedLotId });
  const service = server.app.databases.service;
  assert.deepEqual(await service.query(`select id from certificates where token = $1`, [certificate.token]), []);
  const [found] = await service.query<{ id: string; organization_name: string }>(`select id, organization_name from firstcrack_certificate_by_token($1)`, [certificate.token]);
  assert.deepEqual(found, { id: certificate.id, organization_name: 'Firstcrack Rösterei' });
});
