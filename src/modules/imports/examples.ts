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

/** The dry run, apply and status examples of one further kind, all from one small file. */
function kindExamples(
  namespace: string,
  noun: string,
  kind: string,
  file: { content: string; fileName: string; id: string; fileHash: string; created: number; corrected?: string },
  mapping: { column: string; letter: string; field: string | null }[],
  rows: { row: number; valid: boolean; creates: string | null; problems: { column: string | null; cell: string | null; field: string; code: string; message: string }[] }[],
): OperationExamples {
  const rowsValid = rows.filter((r) => r.valid).length;
  const applied = {
    id: file.id,
    kind,
    format: 'csv' as const,
    fileName: file.fileName,
    fileHash: file.fileHash,
    key: null,
    status: 'applied' as const,
    rowsTotal: rows.length,
    rowsChecked: rows.length,
    created: file.created,
    problemCount: 0,
    problems: [],
    mapping,
    failureReason: null,
    createdAt: '2026-11-28T10:02:00.120Z',
    startedAt: '2026-11-28T10:02:00.180Z',
    completedAt: '2026-11-28T10:02:00.410Z',
    updatedAt: '2026-11-28T10:02:00.410Z',
  };
  return {
    [`${namespace}.check${noun}Import`]: {
      input: { format: 'csv', content: file.content, fileName: file.fileName },
      output: { kind, format: 'csv', fileHash: file.fileHash, mapping, rowsTotal: rows.length, rowsValid, rowsInvalid: rows.length - rowsValid, wouldCreate: rowsValid === rows.length ? file.created : 0, rows },
    },
    [`${namespace}.apply${noun}Import`]: {
      input: { format: 'csv', content: file.corrected ?? file.content, fileName: file.fileName },
      output: { ...applied, status: 'queued', rowsTotal: null, rowsChecked: 0, created: 0, mapping: null, startedAt: null, completedAt: null, updatedAt: applied.createdAt },
    },
    [`${namespace}.get${noun}Import`]: { input: { id: file.id }, output: applied },
  };
}

const letters = (fields: (string | null)[], columns: string[]) => columns.map((column, i) => ({ column, letter: String.fromCharCode(65 + i), field: fields[i] }));

Object.assign(
  examples,
  kindExamples(
    'orders',
    'Customer',
    'customers',
    {
      content: 'Customer No,Company,Segment,Currency,Email,Street,City,ZIP,Country\r\nCUS-HAFEN,Café am Hafen,cafe,EUR,orders@hafen.example,Hafenstraße 1,Hamburg,20457,DE\r\nCUS-NORD,Nordic Retail,retail,SEK,,,,,SE\r\n',
      fileName: 'customers.csv',
      id: 'imp_01m8gf5b1c3d5e7f9g1h3j5k7m',
      fileHash: '3c59dc048e8850243be8079a5c74d079aa3c59dc048e8850243be8079a5c74d0',
      created: 2,
    },
    letters(
      ['code', 'name', 'customerType', 'currency', 'contactEmail', 'shippingAddress.line1', 'shippingAddress.city', 'shippingAddress.postalCode', 'shippingAddress.country'],
      ['Customer No', 'Company', 'Segment', 'Currency', 'Email', 'Street', 'City', 'ZIP', 'Country'],
    ),
    [
      { row: 2, valid: true, creates: 'CUS-HAFEN', problems: [] },
      { row: 3, valid: true, creates: 'CUS-NORD', problems: [] },
    ],
  ),
  kindExamples(
    'catalog.product',
    'Product',
    'products',
    {
      content: 'SKU,Name,Format,Net weight,Price,Currency,Roast profile,Roast level\r\nESP-1K,Espresso 1 kg,whole_bean,1.000,24.00,EUR,rp_01m8gf2a4c6e8g0j2l4n6q8s0u,dark\r\nFIL-250,Filter 250 g,ground_filter,250 g,7.50,EUR,,light\r\n',
      fileName: 'products.csv',
      id: 'imp_01m8gf5c2d4e6f8g0h2j4k6m8n',
      fileHash: 'b6d767d2f8ed5d21a44b0e5886680cb9aab6d767d2f8ed5d21a44b0e5886680c',
      created: 2,
      corrected: 'SKU,Name,Format,Net weight,Price,Currency,Roast profile,Roast level\r\nESP-1K,Espresso 1 kg,whole_bean,1.000,24.00,EUR,rp_01m8gf2a4c6e8g0j2l4n6q8s0u,dark\r\nFIL-250,Filter 250 g,ground_filter,0.250,7.50,EUR,,light\r\n',
    },
    letters(['sku', 'name', 'format', 'netWeightKg', 'listPrice', 'currency', 'profileId', 'roastLevel'], ['SKU', 'Name', 'Format', 'Net weight', 'Price', 'Currency', 'Roast profile', 'Roast level']),
    [
      { row: 2, valid: true, creates: 'ESP-1K', problems: [] },
      { row: 3, valid: false, creates: null, problems: [{ column: 'Net weight', cell: 'D3', field: 'netWeightKg', code: 'invalid_input', message: 'must be a decimal number with at most 3 decimals' }] },
    ],
  ),
  kindExamples(
    'inventory.material',
    'Material',
    'materials',
    {
      content: 'Item code,Description,Type,Unit cost,Currency,Reorder point,Supplier\r\nBAG-250,Valve bag 250 g,bag,0.18,EUR,500,pa_01m8gf1q3s5u7w9y1a3c5e7g9j\r\nLBL-FRONT,Front label,label,0.02,EUR,,\r\n',
      fileName: 'materials.csv',
      id: 'imp_01m8gf5d3e5f7g9h1j3k5m7n9p',
      fileHash: '37693cfc748049e45d87b8c7d8b9aacd37693cfc748049e45d87b8c7d8b9aacd',
      created: 2,
    },
    letters(['sku', 'name', 'kind', 'unitCost', 'currency', 'reorderPoint', 'supplierPartnerId'], ['Item code', 'Description', 'Type', 'Unit cost', 'Currency', 'Reorder point', 'Supplier']),
    [
      { row: 2, valid: true, creates: 'BAG-250', problems: [] },
      { row: 3, valid: true, creates: 'LBL-FRONT', problems: [] },
    ],
  ),
  kindExamples(
    'sourcing.contract',
    'Contract',
    'contracts',
    {
      content:
        'Contract No,Partner,Currency,Incoterm,Origin,Quality,Weight (kg),Price per kg\r\n' +
        'GC-2026-014,pa_01m8gf1q3s5u7w9y1a3c5e7g9j,USD,FOB,"Ethiopia, Guji",G1 washed,600,5.50\r\n' +
        'GC-2026-014,pa_01m8gf1q3s5u7w9y1a3c5e7g9j,USD,FOB,"Colombia, Huila",Excelso EP,400,6.25\r\n' +
        'GC-2026-015,pa_01m8gf1q3s5u7w9y1a3c5e7g9j,USD,CIF,"Brazil, Cerrado",NY2 17/18,1200,3.10\r\n',
      fileName: 'contract-book.csv',
      id: 'imp_01m8gf5e4f6g8h0j2k4m6n8p0q',
      fileHash: '1ff1de774005f8da13f42943881c655f1ff1de774005f8da13f42943881c655f',
      created: 2,
    },
    letters(
      ['contractNumber', 'partnerId', 'currency', 'incoterm', 'lines.origin', 'lines.quality', 'lines.weightKg', 'lines.pricePerKg'],
      ['Contract No', 'Partner', 'Currency', 'Incoterm', 'Origin', 'Quality', 'Weight (kg)', 'Price per kg'],
    ),
    [
      { row: 2, valid: true, creates: 'GC-2026-014 line 1', problems: [] },
      { row: 3, valid: true, creates: 'GC-2026-014 line 2', problems: [] },
      { row: 4, valid: true, creates: 'GC-2026-015 line 1', problems: [] },
    ],
  ),
);
