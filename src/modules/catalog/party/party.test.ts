import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../../testing/harness.js';

const server = await startTestServer();
const org = await server.createOrg('starter', 'Party roastery');
const other = await server.createOrg('starter', 'Other roastery');

const rowCount = async (table: 'partners' | 'producers' | 'events', orgId = org.id) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [orgId]))[0].n;

const lastEvent = async (type: string) =>
  (await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id desc limit 1`, [org.id, type]))[0]?.data;

async function createPartner(input: Record<string, unknown>, as: TestOrg = org) {
  const res = await as.call('catalog.party.createPartner', input);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function createProducer(input: Record<string, unknown>, as: TestOrg = org) {
  const res = await as.call('catalog.party.createProducer', input);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Asserts a refusal and that it wrote nothing (no row, no event). */
async function refused(operation: string, input: unknown, status: number, code: string, path?: string) {
  const before = await Promise.all([rowCount('partners'), rowCount('producers'), rowCount('events')]);
  const res = await org.call(operation, input);
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code);
  if (path !== undefined) assert.ok(res.body.errors.some((e: { path: string }) => e.path === path), JSON.stringify(res.body.errors));
  assert.deepEqual(await Promise.all([rowCount('partners'), rowCount('producers'), rowCount('events')]), before);
  return res.body;
}

/** Every page of a list, following nextCursor. */
async function allPages(operation: string, filter: Record<string, unknown>, limit: number) {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await org.call(operation, { filter, page: { limit, ...(cursor ? { cursor } : {}) } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.items.length <= limit, `a page holds at most ${limit} items, not ${res.body.items.length}`);
    ids.push(...res.body.items.map((i: { id: string }) => i.id));
    cursor = res.body.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

describe('partners', () => {
  test('createPartner answers the partner, getPartner reads it back, and an event records it', async () => {
    const partner = await createPartner({
      name: 'Nordic Green Importers',
      code: 'NGI',
      types: ['importer', 'warehouse'],
      country: 'SE',
      defaultCurrency: 'EUR',
      paymentTermsDays: 30,
      contactEmail: 'trade@ngi.example',
      contactPhone: '+46 8 123 45',
      website: 'https://ngi.example',
      notes: 'Bonded warehouse in Gothenburg',
    });
    assert.match(partner.id, /^ptn_[0-9a-z]+$/);
    assert.deepEqual({ ...partner, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined,
      code: 'NGI',
      name: 'Nordic Green Importers',
      types: ['importer', 'warehouse'],
      country: 'SE',
      defaultCurrency: 'EUR',
      paymentTermsDays: 30,
      contactEmail: 'trade@ngi.example',
      contactPhone: '+46 8 123 45',
      website: 'https://ngi.example',
      notes: 'Bonded warehouse in Gothenburg',
      isActive: true,
      createdAt: undefined,
      updatedAt: undefined,
    });
    assert.match(partner.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await org.call('catalog.party.getPartner', { id: partner.id });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, partner);
    const viaGet = await org.call('catalog.party.getPartner', { id: partner.id }, { method: 'GET' });
    assert.deepEqual(viaGet.body, partner);
    assert.deepEqual((await lastEvent('catalog.party.partner_created')).partner, partner);
  });

  test('types must be a non-empty list of the specification’s values, each at most once', async () => {
    const base = { name: 'Typed', code: 'TYPED' };
    await refused('catalog.party.createPartner', { ...base, types: [] }, 400, 'invalid_input', 'types');
    await refused('catalog.party.createPartner', { ...base, types: ['importer', 'importer'] }, 400, 'invalid_input', 'types');
    await refused('catalog.party.createPartner', { ...base, types: ['importer', 'roaster'] }, 400, 'invalid_input', 'types[1]');
    await refused('catalog.party.createPartner', { ...base, types: 'importer' }, 400, 'invalid_input', 'types');
    await refused('catalog.party.createPartner', base, 400, 'invalid_input', 'types');
    const all = ['supplier', 'importer', 'exporter', 'cooperative', 'producer', 'mill', 'broker', 'warehouse', 'customer'];
    assert.deepEqual((await createPartner({ ...base, types: all })).types, all);
  });

  test('other fields are validated and unknown fields refused', async () => {
    const base = { name: 'Checked', code: 'CHECKED', types: ['broker'] };
    await refused('catalog.party.createPartner', { ...base, country: 'Sweden' }, 400, 'invalid_input', 'country');
    await refused('catalog.party.createPartner', { ...base, defaultCurrency: 'eur' }, 400, 'invalid_input', 'defaultCurrency');
    await refused('catalog.party.createPartner', { ...base, paymentTermsDays: 30.5 }, 400, 'invalid_input', 'paymentTermsDays');
    await refused('catalog.party.createPartner', { ...base, paymentTermsDays: -1 }, 400, 'invalid_input', 'paymentTermsDays');
    await refused('catalog.party.createPartner', { ...base, contactEmail: 'not-an-email' }, 400, 'invalid_input', 'contactEmail');
    await refused('catalog.party.createPartner', { ...base, website: 'ftp://files.example' }, 400, 'invalid_input', 'website');
    await refused('catalog.party.createPartner', { ...base, isActive: false }, 400, 'invalid_input', 'isActive');
    await refused('catalog.party.createPartner', { ...base, name: ' ' }, 400, 'invalid_input', 'name');
  });

  test('a partner code is unique within the organization and free in another one', async () => {
    await createPartner({ name: 'First', code: 'DUP-PTN', types: ['supplier'] });
    const problem = await refused('catalog.party.createPartner', { name: 'Second', code: 'DUP-PTN', types: ['customer'] }, 409, 'duplicate', 'code');
    assert.match(problem.detail, /code/);
    await createPartner({ name: 'Elsewhere', code: 'DUP-PTN', types: ['supplier'] }, other);
  });

  test('updatePartner changes what it is given, clears with null, and keeps the code', async () => {
    const partner = await createPartner({ name: 'Old name', code: 'UPD-PTN', types: ['supplier'], country: 'CO', notes: 'n' });
    const res = await org.call('catalog.party.updatePartner', {
      id: partner.id,
      name: 'New name',
      types: ['supplier', 'exporter'],
      country: null,
      paymentTermsDays: 60,
      isActive: false,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.name, 'New name');
    assert.deepEqual(res.body.types, ['supplier', 'exporter']);
    assert.equal(res.body.country, null);
    assert.equal(res.body.paymentTermsDays, 60);
    assert.equal(res.body.notes, 'n', 'an omitted field stays as it was');
    assert.equal(res.body.isActive, false);
    assert.equal(res.body.code, 'UPD-PTN');
    assert.ok(res.body.updatedAt >= partner.updatedAt, `updatedAt does not go back: ${partner.updatedAt}, then ${res.body.updatedAt}`);
    assert.deepEqual((await lastEvent('catalog.party.partner_updated')).partner, res.body);

    await refused('catalog.party.updatePartner', { id: partner.id, code: 'OTHER' }, 400, 'invalid_input', 'code');
    await refused('catalog.party.updatePartner', { id: partner.id, types: [] }, 400, 'invalid_input', 'types');
    await refused('catalog.party.updatePartner', { id: partner.id, types: null }, 400, 'invalid_input', 'types');
    await refused('catalog.party.updatePartner', { id: 'ptn_doesnotexist0000', name: 'x' }, 404, 'not_found', 'id');
    assert.deepEqual((await org.call('catalog.party.getPartner', { id: partner.id })).body, res.body, 'refusals changed nothing');
  });

  test('listPartners filters by type held, isActive, country and text, and rejects unknown filters', async () => {
    const tag = 'LSTP';
    const roaster = await createPartner({ name: `${tag} Ethiopian exporter`, code: `${tag}-1`, types: ['exporter', 'mill'], country: 'ET' });
    const coop = await createPartner({ name: `${tag} Union`, code: `${tag}-2`, types: ['cooperative', 'exporter'], country: 'PE' });
    const buyer = await createPartner({ name: `${tag} Cafe chain`, code: `${tag}-3`, types: ['customer'], country: 'ET' });
    await org.call('catalog.party.updatePartner', { id: buyer.id, isActive: false });
    const ids = async (filter: Record<string, unknown>) => {
      const res = await org.call('catalog.party.listPartners', { filter: { q: tag, ...filter } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items.map((p: { id: string }) => p.id);
    };
    assert.deepEqual(await ids({}), [roaster.id, coop.id, buyer.id], 'oldest first');
    assert.deepEqual(await ids({ type: 'exporter' }), [roaster.id, coop.id], 'matches partners holding the type among others');
    assert.deepEqual(await ids({ type: 'mill' }), [roaster.id]);
    assert.deepEqual(await ids({ type: 'broker' }), []);
    assert.deepEqual(await ids({ isActive: false }), [buyer.id]);
    assert.deepEqual(await ids({ isActive: true, country: 'ET' }), [roaster.id]);
    assert.deepEqual(await ids({ q: 'union' }), [coop.id], 'case-insensitive search in the name');
    assert.deepEqual(await ids({ q: `${tag}-3` }), [buyer.id], 'search in the code');
    assert.deepEqual(await ids({ q: `${tag}%` }), [], 'LIKE wildcards are literal');

    const get = await org.call('catalog.party.listPartners', { filter: { q: tag, type: 'exporter' } }, { method: 'GET' });
    assert.deepEqual(get.body.items.map((p: { id: string }) => p.id), [roaster.id, coop.id]);
    await refused('catalog.party.listPartners', { filter: { kind: 'exporter' } }, 400, 'invalid_input', 'filter.kind');
    await refused('catalog.party.listPartners', { filter: { type: 'roaster' } }, 400, 'invalid_input', 'filter.type');
    await refused('catalog.party.listPartners', { filter: { types: ['exporter'] } }, 400, 'invalid_input', 'filter.types');
  });

  test('listPartners pages with cursors in a stable order', async () => {
    for (let i = 0; i < 5; i++) await createPartner({ name: `Paged partner ${i}`, code: `PGP-${i}`, types: ['broker'] });
    const everything = await allPages('catalog.party.listPartners', { q: 'Paged partner' }, 50);
    assert.equal(everything.length, 5);
    assert.deepEqual(await allPages('catalog.party.listPartners', { q: 'Paged partner' }, 2), everything);
    assert.deepEqual([...everything].sort(), everything, 'ordered by id');
    await refused('catalog.party.listPartners', { page: { cursor: 'garbage' } }, 400, 'invalid_cursor', 'page.cursor');
    await refused('catalog.party.listPartners', { page: { limit: 201 } }, 400, 'invalid_input', 'page.limit');
  });
});

describe('producers', () => {
  test('createProducer keeps geolocation to six decimals as JSON numbers and links a partner', async () => {
    const partner = await createPartner({ name: 'Huila growers', code: 'HUILA', types: ['cooperative'] });
    const producer = await createProducer({
      name: 'Finca El Paraíso',
      code: 'FEP',
      kind: 'farm',
      partnerId: partner.id,
      country: 'CO',
      region: 'Cauca',
      subregion: 'Piendamó',
      altitudeMinM: 1850,
      altitudeMaxM: 1950,
      latitude: 2.640123,
      longitude: -76.528456,
      varieties: ['Castillo', 'Geisha'],
      processMethods: ['thermal shock washed'],
      farmSizeHa: 12.5,
    });
    assert.match(producer.id, /^pdr_[0-9a-z]+$/);
    assert.equal(producer.partnerId, partner.id);
    assert.equal(producer.latitude, 2.640123);
    assert.equal(producer.longitude, -76.528456);
    assert.equal(producer.altitudeMinM, 1850);
    assert.equal(producer.altitudeMaxM, 1950);
    assert.deepEqual(producer.varieties, ['Castillo', 'Geisha']);
    assert.deepEqual(producer.processMethods, ['thermal shock washed']);
    assert.equal(producer.farmSizeHa, 12.5);
    assert.equal(producer.isActive, true);
    assert.deepEqual((await org.call('catalog.party.getProducer', { id: producer.id })).body, producer);
    assert.deepEqual((await lastEvent('catalog.party.producer_created')).producer, producer);
    const [stored] = await server.owner.query<{ latitude: string; longitude: string }>(
      `select latitude::text, longitude::text from producers where org_id = $1 and id = $2`,
      [org.id, producer.id],
    );
    assert.deepEqual(stored, { latitude: '2.640123', longitude: '-76.528456' });

    const minimal = await createProducer({ name: 'Smallholders of Gedeb', code: 'GEDEB', kind: 'smallholder_group' });
    assert.equal(minimal.partnerId, null);
    assert.equal(minimal.latitude, null);
    assert.deepEqual(minimal.varieties, []);
    assert.equal(minimal.farmSizeHa, null);
  });

  test('coordinates at the poles and the antimeridian are kept; finer input is rounded to six decimals', async () => {
    const edge = await createProducer({ name: 'Edge', code: 'EDGE', kind: 'estate', latitude: -90, longitude: 180 });
    assert.equal(edge.latitude, -90);
    assert.equal(edge.longitude, 180);
    const fine = await createProducer({ name: 'Fine', code: 'FINE', kind: 'estate', latitude: 9.12345678, longitude: -0.0000004 });
    assert.equal(fine.latitude, 9.123457);
    assert.equal(fine.longitude, 0);
  });

  test('geolocation and altitude outside their ranges are refused, naming the field', async () => {
    const base = { name: 'Out of range', code: 'OOR', kind: 'farm' };
    await refused('catalog.party.createProducer', { ...base, latitude: 90.5 }, 400, 'invalid_input', 'latitude');
    await refused('catalog.party.createProducer', { ...base, latitude: -91 }, 400, 'invalid_input', 'latitude');
    await refused('catalog.party.createProducer', { ...base, longitude: -180.1 }, 400, 'invalid_input', 'longitude');
    await refused('catalog.party.createProducer', { ...base, longitude: '12.5' }, 400, 'invalid_input', 'longitude');
    await refused('catalog.party.createProducer', { ...base, altitudeMinM: 1200.5 }, 400, 'invalid_input', 'altitudeMinM');
    await refused('catalog.party.createProducer', { ...base, altitudeMinM: 2000, altitudeMaxM: 1800 }, 400, 'invalid_input', 'altitudeMinM');
    await refused('catalog.party.createProducer', { ...base, kind: 'plantation' }, 400, 'invalid_input', 'kind');
    await refused('catalog.party.createProducer', { ...base, farmSizeHa: -2 }, 400, 'invalid_input', 'farmSizeHa');
    await refused('catalog.party.createProducer', { ...base, varieties: 'Bourbon' }, 400, 'invalid_input', 'varieties');
    const level = await createProducer({ ...base, altitudeMinM: 1800, altitudeMaxM: 1800 });
    assert.equal(level.altitudeMaxM, 1800, 'equal bounds are a range');
  });

  test('partnerId must name a partner of this organization', async () => {
    const base = { name: 'Linked', code: 'LINKED', kind: 'farm' };
    await refused('catalog.party.createProducer', { ...base, partnerId: 'ptn_doesnotexist0000' }, 404, 'not_found', 'partnerId');
    const foreign = await createPartner({ name: 'Theirs', code: 'THEIRS', types: ['importer'] }, other);
    await refused('catalog.party.createProducer', { ...base, partnerId: foreign.id }, 404, 'not_found', 'partnerId');
    await refused('catalog.party.createProducer', { ...base, partnerId: 'not an id' }, 400, 'invalid_input', 'partnerId');

    const producer = await createProducer(base);
    await refused('catalog.party.updateProducer', { id: producer.id, partnerId: foreign.id }, 404, 'not_found', 'partnerId');
    const mine = await createPartner({ name: 'Mine', code: 'MINE-PTN', types: ['exporter'] });
    const linked = await org.call('catalog.party.updateProducer', { id: producer.id, partnerId: mine.id });
    assert.equal(linked.body.partnerId, mine.id);
    const unlinked = await org.call('catalog.party.updateProducer', { id: producer.id, partnerId: null });
    assert.equal(unlinked.body.partnerId, null);
  });

  test('a producer code is unique within the organization and free in another one', async () => {
    await createProducer({ name: 'Farm A', code: 'DUP-PDR', kind: 'farm' });
    await refused('catalog.party.createProducer', { name: 'Farm B', code: 'DUP-PDR', kind: 'estate' }, 409, 'duplicate', 'code');
    await createProducer({ name: 'Farm A', code: 'DUP-PDR', kind: 'farm' }, other);
  });

  test('updateProducer checks the altitude range against the stored bound when only one changes', async () => {
    const producer = await createProducer({ name: 'Highland', code: 'HIGH', kind: 'estate', altitudeMinM: 1600, altitudeMaxM: 1900 });
    await refused('catalog.party.updateProducer', { id: producer.id, altitudeMaxM: 1500 }, 400, 'invalid_input', 'altitudeMaxM');
    await refused('catalog.party.updateProducer', { id: producer.id, altitudeMinM: 2000 }, 400, 'invalid_input', 'altitudeMinM');
    await refused('catalog.party.updateProducer', { id: producer.id, altitudeMinM: 2100, altitudeMaxM: 2000 }, 400, 'invalid_input', 'altitudeMinM');
    assert.deepEqual((await org.call('catalog.party.getProducer', { id: producer.id })).body, producer, 'refusals changed nothing');

    const moved = await org.call('catalog.party.updateProducer', { id: producer.id, altitudeMinM: 2000, altitudeMaxM: 2200 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const opened = await org.call('catalog.party.updateProducer', { id: producer.id, altitudeMaxM: null });
    assert.equal(opened.body.altitudeMaxM, null);
    const lowered = await org.call('catalog.party.updateProducer', { id: producer.id, altitudeMinM: 2500 });
    assert.equal(lowered.status, 200, 'no upper bound, nothing to exceed');
    assert.equal(lowered.body.altitudeMinM, 2500);
  });

  test('updateProducer changes what it is given, clears with null and records an event', async () => {
    const producer = await createProducer({
      name: 'Washing station Kochere', code: 'KOCH', kind: 'washing_station', region: 'Yirgacheffe', latitude: 6.1, varieties: ['74110'],
    });
    const res = await org.call('catalog.party.updateProducer', {
      id: producer.id,
      kind: 'cooperative',
      region: null,
      latitude: -6.000001,
      longitude: 38.2,
      varieties: [],
      processMethods: ['natural', 'washed'],
      farmSizeHa: '40.125',
      isActive: false,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.kind, 'cooperative');
    assert.equal(res.body.region, null);
    assert.equal(res.body.latitude, -6.000001);
    assert.equal(res.body.longitude, 38.2);
    assert.deepEqual(res.body.varieties, []);
    assert.deepEqual(res.body.processMethods, ['natural', 'washed']);
    assert.equal(res.body.farmSizeHa, 40.125);
    assert.equal(res.body.isActive, false);
    assert.equal(res.body.name, producer.name);
    assert.equal(res.body.code, 'KOCH');
    assert.deepEqual((await lastEvent('catalog.party.producer_updated')).producer, res.body);
    await refused('catalog.party.updateProducer', { id: producer.id, code: 'NEW' }, 400, 'invalid_input', 'code');
    await refused('catalog.party.updateProducer', { id: producer.id, latitude: 120 }, 400, 'invalid_input', 'latitude');
    await refused('catalog.party.updateProducer', { id: 'pdr_doesnotexist0000', name: 'x' }, 404, 'not_found', 'id');
    assert.equal((await org.call('catalog.party.getProducer', { id: 'pdr_doesnotexist0000' })).status, 404);
  });

  test('listProducers filters by kind, country, partner, isActive and text, and pages with cursors', async () => {
    const tag = 'LSTF';
    const partner = await createPartner({ name: `${tag} partner`, code: `${tag}-P`, types: ['cooperative'] });
    const farm = await createProducer({ name: `${tag} Farm Alto`, code: `${tag}-1`, kind: 'farm', country: 'HN', region: 'Marcala' });
    const coop = await createProducer({ name: `${tag} Coop`, code: `${tag}-2`, kind: 'cooperative', country: 'HN', partnerId: partner.id });
    const estate = await createProducer({ name: `${tag} Estate`, code: `${tag}-3`, kind: 'estate', country: 'GT', partnerId: partner.id });
    await org.call('catalog.party.updateProducer', { id: estate.id, isActive: false });
    const ids = async (filter: Record<string, unknown>) => {
      const res = await org.call('catalog.party.listProducers', { filter: { q: tag, ...filter } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items.map((p: { id: string }) => p.id);
    };
    assert.deepEqual(await ids({}), [farm.id, coop.id, estate.id]);
    assert.deepEqual(await ids({ kind: 'cooperative' }), [coop.id]);
    assert.deepEqual(await ids({ country: 'HN' }), [farm.id, coop.id]);
    assert.deepEqual(await ids({ partnerId: partner.id }), [coop.id, estate.id]);
    assert.deepEqual(await ids({ partnerId: partner.id, isActive: true }), [coop.id]);
    assert.deepEqual(await ids({ isActive: false }), [estate.id]);
    const byRegion = await org.call('catalog.party.listProducers', { filter: { q: 'marcala' } });
    assert.deepEqual(byRegion.body.items.map((p: { id: string }) => p.id), [farm.id], 'text search covers the region');

    assert.deepEqual(await allPages('catalog.party.listProducers', { q: tag }, 1), [farm.id, coop.id, estate.id]);
    await refused('catalog.party.listProducers', { filter: { type: 'farm' } }, 400, 'invalid_input', 'filter.type');
    await refused('catalog.party.listProducers', { filter: { kind: 'plantation' } }, 400, 'invalid_input', 'filter.kind');
  });
});
