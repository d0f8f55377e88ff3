import type { TenancyCase } from '../../../testing/tenancy.js';
import { lotCode, makeContract, makePartner, makeShipment } from './testing.js';

export const cases: TenancyCase[] = [
  {
    operation: 'sourcing.contract.getContract',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeContract(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'sourcing.contract.updateContractStatus',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeContract(owner, { status: 'draft' });
      return { input: { id, status: 'canceled' }, secretIds: [id] };
    },
  },
  {
    operation: 'sourcing.contract.createContractMilestone',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeContract(owner);
      return { input: { contractId: id, kind: 'payment', dueAt: '2027-01-01T00:00:00Z' }, secretIds: [id] };
    },
  },
  {
    operation: 'sourcing.contract.completeContractMilestone',
    expect: 'not_found',
    async arrange(owner) {
      const { id: contractId } = await makeContract(owner);
      const res = await owner.call('sourcing.contract.createContractMilestone', { contractId, kind: 'payment', dueAt: '2027-01-01T00:00:00Z' });
      return { input: { id: res.body.id }, secretIds: [res.body.id] };
    },
  },
  {
    operation: 'sourcing.contract.createContractShipment',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeContract(owner);
      return { input: { contractId: id, reference: 'STOLEN', weightKg: '10' }, secretIds: [id] };
    },
  },
  {
    operation: 'sourcing.contract.receiveContractShipment',
    expect: 'not_found',
    async arrange(owner) {
      const contract = await makeContract(owner);
      const shipment = await makeShipment(owner, contract.id);
      // One id per prefix in secretIds (the tenancy test masks them to one ghost id per prefix).
      return {
        input: { shipmentId: shipment.id, lines: [{ contractLineId: contract.lines[0].id, lotCode: lotCode(), weightKg: '600' }] },
        secretIds: [shipment.id, contract.lines[0].id],
      };
    },
  },
  {
    // The same contract number is free in another organization, and creating it there touches nothing here.
    operation: 'sourcing.contract.createContract',
    expect: 'not_found',
    async arrange(owner) {
      const partnerId = await makePartner(owner);
      return { input: { contractNumber: 'GC-STOLEN', partnerId, lines: [{ origin: 'X', weightKg: '1', pricePerKg: '1' }] }, secretIds: [partnerId] };
    },
  },
  {
    operation: 'sourcing.contract.listContracts',
    expect: 'invisible',
    async arrange(owner) {
      const { id, partnerId } = await makeContract(owner);
      return { input: { filter: { partnerId } }, secretIds: [id] };
    },
  },
  {
    operation: 'sourcing.contract.listContractShipments',
    expect: 'invisible',
    async arrange(owner) {
      const contract = await makeContract(owner);
      const shipment = await makeShipment(owner, contract.id, '10');
      return { input: { filter: { contractId: contract.id } }, secretIds: [shipment.id, contract.id] };
    },
  },
  {
    operation: 'sourcing.contract.listContractMilestones',
    expect: 'invisible',
    async arrange(owner) {
      const { id: contractId } = await makeContract(owner);
      const res = await owner.call('sourcing.contract.createContractMilestone', { contractId, kind: 'payment', dueAt: '2027-01-01T00:00:00Z' });
      return { input: { filter: {} }, secretIds: [res.body.id, contractId] };
    },
  },
  {
    operation: 'sourcing.contract.listOpenPositions',
    expect: 'invisible',
    async arrange(owner) {
      const { id } = await makeContract(owner);
      return { input: {}, secretIds: [id] };
    },
  },
];
