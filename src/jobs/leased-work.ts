import type { Databases } from '../db/open.js';
import type { Config } from '../config.js';
import type { JobLog } from './define.js';

/**
 * Work that lives in a table of its own module rather than as queue jobs: each row says when it is next
 * due, and a worker leases due rows (FOR UPDATE SKIP LOCKED, a lease time and a fresh token written in
 * the claiming statement) and records each outcome on the row itself, under the token. A lease that is
 * never ended (the process died mid-run) expires, and the row is claimed again: at least once, as with
 * queue jobs, but one statement claims a batch together with what its handlers read, and the outcome is
 * the only write after it (no job row to insert, fetch and complete besides the module's own row).
 * Webhook deliveries are such work (src/modules/webhooks/delivery.ts).
 */
export interface LeasedWorkDefinition<Item> {
  summary: string;
  /** How many items one worker process runs at once; also the most one claim takes. */
  concurrency: number;
  /**
   * While items run, claim again only once this many slots are free (default 1): fewer, larger claims,
   * when each statement costs more than the items it claims. An idle worker claims whatever is due.
   */
  claimAtLeast?: number;
  /** How often an idle worker claims (seconds); a wake (a commit in this process) claims at once. */
  pollingIntervalSeconds: number;
  /** Leases up to `limit` due items, with what their handlers need. */
  claim(ctx: LeasedWorkContext, limit: number): Promise<Item[]>;
  /** Runs one leased item and ends its lease (recording its outcome, or when it is next due). */
  handler(ctx: LeasedItemContext, item: Item): Promise<void>;
}

/** Leased work by name (the name `wake` takes): every module's (its manifest's `leasedWork`). */
export type LeasedWorkCatalog = Record<string, LeasedWorkDefinition<any>>;

export interface LeasedWorkContext {
  databases: Databases;
  config: Config;
  log: JobLog;
  /** Claims again in `delayMs` (an item made due that soon) rather than at the next poll. */
  wakeIn(delayMs: number): void;
}

/** What a handler is given besides its item: `settling()` says its slow part is over (below). */
export interface LeasedItemContext extends LeasedWorkContext {
  /**
   * The item's slow part is over and what is left is recording its outcome: its slot goes to a new
   * claim at once. At most `concurrency` items may be settling besides the `concurrency` running.
   */
  settling(): void;
}

export interface LeasedWorker {
  wake(): void;
  stopClaiming(): void;
  /** Waits for the running items until the deadline; those still running then keep their leases, which expire. */
  finish(deadline: number): Promise<void>;
}

/**
 * One claim loop per kind of work: it claims as many items as it has free slots, runs them concurrently,
 * and claims again when a slot frees while the last claim came back full, when woken, and otherwise every
 * polling interval.
 */
export function startLeasedWorker<Item>(name: string, definition: LeasedWorkDefinition<Item>, ctx: Omit<LeasedWorkContext, 'wakeIn'>): LeasedWorker {
  const limit = definition.concurrency;
  const claimAtLeast = Math.min(limit, definition.claimAtLeast ?? 1);
  // Items running, and of them those settling (their slots already free, up to `limit` of them).
  let running = 0;
  let settling = 0;
  const freeSlots = () => Math.min(limit - (running - settling), 2 * limit - running);
  const idle: (() => void)[] = [];
  let stopping = false;
  let more = true;
  let signal: (() => void) | undefined;
  // A wake that came while the loop was not sleeping (mid-claim): the next sleep is skipped, so no wake is lost.
  let woken = false;
  const nudge = () => {
    const wakeUp = signal;
    signal = undefined;
    if (wakeUp) wakeUp();
    else woken = true;
  };
  const timers = new Set<NodeJS.Timeout>();
  const context: LeasedWorkContext = {
    ...ctx,
    wakeIn: (delayMs) => {
      if (stopping) return;
      const timer = setTimeout(() => (timers.delete(timer), nudge()), Math.max(0, delayMs));
      timer.unref();
      timers.add(timer);
    },
  };
  const start = (item: Item) => {
    running++;
    let settled = false;
    const itemContext: LeasedItemContext = {
      ...context,
      settling: () => {
        if (settled) return;
        settled = true;
        settling++;
        if (more || woken) nudge();
      },
    };
    definition
      .handler(itemContext, item)
      .catch((error: unknown) => ctx.log.error({ job: name, err: error }, 'leased work failed; its lease expires and it runs again'))
      .finally(() => {
        running--;
        if (settled) settling--;
        if (running === 0) for (const done of idle.splice(0)) done();
        if (more || woken) nudge();
      });
  };
  const loop = async () => {
    while (!stopping) {
      const free = freeSlots();
      if (free >= claimAtLeast || (running === 0 && free > 0)) {
        woken = false;
        let items: Item[] = [];
        try {
          items = await definition.claim(context, free);
        } catch (error) {
          ctx.log.error({ job: name, err: error }, 'leased work: claiming failed');
        }
        // Items claimed when stopping began still run (their leases are held), and finish waits for them.
        for (const item of items) start(item);
        more = items.length === free;
        if (more) continue;
      }
      if (stopping) break;
      if (woken && (freeSlots() >= claimAtLeast || running === 0)) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(nudge, definition.pollingIntervalSeconds * 1000);
        signal = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  const looping = loop();
  return {
    wake: nudge,
    stopClaiming: () => {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      nudge();
    },
    finish: async (deadline) => {
      await looping;
      if (running === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        idle.push(() => (clearTimeout(timer), resolve()));
      });
    },
  };
}
