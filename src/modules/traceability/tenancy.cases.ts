import { makeContract } from '../sourcing/contract/testing.js';
import type { TenancyCase } from '../../testing/tenancy.js';
import { makeGreenLot } from '../inventory/green/testing.js';
import { roastLot } from '../orders/testing.js';

const traceFromGreenLot = (operation: string): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const id = await makeGreenLot(owner);
    return { input: { kind: 'green_lot', id }, secretIds: [id] };
  },
});

async function declaredLot(owner: Parameters<TenancyCase['arrange']>[0]) {
  const id = await makeGreenLot(owner);
  const res = await owner.call('inventory.green.declareOrigin', { subject: { kind: 'green_lot', id }, upstreamStatements: [{ referenceNumber: 'SECRETREF1' }] });
  if (res.status !== 200) throw new Error(`declareOrigin: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

export const cases: TenancyCase[] = [
  {
    operation: 'inventory.green.declareOrigin',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeGreenLot(owner);
      return { input: { subject: { kind: 'green_lot', id } }, secretIds: [id] };
    },
  },
  {
    // A contract line's declaration (origin.test.ts probes a green lot's).
    operation: 'inventory.green.getOriginDeclaration',
    expect: 'not_found',
    async arrange(owner) {
      const [line] = (await makeContract(owner)).lines;
      const res = await owner.call('inventory.green.declareOrigin', { subject: { kind: 'contract_line', id: line.id }, upstreamStatements: [{ referenceNumber: 'SECRETREF2' }] });
      if (res.status !== 200) throw new Error(`declareOrigin: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: { kind: 'contract_line', id: line.id }, secretIds: [line.id, 'SECRETREF2'] };
    },
  },
  {
    operation: 'traceability.getDueDiligenceStatement',
    expect: 'not_found',
    async arrange(owner) {
      const id = await declaredLot(owner);
      return { input: { kind: 'green_lot', id }, secretIds: [id, 'SECRETREF1'] };
    },
  },
  {
    operation: 'traceability.exportEpcis',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeGreenLot(owner);
      return { input: { direction: 'forward', kind: 'green_lot', id }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.party.getOperatorIdentity',
    expect: 'invisible',
    async arrange(owner) {
      const res = await owner.call('catalog.party.setOperatorIdentity', { name: 'Secret Operator GmbH', country: 'DE', eori: 'DESECRET0001' });
      if (res.status !== 200) throw new Error(`setOperatorIdentity: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: {}, secretIds: ['Secret Operator GmbH', 'DESECRET0001'] };
    },
  },
  {
    // Recording one's own identity touches nothing of another organization's.
    operation: 'catalog.party.setOperatorIdentity',
    expect: 'invisible',
    async arrange(owner) {
      const res = await owner.call('catalog.party.setOperatorIdentity', { name: 'Hidden Roasters', country: 'DE', eori: 'DEHIDDEN0001' });
      if (res.status !== 200) throw new Error(`setOperatorIdentity: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: { name: 'Mine', country: 'NL' }, secretIds: ['Hidden Roasters', 'DEHIDDEN0001'] };
    },
  },
  traceFromGreenLot('traceability.traceBackward'),
  traceFromGreenLot('traceability.traceForward'),
  {
    operation: 'inventory.roast.getRoastedLotTraceability',
    expect: 'not_found',
    async arrange(owner) {
      const { roastedLotId } = await roastLot(owner, { kg: '1' });
      return { input: { id: roastedLotId }, secretIds: [roastedLotId] };
    },
  },
  {
    operation: 'traceability.issueCertificate',
    expect: 'not_found',
    async arrange(owner) {
      const { roastedLotId } = await roastLot(owner, { kg: '1' });
      return { input: { roastedLotId }, secretIds: [roastedLotId] };
    },
  },
  {
    operation: 'traceability.listCertificates',
    expect: 'invisible',
    async arrange(owner) {
      const { roastedLotId } = await roastLot(owner, { kg: '1' });
      const res = await owner.call('traceability.issueCertificate', { roastedLotId });
      if (res.status !== 200) throw new Error(`issueCertificate: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: {}, secretIds: [res.body.id, res.body.token, roastedLotId] };
    },
  },
];
