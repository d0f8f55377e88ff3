import type { Database, Queryable } from '../../db/client.js';
import { SqlParams, iso, setClause } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';
import { eventEnvelopes, type EnvelopeColumns } from '../../events/feed.js';
import type { EventEnvelope } from '../../events/emit.js';

interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  status: 'active' | 'disabled';
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export type Endpoint = ReturnType<typeof toEndpoint>;

const toEndpoint = (r: EndpointRow) => ({
  id: r.id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types,
  status: r.status,
  disabledReason: r.disabled_reason,
  disabledAt: iso(r.disabled_at),
  consecutiveFailures: r.consecutive_failures,
  failingSince: iso(r.failing_since),
  // An overlap that has ended is no overlap.
  previousSecretExpiresAt: r.previous_secret_expires_at && new Date(r.previous_secret_expires_at) > new Date() ? iso(r.previous_secret_expires_at) : null,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  deletedAt: iso(r.deleted_at),
});

export async function insertEndpoint(
  q: Queryable,
  orgId: string,
  input: { url: string; description?: string; eventTypes: string[]; secretEncrypted: string },
): Promise<Endpoint> {
  const [row] = await q.query<EndpointRow>(
    `insert into webhook_endpoints (org_id, id, url, description, event_types, secret_encrypted)
     values ($1, $2, $3, $4, $5, $6) returning *`,
    [orgId, newId('whe'), input.url, input.description ?? null, input.eventTypes, input.secretEncrypted],
  );
  return toEndpoint(row);
}

/** A live (not deleted) endpoint. */
export async function findEndpoint(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Endpoint | undefined> {
  const [row] = await q.query<EndpointRow>(
    `select * from webhook_endpoints where org_id = $1 and id = $2 and deleted_at is null${options.forUpdate ? ' for update' : ''}`,
    [orgId, id],
  );
  return row && toEndpoint(row);
}

export async function updateEndpoint(
  q: Queryable,
  orgId: string,
  id: string,
  changes: { description?: string | null; eventTypes?: string[]; status?: 'active' | 'disabled'; disabledReason?: 'manual' | 'failing' },
): Promise<Endpoint> {
  const params = new SqlParams();
  const set = setClause(params, { description: changes.description, event_types: changes.eventTypes, status: changes.status });
  const statusEffects =
    changes.status === 'active'
      ? // Re-enabling clears the failure count and run (the specification's rule).
        `, disabled_reason = null, disabled_at = null, consecutive_failures = 0, failing_since = null`
      : changes.status === 'disabled'
        ? `, disabled_reason = ${params.add(changes.disabledReason ?? 'manual')}, disabled_at = now()`
        : '';
  const [row] = await q.query<EndpointRow>(
    `update webhook_endpoints set ${set ? `${set}, ` : ''}updated_at = now()${statusEffects}
     where org_id = ${params.add(orgId)} and id = ${params.add(id)} returning *`,
    params.values,
  );
  return toEndpoint(row);
}

export async function deleteEndpoint(q: Queryable, orgId: string, id: string): Promise<Endpoint> {
  const [row] = await q.query<EndpointRow>(
    `update webhook_endpoints set deleted_at = now(), updated_at = now() where org_id = $1 and id = $2 returning *`,
    [orgId, id],
  );
  return toEndpoint(row);
}

/** The new secret signs from now on; the previous one also signs until the overlap ends (none when 0). */
export async function rotateSecret(q: Queryable, orgId: string, id: string, secretEncrypted: string, overlapMinutes: number): Promise<Endpoint> {
  const [row] = await q.query<EndpointRow>(
    `update webhook_endpoints set
       previous_secret_encrypted = case when $4::int > 0 then secret_encrypted end,
       previous_secret_expires_at = case when $4::int > 0 then now() + make_interval(mins => $4::int) end,
       secret_encrypted = $3, updated_at = now()
     where org_id = $1 and id = $2 returning *`,
    [orgId, id, secretEncrypted, overlapMinutes],
  );
  return toEndpoint(row);
}

export async function listEndpoints(q: Queryable, orgId: string, filter: { status?: string }, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`, 'deleted_at is null'];
  if (filter.status) where.push(`status = ${params.add(filter.status)}`);
  const after = decodeCursor(page.cursor, 'webhook_endpoints', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<EndpointRow>(
    `select * from webhook_endpoints where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toEndpoint), page.limit, 'webhook_endpoints', (e) => [e.id]);
}

/** Active endpoints subscribed to `type`: an empty subscription, the exact type, or a matching prefix wildcard. */
export async function subscribedEndpointIds(q: Queryable, orgId: string, type: string): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `select id from webhook_endpoints
     where org_id = $1 and status = 'active' and deleted_at is null
       and (cardinality(event_types) = 0
            or $2 = any(event_types)
            or exists (select 1 from unnest(event_types) p where right(p, 2) = '.*' and starts_with($2, left(p, -1))))`,
    [orgId, type],
    { name: 'webhooks_subscribed_endpoints' },
  );
  return rows.map((r) => r.id);
}

export async function insertDeliveries(
  q: Queryable,
  orgId: string,
  event: { id: string; type: string },
  deliveries: { id: string; endpointId: string }[],
): Promise<void> {
  await q.query(
    `insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_type, next_attempt_at)
     select $1, d.id, d.endpoint_id, $2, $3, now()
     from unnest($4::text[], $5::text[]) as d (id, endpoint_id)`,
    [orgId, event.id, event.type, deliveries.map((d) => d.id), deliveries.map((d) => d.endpointId)],
  );
}

export const newDeliveryId = () => newId('whd');

/**
 * The common case of the outbox in one statement, for several events of one organization: matches the
 * active endpoints subscribed to each event's type (as subscribedEndpointIds) and inserts a delivery for
 * each of the first `perEvent` of them (by endpoint id), taking ids from `candidateIds`, `perEvent`
 * for each event in order. Returns the deliveries inserted; for an event that used all its candidates
 * there may be more endpoints, which the caller inserts the general way.
 */
export async function insertSubscribedDeliveries(
  q: Queryable,
  orgId: string,
  events: readonly { id: string; type: string }[],
  perEvent: number,
  candidateIds: string[],
): Promise<{ id: string; endpointId: string; eventId: string }[]> {
  const rows = await q.query<{ id: string; endpoint_id: string; event_id: string }>(
    `with v as (select * from unnest($2::text[], $3::text[]) with ordinality as v (id, type, i)),
     e as (
       select v.id as event_id, v.type, v.i, w.id as endpoint_id, row_number() over (partition by v.i order by w.id) as n
       from v join webhook_endpoints w
         on w.org_id = $1 and w.status = 'active' and w.deleted_at is null
        and (cardinality(w.event_types) = 0
             or v.type = any(w.event_types)
             or exists (select 1 from unnest(w.event_types) p where right(p, 2) = '.*' and starts_with(v.type, left(p, -1)))))
     insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_type, next_attempt_at)
     select $1, ($5::text[])[(e.i - 1) * $4 + e.n], e.endpoint_id, e.event_id, e.type, now()
     from e where e.n <= $4
     returning id, endpoint_id, event_id`,
    [orgId, events.map((e) => e.id), events.map((e) => e.type), perEvent, candidateIds],
    { name: 'webhooks_insert_subscribed_deliveries' },
  );
  return rows.map((r) => ({ id: r.id, endpointId: r.endpoint_id, eventId: r.event_id }));
}

/** Pending deliveries of an endpoint that stops (disabled, deleted) are canceled; an attempt in flight no longer owns its delivery. */
export async function cancelPendingDeliveries(q: Queryable, orgId: string, endpointId: string): Promise<void> {
  await q.query(
    `update webhook_deliveries set status = 'canceled', job_token = null, next_attempt_at = null, leased_until = null, updated_at = now()
     where org_id = $1 and endpoint_id = $2 and status = 'pending'`,
    [orgId, endpointId],
  );
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  schedule_step: number;
  attempt_count: number;
  next_attempt_at: Date | null;
  job_token: string | null;
  created_at: Date;
  updated_at: Date;
  attempts: AttemptRow[] | null;
}

interface AttemptRow {
  attempt: number;
  started_at: string;
  latency_ms: number;
  status_code: number | null;
  succeeded: boolean;
  response_body: string | null;
  error: string | null;
}

export type Delivery = ReturnType<typeof toDelivery>;

const toDelivery = (r: DeliveryRow) => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attemptCount: r.attempt_count,
  nextAttemptAt: iso(r.next_attempt_at),
  attempts: (r.attempts ?? []).map((a) => ({
    attempt: a.attempt,
    startedAt: iso(a.started_at)!,
    latencyMs: a.latency_ms,
    statusCode: a.status_code,
    succeeded: a.succeeded,
    responseBody: a.response_body,
    error: a.error,
  })),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

const ATTEMPTS = `(select json_agg(json_build_object('attempt', a.attempt, 'started_at', a.started_at, 'latency_ms', a.latency_ms,
    'status_code', a.status_code, 'succeeded', a.succeeded, 'response_body', a.response_body, 'error', a.error) order by a.attempt)
  from webhook_attempts a where a.org_id = d.org_id and a.delivery_id = d.id) as attempts`;

export async function findDelivery(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Delivery | undefined> {
  const [row] = await q.query<DeliveryRow>(
    options.forUpdate
      ? `select d.*, null as attempts from webhook_deliveries d where d.org_id = $1 and d.id = $2 for update`
      : `select d.*, ${ATTEMPTS} from webhook_deliveries d where d.org_id = $1 and d.id = $2`,
    [orgId, id],
  );
  return row && toDelivery(row);
}

export async function listDeliveries(q: Queryable, orgId: string, filter: { endpointId?: string; eventId?: string; status?: string }, page: Page) {
  const params = new SqlParams();
  const where = [`d.org_id = ${params.add(orgId)}`];
  if (filter.endpointId) where.push(`d.endpoint_id = ${params.add(filter.endpointId)}`);
  if (filter.eventId) where.push(`d.event_id = ${params.add(filter.eventId)}`);
  if (filter.status) where.push(`d.status = ${params.add(filter.status)}`);
  const after = decodeCursor(page.cursor, 'webhook_deliveries', ['id']);
  if (after) where.push(`d.id > ${params.add(String(after[0]))}`);
  const rows = await q.query<DeliveryRow>(
    `select d.*, ${ATTEMPTS} from webhook_deliveries d where ${where.join(' and ')} order by d.id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toDelivery), page.limit, 'webhook_deliveries', (d) => [d.id]);
}

/** Redeliver: the schedule starts over, due now, unleased (an attempt in flight no longer owns the delivery). */
export async function restartDelivery(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(
    `update webhook_deliveries set status = 'pending', schedule_step = 0, job_token = null, next_attempt_at = now(), leased_until = null, updated_at = now()
     where org_id = $1 and id = $2`,
    [orgId, id],
  );
}

/** What an attempt needs: the delivery, its endpoint's address, state and secrets. */
export interface AttemptTarget {
  orgId: string;
  deliveryId: string;
  eventId: string;
  /** The lease's token: the attempt's outcome is recorded as the delivery's only while the delivery still holds it. */
  token: string;
  scheduleStep: number;
  endpointId: string;
  url: string;
  endpointStatus: 'active' | 'disabled';
  endpointDeleted: boolean;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
}

/** A leased delivery with what its attempt sends: the event, unless it is gone. */
export interface LeasedDelivery {
  target: AttemptTarget;
  event: EventEnvelope | undefined;
}

/**
 * The delivery queue's claim, across organizations (the worker's, on the owner connection, like a job
 * queue's fetch): leases up to `limit` pending deliveries that are due and not leased (or whose lease has
 * expired), oldest due first, for `leaseSeconds`, under a fresh token each, and answers them with their
 * endpoints and events (undefined when the event is gone), in one statement: one snapshot, so every
 * delivery it leases has its event. SKIP LOCKED: workers claiming at once take different deliveries.
 *
 * Its plan is pinned to the due index, walked in order and left after `limit` unleased rows (planner
 * settings local to its one-round-trip script): with statistics older than a backlog that grew in
 * seconds, the planner otherwise reads every due row and sorts them, for every claim.
 */
export async function claimDueDeliveries(db: Database, limit: number, leaseSeconds: number): Promise<LeasedDelivery[]> {
  if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(leaseSeconds) || leaseSeconds < 1) throw new RangeError('claimDueDeliveries: limit and leaseSeconds must be positive integers');
  const rows = await db.script<
    EnvelopeColumns & {
      id: string; job_token: string; schedule_step: number; endpoint_id: string; url: string; endpoint_status: 'active' | 'disabled'; deleted: boolean;
      secret_encrypted: string; previous_secret_encrypted: string | null;
    }
  >(
    `set local enable_bitmapscan = off; set local enable_sort = off;
     with due as (
       select org_id, id from webhook_deliveries
       where status = 'pending' and next_attempt_at <= now() and (leased_until is null or leased_until < now())
       order by next_attempt_at
       limit ${limit}
       for update skip locked),
     claimed as (
       update webhook_deliveries d set job_token = md5(random()::text || d.id), leased_until = now() + make_interval(secs => ${leaseSeconds})
       from due where d.org_id = due.org_id and d.id = due.id
       returning d.org_id, d.id, d.event_id, d.job_token, d.schedule_step, d.endpoint_id)
     select c.*, e.url, e.status as endpoint_status, e.deleted_at is not null as deleted, e.secret_encrypted,
            case when e.previous_secret_expires_at > now() then e.previous_secret_encrypted end as previous_secret_encrypted,
            ${eventEnvelopes.columns}
     from claimed c join webhook_endpoints e on e.org_id = c.org_id and e.id = c.endpoint_id
       ${eventEnvelopes.join('c')}`,
  );
  return rows.map((row) => ({
    target: {
      orgId: row.org_id,
      deliveryId: row.id,
      eventId: row.event_id,
      token: row.job_token,
      scheduleStep: row.schedule_step,
      endpointId: row.endpoint_id,
      url: row.url,
      endpointStatus: row.endpoint_status,
      endpointDeleted: row.deleted,
      secretEncrypted: row.secret_encrypted,
      previousSecretEncrypted: row.previous_secret_encrypted,
    },
    event: eventEnvelopes.envelopeOf(row),
  }));
}

/** Ends attempts' leases without an attempt (their endpoints had no slot free): due again at `dueAt`, each if its lease still holds it. */
export async function deferDeliveries(q: Queryable, orgId: string, leases: { deliveryId: string; token: string }[], dueAt: Date): Promise<void> {
  await q.query(
    `update webhook_deliveries d set next_attempt_at = $4, leased_until = null
     from unnest($2::text[], $3::text[]) as l (id, token)
     where d.org_id = $1 and d.id = l.id and d.job_token = l.token and d.status = 'pending'`,
    [orgId, leases.map((l) => l.deliveryId), leases.map((l) => l.token), dueAt],
  );
}

export interface AttemptResult {
  startedAt: Date;
  latencyMs: number;
  statusCode: number | null;
  succeeded: boolean;
  responseBody: string | null;
  error: string | null;
}

/**
 * Records an attempt and moves the delivery on, if the attempt's lease still holds it (its token matches):
 * succeeded; pending, due at `next` (the lease ended); or failed once the schedule is spent.
 * Returns whether the attempt owned the delivery.
 */
export async function recordAttempt(
  q: Queryable,
  orgId: string,
  deliveryId: string,
  token: string,
  result: AttemptResult,
  next: { dueAt: Date } | null,
): Promise<boolean> {
  // The row lock orders concurrent attempts of one delivery (an expired lease's attempt racing a redelivered one).
  const [lock] = await q.query<{ owned: boolean }>(
    `select coalesce(job_token = $3, false) as owned from webhook_deliveries where org_id = $1 and id = $2 for update`,
    [orgId, deliveryId, token],
  );
  const owned = Boolean(lock?.owned);
  const [row] = owned
    ? await q.query<{ attempt_count: number }>(
        `update webhook_deliveries set
           attempt_count = attempt_count + 1, schedule_step = schedule_step + 1, updated_at = now(),
           status = case when $3 then 'succeeded' when $4::timestamptz is null then 'failed' else 'pending' end,
           job_token = null, leased_until = null,
           next_attempt_at = case when $3 then null else $4::timestamptz end
         where org_id = $1 and id = $2 returning attempt_count`,
        [orgId, deliveryId, result.succeeded, result.succeeded ? null : (next?.dueAt ?? null)],
      )
    : // A redeliver (or a cancel) took the delivery meanwhile: the attempt is history all the same.
      await q.query<{ attempt_count: number }>(
        `update webhook_deliveries set attempt_count = attempt_count + 1 where org_id = $1 and id = $2 returning attempt_count`,
        [orgId, deliveryId],
      );
  await q.query(
    `insert into webhook_attempts (org_id, delivery_id, attempt, started_at, latency_ms, status_code, succeeded, response_body, error)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [orgId, deliveryId, row.attempt_count, result.startedAt, result.latencyMs, result.statusCode, result.succeeded, result.responseBody, result.error],
  );
  return owned;
}

/**
 * The hot path in one statement for many deliveries of one organization: each successful attempt of a job
 * that still owns its delivery (token matches) is recorded, the delivery marked succeeded and its endpoint's
 * failure run ended. Returns the ids of the deliveries recorded; for the others nothing was written (the
 * caller records those attempts the general way). Ids must be distinct.
 */
export async function recordSuccesses(q: Queryable, orgId: string, items: { deliveryId: string; token: string; result: AttemptResult }[]): Promise<Set<string>> {
  const rows = await q.query<{ id: string }>(
    `with x as (
       select * from json_to_recordset($2::json)
         as x (id text, token text, started_at timestamptz, latency_ms int, status_code int, response_body text)),
     d as (
       update webhook_deliveries w set attempt_count = attempt_count + 1, schedule_step = schedule_step + 1, status = 'succeeded',
         job_token = null, next_attempt_at = null, leased_until = null, updated_at = now()
       from x where w.org_id = $1 and w.id = x.id and w.job_token = x.token
       returning w.id, w.attempt_count, w.endpoint_id),
     a as (
       insert into webhook_attempts (org_id, delivery_id, attempt, started_at, latency_ms, status_code, succeeded, response_body, error)
       select $1, d.id, d.attempt_count, x.started_at, x.latency_ms, x.status_code, true, x.response_body, null from d join x on x.id = d.id
       returning 1),
     e as (
       update webhook_endpoints set consecutive_failures = 0, failing_since = null
       where org_id = $1 and id in (select endpoint_id from d) and (consecutive_failures <> 0 or failing_since is not null)
       returning 1)
     -- Data-modifying CTEs run once whether or not the final select reads them.
     select id from d`,
    [
      orgId,
      // One JSON document rather than six arrays: node-postgres escapes every array element in JavaScript.
      JSON.stringify(
        items.map((i) => ({
          id: i.deliveryId,
          token: i.token,
          started_at: i.result.startedAt,
          latency_ms: i.result.latencyMs,
          status_code: i.result.statusCode,
          response_body: i.result.responseBody,
        })),
      ),
    ],
    { name: 'webhooks_record_successes' },
  );
  return new Set(rows.map((r) => r.id));
}

/** Cancels one delivery whose endpoint stopped, if the attempt's lease still holds it. */
export async function cancelDelivery(q: Queryable, orgId: string, deliveryId: string, token: string): Promise<void> {
  await q.query(
    `update webhook_deliveries set status = 'canceled', job_token = null, next_attempt_at = null, leased_until = null, updated_at = now()
     where org_id = $1 and id = $2 and job_token = $3`,
    [orgId, deliveryId, token],
  );
}

/**
 * The endpoint's failure run after an attempt: a success ends it; a failure extends it. Returns the
 * endpoint (locked) and whether this failure makes it due for disabling under the rule.
 */
export async function noteEndpointOutcome(
  q: Queryable,
  orgId: string,
  endpointId: string,
  succeeded: boolean,
  startedAt: Date,
  disableAfterMs: number,
): Promise<{ disable: boolean }> {
  if (succeeded) {
    await q.query(
      `update webhook_endpoints set consecutive_failures = 0, failing_since = null
       where org_id = $1 and id = $2 and (consecutive_failures <> 0 or failing_since is not null)`,
      [orgId, endpointId],
    );
    return { disable: false };
  }
  const [row] = await q.query<{ disable: boolean }>(
    `update webhook_endpoints set consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, $3)
     where org_id = $1 and id = $2
     returning status = 'active' and deleted_at is null and coalesce(failing_since, $3) <= now() - make_interval(secs => $4::double precision / 1000) as disable`,
    [orgId, endpointId, startedAt, disableAfterMs],
  );
  return { disable: Boolean(row?.disable) };
}

/** For tests and snapshots: an endpoint's stored secrets (encrypted). */
export async function storedSecrets(q: Queryable, orgId: string, id: string) {
  const [row] = await q.query<{ secret_encrypted: string; previous_secret_encrypted: string | null }>(
    `select secret_encrypted, previous_secret_encrypted from webhook_endpoints where org_id = $1 and id = $2`,
    [orgId, id],
  );
  return row;
}
