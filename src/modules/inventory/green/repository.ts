import type { Queryable } from '../../../db/client.js';
import { inChunks } from '../../../db/cursor.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { invalidInput } from '../../../rpc/errors.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import { grams } from '../../../lib/grams.js';
import { locationLabels } from '../../catalog/location/service.js';
import type { CostBucket, GreenLedgerKind, GreenLotFilterInput, GreenState, ImportGreenLotInput } from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Lots

interface GreenLotRow {
  id: string;
  lot_code: string;
  name: string;
  supplier_ref: string | null;
  producer_id: string | null;
  partner_id: string | null;
  state: GreenState;
  varieties: string[];
  process_method: string | null;
  harvest_year: number | null;
  certifications: string[];
  bag_count: number | null;
  bag_weight_kg: string | null;
  unit_cost: string | null;
  currency: string | null;
  min_weight_kg: string | null;
  notes: string | null;
  quarantined: boolean;
  quarantine_reason: string | null;
  quarantined_at: Date | null;
  quarantined_by: string | null;
  quarantine_released_at: Date | null;
  quarantine_released_by: string | null;
  quarantine_release_reason: string | null;
  on_hand_kg: string;
  reserved_kg: string;
  available_kg: string;
  opening_kg: string;
  created_at: Date;
  updated_at: Date;
}

/** The rollup's columns of a lot that has one (the join found its green_lot_landed_costs row). */
type LandedCostColumns = { [K in `lc_${CostBucket | 'total' | 'weight_basis_kg'}`]: string } & {
  lc_version: number;
  /** null when the current version has no components (an empty list cleared the cost). */
  lc_currency: string | null;
  lc_per_kg: string | null;
  lc_updated_at: Date;
};

/** The same columns of a lot without a rollup: all null from the left join. */
type NoLandedCostColumns = { [K in keyof LandedCostColumns]: null };

type GreenLotWithCostRow = GreenLotRow & (LandedCostColumns | NoLandedCostColumns);

export type GreenLot = ReturnType<typeof toGreenLot>;

const toGreenLot = (r: GreenLotWithCostRow) => ({
  id: r.id,
  lotCode: r.lot_code,
  name: r.name,
  supplierRef: r.supplier_ref,
  producerId: r.producer_id,
  partnerId: r.partner_id,
  state: r.state,
  varieties: r.varieties,
  processMethod: r.process_method,
  harvestYear: r.harvest_year,
  certifications: r.certifications,
  bagCount: r.bag_count,
  bagWeightKg: r.bag_weight_kg,
  unitCost: r.unit_cost,
  currency: r.currency,
  minWeightKg: r.min_weight_kg,
  notes: r.notes,
  quarantined: r.quarantined,
  /** The reason of the quarantine the lot is in now; null when it is not quarantined. */
  quarantineReason: r.quarantined ? r.quarantine_reason : null,
  quarantine: toQuarantine(r),
  onHandKg: r.on_hand_kg,
  reservedKg: r.reserved_kg,
  /** On hand minus reserved; a quarantined lot has the weight but none of it may be promised. */
  availableKg: r.available_kg,
  /** What the lot opened with (receive and split_in rows): the weight its landed cost is spread over. */
  openingKg: r.opening_kg,
  landedCost: r.lc_version === null ? null : toLandedCost(r),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

/** The lot's latest quarantine: why, who and when, and its release once released (null: never quarantined by a grading). */
const toQuarantine = (r: GreenLotRow) =>
  r.quarantined_at === null
    ? null
    : {
        reason: r.quarantine_reason ?? '',
        quarantinedAt: iso(r.quarantined_at)!,
        quarantinedBy: r.quarantined_by!,
        releasedAt: iso(r.quarantine_released_at),
        releasedBy: r.quarantine_released_by,
        releaseReason: r.quarantine_release_reason,
      };

const toLandedCost = (r: LandedCostColumns) => ({
  version: r.lc_version ?? 0,
  currency: r.lc_currency,
  buckets: { price: r.lc_price, freight: r.lc_freight, duty: r.lc_duty, carry: r.lc_carry, other: r.lc_other },
  total: r.lc_total,
  /** total / weightBasisKg, 4 decimals half-up; null without components or while the basis is zero. */
  perKg: r.lc_per_kg,
  weightBasisKg: r.lc_weight_basis_kg,
  updatedAt: iso(r.lc_updated_at),
});

export type LandedCost = ReturnType<typeof toLandedCost>;

/** One definition of the lot's columns as answered, with its landed-cost rollup (one row per lot). */
const LOT_COLUMNS = `
  g.*, (g.on_hand_kg - g.reserved_kg) as available_kg,
  c.version as lc_version, c.currency as lc_currency, c.price as lc_price, c.freight as lc_freight,
  c.duty as lc_duty, c.carry as lc_carry, c.other as lc_other, c.total as lc_total,
  c.weight_basis_kg as lc_weight_basis_kg, c.per_kg as lc_per_kg, c.updated_at as lc_updated_at`;
/**
 * `lots` is green_lots, or a CTE returning green_lots rows just written. The rollup is one primary-key lookup
 * per lot (lateral, kept from being flattened by `offset 0`): joined plainly, a planner that believes the lots
 * are one row (fresh statistics, a CTE) scans the organization's every rollup for each lot.
 */
const lotFrom = (lots = 'green_lots') =>
  `${lots} g left join lateral (select * from green_lot_landed_costs lc where lc.org_id = g.org_id and lc.lot_id = g.id offset 0) c on true`;
const LOT_FROM = lotFrom();

export interface NewGreenLot extends Omit<ImportGreenLotInput, 'weightKg' | 'locationId'> {}

/** A lot is created empty; its weight only ever arrives as ledger rows. */
export async function insertLot(q: Queryable, orgId: string, lot: NewGreenLot): Promise<string> {
  return (await insertLots(q, orgId, [lot]))[0];
}

/** Lots created empty in one statement (a receipt's many lots), ids in the order given. */
export async function insertLots(q: Queryable, orgId: string, lots: NewGreenLot[]): Promise<string[]> {
  const ids = lots.map(() => newId('gl'));
  const column = <T>(pick: (lot: NewGreenLot) => T | undefined, fallback: T | null = null) => lots.map((lot) => pick(lot) ?? fallback);
  await q.query(
    `insert into green_lots (org_id, id, lot_code, name, supplier_ref, producer_id, partner_id, state, varieties, process_method,
       harvest_year, certifications, bag_count, bag_weight_kg, unit_cost, currency, min_weight_kg, notes)
     select $1, l.id, l.lot_code, l.name, l.supplier_ref, l.producer_id, l.partner_id, l.state,
            coalesce((select array_agg(v) from jsonb_array_elements_text(l.varieties) v), '{}'), l.process_method, l.harvest_year,
            coalesce((select array_agg(c) from jsonb_array_elements_text(l.certifications) c), '{}'), l.bag_count, l.bag_weight_kg,
            l.unit_cost, l.currency, l.min_weight_kg, l.notes
     from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[], $10::text[], $11::int[],
                 $12::jsonb[], $13::int[], $14::numeric[], $15::numeric[], $16::text[], $17::numeric[], $18::text[])
       with ordinality as l(id, lot_code, name, supplier_ref, producer_id, partner_id, state, varieties, process_method, harvest_year,
                            certifications, bag_count, bag_weight_kg, unit_cost, currency, min_weight_kg, notes, n)
     order by l.n`,
    [
      orgId, ids, column((l) => l.lotCode), column((l) => l.name), column((l) => l.supplierRef), column((l) => l.producerId),
      column((l) => l.partnerId), column((l) => l.state), lots.map((l) => JSON.stringify(l.varieties ?? [])), column((l) => l.processMethod),
      column((l) => l.harvestYear), lots.map((l) => JSON.stringify(l.certifications ?? [])), column((l) => l.bagCount),
      column((l) => l.bagWeightKg), column((l) => l.unitCost), column((l) => l.currency), column((l) => l.minWeightKg), column((l) => l.notes),
    ],
  );
  return ids;
}

/** One lot a receipt creates: its facts and its opening weight, booked as one `receive` ledger row at `locationId`. */
export interface ReceivedLot {
  lot: NewGreenLot;
  weightKg: string;
  /** null: the unassigned balance. */
  locationId: string | null;
  comment: string | null;
}

/**
 * New lots with their opening weight, in one statement: the lots, each one's `receive` ledger row (seq 1) and
 * its balance at the location, with the lot's totals set from that row (on hand = opening = the weight,
 * ledger_seq 1), so the materialised figures equal the sums of their ledger rows as appendLedger keeps them.
 * Set-based: no per-lot round trip and nothing read back per lot. Ids and ledger rows in the order given.
 */
export async function insertReceivedLots(
  q: Queryable,
  orgId: string,
  credentialId: string,
  receipts: ReceivedLot[],
): Promise<{ ids: string[]; transactions: LedgerEntry[] }> {
  if (receipts.length === 0) return { ids: [], transactions: [] };
  const ids = receipts.map(() => newId('gl'));
  const ledgerIds = receipts.map(() => newId('glt'));
  const lots = receipts.map((r) => r.lot);
  const column = <T>(pick: (lot: NewGreenLot) => T | undefined, fallback: T | null = null) => lots.map((lot) => pick(lot) ?? fallback);
  const rows = await q.query<LedgerRow>(
    `with input as (
       select * from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[], $10::text[], $11::int[],
                            $12::jsonb[], $13::int[], $14::numeric[], $15::numeric[], $16::text[], $17::numeric[], $18::text[],
                            $19::numeric[], $20::text[], $21::text[], $22::text[])
         with ordinality as l(id, lot_code, name, supplier_ref, producer_id, partner_id, state, varieties, process_method, harvest_year,
                              certifications, bag_count, bag_weight_kg, unit_cost, currency, min_weight_kg, notes,
                              weight_kg, location_id, ledger_id, comment, n)
     ),
     lots as (
       insert into green_lots (org_id, id, lot_code, name, supplier_ref, producer_id, partner_id, state, varieties, process_method,
         harvest_year, certifications, bag_count, bag_weight_kg, unit_cost, currency, min_weight_kg, notes, on_hand_kg, opening_kg, ledger_seq)
       select $1, l.id, l.lot_code, l.name, l.supplier_ref, l.producer_id, l.partner_id, l.state,
              coalesce((select array_agg(v) from jsonb_array_elements_text(l.varieties) v), '{}'), l.process_method, l.harvest_year,
              coalesce((select array_agg(c) from jsonb_array_elements_text(l.certifications) c), '{}'), l.bag_count, l.bag_weight_kg,
              l.unit_cost, l.currency, l.min_weight_kg, l.notes, l.weight_kg, l.weight_kg, 1
       from input l order by l.n
     ),
     balances as (
       insert into green_lot_balances (org_id, lot_id, location_id, on_hand_kg)
       select $1, l.id, l.location_id, l.weight_kg from input l
     )
     insert into green_lot_ledger (org_id, id, lot_id, seq, kind, location_id, delta_kg, reserved_delta_kg, group_id, credential_id, comment)
     select $1, l.ledger_id, l.id, 1, 'receive', l.location_id, l.weight_kg, 0, null, $23, l.comment from input l order by l.n
     returning *`,
    [
      orgId, ids, column((l) => l.lotCode), column((l) => l.name), column((l) => l.supplierRef), column((l) => l.producerId),
      column((l) => l.partnerId), column((l) => l.state), lots.map((l) => JSON.stringify(l.varieties ?? [])), column((l) => l.processMethod),
      column((l) => l.harvestYear), lots.map((l) => JSON.stringify(l.certifications ?? [])), column((l) => l.bagCount),
      column((l) => l.bagWeightKg), column((l) => l.unitCost), column((l) => l.currency), column((l) => l.minWeightKg), column((l) => l.notes),
      receipts.map((r) => r.weightKg), receipts.map((r) => r.locationId), ledgerIds, receipts.map((r) => r.comment), credentialId,
    ],
    // Planning this statement costs about as much as running it: prepared once per connection instead.
    { name: 'green.insertReceivedLots' },
  );
  const entries = new Map(rows.map((r) => [r.id, toLedgerEntry(r)]));
  return { ids, transactions: ledgerIds.map((id) => entries.get(id)!) };
}

/**
 * A child lot carrying its parent's provenance (origin, form, varieties, process, harvest,
 * certifications, purchase price), created empty like any lot.
 */
export async function insertChildLot(q: Queryable, orgId: string, parentId: string, lotCode: string, name: string | undefined): Promise<string> {
  const id = newId('gl');
  await q.query(
    `insert into green_lots (org_id, id, lot_code, name, supplier_ref, producer_id, partner_id, state, varieties, process_method,
       harvest_year, certifications, bag_weight_kg, unit_cost, currency)
     select org_id, $3, $4, coalesce($5, name || ' (' || $4 || ')'), supplier_ref, producer_id, partner_id, state, varieties,
       process_method, harvest_year, certifications, bag_weight_kg, unit_cost, currency
     from green_lots where org_id = $1 and id = $2`,
    [orgId, parentId, id, lotCode, name ?? null],
  );
  return id;
}

export async function findLot(q: Queryable, orgId: string, id: string): Promise<GreenLot | undefined> {
  const [row] = await q.query<GreenLotWithCostRow>(`select ${LOT_COLUMNS} from ${LOT_FROM} where g.org_id = $1 and g.id = $2`, [orgId, id]);
  return row && toGreenLot(row);
}

/** The stock figures a rule is decided on, read under the row lock. */
export interface LockedLot {
  id: string;
  lotCode: string;
  state: string;
  quarantined: boolean;
  onHand: bigint;
  reserved: bigint;
  openingKg: string;
}

/**
 * Locks lots in id order, the one order every operation takes them in, so requests touching several lots
 * cannot deadlock each other. Every change to a lot's stock happens under this lock, so the figures
 * returned (and balances read afterwards in the same transaction) are current until commit.
 *
 * The service's lock order, which every transaction follows (a transaction may skip steps, never go back):
 *   1. the idempotency key's record (claimed first thing, src/rpc/dispatch.ts);
 *   2. the organization row (lockOrganization, only where a plan cap is counted);
 *   3. the operation's own head record: an order, a roast batch, a schedule, a location, a machine, …;
 *   4. green lots, in id order (this function);
 *   5. roasted lots, in id order (inventory/roast's lockRoastedLots, lockRoastedLot; its lockFreeRoastedLots
 *      takes them in any order but never waits, passing over a lot another transaction holds);
 *   6. a material (one per operation).
 * Row locks are FOR NO KEY UPDATE: no operation changes a key, and this mode does not conflict with the
 * KEY SHARE locks PostgreSQL's foreign-key checks take on referenced rows, so inserting an order line or
 * a ledger row that names a lot (in whatever order the lines come) never waits on, or deadlocks with, a
 * writer holding that lot. What still loses a race is retried by the dispatcher (src/rpc/dispatch.ts).
 */
export async function lockLots(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, LockedLot>> {
  const rows = await q.query<{ id: string; lot_code: string; state: string; quarantined: boolean; on_hand_kg: string; reserved_kg: string; opening_kg: string }>(
    `select id, lot_code, state, quarantined, on_hand_kg, reserved_kg, opening_kg from green_lots
     where org_id = $1 and id = any($2::text[]) order by id for no key update`,
    [orgId, [...new Set(ids)].sort()],
    { name: 'green.lockLots' },
  );
  return new Map(
    rows.map((r) => [
      r.id,
      { id: r.id, lotCode: r.lot_code, state: r.state, quarantined: r.quarantined, onHand: grams(r.on_hand_kg), reserved: grams(r.reserved_kg), openingKg: r.opening_kg },
    ]),
  );
}

export async function lockLot(q: Queryable, orgId: string, id: string): Promise<LockedLot | undefined> {
  return (await lockLots(q, orgId, [id])).get(id);
}

export async function listLots(q: Queryable, orgId: string, filter: GreenLotFilterInput, page: Page) {
  const params = new SqlParams();
  const org = params.add(orgId);
  const where = [`g.org_id = ${org}`];
  // Lots held at a location are walked in the order of that location's balance index, so a page costs
  // the same however many lots the organization has elsewhere.
  let from = LOT_FROM;
  let key = 'g.id';
  if (filter.locationId) {
    from = `green_lot_balances b join (${LOT_FROM}) on g.org_id = b.org_id and g.id = b.lot_id`;
    key = 'b.lot_id';
    where.push(`b.org_id = ${org}`, `b.location_id = ${params.add(filter.locationId)}`, `b.on_hand_kg > 0`);
  }
  if (filter.state) where.push(`g.state = ${params.add(filter.state)}`);
  if (filter.producerId) where.push(`g.producer_id = ${params.add(filter.producerId)}`);
  if (filter.partnerId) where.push(`g.partner_id = ${params.add(filter.partnerId)}`);
  if (filter.quarantined !== undefined) where.push(`g.quarantined = ${params.add(filter.quarantined)}`);
  if (filter.hasStock !== undefined) where.push(filter.hasStock ? `g.on_hand_kg > 0` : `g.on_hand_kg <= 0`);
  if (filter.belowMinimum !== undefined) {
    const below = `(g.min_weight_kg is not null and g.on_hand_kg < g.min_weight_kg)`;
    where.push(filter.belowMinimum ? below : `not ${below}`);
  }
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(g.lot_code ilike ${p} or g.name ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'green_lots', ['id']);
  if (after) {
    // On both sides of the balance join, so whichever order the planner walks starts at the cursor.
    const cursor = params.add(String(after[0]));
    where.push(`g.id > ${cursor}`);
    if (key !== 'g.id') where.push(`${key} > ${cursor}`);
  }
  const rows = await q.query<GreenLotWithCostRow>(
    `select ${LOT_COLUMNS} from ${from} where ${where.join(' and ')} order by ${key} limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toGreenLot), page.limit, 'green_lots', (l) => [l.id]);
}

// ---------------------------------------------------------------------------------------------------
// Balances

interface BalanceJson {
  locationId: string | null;
  onHandKg: string;
  updatedAt: string;
}

export type Balance = ReturnType<typeof toBalance>;

const toBalance = (b: BalanceJson) => ({
  /** null: coffee not placed at any location yet. */
  locationId: b.locationId,
  locationCode: null as string | null,
  locationName: null as string | null,
  onHandKg: b.onHandKg,
  updatedAt: iso(b.updatedAt)!,
});

/**
 * Where the lot is held: every location with a non-zero balance (negative only after a recount), as a
 * JSON column of the lot's row so a lot and its balances are one read. Weights are cast to text to
 * keep their exact 3-decimal form through JSON. The locations' codes and names are the location
 * module's to answer (they can change): withLocationLabels fills them in.
 */
const balancesColumn = (balances = 'green_lot_balances') => `
  coalesce((
    select json_agg(json_build_object('locationId', b.location_id, 'onHandKg', b.on_hand_kg::text, 'updatedAt', b.updated_at)
                    order by b.location_id nulls first)
    from ${balances} b
    where b.org_id = g.org_id and b.lot_id = g.id and b.on_hand_kg <> 0), '[]') as balances`;

/** Fills in each balance's location code and name, asked of the location module in one lookup for all the lots. */
async function withLocationLabels<L extends { balances: Balance[] }>(q: Queryable, orgId: string, lots: L[]): Promise<L[]> {
  const ids = [...new Set(lots.flatMap((lot) => lot.balances.flatMap((b) => (b.locationId ? [b.locationId] : []))))];
  if (ids.length === 0) return lots;
  const labels = await locationLabels(q, orgId, ids);
  for (const lot of lots) {
    for (const b of lot.balances) {
      const label = b.locationId ? labels.get(b.locationId) : undefined;
      b.locationCode = label?.code ?? null;
      b.locationName = label?.name ?? null;
    }
  }
  return lots;
}

export type GreenLotWithBalances = GreenLot & { balances: Balance[] };

type GreenLotWithBalancesRow = GreenLotWithCostRow & { balances: BalanceJson[] };

const toGreenLotWithBalances = (r: GreenLotWithBalancesRow): GreenLotWithBalances => ({ ...toGreenLot(r), balances: r.balances.map(toBalance) });

/** Lots with where they are held, in one statement (after a write, it sees the transaction's own rows). */
export async function findLotsWithBalances(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, GreenLotWithBalances>> {
  const rows = await q.query<GreenLotWithBalancesRow>(
    `select ${LOT_COLUMNS}, ${balancesColumn()} from ${LOT_FROM} where g.org_id = $1 and g.id = any($2::text[])`,
    [orgId, ids],
  );
  const lots = await withLocationLabels(q, orgId, rows.map(toGreenLotWithBalances));
  return new Map(lots.map((lot) => [lot.id, lot]));
}

export type GreenLotDetail = GreenLotWithBalances & { costComponents: StoredCostComponent[] };

/**
 * A lot with its balances and the components of its current landed-cost version, in one statement, so
 * the rollup and its components always agree even while they are being replaced.
 */
export async function findLotDetail(q: Queryable, orgId: string, id: string): Promise<GreenLotDetail | undefined> {
  const [row] = await q.query<GreenLotWithBalancesRow & { cost_components: CostComponentRow[] }>(
    `select ${LOT_COLUMNS}, ${balancesColumn()}, ${COST_COMPONENTS_COLUMN} from ${LOT_FROM} where g.org_id = $1 and g.id = $2`,
    [orgId, id],
  );
  if (!row) return undefined;
  const [lot] = await withLocationLabels(q, orgId, [toGreenLotWithBalances(row)]);
  return { ...lot, costComponents: row.cost_components.map(toCostComponent) };
}

/** What a movement is decided on: the lots' balances in grams and the state of the locations it names. */
export interface StockView {
  /** Every balance row of the lots, zero ones too. */
  balances: { lotId: string; locationId: string | null; onHand: bigint }[];
  /** The named locations that exist in the organization (asked of the location module). */
  locations: Map<string, { archived: boolean }>;
}

/** Reads the lots' balances and the named locations. Run it under the lots' locks. */
export async function readStock(q: Queryable, orgId: string, lotIds: string[], locationIds: string[] = []): Promise<StockView> {
  return { balances: await balancesInGrams(q, orgId, lotIds), locations: await locationLabels(q, orgId, locationIds) };
}

/** The lots' balance rows in grams, zero ones too. Run it under the lots' locks. */
export async function balancesInGrams(q: Queryable, orgId: string, lotIds: string[]): Promise<StockView['balances']> {
  if (lotIds.length === 0) return [];
  const rows = await q.query<{ lot_id: string; location_id: string | null; on_hand_kg: string }>(
    `select lot_id, location_id, on_hand_kg from green_lot_balances where org_id = $1 and lot_id = any($2::text[])
     order by lot_id, location_id nulls first`,
    [orgId, lotIds],
    { name: 'green.balancesInGrams' },
  );
  return rows.map((r) => ({ lotId: r.lot_id, locationId: r.location_id, onHand: grams(r.on_hand_kg) }));
}

// ---------------------------------------------------------------------------------------------------
// The ledger

export type LedgerKind = GreenLedgerKind;

/** One ledger row to append: a stock change at a location, or (reserve, release) a reservation change. */
export interface Movement {
  lotId: string;
  kind: LedgerKind;
  /** null: the unassigned balance. Reservation rows name no location. */
  locationId: string | null;
  deltaKg: string;
  reservedDeltaKg?: string;
  groupId?: string | null;
  comment?: string | null;
}

interface LedgerRow {
  id: string;
  lot_id: string;
  seq: number;
  kind: LedgerKind;
  location_id: string | null;
  delta_kg: string;
  reserved_delta_kg: string;
  group_id: string | null;
  credential_id: string;
  comment: string | null;
  /** A Date from a column, an RFC 3339 string from JSON. */
  created_at: Date | string;
}

const toLedgerEntry = (r: LedgerRow) => ({
  id: r.id,
  greenLotId: r.lot_id,
  seq: r.seq,
  kind: r.kind,
  locationId: r.location_id,
  deltaKg: r.delta_kg,
  reservedDeltaKg: r.reserved_delta_kg,
  groupId: r.group_id,
  credentialId: r.credential_id,
  comment: r.comment,
  createdAt: iso(r.created_at)!,
});

export type LedgerEntry = ReturnType<typeof toLedgerEntry>;

/** The result of a ledger write: the rows appended (in the order given) and every lot they touched, as it now stands. */
export interface LedgerWrite {
  transactions: LedgerEntry[];
  lots: Map<string, GreenLotWithBalances>;
}

/**
 * The only way stock or reservations change. In one statement it appends the ledger rows (numbered per
 * lot), adds their deltas to the lot totals and upserts the per-location balances, so the materialised
 * figures always equal the sums of their ledger rows; and it answers the touched lots as they stand
 * afterwards (totals, balances, landed cost), so a write needs no second read. Callers hold the lots'
 * row locks (lockLots) and have already decided the movement is allowed; the statement starts after the
 * locks were granted, so everything it reads is current.
 */
export async function appendLedger(q: Queryable, orgId: string, credentialId: string, movements: Movement[]): Promise<LedgerWrite> {
  if (movements.length === 0) return { transactions: [], lots: new Map() };
  const ids = movements.map(() => newId('glt'));
  const rows = await q.query<GreenLotWithBalancesRow & { entries: LedgerRow[] }>(
    `with input as (
       select * from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::numeric[], $8::text[], $9::text[])
         with ordinality as m(id, lot_id, kind, location_id, delta_kg, reserved_delta_kg, group_id, comment, n)
     ),
     per_lot as (
       select lot_id, count(*)::int as row_count, sum(delta_kg) as delta, sum(reserved_delta_kg) as reserved_delta,
              coalesce(sum(delta_kg) filter (where kind in ('receive', 'split_in')), 0) as opening_delta
       from input group by lot_id
     ),
     lots as (
       update green_lots g
       set on_hand_kg = g.on_hand_kg + p.delta, reserved_kg = g.reserved_kg + p.reserved_delta,
           opening_kg = g.opening_kg + p.opening_delta, ledger_seq = g.ledger_seq + p.row_count, updated_at = now()
       from per_lot p where g.org_id = $1 and g.id = p.lot_id
       returning g.*, g.ledger_seq - p.row_count as seq_before
     ),
     written_balances as (
       insert into green_lot_balances as b (org_id, lot_id, location_id, on_hand_kg)
       select $1, lot_id, location_id, sum(delta_kg) from input where kind not in ('reserve', 'release') group by lot_id, location_id
       on conflict on constraint green_lot_balances_key
       do update set on_hand_kg = b.on_hand_kg + excluded.on_hand_kg, updated_at = now()
       returning *
     ),
     entries as (
       insert into green_lot_ledger (org_id, id, lot_id, seq, kind, location_id, delta_kg, reserved_delta_kg, group_id, credential_id, comment)
       select $1, i.id, i.lot_id, l.seq_before + row_number() over (partition by i.lot_id order by i.n), i.kind, i.location_id,
              i.delta_kg, i.reserved_delta_kg, i.group_id, $10, i.comment
       from input i join lots l on l.id = i.lot_id
       returning *
     ),
     -- The statement's snapshot does not see its own writes: balances after = the rows just written plus
     -- the lots' untouched rows.
     balances_after as (
       select * from written_balances
       union all
       select b.* from green_lot_balances b
       where b.org_id = $1 and b.lot_id in (select lot_id from per_lot)
         and not exists (select 1 from written_balances w where w.lot_id = b.lot_id and w.location_id is not distinct from b.location_id)
     )
     select ${LOT_COLUMNS}, ${balancesColumn('balances_after')},
            (select json_agg(json_build_object(
                      'id', e.id, 'lot_id', e.lot_id, 'seq', e.seq, 'kind', e.kind, 'location_id', e.location_id,
                      'delta_kg', e.delta_kg::text, 'reserved_delta_kg', e.reserved_delta_kg::text, 'group_id', e.group_id,
                      'credential_id', e.credential_id, 'comment', e.comment, 'created_at', e.created_at))
             from entries e where e.lot_id = g.id) as entries
     from ${lotFrom('lots')}`,
    [
      orgId,
      ids,
      movements.map((m) => m.lotId),
      movements.map((m) => m.kind),
      movements.map((m) => m.locationId),
      movements.map((m) => m.deltaKg),
      movements.map((m) => m.reservedDeltaKg ?? '0'),
      movements.map((m) => m.groupId ?? null),
      movements.map((m) => m.comment ?? null),
      credentialId,
    ],
    // Planning this statement costs about as much as running it: prepared once per connection instead.
    { name: 'green.appendLedger' },
  );
  const entries = new Map(rows.flatMap((r) => r.entries).map((e) => [e.id, toLedgerEntry(e)]));
  if (entries.size !== movements.length) throw new Error('appendLedger: a movement names a lot that does not exist');
  return {
    transactions: ids.map((id) => entries.get(id)!),
    lots: new Map((await withLocationLabels(q, orgId, rows.map(toGreenLotWithBalances))).map((lot) => [lot.id, lot])),
  };
}

export async function listLedger(q: Queryable, orgId: string, lotId: string, page: Page) {
  const after = decodeCursor(page.cursor, 'green_lot_transactions', ['integer']);
  const afterSeq = after === undefined ? 0 : after[0];
  if (!Number.isInteger(afterSeq)) throw invalidInput([{ path: 'page.cursor', message: 'not a cursor returned by this list' }]);
  const rows = await q.query<LedgerRow>(
    `select * from green_lot_ledger where org_id = $1 and lot_id = $2 and seq > $3 order by seq limit $4`,
    [orgId, lotId, afterSeq, page.limit + 1],
  );
  return pageOf(rows.map(toLedgerEntry), page.limit, 'green_lot_transactions', (e) => [e.seq]);
}

// ---------------------------------------------------------------------------------------------------
// Landed cost

export interface CostComponent {
  bucket: CostBucket;
  amount: string;
  currency: string;
  basis: 'total' | 'per_kg';
  description?: string | null;
}

interface CostComponentRow {
  id: string;
  bucket: CostBucket;
  amount: string;
  currency: string;
  basis: 'total' | 'per_kg';
  description: string | null;
  created_at: string;
}

const toCostComponent = (r: CostComponentRow) => ({
  id: r.id,
  bucket: r.bucket,
  amount: r.amount,
  currency: r.currency,
  basis: r.basis,
  description: r.description,
  createdAt: iso(r.created_at)!,
});

export type StoredCostComponent = ReturnType<typeof toCostComponent>;

/** The components of the lot's current version (the one its rollup names), as a JSON column of the lot. */
const COST_COMPONENTS_COLUMN = `
  coalesce((
    select json_agg(json_build_object('id', k.id, 'bucket', k.bucket, 'amount', k.amount::text, 'currency', k.currency,
                                      'basis', k.basis, 'description', k.description, 'created_at', k.created_at)
                    order by k.position)
    from green_lot_cost_components k where k.org_id = g.org_id and k.lot_id = g.id and k.version = c.version), '[]') as cost_components`;

/**
 * The current components restated per kilogram, as a split child inherits them: a per_kg amount stays,
 * a total amount is divided by the weight it was spread over (4 decimals, half-up).
 */
export async function costComponentsPerKg(q: Queryable, orgId: string, lotId: string): Promise<CostComponent[]> {
  const rows = await q.query<{ bucket: CostBucket; amount: string; currency: string; description: string | null }>(
    `select k.bucket, k.currency, k.description,
            case k.basis when 'per_kg' then k.amount else round(k.amount / c.weight_basis_kg, 4) end as amount
     from green_lot_landed_costs c
     join green_lot_cost_components k on k.org_id = c.org_id and k.lot_id = c.lot_id and k.version = c.version
     where c.org_id = $1 and c.lot_id = $2 and c.weight_basis_kg > 0 order by k.position`,
    [orgId, lotId],
  );
  return rows.map((r) => ({ ...r, basis: 'per_kg' as const }));
}

/**
 * Appends the lot's next component version and recomputes its rollup from it. Each bucket is the sum of
 * its total amounts plus per_kg amounts × weightBasisKg, rounded to 4 decimals half-up; total is the sum
 * of the buckets and perKg = total / weightBasisKg, rounded the same way. Caller holds the lot lock.
 */
export async function replaceCostComponents(
  q: Queryable,
  orgId: string,
  lotId: string,
  components: CostComponent[],
  weightBasisKg: string,
): Promise<void> {
  await replaceCostComponentsOfLots(q, orgId, [{ lotId, components, weightBasisKg }]);
}

/**
 * replaceCostComponents for several lots in one statement (a receipt's many lots): each lot's next version of
 * components, and its rollup computed from the rows just inserted. Caller holds the lots' locks.
 */
export async function replaceCostComponentsOfLots(
  q: Queryable,
  orgId: string,
  lots: { lotId: string; components: CostComponent[]; weightBasisKg: string }[],
): Promise<void> {
  if (lots.length === 0) return;
  const flat = lots.flatMap((lot) => lot.components.map((c, i) => ({ ...c, lotId: lot.lotId, position: i + 1 })));
  const bucket = (name: CostBucket) =>
    `round(coalesce(sum(k.amount * case k.basis when 'per_kg' then v.weight_basis_kg else 1 end) filter (where k.bucket = '${name}'), 0), 4) as ${name}`;
  await q.query(
    `with versions as (
       select x.lot_id, x.weight_basis_kg, coalesce(c.version, 0) + 1 as version
       from unnest($2::text[], $3::numeric[]) as x(lot_id, weight_basis_kg)
       left join green_lot_landed_costs c on c.org_id = $1 and c.lot_id = x.lot_id
     ),
     inserted as (
       insert into green_lot_cost_components (org_id, id, lot_id, version, position, bucket, amount, currency, basis, description)
       select $1, k.id, k.lot_id, v.version, k.position, k.bucket, k.amount, k.currency, k.basis, k.description
       from unnest($4::text[], $5::text[], $6::int[], $7::text[], $8::numeric[], $9::text[], $10::text[], $11::text[])
         as k(id, lot_id, position, bucket, amount, currency, basis, description)
       join versions v on v.lot_id = k.lot_id
       returning lot_id, bucket, amount, currency, basis, id
     ),
     -- The components just inserted are not in the statement's snapshot: the rollup reads them from the insert.
     sums as (
       select v.lot_id, v.version, v.weight_basis_kg, max(k.currency) as currency, count(k.id) as component_count,
              ${bucket('price')}, ${bucket('freight')}, ${bucket('duty')}, ${bucket('carry')}, ${bucket('other')}
       from versions v left join inserted k on k.lot_id = v.lot_id
       group by v.lot_id, v.version, v.weight_basis_kg
     ),
     rollup as (select *, price + freight + duty + carry + other as total from sums)
     insert into green_lot_landed_costs as lc (org_id, lot_id, version, currency, price, freight, duty, carry, other, total, weight_basis_kg, per_kg)
     select $1, lot_id, version, currency, price, freight, duty, carry, other, total, weight_basis_kg,
            case when weight_basis_kg > 0 and component_count > 0 then round(total / weight_basis_kg, 4) end
     from rollup
     on conflict (org_id, lot_id) do update set
       version = excluded.version, currency = excluded.currency, price = excluded.price, freight = excluded.freight,
       duty = excluded.duty, carry = excluded.carry, other = excluded.other, total = excluded.total,
       weight_basis_kg = excluded.weight_basis_kg, per_kg = excluded.per_kg, updated_at = now()`,
    [
      orgId,
      lots.map((l) => l.lotId),
      lots.map((l) => l.weightBasisKg),
      flat.map(() => newId('gcc')),
      flat.map((c) => c.lotId),
      flat.map((c) => c.position),
      flat.map((c) => c.bucket),
      flat.map((c) => c.amount),
      flat.map((c) => c.currency),
      flat.map((c) => c.basis),
      flat.map((c) => c.description ?? null),
    ],
    // Planning this statement costs about as much as running it: prepared once per connection instead.
    { name: 'green.replaceCostComponentsOfLots' },
  );
}

// ---------------------------------------------------------------------------------------------------
// For a traceability chain

/** The lots' coffee facts (never their cost), by lot code. */
export async function describeLots(q: Queryable, orgId: string, ids: string[]): Promise<GreenLotFacts[]> {
  if (ids.length === 0) return [];
  const [row] = await q.query<{ lots: GreenLotFacts[] }>(
    `select coalesce(jsonb_agg(jsonb_build_object(
         'id', g.id, 'lotCode', g.lot_code, 'name', g.name, 'state', g.state, 'varieties', g.varieties,
         'processMethod', g.process_method, 'harvestYear', g.harvest_year, 'certifications', g.certifications,
         'producerId', g.producer_id,
         'enteredAtLocationId', (select l.location_id from green_lot_ledger l where l.org_id = g.org_id and l.lot_id = g.id order by l.seq limit 1))
         order by g.lot_code), '[]'::jsonb) as lots
     from green_lots g where g.org_id = $1 and g.id = any($2::text[])`,
    [orgId, ids],
  );
  return row.lots;
}

export interface GreenLotFacts {
  id: string;
  lotCode: string;
  name: string;
  state: GreenState;
  varieties: string[];
  processMethod: string | null;
  harvestYear: number | null;
  certifications: string[];
  producerId: string | null;
  /** Where the lot entered the organization: the location of its first ledger row (a receipt, an import, a split or transfer in). */
  enteredAtLocationId: string | null;
}

/** Which of the lot codes lots of this organization already have. */
export async function lotCodesInUse(q: Queryable, orgId: string, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await q.query<{ lot_code: string }>(`select lot_code from green_lots where org_id = $1 and lot_code = any($2::text[])`, [orgId, codes]);
  return rows.map((r) => r.lot_code);
}

/** Which of the ids name no green lot of this organization. */
export async function missingLotIds(q: Queryable, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `select x.id from unnest($2::text[]) x(id) where not exists (select 1 from green_lots t where t.org_id = $1 and t.id = x.id)`,
    [orgId, ids],
  );
  return rows.map((r) => r.id);
}

/** The codes of the lots that exist in the organization, by id (a lot's code never changes). */
export async function lotCodes(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; lot_code: string }>(`select id, lot_code from green_lots where org_id = $1 and id = any($2::text[])`, [orgId, ids]);
  return new Map(rows.map((r) => [r.id, r.lot_code]));
}

/** The lots' codes and stock figures, read without locking (for answers, not for decisions). */
export async function findLotFigures(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, LotFigures>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; lot_code: string; quarantined: boolean; on_hand_kg: string; reserved_kg: string }>(
    `select id, lot_code, quarantined, on_hand_kg, reserved_kg from green_lots where org_id = $1 and id = any($2::text[])`,
    [orgId, ids],
  );
  return new Map(rows.map((r) => [r.id, { id: r.id, lotCode: r.lot_code, quarantined: r.quarantined, onHand: grams(r.on_hand_kg), reserved: grams(r.reserved_kg) }]));
}

export interface LotFigures {
  id: string;
  lotCode: string;
  quarantined: boolean;
  onHand: bigint;
  reserved: bigint;
}

/**
 * Green that may be roasted per lot: on hand less reserved, none for a quarantined lot, and at a location
 * only what is held there (never more than the lot's available total).
 */
export async function roastableKg(q: Queryable, orgId: string, lotIds: string[], locationId: string | null): Promise<Map<string, string>> {
  const rows = await q.query<{ id: string; available_kg: string }>(
    `select g.id,
            case when g.quarantined then 0
                 else greatest(0, case when $3::text is null then g.on_hand_kg - g.reserved_kg
                                       else least(g.on_hand_kg - g.reserved_kg, coalesce(b.on_hand_kg, 0)) end)
            end::numeric(14, 3) as available_kg
     from green_lots g
     left join green_lot_balances b on b.org_id = g.org_id and b.lot_id = g.id and b.location_id = $3
     where g.org_id = $1 and g.id = any($2::text[])`,
    [orgId, lotIds, locationId],
  );
  return new Map(rows.map((r) => [r.id, r.available_kg]));
}

// ---------------------------------------------------------------------------------------------------
// Point in time (reports)

export interface GreenHoldingAt {
  lotId: string;
  lotCode: string;
  name: string;
  locationId: string | null;
  /** The sum of the lot's ledger rows at this location recorded before the instant. */
  onHandKg: string;
  /** In quarantine at the instant, by the lot's latest quarantine (the lot keeps its latest one only). */
  quarantined: boolean;
  /** The lot's current landed cost per kilogram (4 decimals) and its currency; null when it has none. */
  landedCostPerKg: string | null;
  currency: string | null;
}

/**
 * Every non-zero holding (lot and location, the unassigned one included) as the ledger stood just before
 * `before`, with the lot's current landed cost, in chunks of `rows` (a cursor: call it in a transaction).
 * Optionally only at the given locations. By location, then lot code.
 *
 * A holding is its balance less the ledger rows recorded at or after `before`: a balance is by definition
 * the sum of all the lot's rows at that location (both are written in one transaction, so a snapshot sees
 * them agree), so this equals the sum of the rows recorded earlier, while reading one row per holding
 * and the few rows since the instant (green_lot_ledger_by_time) instead of the whole ledger.
 */
export function holdingsAt(q: Queryable, orgId: string, before: string, locationIds: string[] | undefined, rows: number): AsyncGenerator<GreenHoldingAt[]> {
  return mapChunks(
    inChunks<{ lot_id: string; lot_code: string; name: string; location_id: string | null; on_hand_kg: string; quarantined: boolean; per_kg: string | null; currency: string | null }>(
      q,
      `select h.lot_id, g.lot_code, g.name, h.location_id, h.on_hand_kg::text as on_hand_kg,
              coalesce(g.quarantined_at < $2::timestamptz and (g.quarantine_released_at is null or g.quarantine_released_at >= $2::timestamptz),
                       g.quarantined) as quarantined,
              c.per_kg::text as per_kg, c.currency
       from (select b.lot_id, b.location_id, b.on_hand_kg - coalesce(since.kg, 0) as on_hand_kg
             from green_lot_balances b
             left join (select lot_id, coalesce(location_id, '') as location_key, sum(delta_kg) as kg
                        from green_lot_ledger
                        where org_id = $1 and created_at >= $2::timestamptz and delta_kg <> 0
                        group by lot_id, location_id) since
               on since.lot_id = b.lot_id and since.location_key = coalesce(b.location_id, '')
             where b.org_id = $1 and ($3::text[] is null or b.location_id = any($3::text[]))) h
       join green_lots g on g.org_id = $1 and g.id = h.lot_id
       left join green_lot_landed_costs c on c.org_id = $1 and c.lot_id = h.lot_id and c.per_kg is not null and c.currency is not null
       where h.on_hand_kg <> 0
       order by h.location_id nulls first, g.lot_code`,
      [orgId, before, locationIds ?? null],
      rows,
    ),
    (r) => ({ lotId: r.lot_id, lotCode: r.lot_code, name: r.name, locationId: r.location_id, onHandKg: r.on_hand_kg, quarantined: r.quarantined, landedCostPerKg: r.per_kg, currency: r.currency }),
  );
}

async function* mapChunks<R, T>(chunks: AsyncGenerator<R[]>, map: (row: R) => T): AsyncGenerator<T[]> {
  for await (const chunk of chunks) yield chunk.map(map);
}

/** The current landed cost per kilogram (4 decimals) and its currency, of the lots that have one. */
export async function landedCostsPerKg(q: Queryable, orgId: string, lotIds: string[]): Promise<Map<string, { perKg: string; currency: string }>> {
  if (lotIds.length === 0) return new Map();
  const rows = await q.query<{ lot_id: string; per_kg: string; currency: string }>(
    `select lot_id, per_kg::text as per_kg, currency from green_lot_landed_costs
     where org_id = $1 and lot_id = any($2::text[]) and per_kg is not null and currency is not null`,
    [orgId, lotIds],
  );
  return new Map(rows.map((r) => [r.lot_id, { perKg: r.per_kg, currency: r.currency }]));
}

// Quarantine

/** Puts the lot in quarantine with its reason, who and when (clearing the previous release). Caller holds the lot lock. */
export async function setQuarantine(q: Queryable, orgId: string, lotId: string, reason: string, by: string): Promise<void> {
  await q.query(
    `update green_lots set quarantined = true, quarantine_reason = $3, quarantined_at = now(), quarantined_by = $4,
       quarantine_released_at = null, quarantine_released_by = null, quarantine_release_reason = null, updated_at = now()
     where org_id = $1 and id = $2`,
    [orgId, lotId, reason, by],
  );
}

/** Releases the lot's quarantine, recording why, who and when. Caller holds the lot lock. */
export async function clearQuarantine(q: Queryable, orgId: string, lotId: string, reason: string, by: string): Promise<void> {
  await q.query(
    `update green_lots set quarantined = false, quarantine_released_at = now(), quarantine_released_by = $4,
       quarantine_release_reason = $3, updated_at = now()
     where org_id = $1 and id = $2`,
    [orgId, lotId, reason, by],
  );
}

export interface QuarantineRow {
  lotId: string;
  lotCode: string;
  name: string;
  reason: string | null;
  quarantinedAt: string | null;
  releasedAt: string | null;
  releaseReason: string | null;
  quarantined: boolean;
}

/** Lots whose latest quarantine began or was released in [from, to), or that are in quarantine now. */
export async function quarantinesBetween(q: Queryable, orgId: string, from: string, to: string): Promise<QuarantineRow[]> {
  const rows = await q.query<{ id: string; lot_code: string; name: string; quarantine_reason: string | null; quarantined_at: Date | null; quarantine_released_at: Date | null; quarantine_release_reason: string | null; quarantined: boolean }>(
    `select id, lot_code, name, quarantine_reason, quarantined_at, quarantine_released_at, quarantine_release_reason, quarantined from green_lots
     where org_id = $1 and (quarantined or (quarantined_at >= $2::timestamptz and quarantined_at < $3::timestamptz)
                            or (quarantine_released_at >= $2::timestamptz and quarantine_released_at < $3::timestamptz))
     order by quarantined_at nulls last, lot_code`,
    [orgId, from, to],
  );
  return rows.map((r) => ({
    lotId: r.id, lotCode: r.lot_code, name: r.name, reason: r.quarantine_reason, quarantinedAt: iso(r.quarantined_at), releasedAt: iso(r.quarantine_released_at),
    releaseReason: r.quarantine_release_reason, quarantined: r.quarantined,
  }));
}
