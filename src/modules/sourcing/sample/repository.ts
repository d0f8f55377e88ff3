import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { CreateSampleInput, SampleFilterInput, SampleStatus, SAMPLE_TYPES } from './schemas.js';

interface SampleRow {
  id: string;
  sample_number: string;
  name: string;
  sample_type: (typeof SAMPLE_TYPES)[number];
  partner_id: string | null;
  producer_id: string | null;
  contract_id: string | null;
  contract_line_id: string | null;
  po_number: string | null;
  sales_number: string | null;
  tracking_numbers: string[];
  weight_kg: string | null;
  due_at: Date | null;
  status: SampleStatus;
  status_changed_at: Date;
  decision: 'approved' | 'rejected' | null;
  decision_at: Date | null;
  decision_notes: string | null;
  green_lot_id: string | null;
  transferred_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toSample = (r: SampleRow) => ({
  id: r.id,
  sampleNumber: r.sample_number,
  name: r.name,
  sampleType: r.sample_type,
  partnerId: r.partner_id,
  producerId: r.producer_id,
  contractId: r.contract_id,
  contractLineId: r.contract_line_id,
  poNumber: r.po_number,
  salesNumber: r.sales_number,
  trackingNumbers: r.tracking_numbers,
  weightKg: r.weight_kg,
  dueAt: iso(r.due_at),
  status: r.status,
  statusChangedAt: iso(r.status_changed_at)!,
  decision: r.decision,
  decisionAt: iso(r.decision_at),
  decisionNotes: r.decision_notes,
  greenLotId: r.green_lot_id,
  transferredAt: iso(r.transferred_at),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export type Sample = ReturnType<typeof toSample>;

export async function insertSample(q: Queryable, orgId: string, credentialId: string, s: CreateSampleInput & { contractId?: string }): Promise<Sample> {
  const [row] = await q.query<SampleRow>(
    `insert into samples (org_id, id, sample_number, name, sample_type, partner_id, producer_id, contract_id, contract_line_id,
       po_number, sales_number, tracking_numbers, weight_kg, due_at, credential_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) returning *`,
    [
      orgId, newId('smp'), s.sampleNumber, s.name, s.sampleType, s.partnerId ?? null, s.producerId ?? null, s.contractId ?? null,
      s.contractLineId ?? null, s.poNumber ?? null, s.salesNumber ?? null, s.trackingNumbers ?? [], s.weightKg ?? null, s.dueAt ?? null, credentialId,
    ],
  );
  return toSample(row);
}

export async function findSample(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Sample | undefined> {
  const [row] = await q.query<SampleRow>(`select * from samples where org_id = $1 and id = $2${options.forUpdate ? ' for update' : ''}`, [orgId, id]);
  return row && toSample(row);
}

/** Moves the sample to `status`; approved and rejected stamp the decision (time and notes); trackingNumbers, when given, replace the list. */
export async function updateStatus(
  q: Queryable,
  orgId: string,
  id: string,
  change: { status: SampleStatus; decisionNotes?: string; trackingNumbers?: string[] },
): Promise<Sample> {
  const decided = change.status === 'approved' || change.status === 'rejected';
  const [row] = await q.query<SampleRow>(
    `update samples set status = $3, status_changed_at = now(), updated_at = now(),
       decision = case when $4 then $3 else decision end,
       decision_at = case when $4 then now() else decision_at end,
       decision_notes = case when $4 then $5 else decision_notes end,
       tracking_numbers = coalesce($6, tracking_numbers)
     where org_id = $1 and id = $2 returning *`,
    [orgId, id, change.status, decided, change.decisionNotes ?? null, change.trackingNumbers ?? null],
  );
  return toSample(row);
}

export async function markTransferred(q: Queryable, orgId: string, id: string, greenLotId: string): Promise<Sample> {
  const [row] = await q.query<SampleRow>(
    `update samples set green_lot_id = $3, transferred_at = now(), updated_at = now() where org_id = $1 and id = $2 returning *`,
    [orgId, id, greenLotId],
  );
  return toSample(row);
}

export async function listSamples(q: Queryable, orgId: string, filter: SampleFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.sampleType) where.push(`sample_type = ${params.add(filter.sampleType)}`);
  if (filter.status) where.push(`status = ${params.add(filter.status)}`);
  if (filter.partnerId) where.push(`partner_id = ${params.add(filter.partnerId)}`);
  if (filter.producerId) where.push(`producer_id = ${params.add(filter.producerId)}`);
  if (filter.contractId) where.push(`contract_id = ${params.add(filter.contractId)}`);
  if (filter.transferred !== undefined) where.push(filter.transferred ? 'green_lot_id is not null' : 'green_lot_id is null');
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(sample_number ilike ${p} or name ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'samples', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<SampleRow>(
    `select * from samples where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toSample), page.limit, 'samples', (s) => [s.id]);
}

/**
 * The contract's pre-shipment samples by their current decision: the approved one decided last (archived
 * samples keep their decision), and the numbers of the rejected ones.
 */
export async function preShipmentDecisions(q: Queryable, orgId: string, contractId: string): Promise<{ approvedSampleId?: string; rejectedSampleNumbers: string[] }> {
  const rows = await q.query<{ id: string; sample_number: string; decision: 'approved' | 'rejected' }>(
    `select id, sample_number, decision from samples
     where org_id = $1 and contract_id = $2 and sample_type = 'pre_shipment' and decision is not null
     order by decision_at desc, id desc`,
    [orgId, contractId],
  );
  return {
    approvedSampleId: rows.find((r) => r.decision === 'approved')?.id,
    rejectedSampleNumbers: rows.filter((r) => r.decision === 'rejected').map((r) => r.sample_number),
  };
}
