import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso } from '../../../db/sql.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { Check, Standard } from './rules.js';
import type { GradingFilterInput, RecordGradingInput } from './schemas.js';

interface GradingRow {
  id: string;
  green_lot_id: string | null;
  sample_id: string | null;
  standard: Standard;
  moisture_pct: string | null;
  water_activity: string | null;
  screen_size_avg: string | null;
  density_g_per_l: string | null;
  defects_primary: number | null;
  defects_secondary: number | null;
  screen_distribution: Record<string, number> | null;
  defect_counts: Record<string, number> | null;
  notes: string | null;
  result: 'pass' | 'fail' | 'not_judged';
  grade: string | null;
  checks: Check[];
  quarantined_lot: boolean;
  credential_id: string;
  created_at: Date;
}

const toGrading = (r: GradingRow) => ({
  id: r.id,
  greenLotId: r.green_lot_id,
  sampleId: r.sample_id,
  standard: r.standard,
  moisturePct: r.moisture_pct,
  waterActivity: r.water_activity,
  screenSizeAvg: r.screen_size_avg,
  densityGPerL: r.density_g_per_l,
  defectsPrimary: r.defects_primary,
  defectsSecondary: r.defects_secondary,
  screenDistribution: r.screen_distribution,
  defectCounts: r.defect_counts,
  notes: r.notes,
  result: r.result,
  grade: r.grade,
  checks: r.checks,
  reasons: r.checks.filter((c) => !c.passed).map((c) => c.message),
  quarantinedLot: r.quarantined_lot,
  credentialId: r.credential_id,
  createdAt: iso(r.created_at)!,
});
export type Grading = ReturnType<typeof toGrading>;

export interface NewGrading {
  id: string;
  input: RecordGradingInput;
  result: GradingRow['result'];
  grade: string | null;
  checks: Check[];
  quarantinedLot: boolean;
  credentialId: string;
}

export async function insertGrading(q: Queryable, orgId: string, g: NewGrading): Promise<Grading> {
  const i = g.input;
  const [row] = await q.query<GradingRow>(
    `insert into gradings (org_id, id, green_lot_id, sample_id, standard, moisture_pct, water_activity, screen_size_avg, density_g_per_l,
       defects_primary, defects_secondary, screen_distribution, defect_counts, notes, result, grade, checks, quarantined_lot, credential_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) returning *`,
    [
      orgId, g.id, i.greenLotId ?? null, i.sampleId ?? null, i.standard, i.moisturePct ?? null, i.waterActivity ?? null,
      i.screenSizeAvg ?? null, i.densityGPerL ?? null, i.defectsPrimary ?? null, i.defectsSecondary ?? null,
      i.screenDistribution ? JSON.stringify(i.screenDistribution) : null, i.defectCounts ? JSON.stringify(i.defectCounts) : null,
      i.notes ?? null, g.result, g.grade, JSON.stringify(g.checks), g.quarantinedLot, g.credentialId,
    ],
  );
  return toGrading(row);
}

/** Gradings, newest first. */
export async function listGradings(q: Queryable, orgId: string, filter: GradingFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.greenLotId) where.push(`green_lot_id = ${params.add(filter.greenLotId)}`);
  if (filter.sampleId) where.push(`sample_id = ${params.add(filter.sampleId)}`);
  if (filter.standard) where.push(`standard = ${params.add(filter.standard)}`);
  if (filter.result) where.push(`result = ${params.add(filter.result)}`);
  if (filter.gradedFrom) where.push(`created_at >= ${params.add(filter.gradedFrom)}`);
  if (filter.gradedTo) where.push(`created_at < ${params.add(filter.gradedTo)}`);
  const after = decodeCursor(page.cursor, 'gradings', ['id']);
  if (after) where.push(`id < ${params.add(String(after[0]))}`);
  const rows = await q.query<GradingRow>(
    `select * from gradings where ${where.join(' and ')} order by id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toGrading), page.limit, 'gradings', (g) => [g.id]);
}
