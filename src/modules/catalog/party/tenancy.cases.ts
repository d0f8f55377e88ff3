import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';

const uniqueCode = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

async function created(org: TestOrg, operation: string, input: Record<string, unknown>): Promise<string> {
  const res = await org.call(operation, input);
  if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export const makePartner = (org: TestOrg, code = uniqueCode('P')) =>
  created(org, 'catalog.party.createPartner', { name: `Partner ${code}`, code, types: ['importer'] });

export const makeProducer = (org: TestOrg, code = uniqueCode('F')) =>
  created(org, 'catalog.party.createProducer', { name: `Farm ${code}`, code, kind: 'farm' });

const byId = (operation: string, make: (org: TestOrg) => Promise<string>, extra: Record<string, unknown> = {}): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const id = await make(owner);
    return { input: { id, ...extra }, secretIds: [id] };
  },
});

const POINT = { type: 'Point', coordinates: [38.741235, 6.571118] };

export const makePlot = async (org: TestOrg, name = uniqueCode('Plot ')) =>
  created(org, 'catalog.party.createPlot', { producerId: await makeProducer(org), name, areaHa: 1.5, geometry: POINT });

export const cases: TenancyCase[] = [
  byId('catalog.party.getPlot', makePlot),
  {
    operation: 'catalog.party.listPlots',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makePlot(owner);
      return { input: {}, secretIds: [id] };
    },
  },
  {
    // Another organization's producer has no plots to add.
    operation: 'catalog.party.createPlot',
    expect: 'not_found',
    async arrange(owner) {
      const producerId = await makeProducer(owner);
      return { input: { producerId, name: 'Borrowed', areaHa: 1, geometry: POINT }, secretIds: [producerId] };
    },
  },
  byId('catalog.party.getPartner', makePartner),
  byId('catalog.party.updatePartner', makePartner, { name: 'Taken over', isActive: false }),
  byId('catalog.party.getProducer', makeProducer),
  byId('catalog.party.updateProducer', makeProducer, { name: 'Taken over' }),
  {
    operation: 'catalog.party.listPartners',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makePartner(owner, 'SAMEPARTNER');
      return { input: { filter: { q: 'SAMEPARTNER', type: 'importer' } }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.party.listProducers',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeProducer(owner, 'SAMEFARM');
      return { input: { filter: { q: 'SAMEFARM' } }, secretIds: [id] };
    },
  },
  {
    // The same code is free in another organization, and creating it there touches nothing here.
    operation: 'catalog.party.createPartner',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makePartner(owner, 'DUPPARTNER');
      return { input: { name: 'Mine', code: 'DUPPARTNER', types: ['importer'] }, secretIds: [id] };
    },
  },
  {
    // Another organization's partner cannot be linked: it answers as if it did not exist.
    operation: 'catalog.party.createProducer',
    expect: 'not_found',
    async arrange(owner) {
      const partnerId = await makePartner(owner);
      return { input: { name: 'Borrowed', code: 'BORROWED', kind: 'farm', partnerId }, secretIds: [partnerId] };
    },
  },
];
