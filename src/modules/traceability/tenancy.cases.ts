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

export const cases: TenancyCase[] = [
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
