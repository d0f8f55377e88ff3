import type { OperationExamples } from '../../rpc/examples.js';

const CSV = 'Lot Code,Name,Weight (kg),Location,Unit cost,Currency\r\nETH-GUJI-24,Ethiopia Guji natural,1200.000,loc_01m8gf3e2q5h7k9m1n3p5r7t9v,7.25,EUR\r\nCOL-HUI-24,Colombia Huila washed,sixty,,,\r\n';

const mapping = [
  { column: 'Lot Code', letter: 'A', field: 'lotCode' },
  { column: 'Name', letter: 'B', field: 'name' },
  { column: 'Weight (kg)', letter: 'C', field: 'weightKg' },
  { column: 'Location', letter: 'D', field: 'locationId' },
  { column: 'Unit cost', letter: 'E', field: 'unitCost' },
  { column: 'Currency', letter: 'F', field: 'currency' },
];

const PARTNER_CSV = 'Code,Company,Type,Country,Currency,Email\r\nIMP-NORD,Nordic Green Importers,importer,DK,EUR,orders@nordicgreen.example\r\nCAFE-HAFEN,Café am Hafen,customer,DE,EUR,\r\n';

const partnerMapping = [
  { column: 'Code', letter: 'A', field: 'code' },
  { column: 'Company', letter: 'B', field: 'name' },
  { column: 'Type', letter: 'C', field: 'types' },
  { column: 'Country', letter: 'D', field: 'country' },
  { column: 'Currency', letter: 'E', field: 'defaultCurrency' },
  { column: 'Email', letter: 'F', field: 'contactEmail' },
];

const partnerImport = {
  id: 'imp_01m8gf4a7c2d9e3f5g7h9j1k3m',
  kind: 'partners',
  format: 'csv' as const,
  fileName: 'partners.csv',
  fileHash: '5d41402abc4b2a76b9719d911017c592aa5d41402abc4b2a76b9719d911017c5',
  key: null,
  status: 'applied' as const,
  rowsTotal: 2,
  rowsChecked: 2,
  created: 2,
  problemCount: 0,
  problems: [],
  mapping: partnerMapping,
  failureReason: null,
  createdAt: '2026-11-28T09:20:11.020Z',
  startedAt: '2026-11-28T09:20:11.090Z',
  completedAt: '2026-11-28T09:20:11.240Z',
  updatedAt: '2026-11-28T09:20:11.240Z',
};

/** A request and its answer for each of the module's operations (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'inventory.green.checkGreenLotImport': {
    input: { format: 'csv', content: CSV, fileName: 'green-stock-november.csv' },
    output: {
      kind: 'green_lots',
      format: 'csv',
      fileHash: '9f2c1e7a4b3d5f60718293a4b5c6d7e8f90112233445566778899aabbccddeef',
      mapping,
      rowsTotal: 2,
      rowsValid: 1,
      rowsInvalid: 1,
      wouldCreate: 0,
      rows: [
        { row: 2, valid: true, creates: 'ETH-GUJI-24', problems: [] },
        {
          row: 3,
          valid: false,
          creates: null,
          problems: [{ column: 'Weight (kg)', cell: 'C3', field: 'weightKg', code: 'invalid_input', message: 'must be a decimal number with at most 3 decimals' }],
        },
      ],
    },
  },
  'inventory.green.applyGreenLotImport': {
    input: { format: 'csv', content: CSV.replace('sixty', '60.000'), fileName: 'green-stock-november.csv', key: 'green-stock-2026-11' },
    output: {
      id: 'imp_01m8gf3k3x91560n2n6b88ynwq',
      kind: 'green_lots',
      format: 'csv',
      fileName: 'green-stock-november.csv',
      fileHash: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809',
      key: 'green-stock-2026-11',
      status: 'queued',
      rowsTotal: null,
      rowsChecked: 0,
      created: 0,
      problemCount: 0,
      problems: [],
      mapping: null,
      failureReason: null,
      createdAt: '2026-11-28T09:12:03.415Z',
      startedAt: null,
      completedAt: null,
      updatedAt: '2026-11-28T09:12:03.415Z',
    },
  },
  'inventory.green.getGreenLotImport': {
    input: { id: 'imp_01m8gf3k3x91560n2n6b88ynwq' },
    output: {
      id: 'imp_01m8gf3k3x91560n2n6b88ynwq',
      kind: 'green_lots',
      format: 'csv',
      fileName: 'green-stock-november.csv',
      fileHash: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809',
      key: 'green-stock-2026-11',
      status: 'applied',
      rowsTotal: 2,
      rowsChecked: 2,
      created: 2,
      problemCount: 0,
      problems: [],
      mapping,
      failureReason: null,
      createdAt: '2026-11-28T09:12:03.415Z',
      startedAt: '2026-11-28T09:12:03.502Z',
      completedAt: '2026-11-28T09:12:03.911Z',
      updatedAt: '2026-11-28T09:12:03.911Z',
    },
  },
  'catalog.party.checkPartnerImport': {
    input: { format: 'csv', content: PARTNER_CSV },
    output: {
      kind: 'partners',
      format: 'csv',
      fileHash: '5d41402abc4b2a76b9719d911017c592aa5d41402abc4b2a76b9719d911017c5',
      mapping: partnerMapping,
      rowsTotal: 2,
      rowsValid: 2,
      rowsInvalid: 0,
      wouldCreate: 2,
      rows: [
        { row: 2, valid: true, creates: 'IMP-NORD', problems: [] },
        { row: 3, valid: true, creates: 'CAFE-HAFEN', problems: [] },
      ],
    },
  },
  'catalog.party.applyPartnerImport': {
    input: { format: 'csv', content: PARTNER_CSV, fileName: 'partners.csv' },
    output: { ...partnerImport, status: 'queued', rowsTotal: null, rowsChecked: 0, created: 0, mapping: null, startedAt: null, completedAt: null, updatedAt: partnerImport.createdAt },
  },
  'catalog.party.getPartnerImport': {
    input: { id: partnerImport.id },
    output: partnerImport,
  },
};
