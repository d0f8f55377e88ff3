import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import { grams } from '../../../lib/grams.js';
import type { RoastedForm, RoastedLedgerKind, RoastedLotFilterInput } from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Lots

interface RoastedLotRow {
  id: string;
  lot_code: string;
  form: RoastedForm;
  roast_batch_id: string | null;
  batch_number: string | null;
  green_lot_id: string | null;
  green_lot_code: string | null;
  profile_id: string | null;
  location_id: string | null;
  roasted_at: Date;
  weight_loss_pct: string | null;
  shelf_life_days: number;
  best_before: string;
  expired: boolean;
  opening_kg: string;
  on_hand_kg: string;
  created_at: Date;
  updated_at: Date;
}

export type RoastedLot = ReturnType<typeof toRoastedLot>;

const toRoastedLot = (r: RoastedLotRow) => ({
  id: r.id,
  lotCode: r.lot_code,
  form: r.form,
  roastBatchId: r.roast_batch_id,
  batchNumber: r.batch_number,
  greenLotId: r.green_lot_id,
  greenLotCode: r.green_lot_code,
  profileId: r.profile_id,
  locationId: r.location_id,
  roastedAt: iso(r.roasted_at)!,
  /** (charge − drop) / charge × 100 of the roast that made the lot, 2 decimals. */
  weightLossPct: r.weight_loss_pct,
  shelfLifeDays: r.shelf_life_days,
  /** The UTC day the lot is best before: roast day + shelf life (its profile's, or 90 days). FEFO spends the earliest first. */
  bestBefore: r.best_before,
  /** Past its best-before day (UTC): allocation leaves it out unless asked to include expired stock. */
  expired: r.expired,
  /** What the lot opened with (its roast_output rows). */
  openingKg: r.opening_kg,
  onHandKg: r.on_hand_kg,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

/** The UTC day a roasted lot (table alias `lot`) is best before: what FEFO allocation sorts by. */
export function bestBeforeSql(lot: string): string {
  return `((${lot}.roasted_at at time zone 'UTC')::date + ${lot}.shelf_life_days)`;
}

/**
 * Whether the lot (alias `lot`) is past its best-before day: true from the UTC day after it, by the
 * transaction's clock. Allocation leaves such lots out unless asked; answers mark them.
 */
export function expiredSql(lot: string): string {
  return `(${bestBeforeSql(lot)} < (now() at time zone 'UTC')::date)`;
}

/** One definition of a lot as answered: the batch number and green lot code were copied in when it was opened. */
const LOT_SELECT = `select r.*, ${bestBeforeSql('r')}::text as best_before, ${expiredSql('r')} as expired from roasted_lots r`;

export interface NewRoastedLot {
  lotCode: string;
  form: RoastedForm;
  roastBatchId: string | null;
  batchNumber: string | null;
  greenLotId: string | null;
  greenLotCode: string | null;
  profileId: string | null;
  locationId: string | null;
  /** Kept to the millisecond, the precision of the list cursor. */
  roastedAt: string;
  weightLossPct: string | null;
  /** Days the lot keeps (its profile's shelf life); null: the default. */
  shelfLifeDays: number | null;
}

/** Days a roasted lot keeps when its profile states none (the column's default in migration 0009 too). */
const DEFAULT_SHELF_LIFE_DAYS = 90;

/** A lot is created empty; its weight only ever arrives as ledger rows. */
export async function insertRoastedLot(q: Queryable, orgId: string, lot: NewRoastedLot): Promise<string> {
  const id = newId('rl');
  await q.query(
    `insert into roasted_lots (org_id, id, lot_code, form, roast_batch_id, batch_number, green_lot_id, green_lot_code, profile_id, location_id,
                               roasted_at, weight_loss_pct, shelf_life_days)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, date_trunc('milliseconds', $11::timestamptz), $12,
             coalesce($13::int, ${DEFAULT_SHELF_LIFE_DAYS}))`,
    [
      orgId, id, lot.lotCode, lot.form, lot.roastBatchId, lot.batchNumber, lot.greenLotId, lot.greenLotCode, lot.profileId, lot.locationId,
      lot.roastedAt, lot.weightLossPct, lot.shelfLifeDays,
    ],
  );
  return id;
}

export async function findRoastedLot(q: Queryable, orgId: string, id: string): Promise<RoastedLot | undefined> {
  const [row] = await q.query<RoastedLotRow>(`${LOT_SELECT} where r.org_id = $1 and r.id = $2`, [orgId, id]);
  return row && toRoastedLot(row);
}

/** The loose lot a roast batch produced, if it produced one. */
export async function findBatchOutput(q: Queryable, orgId: string, roastBatchId: string): Promise<RoastedLot | undefined> {
  const [row] = await q.query<RoastedLotRow>(`${LOT_SELECT} where r.org_id = $1 and r.roast_batch_id = $2 and r.form = 'loose'`, [
    orgId,
    roastBatchId,
  ]);
  return row && toRoastedLot(row);
}

/** The loose lot each of the roast batches produced (batches that produced none are absent), with its opening weight. */
export async function batchOutputs(q: Queryable, orgId: string, roastBatchIds: string[]): Promise<Map<string, { id: string; lotCode: string; openingKg: string }>> {
  if (roastBatchIds.length === 0) return new Map();
  const rows = await q.query<{ roast_batch_id: string; id: string; lot_code: string; opening_kg: string }>(
    `select roast_batch_id, id, lot_code, opening_kg::text as opening_kg from roasted_lots
     where org_id = $1 and roast_batch_id = any($2::text[]) and form = 'loose'`,
    [orgId, roastBatchIds],
  );
  return new Map(rows.map((r) => [r.roast_batch_id, { id: r.id, lotCode: r.lot_code, openingKg: r.opening_kg }]));
}

/** Locks the lot row: every change to its weight happens under this lock, so the figure read is current until commit. */
export async function lockRoastedLot(q: Queryable, orgId: string, id: string): Promise<{ id: string; lotCode: string; onHand: bigint } | undefined> {
  const [row] = await q.query<{ id: string; lot_code: string; on_hand_kg: string }>(
    `select id, lot_code, on_hand_kg from roasted_lots where org_id = $1 and id = $2 for no key update`,
    [orgId, id],
  );
  return row && { id: row.id, lotCode: row.lot_code, onHand: grams(row.on_hand_kg) };
}

/** A lot with what allocation decides on. */
export interface AllocatableStock {
  id: string;
  lotCode: string;
  greenLotId: string | null;
  profileId: string | null;
  roastedAt: string;
  bestBefore: string;
  expired: boolean;
  onHand: bigint;
}

/**
 * Without a lock (what they held at the statement's start), the lots with stock that are named in `lotIds`
 * or roasted from one of `greenLots` (with its profile, when one is named), in id order.
 */
export async function readStockFor(q: Queryable, orgId: string, lotIds: string[], greenLots: { greenLotId: string; profileId: string | null }[]): Promise<AllocatableStock[]> {
  const rows = await q.query<{ id: string; lot_code: string; green_lot_id: string | null; profile_id: string | null; roasted_at: Date; best_before: string; expired: boolean; on_hand_kg: string }>(
    `select r.id, r.lot_code, r.green_lot_id, r.profile_id, r.roasted_at, ${bestBeforeSql('r')}::text as best_before, ${expiredSql('r')} as expired, r.on_hand_kg
     from roasted_lots r
     where r.org_id = $1 and r.on_hand_kg > 0
       and (r.id = any($2::text[])
            or (r.green_lot_id = any($3::text[])
                and exists (select 1 from unnest($3::text[], $4::text[]) w(green_lot_id, profile_id)
                            where w.green_lot_id = r.green_lot_id and (w.profile_id is null or w.profile_id = r.profile_id))))
     order by r.id`,
    [orgId, lotIds, greenLots.map((g) => g.greenLotId), greenLots.map((g) => g.profileId)],
  );
  return rows.map((r) => ({
    id: r.id,
    lotCode: r.lot_code,
    greenLotId: r.green_lot_id,
    profileId: r.profile_id,
    roastedAt: iso(r.roasted_at)!,
    bestBefore: r.best_before,
    expired: r.expired,
    onHand: grams(r.on_hand_kg),
  }));
}

/** Locks the lots in id order (the order every writer takes them in) and answers their on-hand weight. */
export async function lockRoastedLots(q: Queryable, orgId: string, ids: string[]): Promise<{ id: string; lotCode: string; onHand: bigint }[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: string; lot_code: string; on_hand_kg: string }>(
    `select id, lot_code, on_hand_kg from roasted_lots where org_id = $1 and id = any($2::text[]) order by id for no key update`,
    [orgId, ids],
  );
  return rows.map((r) => ({ id: r.id, lotCode: r.lot_code, onHand: grams(r.on_hand_kg) }));
}

/**
 * Locks up to `limit` of the lots, trying them in the order given and passing over (never waiting for) a lot
 * another transaction holds: answers the lots locked, in that order, with their on-hand weight as of the
 * lock (the newest committed version). A lot passed over is one before the last answered (or any, when fewer
 * than `limit` are answered) that is not answered.
 */
export async function lockFreeRoastedLots(q: Queryable, orgId: string, ids: string[], limit: number): Promise<{ id: string; onHand: bigint }[]> {
  if (ids.length === 0 || limit <= 0) return [];
  const rows = await q.query<{ id: string; on_hand_kg: string }>(
    `select r.id, r.on_hand_kg from unnest($2::text[]) with ordinality as c(id, n)
     join roasted_lots r on r.org_id = $1 and r.id = c.id
     order by c.n limit $3
     for no key update of r skip locked`,
    [orgId, ids, limit],
  );
  return rows.map((r) => ({ id: r.id, onHand: grams(r.on_hand_kg) }));
}

export async function listRoastedLots(q: Queryable, orgId: string, filter: RoastedLotFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`r.org_id = ${params.add(orgId)}`];
  if (filter.form) where.push(`r.form = ${params.add(filter.form)}`);
  if (filter.roastBatchId) where.push(`r.roast_batch_id = ${params.add(filter.roastBatchId)}`);
  if (filter.greenLotId) where.push(`r.green_lot_id = ${params.add(filter.greenLotId)}`);
  if (filter.profileId) where.push(`r.profile_id = ${params.add(filter.profileId)}`);
  if (filter.locationId) where.push(`r.location_id = ${params.add(filter.locationId)}`);
  if (filter.hasStock !== undefined) where.push(filter.hasStock ? `r.on_hand_kg > 0` : `r.on_hand_kg <= 0`);
  if (filter.expired !== undefined) where.push(filter.expired ? expiredSql('r') : `not ${expiredSql('r')}`);
  if (filter.roastedFrom) where.push(`r.roasted_at >= ${params.add(filter.roastedFrom)}::date`);
  if (filter.roastedTo) where.push(`r.roasted_at < ${params.add(filter.roastedTo)}::date + 1`);
  if (filter.q) where.push(`r.lot_code ilike ${params.add(likePattern(filter.q))}`);
  const after = decodeCursor(page.cursor, 'roasted_lots', ['timestamp', 'id']);
  if (after) where.push(`(r.roasted_at, r.id) < (${params.add(String(after[0]))}::timestamptz, ${params.add(String(after[1]))})`);
  const rows = await q.query<RoastedLotRow>(
    `${LOT_SELECT} where ${where.join(' and ')} order by r.roasted_at desc, r.id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toRoastedLot), page.limit, 'roasted_lots', (l) => [l.roastedAt, l.id]);
}

// ---------------------------------------------------------------------------------------------------
// The ledger

export type { RoastedLedgerKind };

interface LedgerRow {
  id: string;
  lot_id: string;
  seq: number;
  kind: RoastedLedgerKind;
  delta_kg: string;
  credential_id: string;
  comment: string | null;
  created_at: Date;
}

const toLedgerEntry = (r: LedgerRow) => ({
  id: r.id,
  roastedLotId: r.lot_id,
  seq: r.seq,
  kind: r.kind,
  deltaKg: r.delta_kg,
  credentialId: r.credential_id,
  comment: r.comment,
  createdAt: iso(r.created_at)!,
});

export type RoastedLedgerEntry = ReturnType<typeof toLedgerEntry>;

/**
 * The only way a roasted lot's weight changes: in one statement it appends the ledger row (numbered per
 * lot) and adds its delta to the lot's materialised figures. The caller holds the lot's row lock (or has
 * just created the lot in this transaction) and has already decided the movement is allowed.
 */
export async function appendRoastedLedger(
  q: Queryable,
  orgId: string,
  credentialId: string,
  movement: { lotId: string; kind: RoastedLedgerKind; deltaKg: string; comment?: string | null },
): Promise<RoastedLedgerEntry> {
  const [row] = await q.query<LedgerRow>(
    `with lot as (
       update roasted_lots
       set on_hand_kg = on_hand_kg + $4::numeric, ledger_seq = ledger_seq + 1, updated_at = now(),
           opening_kg = opening_kg + case when $5 = 'roast_output' then $4::numeric else 0 end
       where org_id = $1 and id = $3
       returning ledger_seq
     )
     insert into roasted_lot_ledger (org_id, id, lot_id, seq, kind, delta_kg, credential_id, comment)
     select $1, $2, $3, lot.ledger_seq, $5, $4::numeric, $6, $7 from lot
     returning *`,
    [orgId, newId('rlt'), movement.lotId, movement.deltaKg, movement.kind, credentialId, movement.comment ?? null],
  );
  if (!row) throw new Error(`appendRoastedLedger: no roasted lot ${movement.lotId}`);
  return toLedgerEntry(row);
}

/** The lot's whole ledger, oldest first. */
export async function listRoastedLedger(q: Queryable, orgId: string, lotId: string): Promise<RoastedLedgerEntry[]> {
  const rows = await q.query<LedgerRow>(`select * from roasted_lot_ledger where org_id = $1 and lot_id = $2 order by seq`, [orgId, lotId]);
  return rows.map(toLedgerEntry);
}

/** Which of the ids name no roasted lot of this organization. */
/** The code and best-before day of each lot that exists in the organization, by id (neither ever changes). */
export async function roastedLotLabels(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, { lotCode: string; bestBefore: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; lot_code: string; best_before: string }>(
    `select r.id, r.lot_code, ${bestBeforeSql('r')}::text as best_before from roasted_lots r where r.org_id = $1 and r.id = any($2::text[])`,
    [orgId, ids],
  );
  return new Map(rows.map((r) => [r.id, { lotCode: r.lot_code, bestBefore: r.best_before }]));
}

/** Where each roasted lot is kept (lots without a location, or not of this organization, are absent). */
export async function roastedLotLocations(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; location_id: string }>(
    `select id, location_id from roasted_lots where org_id = $1 and id = any($2::text[]) and location_id is not null`,
    [orgId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.location_id]));
}

export async function missingRoastedLotIds(q: Queryable, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `select x.id from unnest($2::text[]) x(id) where not exists (select 1 from roasted_lots t where t.org_id = $1 and t.id = x.id)`,
    [orgId, ids],
  );
  return rows.map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------------
// Point in time (reports)

export interface RoastedHoldingAt {
  lotId: string;
  lotCode: string;
  form: string;
  locationId: string | null;
  greenLotId: string | null;
  weightLossPct: string | null;
  /** What the lot opened with: the roasted weight its cost is spread over. */
  openingKg: string;
  /** The sum of the lot's ledger rows recorded before the instant. */
  onHandKg: string;
}

/**
 * Every roasted lot holding stock just before `before`, from the sum of its ledger rows recorded earlier
 * (a roasted lot is held at its one location). Optionally only at the given locations. By location, lot code.
 */
export async function holdingsAt(q: Queryable, orgId: string, before: string, locationIds?: string[]): Promise<RoastedHoldingAt[]> {
  const rows = await q.query<{ id: string; lot_code: string; form: string; location_id: string | null; green_lot_id: string | null; weight_loss_pct: string | null; opening_kg: string; on_hand_kg: string }>(
    `select r.id, r.lot_code, r.form, r.location_id, r.green_lot_id, r.weight_loss_pct::text as weight_loss_pct, r.opening_kg::text as opening_kg, h.on_hand_kg::text as on_hand_kg
     from (select lot_id, sum(delta_kg) as on_hand_kg from roasted_lot_ledger
           where org_id = $1 and created_at < $2::timestamptz group by lot_id) h
     join roasted_lots r on r.org_id = $1 and r.id = h.lot_id
     where h.on_hand_kg <> 0 and ($3::text[] is null or r.location_id = any($3::text[]))
     order by r.location_id nulls first, r.lot_code`,
    [orgId, before, locationIds ?? null],
  );
  return rows.map((r) => ({
    lotId: r.id,
    lotCode: r.lot_code,
    form: r.form,
    locationId: r.location_id,
    greenLotId: r.green_lot_id,
    weightLossPct: r.weight_loss_pct,
    openingKg: r.opening_kg,
    onHandKg: r.on_hand_kg,
  }));
}

// ---------------------------------------------------------------------------------------------------
// Product lines (orders): which lots a product's coffee is, read without locks (allocation locks what it picks)

/** The green lot each roasted lot was roasted from (lots of no green lot are absent). */
export async function roastedLotGreenLots(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; green_lot_id: string }>(
    `select id, green_lot_id from roasted_lots where org_id = $1 and id = any($2::text[]) and green_lot_id is not null`,
    [orgId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.green_lot_id]));
}

/** The lots with stock roasted with one of the profiles, in id order. */
export async function lotIdsRoastedWith(q: Queryable, orgId: string, profileIds: string[]): Promise<string[]> {
  if (profileIds.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `select id from roasted_lots where org_id = $1 and profile_id = any($2::text[]) and on_hand_kg > 0 order by id`,
    [orgId, profileIds],
  );
  return rows.map((r) => r.id);
}
