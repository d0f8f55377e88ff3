import type { TenancyCase } from '../../testing/tenancy.js';
import type { TestOrg } from '../../testing/harness.js';
import { issueToken, makeMachine, makeSite, postShots, serverUrl, shot, uniqueCode } from './testing.js';

const bySite = (operation: string, extra: Record<string, unknown> = {}): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const siteId = await makeSite(owner);
    return { input: { siteId, ...extra }, secretIds: [siteId] };
  },
});

async function siteWithShot(owner: TestOrg) {
  const siteId = await makeSite(owner);
  const machineId = await makeMachine(owner, siteId);
  const res = await postShots(serverUrl(owner), await issueToken(owner, machineId), machineId, { shots: [shot()] });
  if (res.status !== 202) throw new Error(`post shots: ${res.status} ${JSON.stringify(res.body)}`);
  return { siteId, machineId };
}

export const cases: TenancyCase[] = [
  {
    // Another organization's cafe location is unknown here, exactly like one that does not exist.
    operation: 'cafe.createSite',
    expect: 'not_found',
    async arrange(owner) {
      const loc = await owner.call('catalog.location.createLocation', { name: 'Cafe', code: uniqueCode('C'), kind: 'cafe', timezone: 'Europe/Berlin' });
      return { input: { name: 'Mine', code: uniqueCode('S'), locationId: loc.body.id }, secretIds: [loc.body.id] };
    },
  },
  {
    operation: 'cafe.listSites',
    expect: 'invisible',
    async arrange(owner) {
      const siteId = await makeSite(owner);
      return { input: {}, secretIds: [siteId] };
    },
  },
  bySite('cafe.registerMachine', { name: 'Linea', code: 'EM1', kind: 'espresso_machine', groupCount: 2 }),
  {
    operation: 'cafe.listMachines',
    expect: 'invisible',
    async arrange(owner) {
      const siteId = await makeSite(owner);
      const machineId = await makeMachine(owner, siteId);
      return { input: { filter: { siteId } }, secretIds: [siteId, machineId] };
    },
  },
  {
    operation: 'cafe.issueBarMachineToken',
    expect: 'not_found',
    async arrange(owner) {
      const siteId = await makeSite(owner);
      const machineId = await makeMachine(owner, siteId);
      return { input: { machineId }, secretIds: [machineId] };
    },
  },
  {
    operation: 'cafe.getLiveBar',
    expect: 'not_found',
    async arrange(owner) {
      const { siteId } = await siteWithShot(owner);
      return { input: { siteId }, secretIds: [siteId] };
    },
  },
  {
    operation: 'cafe.listShots',
    expect: 'invisible',
    async arrange(owner) {
      const { siteId, machineId } = await siteWithShot(owner);
      const now = Date.now();
      const window = { from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 3_600_000).toISOString() };
      return { input: { filter: { ...window, siteId } }, secretIds: [siteId, machineId] };
    },
  },
  bySite('cafe.getSitePerformance', { from: '2026-11-01', to: '2026-11-30' }),
  bySite('cafe.importPosSales', { lines: [{ posLineId: 'L1', soldAt: '2026-11-25T08:00:00Z', item: 'Espresso', quantity: 1, shotEquivalents: 1 }] }),
  bySite('cafe.reconcilePos', { businessDate: '2026-11-25' }),
  {
    operation: 'cafe.listReconciliations',
    expect: 'invisible',
    async arrange(owner) {
      const siteId = await makeSite(owner);
      const rec = await owner.call('cafe.reconcilePos', { siteId, businessDate: '2026-11-24' });
      return { input: { filter: { siteId } }, secretIds: [siteId, rec.body.id] };
    },
  },
];
