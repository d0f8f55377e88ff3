import type { TenancyCase } from '../../testing/tenancy.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { makePartner } from '../sourcing/contract/testing.js';
import {
  GREEN_HEADER, appliedContractImport, appliedCustomerImport, appliedGreenImport, appliedMaterialImport, appliedPartnerImport, appliedProductImport, greenRows, toCsv,
} from './testing.js';

export const cases: TenancyCase[] = [
  {
    operation: 'inventory.green.getGreenLotImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedGreenImport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // Another organization's location is unknown here: its rows are refused like a missing location's, and the answer names no lot of the owner's.
    operation: 'inventory.green.checkGreenLotImport',
    expect: 'invisible',
    async arrange(owner) {
      const locationId = await makeLocation(owner);
      return { input: { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(1, { prefix: 'TEN', locationId })) }, secretIds: [] };
    },
  },
  {
    operation: 'inventory.green.applyGreenLotImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedGreenImport(owner);
      return { input: { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(1, { prefix: 'TEN2' })) }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.party.getPartnerImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedPartnerImport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // A code another organization uses is free here: nothing of theirs is named.
    operation: 'catalog.party.checkPartnerImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedPartnerImport(owner);
      return { input: { format: 'csv', content: 'Code,Name,Types\nTEN-P,Tenancy partner,supplier\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.party.applyPartnerImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedPartnerImport(owner);
      return { input: { format: 'csv', content: 'Code,Name,Types\nTEN-Q,Tenancy partner,supplier\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'orders.getCustomerImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedCustomerImport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // A code another organization uses is free here: nothing of theirs is named.
    operation: 'orders.checkCustomerImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedCustomerImport(owner);
      return { input: { format: 'csv', content: 'Code,Name\nTEN-C,Tenancy customer\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'orders.applyCustomerImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedCustomerImport(owner);
      return { input: { format: 'csv', content: 'Code,Name\nTEN-C2,Tenancy customer\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.product.getProductImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedProductImport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.product.checkProductImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedProductImport(owner);
      return { input: { format: 'csv', content: 'SKU,Name,Format\nTEN-P,Tenancy product,whole_bean\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.product.applyProductImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedProductImport(owner);
      return { input: { format: 'csv', content: 'SKU,Name,Format\nTEN-P2,Tenancy product,whole_bean\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'inventory.material.getMaterialImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedMaterialImport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // The owner's supplier is unknown here: the row is refused like a missing partner's, naming nothing of the owner's.
    operation: 'inventory.material.checkMaterialImport',
    expect: 'invisible',
    async arrange(owner) {
      const supplierId = await makePartner(owner, { types: ['supplier'] });
      return { input: { format: 'csv', content: `SKU,Name,Kind,Supplier\nTEN-M,Tenancy bag,bag,${supplierId}\n` }, secretIds: [supplierId] };
    },
  },
  {
    operation: 'inventory.material.applyMaterialImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedMaterialImport(owner);
      return { input: { format: 'csv', content: 'SKU,Name,Kind\nTEN-M2,Tenancy bag,bag\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'sourcing.contract.getContractImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedContractImport(owner, await makePartner(owner));
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // The owner's partner is unknown here: the contract's rows are refused like a missing partner's.
    operation: 'sourcing.contract.checkContractImport',
    expect: 'invisible',
    async arrange(owner) {
      const partnerId = await makePartner(owner);
      return { input: { format: 'csv', content: `Contract,Partner,Currency,Origin,Weight kg,Price per kg\nTEN-GC,${partnerId},USD,Peru,100,5\n` }, secretIds: [partnerId] };
    },
  },
  {
    operation: 'sourcing.contract.applyContractImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedContractImport(owner, await makePartner(owner));
      return { input: { format: 'csv', content: 'Contract,Partner,Currency,Origin,Weight kg,Price per kg\nTEN-GC2,gp_x,USD,Peru,100,5\n' }, secretIds: [id] };
    },
  },
];
