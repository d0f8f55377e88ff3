import type { Queryable } from '../db/client.js';
import { newId } from '../lib/ids.js';

/** Event envelope, as delivered to webhooks and the feed: `{ id, type, createdAt, organizationId, data }`. */
export interface EventEnvelope {
  id: string;
  type: string;
  createdAt: string;
  organizationId: string;
  data: Record<string, unknown>;
}

/** An event as its transaction writes it: `data` is its payload's JSON. */
export interface WrittenEvent {
  id: string;
  type: string;
  data: string;
}

/**
 * Work that goes with a transaction's events, in that transaction, right after they are written and before
 * it commits, so it exists exactly when the events do (the webhook outbox: a delivery per subscribed
 * endpoint). Resolves to how many items it queued.
 */
export type EventsWrittenHook = (tx: Queryable, orgId: string, events: readonly WrittenEvent[]) => Promise<number>;

/** The hooks, each with the work (a job or leased work name) to wake after a commit for which it queued something. */
const hooks = new Map<EventsWrittenHook, string | undefined>();

/**
 * Runs `hook` with every transaction's events from now on in this process (a module's manifest names it;
 * registering it again changes nothing). `wakes`: the work this process's workers then take at once.
 */
export function onEventsWritten(hook: EventsWrittenHook, wakes?: string): void {
  hooks.set(hook, wakes);
}

/** A transaction's events not yet written, per organization, and what their write will answer. */
interface Outbox {
  byOrg: Map<string, WrittenEvent[]>;
  queued: Promise<ReadonlySet<string>>;
  settle: (wake: ReadonlySet<string>) => void;
}

const outboxes = new WeakMap<Queryable, Outbox>();

/**
 * Writes an event inside the caller's transaction, so it commits or rolls back with the change, and in
 * the same transaction runs the hooks registered with onEventsWritten (the webhook outbox).
 *
 * The rows are written just before COMMIT (Queryable.beforeCommit): all the transaction's events in one
 * statement per organization and each hook once per organization, so a transaction writing a hundred
 * events costs two statements rather than two hundred. Until then the event is not in the
 * events table, not even for its own transaction (nothing reads an event back in the transaction that
 * writes it). On a Queryable without beforeCommit (an autocommit connection) it is written at once.
 *
 * Resolves to the event id and `queued`: the work to wake because the hooks queued some for the transaction's
 * events, settled when they are written before COMMIT (await it after the commit; it never rejects, and it
 * answers nothing when the write failed).
 */
export async function writeEvent(
  tx: Queryable,
  orgId: string,
  type: string,
  data: Record<string, unknown>,
): Promise<{ id: string; queued: Promise<ReadonlySet<string>> }> {
  const event: WrittenEvent = { id: newId('evt'), type, data: JSON.stringify(data) };
  if (!tx.beforeCommit) {
    const wake = await writeEvents(tx, orgId, [event]);
    return { id: event.id, queued: Promise.resolve(wake) };
  }
  let outbox = outboxes.get(tx);
  if (!outbox) {
    let settle!: (wake: ReadonlySet<string>) => void;
    const queued = new Promise<ReadonlySet<string>>((resolve) => (settle = resolve));
    outbox = { byOrg: new Map(), queued, settle };
    outboxes.set(tx, outbox);
    const pending = outbox;
    tx.beforeCommit(async () => {
      outboxes.delete(tx);
      const wake = new Set<string>();
      try {
        for (const [org, events] of pending.byOrg) for (const name of await writeEvents(tx, org, events)) wake.add(name);
      } catch (error) {
        pending.settle(new Set());
        throw error;
      }
      pending.settle(wake);
    });
  }
  const events = outbox.byOrg.get(orgId) ?? [];
  events.push(event);
  outbox.byOrg.set(orgId, events);
  return { id: event.id, queued: outbox.queued };
}

/** Inserts events of one organization in the given order (their feed sequence) and runs the hooks on them. */
async function writeEvents(tx: Queryable, orgId: string, events: WrittenEvent[]): Promise<Set<string>> {
  if (events.length === 1) {
    await tx.query(`insert into events (org_id, id, type, data) values ($1, $2, $3, $4)`, [orgId, events[0].id, events[0].type, events[0].data], {
      name: 'events_insert_one',
    });
  } else {
    // Sorted by ordinality so the rows take their identity sequence numbers in the order they were written.
    await tx.query(
      `insert into events (org_id, id, type, data)
       select $1, e.id, e.type, e.data::jsonb from unnest($2::text[], $3::text[], $4::text[]) with ordinality as e (id, type, data, n) order by e.n`,
      [orgId, events.map((e) => e.id), events.map((e) => e.type), events.map((e) => e.data)],
      { name: 'events_insert_many' },
    );
  }
  const wake = new Set<string>();
  for (const [hook, wakes] of hooks) if ((await hook(tx, orgId, events)) > 0 && wakes) wake.add(wakes);
  return wake;
}
