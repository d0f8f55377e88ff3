import type { Queryable } from '../db/client.js';
import { SqlParams, iso } from '../db/sql.js';
import { CURSOR_MESSAGE, decodeCursor, encodeCursor } from '../db/paging.js';
import { invalidInput } from '../rpc/errors.js';
import type { EventEnvelope } from './emit.js';

/**
 * The event feed: every event of an organization in commit order. Only events written by transactions
 * older than the oldest one still in flight are served (pg_snapshot_xmin of the statement's snapshot), in
 * (transaction id, sequence) order; an event that becomes visible later was written by a transaction at or
 * above that horizon, so it sorts after the cursor: a poller resuming from the cursor sees every event
 * once (see the migration 202611251301_webhooks.sql). The cost: an event appears once every transaction
 * that started before its own has ended, on the whole server (xids are cluster-wide): a long transaction
 * elsewhere (a pg_dump, another database's) delays the feed, never reorders it.
 */
export interface FeedQuery {
  /** Exact types and prefix wildcards (`inventory.*`); none: every type. */
  types?: string[];
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

interface EventRow {
  id: string;
  type: string;
  created_at: Date | string;
  data: Record<string, unknown>;
  txid: string;
  seq: string | number;
}

export const FEED_LIST = 'event_feed';

/** The feed takes its cursor at the top level, not in a page object: a cursor it did not issue is invalid input naming `cursor`. */
export const invalidFeedCursor = () =>
  invalidInput([{ path: 'cursor', message: CURSOR_MESSAGE }], 'The cursor was not returned by this feed; start again without one.');

export async function readEventFeed(q: Queryable, orgId: string, query: FeedQuery): Promise<{ items: EventEnvelope[]; nextCursor: string | null }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`, `txid < pg_snapshot_xmin(pg_current_snapshot())`];
  let after: (string | number)[] | undefined;
  try {
    after = decodeCursor(query.cursor, FEED_LIST, ['integer', 'integer']);
  } catch {
    throw invalidFeedCursor();
  }
  if (after) where.push(`(txid, seq) > (${params.add(String(after[0]))}::text::xid8, ${params.add(after[1])}::bigint)`);
  if (query.types && query.types.length > 0) where.push(typeMatch(params, query.types));
  if (query.from) where.push(`created_at >= ${params.add(query.from)}`);
  if (query.to) where.push(`created_at < ${params.add(query.to)}`);
  // Ordered by the table's columns: a bare `txid` in ORDER BY would name the text output column, and
  // "1000" sorts before "999" as text.
  const rows = await q.query<EventRow>(
    `select id, type, created_at, data, txid::text as txid, seq from events
     where ${where.join(' and ')} order by events.txid, events.seq limit ${params.add(query.limit)}`,
    params.values,
  );
  const items = rows.map((r) => toEnvelope(orgId, r));
  const last = rows.at(-1);
  // The position after the last event served, or the one given: a poller always has a place to resume from.
  const nextCursor = last ? encodeCursor(FEED_LIST, [Number(last.txid), Number(last.seq)]) : (query.cursor ?? null);
  return { items, nextCursor };
}

/** One event's envelope, as delivered; undefined if there is no such event in the organization. */
export async function readEvent(q: Queryable, orgId: string, id: string): Promise<EventEnvelope | undefined> {
  const [row] = await q.query<EventRow>(`select id, type, created_at, data, '0' as txid, 0 as seq from events where org_id = $1 and id = $2`, [orgId, id]);
  return row && toEnvelope(orgId, row);
}

/**
 * The events a statement's rows name, read by the same statement: for a module that reads many rows
 * together with their events (webhook delivery's claim), one statement rather than two, without naming
 * the events table itself. `join(alias)` joins the events of a relation with `org_id` and `event_id`
 * columns; `columns` adds `event_type`, `event_created_at` and `event_data` (null when there is no such
 * event); `envelopeOf` builds the envelope from such a row.
 */
export const eventEnvelopes = {
  join: (alias: string) => `left join events ev on ev.org_id = ${alias}.org_id and ev.id = ${alias}.event_id`,
  columns: 'ev.type as event_type, ev.created_at as event_created_at, ev.data as event_data',
  envelopeOf: (row: EnvelopeColumns): EventEnvelope | undefined =>
    row.event_type === null
      ? undefined
      : toEnvelope(row.org_id, { id: row.event_id, type: row.event_type, created_at: row.event_created_at!, data: row.event_data!, txid: '0', seq: 0 }),
};

export interface EnvelopeColumns {
  org_id: string;
  event_id: string;
  event_type: string | null;
  event_created_at: Date | string | null;
  event_data: Record<string, unknown> | null;
}

const toEnvelope = (orgId: string, r: EventRow): EventEnvelope => ({ id: r.id, type: r.type, createdAt: iso(r.created_at)!, organizationId: orgId, data: r.data });

/** `type` matches one of the patterns: an exact type, or a prefix wildcard `a.*` / `a.b.*`. */
export function typeMatch(params: SqlParams, patterns: string[], column = 'type'): string {
  const exact = patterns.filter((p) => !p.endsWith('.*'));
  const prefixes = patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1));
  const parts: string[] = [];
  if (exact.length) parts.push(`${column} = any(${params.add(exact)}::text[])`);
  for (const prefix of prefixes) parts.push(`starts_with(${column}, ${params.add(prefix)})`);
  return `(${parts.join(' or ')})`;
}
