import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { check as checkGeoJson } from '@placemarkio/check-geojson';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startTestServer, type TestOrg } from '../../testing/harness.js';
import { assertProblem } from '../../testing/problems.js';
import { importLot } from '../inventory/green/testing.js';
import { makeCustomer } from '../orders/testing.js';
import { lotCode, makeContract, makeShipment } from '../sourcing/contract/testing.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { roastLot } from '../orders/testing.js';
import { buildChain, makeProducer, shipFromLot, type Chain } from './testing.js';

// GS1's own EPCIS 2.0 JSON schema, kept beside the repository (../shared/standards/epcis/SOURCES.md).
const schema = JSON.parse(readFileSync(new URL('../../../../shared/standards/epcis/EPCIS-JSON-Schema.json', import.meta.url), 'utf8'));
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const validateEpcis = ajv.compile(schema);

function assertValidEpcis(document: unknown): void {
  const valid = validateEpcis(document);
  assert.ok(valid, `EPCIS document breaks GS1's schema: ${JSON.stringify(validateEpcis.errors?.slice(0, 5))}`);
}

/** The rules the EU information system applies to a statement's geolocation, and a GeoJSON validator's. */
function assertFileable(geolocation: any): void {
  assert.doesNotThrow(() => checkGeoJson(JSON.stringify(geolocation)), 'a valid GeoJSON FeatureCollection');
  assert.equal(geolocation.type, 'FeatureCollection');
  assert.ok(Buffer.byteLength(JSON.stringify(geolocation)) < 25 * 1024 * 1024, 'within 25 MB');
  for (const feature of geolocation.features) {
    const { ProducerName, ProducerCountry, ProductionPlace, Area } = feature.properties;
    assert.ok(typeof ProducerName === 'string' && ProducerName.length > 0, 'ProducerName');
    assert.match(ProducerCountry, /^[A-Z]{2}$/, 'ProducerCountry is ISO 3166-1 alpha-2');
    assert.ok(typeof ProductionPlace === 'string' && ProductionPlace.length > 0, 'ProductionPlace');
    const positions = feature.geometry.type === 'Point' ? [feature.geometry.coordinates] : feature.geometry.coordinates[0];
    if (feature.geometry.type === 'Point') assert.ok(typeof Area === 'number' && Area <= 4, 'a point carries its Area, at most 4 ha');
    else {
      assert.ok(positions.length >= 4, 'a ring of at least four positions');
      assert.deepEqual(positions[0], positions.at(-1), 'a closed ring');
    }
    for (const [lon, lat] of positions) assert.ok(Math.abs(lon) <= 180 && Math.abs(lat) <= 90, 'longitude, latitude in range');
    assert.ok(positions.some((p: number[]) => p.some((c) => (String(c).split('.')[1] ?? '').length >= 6)), 'six decimals');
  }
}

const server = await startTestServer();
const org = await server.createOrg();
const chain: Chain = await buildChain(org);

const call = async (caller: TestOrg, operation: string, input: Record<string, unknown>, status = 200) => {
  const res = await caller.call(operation, input);
  assert.equal(res.status, status, `${operation}: ${JSON.stringify(res.body)}`);
  return res.body;
};

// A 36 ha square near Bensa (600 m a side), a 2 ha point, and Huila's 9 ha polygon.
const square = (lon: number, lat: number, d: number) => [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]];
const gerbaHill = await call(org, 'catalog.party.createPlot', {
  producerId: chain.gerba.id, name: 'Gerba hill', areaHa: 36, geometry: { type: 'Polygon', coordinates: square(38.738612, 6.560413, 0.005423) },
});
const gerbaGarden = await call(org, 'catalog.party.createPlot', {
  producerId: chain.gerba.id, name: 'Garden', areaHa: 2, geometry: { type: 'Point', coordinates: [38.741235, 6.571118] },
});
const huilaSlope = await call(org, 'catalog.party.createPlot', {
  producerId: chain.huila.id, name: 'La Esperanza slope', areaHa: 9.5, geometry: { type: 'Polygon', coordinates: square(-75.998812, 2.012345, 0.002705) },
});
// Only the hill grew GL-1; Finca La Esperanza declared nothing, so its producer stands for all its plots.
await call(org, 'inventory.green.declareOrigin', {
  subject: { kind: 'green_lot', id: chain.ethiopia.id }, plotIds: [gerbaHill.id], upstreamStatements: [{ referenceNumber: '25ETCQ1A2B3C4', verificationNumber: 'VX9K2LQM' }],
});

// A blend of both roasts, ordered in bags of a blend product: blended and packed as it ships (orders.fulfillOrder).
const espresso = await makeCustomer(org, { name: 'Espresso Bar Ost' });
const houseBlend = await call(org, 'inventory.blend.createBlend', {
  name: 'House', code: `HB${Date.now()}`, blendType: 'post_roast', roastLevel: 'medium',
  components: [{ greenLotId: chain.ethiopia.id, ratioPct: '50' }, { greenLotId: chain.blendBase.id, ratioPct: '50' }],
});
const houseBag = await call(org, 'catalog.product.createProduct', { sku: `HOUSE-${Date.now()}`, name: 'House 500 g', format: 'whole_bean', blendId: houseBlend.id, netWeightKg: '0.500' });
const blendLine = (await shipFromLot(org, { productId: houseBag.id, quantityUnits: 2 }, espresso.id)).lineId;

const plotNames = (statement: any) => statement.geolocation.features.map((f: any) => f.properties.ProductionPlace).sort();

test('plots are checked as the EU information system reads them, each rule a 400 naming the plot and the rule', async () => {
  assert.equal(gerbaHill.computedAreaHa > 35 && gerbaHill.computedAreaHa < 37, true, `turf measures the hill: ${gerbaHill.computedAreaHa}`);
  assert.deepEqual(gerbaHill.warnings, []);
  assert.deepEqual(huilaSlope.warnings, [], 'a stated 9.5 ha against about 9.05 computed is within 10 %');
  const elsewhere = await makeProducer(org, { name: 'Finca Medida', code: `FM${Date.now()}`, country: 'CO' });
  const misstated = await call(org, 'catalog.party.createPlot', {
    producerId: elsewhere.id, name: 'Misstated', areaHa: 20, geometry: { type: 'Polygon', coordinates: square(-75.998812, 2.012345, 0.005423) },
  });
  assert.deepEqual(misstated.warnings.map((w: any) => w.rule), ['area_mismatch'], 'kept, with a warning');
  const refused = async (name: string, geometry: unknown, areaHa: number, rule: string, path: string) => {
    const res = await org.call('catalog.party.createPlot', { producerId: chain.gerba.id, name, areaHa, geometry });
    assertProblem(res, 400, 'invalid_input', path);
    assert.match(res.body.detail, new RegExp(`Plot "${name}" breaks the rule ${rule}`));
  };
  await refused('Big point', { type: 'Point', coordinates: [38.741235, 6.571118] }, 5, 'point_area', 'geometry.type');
  await refused('Open ring', { type: 'Polygon', coordinates: [square(38.7386, 6.5604, 0.005)[0].slice(0, 4).concat([[38.738612, 6.565999]])] }, 25, 'ring_closed', 'geometry.coordinates[0][4]');
  await refused('Bow tie', { type: 'Polygon', coordinates: [[[38.738612, 6.560413], [38.748612, 6.570413], [38.748612, 6.560413], [38.738612, 6.570413], [38.738612, 6.560413]]] }, 50, 'self_intersection', 'geometry.coordinates[0]');
  await refused('Triangle line', { type: 'Polygon', coordinates: [[[38.738612, 6.560413], [38.748612, 6.570413], [38.738612, 6.560413]]] }, 5, 'ring_positions', 'geometry.coordinates[0]');
  await refused('Rounded', { type: 'Polygon', coordinates: [[[38.7386, 6.5604], [38.7436, 6.5604], [38.7436, 6.5654], [38.7386, 6.5654], [38.7386, 6.5604]]] }, 30, 'precision', 'geometry.coordinates');
  await refused('Swapped', { type: 'Point', coordinates: [6.571118, 138.741235] }, 1, 'coordinate_range', 'geometry.coordinates');
  const listed = await org.call('catalog.party.listPlots', { filter: { producerId: chain.gerba.id } }, { method: 'GET' });
  assert.deepEqual(listed.body.items.map((p: any) => p.name).sort(), ['Garden', 'Gerba hill'], 'refused plots were not written');
});

test('plots follow the coffee through a split, a merge, roasts, a blend and orders: each order line knows its plots', async () => {
  const statement = (id: string) => call(org, 'traceability.getDueDiligenceStatement', { kind: 'order_line', id });
  const nord = await statement(chain.nordShipment.lineId);
  assert.deepEqual(plotNames(nord), ['Gerba hill'], 'Café Nord’s coffee is GL-1’s, declared on the hill alone');
  const sued = await statement(chain.suedShipment.lineId);
  assert.deepEqual(plotNames(sued), ['Gerba hill', 'La Esperanza slope'], 'the split of GL-1 merged with GL-2: both origins');
  const blend = await statement(blendLine);
  assert.deepEqual(plotNames(blend), ['Gerba hill', 'La Esperanza slope'], 'the blend of both roasts');
  for (const s of [nord, sued, blend]) {
    assertFileable(s.geolocation);
    assert.equal(s.activityType, 'domestic');
    assert.equal(s.commodity.hsSubheading, '090121');
    assert.deepEqual(s.gaps, []);
    assert.equal(s.complete, true);
  }
  assert.equal(nord.netMassKg, '5.000');
  assert.deepEqual(sued.countriesOfProduction, ['CO', 'ET']);
  assert.deepEqual(sued.upstreamStatements, [{ referenceNumber: '25ETCQ1A2B3C4', verificationNumber: 'VX9K2LQM' }], 'the upstream statement travels with the coffee');
  assert.equal(nord.operator.recorded, false);
  // The roasted lot's chain (and so a certificate) carries the same derivation.
  const traced = await org.call('inventory.roast.getRoastedLotTraceability', { id: chain.secondRoast.roastedLotId }, { method: 'GET' });
  assert.deepEqual(traced.body.origin.plots.map((p: any) => p.name).sort(), ['Gerba hill', 'La Esperanza slope']);
  assert.deepEqual(traced.body.origin.sources.map((s: any) => [s.lotCode, s.via]).sort(), [[chain.colombia.lotCode, 'producer'], [chain.ethiopia.lotCode, 'green_lot']].sort());
});

test('coffee whose plots are unknown is a gap, never silently left out', async () => {
  const unknown = await importLot(org, { lotCode: `GL-X-${Date.now()}`, name: 'Unknown origin', weightKg: '20' });
  const nameless = await makeProducer(org, { name: 'Farm without plots', code: `NP${Date.now()}`, country: 'BR' });
  const fromNameless = await importLot(org, { lotCode: `GL-Y-${Date.now()}`, name: 'No plots', weightKg: '20', producerId: nameless.id });
  const a = await call(org, 'traceability.getDueDiligenceStatement', { kind: 'green_lot', id: unknown.id });
  assert.deepEqual(a.gaps.map((g: any) => [g.reason, g.greenLotId]), [['unknown_origin', unknown.id]]);
  assert.equal(a.complete, false);
  assert.equal(a.activityType, 'import');
  assert.equal(a.netMassKg, '20.000');
  const b = await call(org, 'traceability.getDueDiligenceStatement', { kind: 'green_lot', id: fromNameless.id });
  assert.deepEqual(b.gaps.map((g: any) => [g.reason, g.producerId]), [['producer_without_plots', nameless.id]]);
  assertFileable(b.geolocation);
});

test('a received shipment’s statement takes its declaration and upstream numbers; one not received is refused', async () => {
  const contract = await makeContract(org);
  const shipment = await makeShipment(org, contract.id, '1000');
  assertProblem(await org.call('traceability.getDueDiligenceStatement', { kind: 'shipment', id: shipment.id }, { method: 'GET' }), 409, 'state_mismatch', 'id');
  await call(org, 'inventory.green.declareOrigin', {
    subject: { kind: 'shipment', id: shipment.id }, producerIds: [chain.gerba.id], upstreamStatements: [{ referenceNumber: '25DEIMP000123' }],
  });
  const [guji, huila] = contract.lines;
  await call(org, 'sourcing.contract.receiveContractShipment', {
    shipmentId: shipment.id,
    lines: [{ contractLineId: guji.id, lotCode: lotCode(), weightKg: '598.4' }, { contractLineId: huila.id, lotCode: lotCode(), weightKg: '400' }],
  });
  const s = await call(org, 'traceability.getDueDiligenceStatement', { kind: 'shipment', id: shipment.id });
  assert.equal(s.netMassKg, '998.400');
  assert.deepEqual(plotNames(s), ['Garden', 'Gerba hill'], 'the shipment names the producer: all its plots');
  assert.deepEqual(s.upstreamStatements, [{ referenceNumber: '25DEIMP000123', verificationNumber: null }]);
  assertFileable(s.geolocation);
  assert.equal(s.commodity.hsSubheading, '090111');
});

test('origin per contract line: a receipt carries its line’s plots into the lot, a contract’s declaration stays the default; blends and packing at shipment carry them to each order line', async () => {
  const dock = await makeLocation(org, `DOCK${Date.now().toString(36).slice(-5)}`);
  const contract = await makeContract(org);
  const [guji, huila] = contract.lines;
  // The Guji line names its plot; the contract names a producer for its other lines.
  const declared = await call(org, 'inventory.green.declareOrigin', { subject: { kind: 'contract_line', id: guji.id }, plotIds: [gerbaGarden.id] });
  assert.deepEqual(declared.subject, { kind: 'contract_line', id: guji.id });
  await call(org, 'inventory.green.declareOrigin', { subject: { kind: 'contract', id: contract.id }, producerIds: [chain.huila.id] });
  const shipment = await makeShipment(org, contract.id, '1000');
  // A receipt line naming a plot not of the organization is refused, naming it, with nothing received.
  const elsewhere = await server.createOrg();
  const theirs = await call(elsewhere, 'catalog.party.createPlot', {
    producerId: (await makeProducer(elsewhere, { name: 'Theirs', code: `TH${Date.now()}`, country: 'KE' })).id, name: 'Their plot', areaHa: 1, geometry: { type: 'Point', coordinates: [36.812345, -1.281234] },
  });
  assertProblem(await org.call('sourcing.contract.receiveContractShipment', {
    shipmentId: shipment.id, lines: [{ contractLineId: huila.id, lotCode: lotCode(), weightKg: '100', plotIds: [theirs.id] }],
  }), 404, 'not_found', 'lines[0].plotIds[0]');
  const receipt = await call(org, 'sourcing.contract.receiveContractShipment', {
    shipmentId: shipment.id,
    locationId: dock,
    lines: [
      { contractLineId: guji.id, lotCode: lotCode(), weightKg: '300' },
      { contractLineId: huila.id, lotCode: lotCode(), weightKg: '200' },
      { contractLineId: huila.id, lotCode: lotCode(), weightKg: '100', plotIds: [gerbaHill.id] },
    ],
  });
  const [lotA, lotB, lotC] = receipt.lots;
  const statement = (kind: string, id: string) => call(org, 'traceability.getDueDiligenceStatement', { kind, id });
  assert.deepEqual(plotNames(await statement('green_lot', lotA.id)), ['Garden'], 'the Guji line’s plot');
  assert.deepEqual(plotNames(await statement('green_lot', lotB.id)), ['La Esperanza slope'], 'a line naming none: the contract’s producer');
  assert.deepEqual(plotNames(await statement('green_lot', lotC.id)), ['Gerba hill'], 'what the receipt line named');
  assert.deepEqual(plotNames(await statement('shipment', shipment.id)), ['Garden', 'Gerba hill', 'La Esperanza slope']);
  const declaredC = await call(org, 'inventory.green.getOriginDeclaration', { kind: 'green_lot', id: lotC.id });
  assert.deepEqual(declaredC.plotIds, [gerbaHill.id]);

  // A split of A, B merged into it, roasted; C roasted; a lot nobody named the origin of, roasted.
  const split = await call(org, 'inventory.green.splitGreenLot', { id: lotA.id, weightKg: '100', newLotCode: lotCode(), newName: 'A split' });
  await call(org, 'inventory.green.mergeGreenLots', { targetId: split.child.id, sourceIds: [lotB.id] });
  const unknown = await importLot(org, { lotCode: `GL-U-${Date.now()}`, name: 'Unknown origin', weightKg: '50' });
  await roastLot(org, { kg: '10', greenLotId: split.child.id });
  await roastLot(org, { kg: '10', greenLotId: lotC.id });
  await roastLot(org, { kg: '10', greenLotId: unknown.id });
  const blendOf = async (a: string, b: string) => {
    const blend = await call(org, 'inventory.blend.createBlend', {
      name: 'Blend', code: `BL${Date.now()}${a.slice(-4)}`, blendType: 'post_roast', roastLevel: 'dark', components: [{ greenLotId: a, ratioPct: '50' }, { greenLotId: b, ratioPct: '50' }],
    });
    return call(org, 'catalog.product.createProduct', { sku: `SKU-${Date.now()}-${a.slice(-4)}`, name: 'Blend 1 kg', format: 'whole_bean', blendId: blend.id, netWeightKg: '1.000' });
  };
  const first = await shipFromLot(org, { productId: (await blendOf(split.child.id, lotC.id)).id, quantityKg: '4' }, espresso.id);
  const second = await shipFromLot(org, { productId: (await blendOf(lotC.id, unknown.id)).id, quantityUnits: 2 }, espresso.id);

  // The first order line: blended, not packed (ordered by weight); the second blended and packed into bags.
  const kindsOf = async (lineId: string) => new Set((await call(org, 'traceability.traceBackward', { kind: 'order_line', id: lineId })).nodes.map((n: any) => n.kind));
  const firstKinds = await kindsOf(first.lineId);
  assert.ok(firstKinds.has('blend_lot') && !firstKinds.has('product_batch'), [...firstKinds].join());
  const secondKinds = await kindsOf(second.lineId);
  assert.ok(secondKinds.has('blend_lot') && secondKinds.has('product_batch'), [...secondKinds].join());

  const one = await statement('order_line', first.lineId);
  assert.deepEqual(plotNames(one), ['Garden', 'Gerba hill', 'La Esperanza slope'], 'the split of A (its line’s plot) merged with B (the contract’s producer), blended with C');
  assert.deepEqual(one.gaps, []);
  assert.equal(one.netMassKg, '4.000');
  assertFileable(one.geolocation);
  const two = await statement('order_line', second.lineId);
  assert.deepEqual(plotNames(two), ['Gerba hill'], 'C’s plot');
  assert.deepEqual(two.gaps.map((g: any) => [g.reason, g.greenLotId]), [['unknown_origin', unknown.id]], 'the unknown lot is a gap');
  assert.equal(two.complete, false);
  assertFileable(two.geolocation);

  // EPCIS of the packed line: commissioning at the dock it was received at, the blend, the packing, the shipment.
  const epcis = await call(org, 'traceability.exportEpcis', { direction: 'backward', kind: 'order_line', id: second.lineId });
  assertValidEpcis(epcis);
  const events = epcis.epcisBody.eventList;
  const commissioningC = events.find((e: any) => e.bizStep === 'commissioning' && e.type === 'ObjectEvent' && e.quantityList[0].epcClass.endsWith(lotC.id));
  assert.ok(commissioningC.bizLocation.id.endsWith(`/location/${dock}`), commissioningC.bizLocation.id);
  assert.equal(commissioningC.readPoint.id, commissioningC.bizLocation.id);
  assert.equal(events.filter((e: any) => e.type === 'TransformationEvent' && e.transformationID.includes('/blend-lot/')).length, 1, 'the blend');
  const packing = events.filter((e: any) => e.type === 'AggregationEvent' && e.bizStep === 'packing');
  assert.equal(packing.length, 1, 'the packing');
  assert.deepEqual(packing[0].childQuantityList.map((q: any) => q.quantity), [2]);
  const roastOfC = events.find((e: any) => e.type === 'TransformationEvent' && e.transformationID.includes('/roast-batch/') && e.inputQuantityList.some((q: any) => q.epcClass.endsWith(lotC.id)));
  assert.ok(roastOfC.bizLocation.id.endsWith(`/location/${dock}`), 'roasted where its green was kept');
  for (const e of events) assert.ok(e.bizLocation.id.endsWith(`/location/${dock}`) || e.bizLocation.id.endsWith('/site'), `${e.type} ${e.bizStep} at ${e.bizLocation.id}`);
  assert.ok(events.filter((e: any) => e.bizStep === 'shipping').every((e: any) => e.bizLocation.id.endsWith(`/location/${dock}`)), 'shipped from where the roasted coffee was kept');
  const forward = await call(org, 'traceability.exportEpcis', { direction: 'forward', kind: 'green_lot', id: lotA.id });
  assertValidEpcis(forward);

  // Another organization sees none of it.
  assertProblem(await elsewhere.call('traceability.getDueDiligenceStatement', { kind: 'order_line', id: second.lineId }, { method: 'GET' }), 404, 'not_found', 'id');
  assertProblem(await elsewhere.call('inventory.green.declareOrigin', { subject: { kind: 'contract_line', id: guji.id }, plotIds: [] }), 404, 'not_found', 'subject.id');
  assertProblem(await elsewhere.call('traceability.exportEpcis', { direction: 'backward', kind: 'order_line', id: first.lineId }, { method: 'GET' }), 404, 'not_found', 'id');
});

test('EPCIS exports validate against GS1’s schema, with commissioning, roasts, blend, packing and shipping', async () => {
  const back = await call(org, 'traceability.exportEpcis', { direction: 'backward', kind: 'order_line', id: blendLine });
  assertValidEpcis(back);
  const events = back.epcisBody.eventList;
  const of = (type: string, bizStep: string) => events.filter((e: any) => e.type === type && e.bizStep === bizStep);
  assert.equal(of('ObjectEvent', 'commissioning').length, 2, 'GL-1 and GL-2 entered the organization');
  assert.ok(of('TransformationEvent', 'repackaging').length >= 1, 'the split and the merge');
  assert.equal(events.filter((e: any) => e.type === 'TransformationEvent' && e.transformationID.includes('/roast-batch/')).length, 2, 'two roasts');
  assert.equal(events.filter((e: any) => e.type === 'TransformationEvent' && e.transformationID.includes('/blend-lot/')).length, 1, 'the blend');
  assert.equal(of('AggregationEvent', 'packing').length, 1);
  assert.equal(of('ObjectEvent', 'shipping').length, 1);
  for (const e of events) {
    assert.match(e.eventTimeZoneOffset, /^[+-]\d{2}:\d{2}$/, 'an offset');
    assert.ok(e.readPoint?.id && e.bizLocation?.id, 'read point and business location');
  }
  const gl1 = of('ObjectEvent', 'commissioning').find((e: any) => e.quantityList[0].epcClass.endsWith(chain.ethiopia.id));
  assert.deepEqual(gl1.ilmd['fc:plots'].map((p: any) => p.name), ['Gerba hill']);
  assert.equal(gl1.ilmd['cbvmda:countryOfOrigin'], 'ET');
  const roast = events.find((e: any) => e.transformationID?.endsWith(chain.secondRoast.batchId));
  assert.deepEqual(roast.inputQuantityList.map((q: any) => [q.quantity, q.uom]), [[10, 'KGM']]);

  const forward = await call(org, 'traceability.exportEpcis', { direction: 'forward', kind: 'green_lot', id: chain.ethiopia.id });
  assertValidEpcis(forward);
  assert.equal(forward.epcisBody.eventList.filter((e: any) => e.bizStep === 'shipping').length, 3, 'three fulfilments downstream of GL-1');

  // With a GS1 Company Prefix and GTINs, lots become GS1 Digital Link URIs and the site a GLN.
  assertProblem(await org.call('catalog.party.setOperatorIdentity', { name: 'Rösterei Firstcrack GmbH', country: 'DE', gs1CompanyPrefix: '4012345', gtins: { green_lot: '04012345000011' } }), 400, 'invalid_input', 'gtins.green_lot');
  await call(org, 'catalog.party.setOperatorIdentity', {
    name: 'Rösterei Firstcrack GmbH', country: 'DE', eori: 'DE123456789012345', gs1CompanyPrefix: '4012345', gtins: { green_lot: '04012345000016', roasted_lot: '04012345000023' },
  });
  const gs1 = await call(org, 'traceability.exportEpcis', { direction: 'backward', kind: 'roasted_lot', id: chain.firstRoast.roastedLotId });
  assertValidEpcis(gs1);
  const classes = gs1.epcisBody.eventList.flatMap((e: any) => [...(e.quantityList ?? []), ...(e.inputQuantityList ?? []), ...(e.outputQuantityList ?? [])].map((q: any) => q.epcClass));
  assert.ok(classes.includes(`https://id.gs1.org/01/04012345000016/10/${encodeURIComponent(chain.ethiopia.lotCode)}`), `GL-1 as an LGTIN: ${classes}`);
  assert.ok(classes.includes(`https://id.gs1.org/01/04012345000023/10/${encodeURIComponent(chain.firstRoast.lotCode)}`), 'the roasted lot as an LGTIN');
  assert.equal(gs1.epcisBody.eventList[0].bizLocation.id, 'https://id.gs1.org/414/4012345000009');
  const statement = await call(org, 'traceability.getDueDiligenceStatement', { kind: 'order_line', id: chain.nordShipment.lineId });
  assert.deepEqual(statement.operator, { name: 'Rösterei Firstcrack GmbH', country: 'DE', eori: 'DE123456789012345', gs1CompanyPrefix: '4012345', gtins: { green_lot: '04012345000016', roasted_lot: '04012345000023' }, recorded: true });
});

test('the certificate page draws the plots as an SVG map and links its EPCIS document, which validates', async () => {
  const certificate = await call(org, 'traceability.issueCertificate', { roastedLotId: chain.secondRoast.roastedLotId });
  const page = await fetch(`${server.url}${certificate.publicPath}`);
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.match(html, /<svg class="map"[^>]*>.*<path d="M[^"]+Z"/s, 'polygons drawn');
  assert.match(html, /La Esperanza slope/);
  assert.ok(html.includes(`${certificate.publicPath}/epcis.jsonld`), 'links the EPCIS document');
  const epcis = await fetch(`${server.url}${certificate.publicPath}/epcis.jsonld`);
  assert.equal(epcis.status, 200, await epcis.clone().text());
  assert.match(epcis.headers.get('content-type') ?? '', /application\/ld\+json/);
  const document = await epcis.json();
  assertValidEpcis(document);
  assert.ok(!JSON.stringify(document).includes('/customer/'), 'no customer in the public document');
});

test('another organization’s plots, lots, lines and declarations are 404', async () => {
  const other = await server.createOrg();
  assertProblem(await other.call('catalog.party.getPlot', { id: gerbaHill.id }, { method: 'GET' }), 404, 'not_found', 'id');
  assertProblem(await other.call('traceability.getDueDiligenceStatement', { kind: 'order_line', id: blendLine }, { method: 'GET' }), 404, 'not_found', 'id');
  assertProblem(await other.call('traceability.exportEpcis', { direction: 'backward', kind: 'green_lot', id: chain.ethiopia.id }, { method: 'GET' }), 404, 'not_found', 'id');
  assertProblem(await other.call('inventory.green.getOriginDeclaration', { kind: 'green_lot', id: chain.ethiopia.id }, { method: 'GET' }), 404, 'not_found', 'id');
  const otherProducer = await makeProducer(other, { name: 'Elsewhere', code: `EL${Date.now()}` });
  assertProblem(await other.call('catalog.party.createPlot', { producerId: chain.gerba.id, name: 'Stolen', areaHa: 1, geometry: { type: 'Point', coordinates: [38.741235, 6.571118] } }), 404, 'not_found', 'producerId');
  assertProblem(await other.call('inventory.green.declareOrigin', { subject: { kind: 'green_lot', id: chain.ethiopia.id }, plotIds: [] }), 404, 'not_found', 'subject.id');
  const lot = await importLot(other, { lotCode: `GL-O-${Date.now()}`, name: 'Theirs', weightKg: '5', producerId: otherProducer.id });
  assertProblem(await other.call('inventory.green.declareOrigin', { subject: { kind: 'green_lot', id: lot.id }, plotIds: [gerbaHill.id] }), 404, 'not_found', 'plotIds[0]');
});
