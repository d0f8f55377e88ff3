import type { z } from 'zod';
import type { Queryable } from '../../db/client.js';
import type { Permission } from '../../auth/permissions.js';
import type { Feature } from '../../auth/plans.js';
import type { ProblemError } from '../../rpc/errors.js';
import type { EventDefinition } from '../../events/define.js';
import { ImportGreenLot } from '../inventory/green/schemas.js';
import * as green from '../inventory/green/service.js';
import { lotImported } from '../inventory/green/events.js';
import { CreatePartner } from '../catalog/party/schemas.js';
import * as party from '../catalog/party/service.js';
import { partnerCreated } from '../catalog/party/events.js';
import { CreateCustomer } from '../orders/schemas.js';
import * as orders from '../orders/service.js';
import { customerCreated } from '../orders/events.js';
import { CreateProduct } from '../catalog/product/schemas.js';
import * as product from '../catalog/product/service.js';
import { productCreated } from '../catalog/product/events.js';
import { CreateMaterial } from '../inventory/material/schemas.js';
import * as material from '../inventory/material/service.js';
import { materialCreated } from '../inventory/material/events.js';
import { CreateContract } from '../sourcing/contract/schemas.js';
import * as contract from '../sourcing/contract/service.js';
import { contractCreated } from '../sourcing/contract/events.js';

/**
 * What can be imported from a spreadsheet, each kind declared once: the create operation whose input schema
 * every row is validated with (so a row's problems carry that operation's messages), the columns it reads
 * (the operation's fields, with the synonyms a spreadsheet may use), and the owning module's service calls
 * that check and write a batch of rows (the same code the module's own operations run), never a repository.
 */
export type FieldType = 'text' | 'integer' | 'list';

export interface FieldSpec {
  field: string;
  type?: FieldType;
  /** Other column names meaning this field, compared normalized (normalizeColumn). */
  synonyms?: readonly string[];
  /** A field of each line of a grouped kind (`lines[i].weightKg`), not of the record. */
  line?: boolean;
}

/** A record that passed its schema: its first row's number in the file, all its rows (one per line of a grouped kind), and the operation's parsed input. */
export interface ValidRow<Input> {
  row: number;
  rows: number[];
  input: Input;
}

/**
 * Writes an event of a created record in the apply's transaction, as the create operation's ctx.emit does
 * (the payload checked against the definition when contracts are checked; webhook deliveries queued with it).
 */
export type Emit = <P extends z.ZodType>(event: EventDefinition<string, P>, data: z.input<P>) => Promise<void>;

/** A rule a row breaks that only the database can tell (a code already used, a location that does not exist). */
export interface RowRefusal {
  /** Index into the rows given. */
  index: number;
  problem: ProblemError;
}

export interface ImportKind<Schema extends z.ZodType = z.ZodType> {
  kind: string;
  /** The owning module's namespace: the operations are registered there, with its permissions and plan module (`inventory.green`). */
  namespace: string;
  /** The operations' noun: <namespace>.check<Noun>Import, .apply<Noun>Import, .get<Noun>Import. */
  noun: string;
  /** What a row creates, for the docs (`a green lot with its opening weight`). */
  creates: string;
  /** The create operation whose input schema validates a row. */
  operation: string;
  schema: Schema;
  feature: Feature;
  readPermission: Permission;
  writePermission: Permission;
  fields: readonly FieldSpec[];
  /**
   * The field unique per organization (and so per file): a repeat within the file is refused at the row repeating
   * it. For a grouped kind it is the group key: rows sharing it are one record.
   */
  uniqueField: string;
  /** Other fields unique per organization, refused alike when repeated within the file (a product's barcode). */
  alsoUnique?: readonly string[];
  /**
   * A record with lines, one row per line: rows sharing the uniqueField's cell are one record; fields marked
   * `line` fill the entries of the array field `lines`, the others the record (repeated on each row, or only on the first).
   */
  group?: { lines: string };
  /** The events the create operation emits for each record, emitted alike for each imported one. */
  emits: readonly EventDefinition[];
  /** Everything the owning module would refuse about these rows (reads only). */
  refusals(q: Queryable, orgId: string, rows: ValidRow<z.output<Schema>>[]): Promise<RowRefusal[]>;
  /**
   * Writes the rows through the owning module's service, all or none (inside the caller's transaction), emitting
   * each created record's events as its create operation does; answers how many records it created.
   */
  write(q: Queryable, orgId: string, credentialId: string, rows: ValidRow<z.output<Schema>>[], emit: Emit): Promise<number>;
}

const defineKind = <Schema extends z.ZodType>(kind: ImportKind<Schema>): ImportKind => kind as unknown as ImportKind;

type GreenRow = ValidRow<z.output<typeof ImportGreenLot>>;

/** A row's input as green.receiveGreenLots takes it; refusals name the row's fields by their input names. */
function greenReceipt({ input }: GreenRow): green.GreenLotReceipt {
  const { weightKg, locationId, ...lot } = input;
  return {
    lot,
    weightKg,
    locationId: locationId ?? null,
    costComponents: lot.unitCost !== undefined ? [green.importPriceComponent(lot.unitCost, lot.currency!)] : [],
    comment: 'opening weight (spreadsheet import)',
    paths: { lotCode: 'lotCode', locationId: 'locationId' },
  };
}

export const IMPORT_KINDS: readonly ImportKind[] = [
  defineKind({
    kind: 'green_lots',
    namespace: 'inventory.green',
    noun: 'GreenLot',
    creates: 'a green lot with its opening weight (a `receive` ledger row at its location, or unassigned)',
    operation: 'inventory.green.importGreenLot',
    schema: ImportGreenLot,
    feature: 'inventory',
    readPermission: 'inventory.green.read',
    writePermission: 'inventory.green.write',
    uniqueField: 'lotCode',
    fields: [
      { field: 'lotCode', synonyms: ['lot', 'lotno', 'lotnumber', 'lotid', 'code', 'icomark', 'ico'] },
      { field: 'name', synonyms: ['lotname', 'coffee', 'description', 'title'] },
      { field: 'weightKg', synonyms: ['weight', 'kg', 'kilograms', 'quantity', 'quantitykg', 'qty', 'netweight', 'netweightkg', 'openingweight', 'onhand'] },
      { field: 'supplierRef', synonyms: ['supplierreference', 'reference', 'ref', 'contractref'] },
      { field: 'state', synonyms: ['form', 'greenstate'] },
      { field: 'varieties', type: 'list', synonyms: ['variety', 'varietal', 'varietals', 'cultivar', 'cultivars'] },
      { field: 'processMethod', synonyms: ['process', 'processing', 'method'] },
      { field: 'harvestYear', type: 'integer', synonyms: ['harvest', 'crop', 'cropyear', 'year'] },
      { field: 'certifications', type: 'list', synonyms: ['certification', 'certs', 'certificates'] },
      { field: 'bagCount', type: 'integer', synonyms: ['bags', 'numberofbags', 'bagsno', 'nbags'] },
      { field: 'bagWeightKg', synonyms: ['bagweight', 'bagsize', 'bagkg', 'bagsizekg'] },
      { field: 'unitCost', synonyms: ['cost', 'costperkg', 'price', 'priceperkg', 'unitprice', 'costkg'] },
      { field: 'currency', synonyms: ['ccy', 'cur', 'currencycode'] },
      { field: 'minWeightKg', synonyms: ['minweight', 'minimum', 'minimumkg', 'reorderpoint', 'reorderkg'] },
      { field: 'locationId', synonyms: ['location', 'warehouse', 'locationid'] },
      { field: 'notes', synonyms: ['note', 'comment', 'comments', 'remarks'] },
    ],
    emits: [lotImported],
    refusals: (q, orgId, rows) => green.greenLotReceiptRefusals(q, orgId, rows.map(greenReceipt)),
    async write(q, orgId, credentialId, rows, emit) {
      const { lots, transactions } = await green.receiveGreenLots(q, orgId, credentialId, rows.map(greenReceipt));
      const byLot = new Map<string, typeof transactions>();
      for (const t of transactions) byLot.set(t.greenLotId, [...(byLot.get(t.greenLotId) ?? []), t]);
      // A spreadsheet row names no producer, so no lineage edge is recorded (importGreenLot's lineage is empty alike).
      for (const lot of lots) await emit(lotImported, { lot, transactions: byLot.get(lot.id) ?? [], lineage: [] });
      return lots.length;
    },
  }),

  defineKind({
    kind: 'partners',
    namespace: 'catalog.party',
    noun: 'Partner',
    creates: 'a trading partner',
    operation: 'catalog.party.createPartner',
    schema: CreatePartner,
    feature: 'core',
    readPermission: 'catalog.party.read',
    writePermission: 'catalog.party.write',
    uniqueField: 'code',
    fields: [
      { field: 'code', synonyms: ['partnercode', 'id', 'number', 'no', 'accountcode', 'account'] },
      { field: 'name', synonyms: ['partner', 'partnername', 'company', 'companyname'] },
      { field: 'types', type: 'list', synonyms: ['type', 'role', 'roles', 'kind'] },
      { field: 'country', synonyms: ['countrycode', 'origin'] },
      { field: 'defaultCurrency', synonyms: ['currency', 'ccy'] },
      { field: 'paymentTermsDays', type: 'integer', synonyms: ['paymentterms', 'terms', 'termsdays', 'netdays'] },
      { field: 'contactEmail', synonyms: ['email', 'emailaddress', 'mail'] },
      { field: 'contactPhone', synonyms: ['phone', 'telephone', 'tel', 'mobile'] },
      { field: 'website', synonyms: ['web', 'url', 'site'] },
      { field: 'notes', synonyms: ['note', 'comment', 'comments', 'remarks'] },
    ],
    emits: [partnerCreated],
    refusals: (q, orgId, rows) => party.partnerRefusals(q, orgId, rows.map((r) => r.input)),
    async write(q, orgId, _credentialId, rows, emit) {
      for (const { input } of rows) await emit(partnerCreated, { partner: await party.createPartner(q, orgId, input) });
      return rows.length;
    },
  }),

  defineKind({
    kind: 'customers',
    namespace: 'orders',
    noun: 'Customer',
    creates: 'a customer',
    operation: 'orders.createCustomer',
    schema: CreateCustomer,
    feature: 'orders',
    readPermission: 'orders.read',
    writePermission: 'orders.write',
    uniqueField: 'code',
    fields: [
      { field: 'code', synonyms: ['customercode', 'customerno', 'customernumber', 'accountcode', 'account', 'accountno', 'id', 'number', 'no'] },
      { field: 'name', synonyms: ['customer', 'customername', 'company', 'companyname', 'business'] },
      { field: 'customerType', synonyms: ['type', 'segment', 'channel', 'kind'] },
      { field: 'currency', synonyms: ['ccy', 'invoicecurrency', 'currencycode'] },
      { field: 'paymentTermsDays', type: 'integer', synonyms: ['paymentterms', 'terms', 'termsdays', 'netdays'] },
      { field: 'contactEmail', synonyms: ['email', 'emailaddress', 'mail'] },
      { field: 'shippingAddress.recipient', synonyms: ['recipient', 'attention', 'attn', 'contact', 'contactname', 'shipto'] },
      { field: 'shippingAddress.line1', synonyms: ['address', 'address1', 'addressline1', 'street', 'line1', 'shippingaddress', 'shippingaddress1'] },
      { field: 'shippingAddress.line2', synonyms: ['address2', 'addressline2', 'line2', 'shippingaddress2'] },
      { field: 'shippingAddress.city', synonyms: ['city', 'town', 'shippingcity'] },
      { field: 'shippingAddress.region', synonyms: ['region', 'state', 'province', 'county', 'shippingregion'] },
      { field: 'shippingAddress.postalCode', synonyms: ['postalcode', 'postcode', 'zip', 'zipcode', 'plz', 'shippingpostalcode'] },
      { field: 'shippingAddress.country', synonyms: ['country', 'countrycode', 'shippingcountry'] },
    ],
    emits: [customerCreated],
    refusals: (q, orgId, rows) => orders.customerRefusals(q, orgId, rows.map((r) => r.input)),
    async write(q, orgId, _credentialId, rows, emit) {
      for (const { input } of rows) await emit(customerCreated, { customer: await orders.createCustomer(q, orgId, input) });
      return rows.length;
    },
  }),

  defineKind({
    kind: 'products',
    namespace: 'catalog.product',
    noun: 'Product',
    creates: 'a product (what it is made of: a roast profile or blend and its roast level)',
    operation: 'catalog.product.createProduct',
    schema: CreateProduct,
    feature: 'core',
    readPermission: 'catalog.product.read',
    writePermission: 'catalog.product.write',
    uniqueField: 'sku',
    alsoUnique: ['barcode'],
    fields: [
      { field: 'sku', synonyms: ['article', 'articleno', 'articlenumber', 'itemcode', 'item', 'productcode', 'code'] },
      { field: 'name', synonyms: ['product', 'productname', 'title', 'description'] },
      { field: 'format', synonyms: ['packformat', 'pack', 'packaging', 'grind', 'type'] },
      { field: 'netWeightKg', synonyms: ['netweight', 'weight', 'weightkg', 'kg', 'bagsize', 'size'] },
      { field: 'listPrice', synonyms: ['price', 'unitprice', 'retailprice', 'rrp'] },
      { field: 'currency', synonyms: ['ccy', 'currencycode'] },
      { field: 'barcode', synonyms: ['ean', 'gtin', 'upc', 'ean13'] },
      { field: 'profileId', synonyms: ['profile', 'roastprofile', 'roastprofileid'] },
      { field: 'blendId', synonyms: ['blend', 'blendrecipe'] },
      { field: 'roastLevel', synonyms: ['roast', 'level', 'roastdegree'] },
    ],
    emits: [productCreated],
    refusals: (q, orgId, rows) => product.productRefusals(q, orgId, rows.map((r) => r.input)),
    async write(q, orgId, _credentialId, rows, emit) {
      for (const { input } of rows) await emit(productCreated, { product: await product.createProduct(q, orgId, input) });
      return rows.length;
    },
  }),

  defineKind({
    kind: 'materials',
    namespace: 'inventory.material',
    noun: 'Material',
    creates: 'a packaging (or other) material with nothing on hand',
    operation: 'inventory.material.createMaterial',
    schema: CreateMaterial,
    feature: 'resource_planning',
    readPermission: 'inventory.material.read',
    writePermission: 'inventory.material.write',
    uniqueField: 'sku',
    fields: [
      { field: 'sku', synonyms: ['article', 'articleno', 'itemcode', 'item', 'materialcode', 'code', 'partno', 'partnumber'] },
      { field: 'name', synonyms: ['material', 'materialname', 'description', 'title'] },
      { field: 'kind', synonyms: ['type', 'category', 'materialtype'] },
      { field: 'unitCost', synonyms: ['cost', 'unitprice', 'price', 'costperunit'] },
      { field: 'currency', synonyms: ['ccy', 'currencycode'] },
      { field: 'reorderPoint', synonyms: ['reorderat', 'minimum', 'minqty', 'minstock'] },
      { field: 'reorderQty', synonyms: ['reorderquantity', 'orderqty', 'orderquantity'] },
      { field: 'leadTimeDays', type: 'integer', synonyms: ['leadtime', 'leaddays'] },
      { field: 'supplierPartnerId', synonyms: ['supplier', 'supplierid', 'partner', 'partnerid', 'vendor'] },
    ],
    emits: [materialCreated],
    refusals: (q, orgId, rows) => material.materialRefusals(q, orgId, rows.map((r) => r.input)),
    async write(q, orgId, _credentialId, rows, emit) {
      for (const { input } of rows) await emit(materialCreated, { material: await material.createMaterial(q, orgId, input) });
      return rows.length;
    },
  }),

  /**
   * A contract book: one row per contract line, the contract's columns repeated on each of its rows (or given on
   * its first row only) and grouped by the contract number. Rows of one contract need not be adjacent.
   */
  defineKind({
    kind: 'contracts',
    namespace: 'sourcing.contract',
    noun: 'Contract',
    creates: 'a draft green purchase contract with its lines (one row per line, grouped by `contractNumber`)',
    operation: 'sourcing.contract.createContract',
    schema: CreateContract,
    feature: 'green_contracts',
    readPermission: 'sourcing.contract.read',
    writePermission: 'sourcing.contract.write',
    uniqueField: 'contractNumber',
    group: { lines: 'lines' },
    fields: [
      { field: 'contractNumber', synonyms: ['contract', 'contractno', 'contractref', 'contractreference', 'reference', 'ref', 'number'] },
      { field: 'partnerId', synonyms: ['partner', 'seller', 'supplier', 'supplierid', 'vendor', 'importer'] },
      { field: 'currency', synonyms: ['ccy', 'currencycode'] },
      { field: 'priceType', synonyms: ['pricing', 'pricebasis'] },
      { field: 'incoterm', synonyms: ['incoterms', 'terms', 'deliveryterms'] },
      { field: 'contractDate', synonyms: ['date', 'signed', 'signedon', 'contractdated'] },
      { field: 'paymentTermsDays', type: 'integer', synonyms: ['paymentterms', 'termsdays', 'netdays'] },
      { field: 'notes', synonyms: ['note', 'comment', 'comments', 'remarks'] },
      { field: 'producerId', line: true, synonyms: ['producer', 'farm', 'cooperative', 'coop'] },
      { field: 'origin', line: true, synonyms: ['country', 'region', 'originregion'] },
      { field: 'quality', line: true, synonyms: ['grade', 'description', 'coffee', 'qualitydescription'] },
      { field: 'processMethod', line: true, synonyms: ['process', 'processing', 'method'] },
      { field: 'harvestYear', line: true, type: 'integer', synonyms: ['harvest', 'crop', 'cropyear', 'year'] },
      { field: 'weightKg', line: true, synonyms: ['weight', 'kg', 'quantity', 'quantitykg', 'qty', 'netweight', 'netweightkg'] },
      { field: 'pricePerKg', line: true, synonyms: ['price', 'priceperkg', 'pricekg', 'unitprice'] },
      { field: 'differentialPerKg', line: true, synonyms: ['differential', 'diff', 'differentialkg'] },
      { field: 'market', line: true, synonyms: ['exchange', 'futuresmarket', 'terminal'] },
      { field: 'fixationStatus', line: true, synonyms: ['fixation', 'fixed', 'fixationstate'] },
      { field: 'bagCount', line: true, type: 'integer', synonyms: ['bags', 'numberofbags', 'nbags'] },
      { field: 'bagWeightKg', line: true, synonyms: ['bagweight', 'bagsize', 'bagkg'] },
    ],
    emits: [contractCreated],
    refusals: (q, orgId, rows) => contract.contractRefusals(q, orgId, rows.map((r) => r.input)),
    async write(q, orgId, credentialId, rows, emit) {
      for (const { input } of rows) await emit(contractCreated, { contract: await contract.createContract(q, orgId, credentialId, input) });
      return rows.length;
    },
  }),
];

export const KIND_BY_NAME: ReadonlyMap<string, ImportKind> = new Map(IMPORT_KINDS.map((k) => [k.kind, k]));
