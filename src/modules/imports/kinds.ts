import type { z } from 'zod';
import type { Queryable } from '../../db/client.js';
import type { Permission } from '../../auth/permissions.js';
import type { Feature } from '../../auth/plans.js';
import type { ProblemError } from '../../rpc/errors.js';
import { ImportGreenLot } from '../inventory/green/schemas.js';
import * as green from '../inventory/green/service.js';
import { CreatePartner } from '../catalog/party/schemas.js';
import * as party from '../catalog/party/service.js';

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
}

/** A row that passed its schema: its number in the file and the operation's parsed input. */
export interface ValidRow<Input> {
  row: number;
  input: Input;
}

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
  /** The field unique per organization (and so per file): a repeat within the file is refused at the row repeating it. */
  uniqueField: string;
  /** Everything the owning module would refuse about these rows (reads only). */
  refusals(q: Queryable, orgId: string, rows: ValidRow<z.output<Schema>>[]): Promise<RowRefusal[]>;
  /** Writes the rows through the owning module's service, all or none (inside the caller's transaction); answers how many records it created. */
  write(q: Queryable, orgId: string, credentialId: string, rows: ValidRow<z.output<Schema>>[]): Promise<number>;
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
    refusals: (q, orgId, rows) => green.greenLotReceiptRefusals(q, orgId, rows.map(greenReceipt)),
    async write(q, orgId, credentialId, rows) {
      const { lots } = await green.receiveGreenLots(q, orgId, credentialId, rows.map(greenReceipt));
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
    refusals: (q, orgId, rows) => party.partnerRefusals(q, orgId, rows.map((r) => r.input)),
    async write(q, orgId, _credentialId, rows) {
      for (const { input } of rows) await party.createPartner(q, orgId, input);
      return rows.length;
    },
  }),
];

export const KIND_BY_NAME: ReadonlyMap<string, ImportKind> = new Map(IMPORT_KINDS.map((k) => [k.kind, k]));
