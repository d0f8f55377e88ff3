import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import { conflict } from '../../../rpc/errors.js';
import type {
  ContractFilterInput,
  ContractStatus,
  CreateContractShipmentInput,
  MilestoneFilterInput,
  MilestoneKind,
  ShipmentFilterInput,
} from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Contracts

interface ContractRow {
  id: string;
  contract_number: string;
  partner_id: string;
  currency: string;
  price_type: 'fixed' | 'differential' | 'to_be_fixed' | 'formula';
  incoterm: string | null;
  contract_date_text: string | null;
  payment_terms_days: number | null;
  notes: string | null;
  status: ContractStatus;
  status_changed_at: Date;
  total_kg: string;
  shipped_kg: string;
  received_kg: string;
  open_kg: string;
  unshipped_kg: string;
  fixed_kg: string;
  fixed_value: string;
  open_fixed_value: string;
  created_at: Date;
  updated_at: Date;
}

const toContractSummary = (r: ContractRow) => ({
  id: r.id,
  contractNumber: r.contract_number,
  partnerId: r.partner_id,
  currency: r.currency,
  priceType: r.price_type,
  incoterm: r.incoterm as never,
  contractDate: r.contract_date_text,
  paymentTermsDays: r.payment_terms_days,
  notes: r.notes,
  status: r.status,
  statusChangedAt: iso(r.status_changed_at)!,
  position: {
    totalKg: r.total_kg,
    shippedKg: r.shipped_kg,
    receivedKg: r.received_kg,
    openKg: r.open_kg,
    unshippedKg: r.unshipped_kg,
    fixedKg: r.fixed_kg,
    fixedValue: r.fixed_value,
    openFixedValue: r.open_fixed_value,
  },
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export type ContractSummary = ReturnType<typeof toContractSummary>;

interface LineRow {
  id: string;
  contract_id: string;
  line_number: number;
  producer_id: string | null;
  origin: string | null;
  quality: string | null;
  process_method: string | null;
  harvest_year: number | null;
  weight_kg: string;
  price_per_kg: string | null;
  differential_per_kg: string | null;
  market: string | null;
  fixation_status: 'fixed' | 'unfixed';
  currency: string;
  bag_count: number | null;
  bag_weight_kg: string | null;
  received_kg: string;
  open_kg: string;
}

const toLine = (r: LineRow) => ({
  id: r.id,
  lineNumber: r.line_number,
  producerId: r.producer_id,
  origin: r.origin,
  quality: r.quality,
  processMethod: r.process_method,
  harvestYear: r.harvest_year,
  weightKg: r.weight_kg,
  pricePerKg: r.price_per_kg,
  differentialPerKg: r.differential_per_kg,
  market: r.market,
  fixationStatus: r.fixation_status,
  currency: r.currency,
  bagCount: r.bag_count,
  bagWeightKg: r.bag_weight_kg,
  receivedKg: r.received_kg,
  openKg: r.open_kg,
});

export type ContractLine = ReturnType<typeof toLine>;
export type Contract = ContractSummary & { lines: ContractLine[] };

/** The header as answered, with its position read off the kept aggregates (see the migration's invariants). */
const CONTRACT_COLUMNS = `
  c.*, c.contract_date::text as contract_date_text,
  greatest(c.total_kg - c.received_kg, 0)::numeric(14, 3) as open_kg,
  (c.total_kg - c.shipped_kg)::numeric(14, 3) as unshipped_kg,
  greatest(c.fixed_value - c.fixed_received_value, 0)::numeric(20, 4) as open_fixed_value`;

const LINE_COLUMNS = `l.*, greatest(l.weight_kg - l.received_kg, 0)::numeric(14, 3) as open_kg`;

export interface NewContract {
  contractNumber: string;
  partnerId: string;
  currency: string;
  priceType: string;
  incoterm?: string;
  contractDate?: string;
  paymentTermsDays?: number;
  notes?: string;
  lines: {
    producerId?: string;
    origin?: string;
    quality?: string;
    processMethod?: string;
    harvestYear?: number;
    weightKg: string;
    pricePerKg?: string;
    differentialPerKg?: string;
    market?: string;
    fixationStatus: 'fixed' | 'unfixed';
    bagCount?: number;
    bagWeightKg?: string;
  }[];
}

/**
 * The header and its lines in one statement; the header's total, fixed weight and fixed value are summed
 * from the lines by the same statement, so they cannot disagree.
 */
export async function insertContract(q: Queryable, orgId: string, credentialId: string, c: NewContract): Promise<string> {
  const id = newId('gc');
  const lines = c.lines;
  await q.query(
    `with l as (
       select * from unnest($12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::int[], $18::numeric[], $19::numeric[],
                            $20::numeric[], $21::text[], $22::text[], $23::int[], $24::numeric[])
         with ordinality as l(id, producer_id, origin, quality, process_method, harvest_year, weight_kg, price_per_kg,
                              differential_per_kg, market, fixation_status, bag_count, bag_weight_kg, n)
     ),
     header as (
       insert into green_contracts (org_id, id, contract_number, partner_id, currency, price_type, incoterm, contract_date,
                                    payment_terms_days, notes, credential_id, total_kg, fixed_kg, fixed_value)
       select $1, $2, $3, $4, $5, $6, $7, $8::date, $9, $10, $11,
              sum(weight_kg), coalesce(sum(weight_kg) filter (where fixation_status = 'fixed'), 0),
              coalesce(round(sum(weight_kg * price_per_kg) filter (where fixation_status = 'fixed'), 4), 0)
       from l
       returning id
     )
     insert into green_contract_lines (org_id, id, contract_id, line_number, producer_id, origin, quality, process_method, harvest_year,
                                       weight_kg, price_per_kg, differential_per_kg, market, fixation_status, currency, bag_count, bag_weight_kg)
     select $1, l.id, header.id, l.n, l.producer_id, l.origin, l.quality, l.process_method, l.harvest_year, l.weight_kg, l.price_per_kg,
            l.differential_per_kg, l.market, l.fixation_status, $5, l.bag_count, l.bag_weight_kg
     from l, header`,
    [
      orgId, id, c.contractNumber, c.partnerId, c.currency, c.priceType, c.incoterm ?? null, c.contractDate ?? null,
      c.paymentTermsDays ?? null, c.notes ?? null, credentialId,
      lines.map(() => newId('gcl')),
      lines.map((l) => l.producerId ?? null),
      lines.map((l) => l.origin ?? null),
      lines.map((l) => l.quality ?? null),
      lines.map((l) => l.processMethod ?? null),
      lines.map((l) => l.harvestYear ?? null),
      lines.map((l) => l.weightKg),
      lines.map((l) => l.pricePerKg ?? null),
      lines.map((l) => l.differentialPerKg ?? null),
      lines.map((l) => l.market ?? null),
      lines.map((l) => l.fixationStatus),
      lines.map((l) => l.bagCount ?? null),
      lines.map((l) => l.bagWeightKg ?? null),
    ],
  );
  return id;
}

/** Which of these contract numbers contracts of this organization use. */
export async function contractNumbersInUse(q: Queryable, orgId: string, numbers: string[]): Promise<string[]> {
  if (numbers.length === 0) return [];
  const rows = await q.query<{ contract_number: string }>(`select contract_number from green_contracts where org_id = $1 and contract_number = any($2::text[])`, [orgId, numbers]);
  return rows.map((r) => r.contract_number);
}

export async function findContractSummary(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<ContractSummary | undefined> {
  const [row] = await q.query<ContractRow>(
    `select ${CONTRACT_COLUMNS} from green_contracts c where c.org_id = $1 and c.id = $2${options.forUpdate ? ' for update' : ''}`,
    [orgId, id],
  );
  return row && toContractSummary(row);
}

export async function findContract(q: Queryable, orgId: string, id: string): Promise<Contract | undefined> {
  const summary = await findContractSummary(q, orgId, id);
  if (!summary) return undefined;
  return { ...summary, lines: await findLines(q, orgId, id) };
}

export async function findLines(q: Queryable, orgId: string, contractId: string): Promise<ContractLine[]> {
  const rows = await q.query<LineRow>(
    `select ${LINE_COLUMNS} from green_contract_lines l where l.org_id = $1 and l.contract_id = $2 order by l.line_number`,
    [orgId, contractId],
  );
  return rows.map(toLine);
}

export async function findLine(q: Queryable, orgId: string, id: string): Promise<(ContractLine & { contractId: string }) | undefined> {
  const [row] = await q.query<LineRow>(`select ${LINE_COLUMNS} from green_contract_lines l where l.org_id = $1 and l.id = $2`, [orgId, id]);
  return row && { ...toLine(row), contractId: row.contract_id };
}

export async function listContracts(q: Queryable, orgId: string, filter: ContractFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`c.org_id = ${params.add(orgId)}`];
  if (filter.status) where.push(`c.status = ${params.add(filter.status)}`);
  if (filter.partnerId) where.push(`c.partner_id = ${params.add(filter.partnerId)}`);
  if (filter.open !== undefined) {
    const open = OPEN_CONTRACT;
    where.push(filter.open ? open : `not (${open})`);
  }
  if (filter.q) where.push(`c.contract_number ilike ${params.add(likePattern(filter.q))}`);
  const after = decodeCursor(page.cursor, 'green_contracts', ['id']);
  if (after) where.push(`c.id > ${params.add(String(after[0]))}`);
  const rows = await q.query<ContractRow>(
    `select ${CONTRACT_COLUMNS} from green_contracts c where ${where.join(' and ')} order by c.id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toContractSummary), page.limit, 'green_contracts', (c) => [c.id]);
}

/** The predicate of the partial index green_contracts_open, spelled as the index spells it so the planner uses it. */
const OPEN_CONTRACT = `(c.status in ('confirmed', 'partially_shipped', 'shipped', 'arrived') and c.received_kg < c.total_kg)`;

export async function setContractStatus(q: Queryable, orgId: string, id: string, status: ContractStatus): Promise<void> {
  await q.query(
    `update green_contracts set status = $3, status_changed_at = now(), updated_at = now() where org_id = $1 and id = $2`,
    [orgId, id, status],
  );
}

/** Books a shipment's weight on the contract (caller holds the contract's row lock) and sets the status it implies. */
export async function addShipped(q: Queryable, orgId: string, id: string, weightKg: string, status: ContractStatus): Promise<void> {
  await q.query(
    `update green_contracts
     set shipped_kg = shipped_kg + $3::numeric,
         status_changed_at = case when status = $4 then status_changed_at else now() end, status = $4, updated_at = now()
     where org_id = $1 and id = $2`,
    [orgId, id, weightKg, status],
  );
}

// ---------------------------------------------------------------------------------------------------
// Shipments

interface ShipmentRow {
  id: string;
  contract_id: string;
  reference: string;
  weight_kg: string;
  vessel: string | null;
  carrier: string | null;
  container_number: string | null;
  port_of_loading: string | null;
  port_of_discharge: string | null;
  etd_text: string | null;
  eta_text: string | null;
  destination_location_id: string | null;
  status: 'booked' | 'received';
  received_at: Date | null;
  received_kg: string | null;
  lots: { contractLineId: string; greenLotId: string; weightKg: string }[];
  created_at: Date;
}

const toShipment = (r: ShipmentRow) => ({
  id: r.id,
  contractId: r.contract_id,
  reference: r.reference,
  weightKg: r.weight_kg,
  vessel: r.vessel,
  carrier: r.carrier,
  containerNumber: r.container_number,
  portOfLoading: r.port_of_loading,
  portOfDischarge: r.port_of_discharge,
  etd: r.etd_text,
  eta: r.eta_text,
  destinationLocationId: r.destination_location_id,
  status: r.status,
  receivedAt: iso(r.received_at),
  receivedKg: r.received_kg,
  lots: r.lots,
  createdAt: iso(r.created_at)!,
});

export type Shipment = ReturnType<typeof toShipment>;

const SHIPMENT_COLUMNS = `
  s.*, s.etd::text as etd_text, s.eta::text as eta_text,
  coalesce((select json_agg(json_build_object('contractLineId', r.contract_line_id, 'greenLotId', r.green_lot_id, 'weightKg', r.weight_kg::text) order by r.position)
            from green_contract_receipt_lines r where r.org_id = s.org_id and r.shipment_id = s.id), '[]') as lots`;

export async function insertShipment(q: Queryable, orgId: string, credentialId: string, s: CreateContractShipmentInput): Promise<string> {
  const id = newId('gcs');
  try {
    await q.query(
      `insert into green_contract_shipments (org_id, id, contract_id, reference, weight_kg, vessel, carrier, container_number,
         port_of_loading, port_of_discharge, etd, eta, destination_location_id, credential_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::date, $12::date, $13, $14)`,
      [
        orgId, id, s.contractId, s.reference, s.weightKg, s.vessel ?? null, s.carrier ?? null, s.containerNumber ?? null,
        s.portOfLoading ?? null, s.portOfDischarge ?? null, s.etd ?? null, s.eta ?? null, s.destinationLocationId ?? null, credentialId,
      ],
    );
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'green_contract_shipments_org_id_contract_id_reference_key') {
      throw conflict('duplicate', `The contract already has a shipment with reference ${s.reference}.`, {
        errors: [{ path: 'reference', message: 'already used on this contract' }],
      });
    }
    throw error;
  }
  return id;
}

/** The contract line each green lot was received against (lots not received from a contract are absent). */
export async function receiptLinesOfLots(q: Queryable, orgId: string, greenLotIds: string[]): Promise<Map<string, string>> {
  if (greenLotIds.length === 0) return new Map();
  const rows = await q.query<{ green_lot_id: string; contract_line_id: string }>(
    `select green_lot_id, contract_line_id from green_contract_receipt_lines where org_id = $1 and green_lot_id = any($2::text[])`,
    [orgId, greenLotIds],
  );
  return new Map(rows.map((r) => [r.green_lot_id, r.contract_line_id]));
}

export async function findShipment(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Shipment | undefined> {
  if (options.forUpdate) {
    // Locks the shipment row alone (the answer's receipt subquery cannot be locked): a receipt holds it until commit.
    await q.query(`select id from green_contract_shipments where org_id = $1 and id = $2 for update`, [orgId, id]);
  }
  const [row] = await q.query<ShipmentRow>(`select ${SHIPMENT_COLUMNS} from green_contract_shipments s where s.org_id = $1 and s.id = $2`, [orgId, id]);
  return row && toShipment(row);
}

export async function listShipments(q: Queryable, orgId: string, filter: ShipmentFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`s.org_id = ${params.add(orgId)}`];
  if (filter.contractId) where.push(`s.contract_id = ${params.add(filter.contractId)}`);
  if (filter.status) where.push(`s.status = ${params.add(filter.status)}`);
  const after = decodeCursor(page.cursor, 'green_contract_shipments', ['id']);
  if (after) where.push(`s.id > ${params.add(String(after[0]))}`);
  const rows = await q.query<ShipmentRow>(
    `select ${SHIPMENT_COLUMNS} from green_contract_shipments s where ${where.join(' and ')} order by s.id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toShipment), page.limit, 'green_contract_shipments', (s) => [s.id]);
}

/** Whether the contract has shipments not yet received, other than `exceptShipmentId`. */
export async function hasBookedShipments(q: Queryable, orgId: string, contractId: string, exceptShipmentId: string): Promise<boolean> {
  const [row] = await q.query<{ found: boolean }>(
    `select exists (select 1 from green_contract_shipments where org_id = $1 and contract_id = $2 and status = 'booked' and id <> $3) as found`,
    [orgId, contractId, exceptShipmentId],
  );
  return row.found;
}

export interface ReceiptLine {
  contractLineId: string;
  greenLotId: string;
  weightKg: string;
}

/**
 * Records what a receipt landed, in the transaction of the lots it created: the receipt lines, each contract
 * line's and the contract's received weight (and received value at fixed prices), the shipment as received,
 * and the contract's status. Caller holds the shipment's and the contract's row locks.
 */
export async function recordReceipt(
  q: Queryable,
  orgId: string,
  shipmentId: string,
  contractId: string,
  lines: ReceiptLine[],
  status: ContractStatus,
): Promise<void> {
  await q.query(
    `with r as (
       select * from unnest($4::text[], $5::text[], $6::text[], $7::numeric[]) with ordinality as r(id, contract_line_id, green_lot_id, weight_kg, position)
     ),
     receipt as (
       insert into green_contract_receipt_lines (org_id, id, shipment_id, contract_id, contract_line_id, position, green_lot_id, weight_kg)
       select $1, id, $2, $3, contract_line_id, position, green_lot_id, weight_kg from r
     ),
     per_line as (select contract_line_id, sum(weight_kg) as weight_kg from r group by contract_line_id),
     lines as (
       update green_contract_lines l set received_kg = l.received_kg + p.weight_kg
       from per_line p where l.org_id = $1 and l.id = p.contract_line_id
       returning l.id, p.weight_kg, case when l.fixation_status = 'fixed' then round(p.weight_kg * l.price_per_kg, 4) else 0 end as value
     ),
     header as (
       update green_contracts c
       set received_kg = c.received_kg + (select sum(weight_kg) from lines),
           fixed_received_value = c.fixed_received_value + (select sum(value) from lines),
           status_changed_at = case when c.status = $8 then c.status_changed_at else now() end, status = $8, updated_at = now()
       where c.org_id = $1 and c.id = $3
     )
     update green_contract_shipments
     set status = 'received', received_at = now(), received_kg = (select sum(weight_kg) from r), updated_at = now()
     where org_id = $1 and id = $2`,
    [
      orgId,
      shipmentId,
      contractId,
      lines.map(() => newId('gcr')),
      lines.map((l) => l.contractLineId),
      lines.map((l) => l.greenLotId),
      lines.map((l) => l.weightKg),
      status,
    ],
  );
}

// ---------------------------------------------------------------------------------------------------
// Milestones

interface MilestoneRow {
  id: string;
  contract_id: string;
  contract_number: string;
  kind: MilestoneKind;
  due_at: Date;
  notes: string | null;
  completed_at: Date | null;
  completed_by: string | null;
  sample_id: string | null;
  overdue: boolean;
  created_at: Date;
}

const toMilestone = (r: MilestoneRow) => ({
  id: r.id,
  contractId: r.contract_id,
  contractNumber: r.contract_number,
  kind: r.kind,
  dueAt: iso(r.due_at)!,
  notes: r.notes,
  completedAt: iso(r.completed_at),
  completedBy: r.completed_by,
  sampleId: r.sample_id,
  overdue: r.overdue,
  createdAt: iso(r.created_at)!,
});

export type Milestone = ReturnType<typeof toMilestone>;

const MILESTONE_SELECT = `
  select m.*, c.contract_number, (m.completed_at is null and m.due_at < now()) as overdue
  from green_contract_milestones m join green_contracts c on c.org_id = m.org_id and c.id = m.contract_id`;

export async function insertMilestone(
  q: Queryable,
  orgId: string,
  m: { contractId: string; kind: MilestoneKind; dueAt: string; notes?: string },
): Promise<Milestone> {
  const id = newId('gcm');
  await q.query(
    `insert into green_contract_milestones (org_id, id, contract_id, kind, due_at, notes) values ($1, $2, $3, $4, $5, $6)`,
    [orgId, id, m.contractId, m.kind, m.dueAt, m.notes ?? null],
  );
  return (await findMilestone(q, orgId, id))!;
}

export async function findMilestone(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Milestone | undefined> {
  const [row] = await q.query<MilestoneRow>(
    `${MILESTONE_SELECT} where m.org_id = $1 and m.id = $2${options.forUpdate ? ' for update of m' : ''}`,
    [orgId, id],
  );
  return row && toMilestone(row);
}

export async function completeMilestone(q: Queryable, orgId: string, id: string, credentialId: string, sampleId: string | null): Promise<Milestone> {
  await q.query(
    `update green_contract_milestones set completed_at = now(), completed_by = $3, sample_id = $4
     where org_id = $1 and id = $2 and completed_at is null`,
    [orgId, id, credentialId, sampleId],
  );
  return (await findMilestone(q, orgId, id))!;
}

export const MILESTONE_LIST_CAP = 1000;

export async function listMilestones(q: Queryable, orgId: string, filter: MilestoneFilterInput) {
  const params = new SqlParams();
  const where = [`m.org_id = ${params.add(orgId)}`];
  if (filter.contractId) where.push(`m.contract_id = ${params.add(filter.contractId)}`);
  if (filter.kind) where.push(`m.kind = ${params.add(filter.kind)}`);
  if (filter.dueFrom) where.push(`m.due_at >= ${params.add(filter.dueFrom)}`);
  if (filter.dueTo) where.push(`m.due_at < ${params.add(filter.dueTo)}`);
  if (filter.completed !== undefined) where.push(filter.completed ? 'm.completed_at is not null' : 'm.completed_at is null');
  if (filter.overdue !== undefined) {
    const overdue = '(m.completed_at is null and m.due_at < now())';
    where.push(filter.overdue ? overdue : `not ${overdue}`);
  }
  const rows = await q.query<MilestoneRow>(
    `${MILESTONE_SELECT} where ${where.join(' and ')} order by m.due_at, m.id limit ${params.add(MILESTONE_LIST_CAP + 1)}`,
    params.values,
  );
  return { items: rows.slice(0, MILESTONE_LIST_CAP).map(toMilestone), nextCursor: null, truncated: rows.length > MILESTONE_LIST_CAP };
}

// ---------------------------------------------------------------------------------------------------
// Open positions

/**
 * Committed and not yet received weight, per contract, per producer and origin, and in total, in one
 * statement that reads only the open contracts (the partial index green_contracts_open) and their lines:
 * its cost follows the open contracts, not the organization's history.
 */
export async function openPositions(q: Queryable, orgId: string) {
  const [row] = await q.query<{ positions: OpenPositionsJson }>(
    `with open as (
       select c.id, c.contract_number, c.partner_id, c.status, c.currency, c.total_kg, c.received_kg,
              greatest(c.total_kg - c.received_kg, 0)::numeric(14, 3) as open_kg,
              greatest(c.fixed_value - c.fixed_received_value, 0)::numeric(20, 4) as open_fixed_value
       from green_contracts c
       where c.org_id = $1 and ${OPEN_CONTRACT}
     ),
     -- Per contract, then summed: a lateral aggregate walks each open contract's lines by the lines' key
     -- (a nested loop whatever the planner guesses about how many contracts are open).
     by_origin as (
       select x.producer_id, x.origin, o.currency, sum(x.open_kg)::numeric(14, 3) as open_kg, sum(x.open_fixed_value)::numeric(20, 4) as open_fixed_value
       from open o
       cross join lateral (
         select l.producer_id, l.origin, sum(greatest(l.weight_kg - l.received_kg, 0)) as open_kg,
                coalesce(round(sum(greatest(l.weight_kg - l.received_kg, 0) * l.price_per_kg) filter (where l.fixation_status = 'fixed'), 4), 0) as open_fixed_value
         from green_contract_lines l
         where l.org_id = $1 and l.contract_id = o.id
         group by l.producer_id, l.origin
       ) x
       group by x.producer_id, x.origin, o.currency
     )
     select json_build_object(
       'contracts', coalesce((select json_agg(json_build_object(
           'contractId', id, 'contractNumber', contract_number, 'partnerId', partner_id, 'status', status, 'currency', currency,
           'totalKg', total_kg::text, 'receivedKg', received_kg::text, 'openKg', open_kg::text, 'openFixedValue', open_fixed_value::text) order by id)
         from open), '[]'),
       'byOrigin', coalesce((select json_agg(json_build_object(
           'producerId', producer_id, 'origin', origin, 'currency', currency, 'openKg', open_kg::text, 'openFixedValue', open_fixed_value::text)
           order by producer_id nulls last, origin nulls last, currency)
         from by_origin where open_kg > 0), '[]'),
       'totals', json_build_object(
         'contracts', (select count(*) from open),
         'openKg', (select coalesce(sum(open_kg), 0)::numeric(14, 3)::text from open),
         'byCurrency', coalesce((select json_agg(json_build_object('currency', currency, 'openFixedValue', v::text) order by currency)
                                 from (select currency, sum(open_fixed_value)::numeric(20, 4) as v from open group by currency) t), '[]'))
     ) as positions`,
    [orgId],
    { name: 'sourcing.openPositions' },
  );
  return row.positions;
}

interface OpenPositionsJson {
  contracts: {
    contractId: string;
    contractNumber: string;
    partnerId: string;
    status: ContractStatus;
    currency: string;
    totalKg: string;
    receivedKg: string;
    openKg: string;
    openFixedValue: string;
  }[];
  byOrigin: { producerId: string | null; origin: string | null; currency: string; openKg: string; openFixedValue: string }[];
  totals: { contracts: number; openKg: string; byCurrency: { currency: string; openFixedValue: string }[] };
}
