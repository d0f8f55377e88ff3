import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import { ATTRIBUTES, type Attribute, type CuppingMode, type CuppingSessionFilterInput, type SampleKind, type ScoresInput } from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Sessions

interface SessionRow {
  id: string;
  session_number: string;
  name: string;
  mode: CuppingMode;
  scheduled_at: Date | null;
  status: 'open' | 'finalized';
  finalized_at: Date | null;
  finalized_by: string | null;
  created_at: Date;
  updated_at: Date;
  sample_count: number;
  score_count: number;
}

const toSession = (r: SessionRow) => ({
  id: r.id,
  sessionNumber: r.session_number,
  name: r.name,
  mode: r.mode,
  scheduledAt: iso(r.scheduled_at),
  status: r.status,
  sampleCount: r.sample_count,
  scoreCount: r.score_count,
  finalizedAt: iso(r.finalized_at),
  finalizedBy: r.finalized_by,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});
export type CuppingSession = ReturnType<typeof toSession>;

const SESSION_COLUMNS = `s.*,
  (select count(*)::int from cupping_session_samples x where x.org_id = s.org_id and x.session_id = s.id) as sample_count,
  (select count(*)::int from cupping_scores c where c.org_id = s.org_id and c.session_id = s.id) as score_count`;

export interface NewSession {
  id: string;
  sessionNumber: string;
  name: string;
  mode: CuppingMode;
  scheduledAt?: string;
  createdBy: string;
}

export interface NewSessionSample {
  position: number;
  blindCode: string;
  kind: SampleKind;
  refId: string | null;
  refCode: string | null;
  refName: string | null;
}

/**
 * The session and its coffees in one statement. Coffee rows are given their ids in blind-code order, so
 * not even the (time-sortable) ids tell the order the coffees were given in.
 */
export async function insertSession(q: Queryable, orgId: string, session: NewSession, samples: NewSessionSample[]): Promise<{ session: CuppingSession; sampleIds: string[] }> {
  const byCode = [...samples].sort((a, b) => (a.blindCode < b.blindCode ? -1 : 1));
  const idByCode = new Map(byCode.map((s) => [s.blindCode, newId('css')]));
  const [row] = await q.query<SessionRow>(
    `with session as (
       insert into cupping_sessions (org_id, id, session_number, name, mode, scheduled_at, created_by)
       values ($1, $2, $3, $4, $5, $6, $7) returning *
     ),
     coffees as (
       insert into cupping_session_samples (org_id, id, session_id, position, blind_code, ref_kind, ref_id, ref_code, ref_name)
       select $1, c.id, (select id from session), c.position, c.blind_code, c.ref_kind, c.ref_id, c.ref_code, c.ref_name
       from unnest($8::text[], $9::int[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
         as c(id, position, blind_code, ref_kind, ref_id, ref_code, ref_name)
       returning 1
     )
     select s.*, (select count(*)::int from coffees) as sample_count, 0 as score_count from session s`,
    [
      orgId,
      session.id,
      session.sessionNumber,
      session.name,
      session.mode,
      session.scheduledAt ?? null,
      session.createdBy,
      byCode.map((s) => idByCode.get(s.blindCode)!),
      byCode.map((s) => s.position),
      byCode.map((s) => s.blindCode),
      byCode.map((s) => s.kind),
      byCode.map((s) => s.refId),
      byCode.map((s) => s.refCode),
      byCode.map((s) => s.refName),
    ],
  );
  return { session: toSession(row), sampleIds: samples.map((s) => idByCode.get(s.blindCode)!) };
}

export async function findSession(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<CuppingSession | undefined> {
  // FOR UPDATE locks the session row only (the counts are subqueries), until commit.
  const [row] = await q.query<SessionRow>(
    `select ${SESSION_COLUMNS} from cupping_sessions s where s.org_id = $1 and s.id = $2${options.forUpdate ? ' for update' : ''}`,
    [orgId, id],
  );
  return row && toSession(row);
}

export async function listSessions(q: Queryable, orgId: string, filter: CuppingSessionFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`s.org_id = ${params.add(orgId)}`];
  if (filter.status) where.push(`s.status = ${params.add(filter.status)}`);
  if (filter.mode) where.push(`s.mode = ${params.add(filter.mode)}`);
  if (filter.scheduledFrom) where.push(`s.scheduled_at >= ${params.add(filter.scheduledFrom)}`);
  if (filter.scheduledTo) where.push(`s.scheduled_at < ${params.add(filter.scheduledTo)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(s.session_number ilike ${p} or s.name ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'cupping_sessions', ['id']);
  if (after) where.push(`s.id < ${params.add(String(after[0]))}`);
  const rows = await q.query<SessionRow>(
    `select ${SESSION_COLUMNS} from cupping_sessions s where ${where.join(' and ')} order by s.id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toSession), page.limit, 'cupping_sessions', (s) => [s.id]);
}

// ---------------------------------------------------------------------------------------------------
// Coffees on the table

interface SampleRow {
  id: string;
  session_id: string;
  position: number;
  blind_code: string;
  ref_kind: SampleKind;
  ref_id: string | null;
  ref_code: string | null;
  ref_name: string | null;
  mean_score: string | null;
  stddev_score: string | null;
  min_score: string | null;
  max_score: string | null;
  cupper_count: number | null;
  attribute_means: Record<Attribute, string> | null;
  top_descriptors: { descriptor: string; count: number }[] | null;
  score_count: number;
}

const toIdentity = (r: SampleRow) => ({ position: r.position, kind: r.ref_kind, id: r.ref_id, code: r.ref_code, name: r.ref_name });
export type CoffeeIdentity = ReturnType<typeof toIdentity>;

const toResult = (r: SampleRow) => ({
  meanScore: r.mean_score,
  stddevScore: r.stddev_score,
  minScore: r.min_score,
  maxScore: r.max_score,
  cupperCount: r.cupper_count ?? 0,
  attributeMeans: r.attribute_means,
  topDescriptors: r.top_descriptors ?? [],
});
export type CuppingResult = ReturnType<typeof toResult>;

export interface SessionCoffee {
  sessionSampleId: string;
  blindCode: string;
  identity: CoffeeIdentity;
  scoreCount: number;
  /** Null until finalized. */
  result: CuppingResult | null;
}

/** The session's coffees in blind-code order, with how many cuppers scored each and (finalized) the result. */
export async function listCoffees(q: Queryable, orgId: string, sessionId: string, finalized: boolean): Promise<SessionCoffee[]> {
  const rows = await q.query<SampleRow>(
    `select ss.*, (select count(*)::int from cupping_scores c where c.org_id = ss.org_id and c.session_sample_id = ss.id) as score_count
     from cupping_session_samples ss where ss.org_id = $1 and ss.session_id = $2 order by ss.blind_code`,
    [orgId, sessionId],
  );
  return rows.map((r) => ({
    sessionSampleId: r.id,
    blindCode: r.blind_code,
    identity: toIdentity(r),
    scoreCount: r.score_count,
    result: finalized ? toResult(r) : null,
  }));
}

/**
 * The coffee a score is for, with its session's status, holding the session row FOR SHARE until commit:
 * scores may be submitted side by side, but a finalize (which takes the row FOR UPDATE) waits for every
 * score in flight, and a score arriving after the finalize reads the finalized status. So a score either
 * counts in the results or is refused; none is lost.
 */
export async function lockCoffeeForScoring(
  q: Queryable,
  orgId: string,
  sessionSampleId: string,
): Promise<{ sessionId: string; blindCode: string; status: 'open' | 'finalized'; sessionNumber: string } | undefined> {
  const [row] = await q.query<{ session_id: string; blind_code: string; status: 'open' | 'finalized'; session_number: string }>(
    `select ss.session_id, ss.blind_code, s.status, s.session_number
     from cupping_session_samples ss join cupping_sessions s on s.org_id = ss.org_id and s.id = ss.session_id
     where ss.org_id = $1 and ss.id = $2 for share of s`,
    [orgId, sessionSampleId],
    { name: 'cupping.lockCoffeeForScoring' },
  );
  return row && { sessionId: row.session_id, blindCode: row.blind_code, status: row.status, sessionNumber: row.session_number };
}

// ---------------------------------------------------------------------------------------------------
// Scores

interface ScoreRow extends Record<(typeof ATTRIBUTES)[number][1], string> {
  id: string;
  session_id: string;
  session_sample_id: string;
  blind_code: string;
  cupper_name: string | null;
  total_score: string;
  defects_penalty: string;
  final_score: string;
  descriptors: string[];
  notes: string | null;
  revision: number;
  credential_id: string;
  created_at: Date;
  updated_at: Date;
}

const toScore = (r: ScoreRow) => ({
  id: r.id,
  sessionId: r.session_id,
  sessionSampleId: r.session_sample_id,
  blindCode: r.blind_code,
  cupperName: r.cupper_name,
  scores: Object.fromEntries(ATTRIBUTES.map(([attribute, column]) => [attribute, Number(r[column])])) as Record<Attribute, number>,
  totalScore: Number(r.total_score),
  defectsPenalty: Number(r.defects_penalty),
  finalScore: Number(r.final_score),
  descriptors: r.descriptors,
  notes: r.notes,
  revision: r.revision,
  credentialId: r.credential_id,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});
export type CuppingScore = ReturnType<typeof toScore>;

export interface ScoreForm {
  sessionId: string;
  sessionSampleId: string;
  blindCode: string;
  cupperKey: string;
  cupperName: string | null;
  scores: ScoresInput;
  totalScore: string;
  defectsPenalty: string;
  finalScore: string;
  descriptors: string[];
  notes: string | null;
  credentialId: string;
}

const ATTRIBUTE_COLUMNS = ATTRIBUTES.map(([, column]) => column);

/** Stores a cupper's form for a coffee; a second form by the same cupper replaces the first (revision + 1). */
export async function upsertScore(q: Queryable, orgId: string, form: ScoreForm): Promise<CuppingScore> {
  const attributeParams = ATTRIBUTES.map((_, i) => `$${i + 7}`).join(', ');
  const [row] = await q.query<ScoreRow>(
    `insert into cupping_scores (org_id, id, session_id, session_sample_id, cupper_key, cupper_name, ${ATTRIBUTE_COLUMNS.join(', ')},
       total_score, defects_penalty, final_score, descriptors, notes, credential_id)
     values ($1, $2, $3, $4, $5, $6, ${attributeParams}, $17, $18, $19, $20, $21, $22)
     on conflict (org_id, session_sample_id, cupper_key) do update set
       cupper_name = excluded.cupper_name, ${ATTRIBUTE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')},
       total_score = excluded.total_score, defects_penalty = excluded.defects_penalty, final_score = excluded.final_score,
       descriptors = excluded.descriptors, notes = excluded.notes, credential_id = excluded.credential_id,
       revision = cupping_scores.revision + 1, updated_at = now()
     returning *, $23::text as blind_code`,
    [
      orgId,
      newId('csc'),
      form.sessionId,
      form.sessionSampleId,
      form.cupperKey,
      form.cupperName,
      ...ATTRIBUTES.map(([attribute]) => form.scores[attribute]),
      form.totalScore,
      form.defectsPenalty,
      form.finalScore,
      form.descriptors,
      form.notes,
      form.credentialId,
      form.blindCode,
    ],
    { name: 'cupping.upsertScore' },
  );
  return toScore(row);
}

/** The session's scores (only `cupperKey`'s when given), by coffee then cupper. */
export async function listScores(q: Queryable, orgId: string, sessionId: string, cupperKey?: string): Promise<CuppingScore[]> {
  const rows = await q.query<ScoreRow>(
    `select c.*, ss.blind_code from cupping_scores c
     join cupping_session_samples ss on ss.org_id = c.org_id and ss.id = c.session_sample_id
     where c.org_id = $1 and c.session_id = $2 and ($3::text is null or c.cupper_key = $3)
     order by ss.blind_code, c.id`,
    [orgId, sessionId, cupperKey ?? null],
  );
  return rows.map(toScore);
}

// ---------------------------------------------------------------------------------------------------
// Finalize

const attributeMeansSql = `jsonb_build_object(${ATTRIBUTES.map(([attribute, column]) => `'${attribute}', round(avg(c.${column}), 2)::text`).join(', ')})`;

/**
 * Aggregates every coffee's final scores into its result columns and closes the session, in two
 * statements; the caller holds the session FOR UPDATE, so no score is in flight while it runs. Per coffee:
 * mean, sample standard deviation (null under two cuppers), min, max (2 decimals), cupper count, the mean
 * of each attribute, and the five descriptors named by the most cuppers (case-folded; ties alphabetical).
 */
export async function finalizeSession(q: Queryable, orgId: string, session: CuppingSession, by: string): Promise<{ session: CuppingSession; coffees: SessionCoffee[] }> {
  const rows = await q.query<Omit<SampleRow, 'score_count'>>(FINALIZE_AGGREGATION, [orgId, session.id], { name: 'cupping.finalizeAggregation' });
  const [row] = await q.query<SessionRow>(
    `update cupping_sessions set status = 'finalized', finalized_at = now(), finalized_by = $3, updated_at = now()
     where org_id = $1 and id = $2 returning *, $4::int as sample_count, $5::int as score_count`,
    [orgId, session.id, by, session.sampleCount, session.scoreCount],
  );
  const coffees = rows
    .sort((a, b) => (a.blind_code < b.blind_code ? -1 : 1))
    .map((r) => ({ sessionSampleId: r.id, blindCode: r.blind_code, identity: toIdentity({ ...r, score_count: 0 }), scoreCount: r.cupper_count ?? 0, result: toResult({ ...r, score_count: 0 }) }));
  return { session: toSession(row), coffees };
}

/** The aggregation finalize runs ($1 org, $2 session); exported for the benchmark's bare baseline. */
export const FINALIZE_AGGREGATION = `
  with agg as (
    select ss.id, round(avg(c.final_score), 2) as mean_score, round(stddev_samp(c.final_score), 2) as stddev_score,
           min(c.final_score) as min_score, max(c.final_score) as max_score, count(c.id)::int as cupper_count,
           case when count(c.id) > 0 then ${attributeMeansSql} end as attribute_means
    from cupping_session_samples ss
    left join cupping_scores c on c.org_id = ss.org_id and c.session_sample_id = ss.id
    where ss.org_id = $1 and ss.session_id = $2
    group by ss.id
  ),
  named as (
    select c.session_sample_id, lower(btrim(d)) as descriptor, count(distinct c.id)::int as n
    from cupping_scores c cross join lateral unnest(c.descriptors) as d
    where c.org_id = $1 and c.session_id = $2
    group by c.session_sample_id, lower(btrim(d))
  ),
  ranked as (
    select *, row_number() over (partition by session_sample_id order by n desc, descriptor) as rank from named
  ),
  top as (
    select session_sample_id, jsonb_agg(jsonb_build_object('descriptor', descriptor, 'count', n) order by rank) as top_descriptors
    from ranked where rank <= 5 group by session_sample_id
  )
  update cupping_session_samples ss
  set mean_score = agg.mean_score, stddev_score = agg.stddev_score, min_score = agg.min_score, max_score = agg.max_score,
      cupper_count = agg.cupper_count, attribute_means = agg.attribute_means, top_descriptors = coalesce(top.top_descriptors, '[]'::jsonb)
  from agg left join top on top.session_sample_id = agg.id
  where ss.org_id = $1 and ss.id = agg.id
  returning ss.*`;

// ---------------------------------------------------------------------------------------------------
// Published results, for other modules

export interface PublishedCupping {
  sessionId: string;
  sessionNumber: string;
  sessionSampleId: string;
  finalizedAt: string;
  meanScore: string | null;
  stddevScore: string | null;
  cupperCount: number;
}

/** The finalized results of each record, newest first, keyed `<kind>:<id>`. */
export async function publishedCuppings(q: Queryable, orgId: string, refs: { kind: SampleKind; id: string }[]): Promise<Map<string, PublishedCupping[]>> {
  const result = new Map<string, PublishedCupping[]>();
  if (refs.length === 0) return result;
  const rows = await q.query<{
    ref_kind: string;
    ref_id: string;
    id: string;
    session_id: string;
    session_number: string;
    finalized_at: Date;
    mean_score: string | null;
    stddev_score: string | null;
    cupper_count: number;
  }>(
    `select ss.ref_kind, ss.ref_id, ss.id, s.id as session_id, s.session_number, s.finalized_at, ss.mean_score, ss.stddev_score, ss.cupper_count
     from cupping_session_samples ss join cupping_sessions s on s.org_id = ss.org_id and s.id = ss.session_id
     where ss.org_id = $1 and s.status = 'finalized'
       and (ss.ref_kind, ss.ref_id) in (select * from unnest($2::text[], $3::text[]))
     order by s.finalized_at desc, s.id desc, ss.id`,
    [orgId, refs.map((r) => r.kind), refs.map((r) => r.id)],
  );
  for (const r of rows) {
    const key = `${r.ref_kind}:${r.ref_id}`;
    const list = result.get(key) ?? [];
    list.push({
      sessionId: r.session_id,
      sessionNumber: r.session_number,
      sessionSampleId: r.id,
      finalizedAt: iso(r.finalized_at)!,
      meanScore: r.mean_score,
      stddevScore: r.stddev_score,
      cupperCount: r.cupper_count ?? 0,
    });
    result.set(key, list);
  }
  return result;
}
