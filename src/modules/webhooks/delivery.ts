import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { JobContext, JobDefinition } from '../../jobs/catalog.js';
import type { WebhookConfig } from '../../config.js';
import { decryptSecret, loadSecretKey } from '../../crypto/secrets.js';
import { readEvents } from '../../events/feed.js';
import type { EventEnvelope } from '../../events/emit.js';
import type { Database } from '../../db/client.js';
import { coalesce } from '../../lib/coalesce.js';
import { writeEvent } from '../../events/emit.js';
import { newSecret } from '../../lib/ids.js';
import * as repo from './repository.js';
import { checkUrlShape, hostOf, resolveChecked } from './ssrf.js';
import { signatureHeader } from './signing.js';

/**
 * Webhook delivery: one job per attempt. The job carries the delivery's current token; a job whose token
 * the delivery no longer holds (redelivered, canceled, already attempted) does nothing, so a duplicate or
 * late job never sends twice under one schedule. A failed attempt schedules the next as a new job at the
 * schedule's next delay (Svix's: 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each +0–20 % jitter) and
 * completes; the queue's own retries only cover a worker that died or overran (the job is then run again:
 * at least once).
 *
 * Isolation: a worker process runs up to DELIVERY_CONCURRENCY attempts at once. One endpoint may hold at
 * most BUSY_ENDPOINT_SLOTS of them, so some slots are always left for the others; an endpoint that is
 * slow (an attempt in flight or finished past SLOW_MS within the last minute) holds at most
 * SLOW_ENDPOINT_SLOTS. A job for an endpoint at its share is put back for a second later (no attempt
 * counted). A fast endpoint gets most of the worker; a hung one a few slots, never all of them.
 *
 * DELIVERY_CONCURRENCY is also how many jobs the worker claims and works through together: the reads,
 * the recorded successes and the completions of the jobs in flight are gathered into one statement each
 * (coalesce), so the more in flight, the fewer statements per delivery. The HTTP side stays bounded by
 * the per-endpoint shares.
 */
export const DELIVERY_CONCURRENCY = 64;
export const BUSY_ENDPOINT_SLOTS = 12;
export const SLOW_ENDPOINT_SLOTS = 4;
const SLOW_MS = 1000;
const SLOW_MEMORY_MS = 60_000;
const DEFER_MS = 1000;
const ADMIT_WAIT_MS = 250;
const RESPONSE_KEEP_BYTES = 1024;
const RESPONSE_READ_LIMIT = 256 * 1024;

const DeliveryJob = z.object({ orgId: z.string(), deliveryId: z.string(), token: z.string() }).strict();

/** Per endpoint, in this process: when each attempt in flight started, and until when it counts as slow. */
const loads = new Map<string, { started: number[]; slowUntil: number }>();

function admit(endpointId: string): number | undefined {
  const load = loads.get(endpointId) ?? { started: [], slowUntil: 0 };
  const now = Date.now();
  const slow = load.slowUntil > now || load.started.some((t) => now - t > SLOW_MS);
  if (load.started.length >= (slow ? SLOW_ENDPOINT_SLOTS : BUSY_ENDPOINT_SLOTS)) return undefined;
  load.started.push(now);
  loads.set(endpointId, load);
  return now;
}

/** Attempts waiting in process for a share of a busy (not slow) endpoint: woken one at a time as its attempts end. */
const queued = new Map<string, (() => void)[]>();

const isSlow = (endpointId: string) => {
  const load = loads.get(endpointId);
  const now = Date.now();
  return Boolean(load && (load.slowUntil > now || load.started.some((t) => now - t > SLOW_MS)));
};

/**
 * As admit, but an attempt for an endpoint that is only busy (at its share, answering fast) waits up to
 * ADMIT_WAIT_MS for one of its attempts to end rather than being put back for a second: under a burst to
 * one fast endpoint that is a few milliseconds, not a second plus a poll. A slow endpoint's is put back at once.
 */
async function admitSoon(endpointId: string): Promise<number | undefined> {
  const deadline = Date.now() + ADMIT_WAIT_MS;
  for (;;) {
    const admitted = admit(endpointId);
    if (admitted !== undefined) return admitted;
    const remaining = deadline - Date.now();
    if (remaining <= 0 || isSlow(endpointId)) return undefined;
    await new Promise<void>((resolve) => {
      const list = queued.get(endpointId) ?? [];
      const done = () => {
        clearTimeout(timer);
        const at = list.indexOf(done);
        if (at >= 0) list.splice(at, 1);
        if (list.length === 0 && queued.get(endpointId) === list) queued.delete(endpointId);
        resolve();
      };
      const timer = setTimeout(done, remaining);
      list.push(done);
      queued.set(endpointId, list);
    });
  }
}

function release(endpointId: string, startedAt: number): void {
  queued.get(endpointId)?.[0]?.();
  const load = loads.get(endpointId);
  if (!load) return;
  load.started.splice(load.started.indexOf(startedAt), 1);
  const now = Date.now();
  if (now - startedAt > SLOW_MS) load.slowUntil = now + SLOW_MEMORY_MS;
  if (load.started.length === 0 && load.slowUntil <= now) loads.delete(endpointId);
}

export const webhookDeliveryJob: JobDefinition<typeof DeliveryJob> = {
  summary: 'Sends one webhook delivery attempt, records it, and schedules the next on failure (or disables a failing endpoint).',
  payload: DeliveryJob,
  // Only for a worker killed or overrunning mid-attempt: failed answers are retried on the webhook schedule.
  retry: { limit: 25, delaySeconds: 5, backoff: true },
  // The 15 s answer timeout plus the database work around it; a worker killed mid-attempt is retried after this.
  timeoutSeconds: 30,
  concurrency: DELIVERY_CONCURRENCY,
  // Jobs are claimed as many at a time as there are free slots and completed in batches (see JobQueue).
  batchFetch: true,
  // Idle workers poll every 2 s; a commit in this process wakes them at once (the dispatcher's afterCommit).
  pollingIntervalSeconds: 2,
  handler: deliver,
};

async function deliver(ctx: JobContext, job: z.output<typeof DeliveryJob>): Promise<void> {
  const { orgId, deliveryId, token } = job;
  const settings = ctx.config.webhooks;
  const db = ctx.databases.service;
  const loaded = await loadAttempt(db)({ orgId, deliveryId, token });
  if (!loaded) return; // stale job: the delivery moved on without it
  const { target, event } = loaded;
  if (target.endpointDeleted || target.endpointStatus !== 'active' || !event) {
    await db.transaction((tx) => repo.cancelDelivery(tx, orgId, deliveryId, token), { orgId });
    return;
  }
  const admitted = await admitSoon(target.endpointId);
  if (admitted === undefined) {
    await db.transaction((tx) => ctx.jobs.send(tx, 'webhookDelivery', job, { startAfter: new Date(Date.now() + DEFER_MS) }), { orgId });
    return;
  }
  let result: repo.AttemptResult;
  try {
    const secrets = [target.secretEncrypted, ...(target.previousSecretEncrypted ? [target.previousSecretEncrypted] : [])].map((s) => decrypted(ctx, s));
    result = await sendSigned(target.url, event.id, JSON.stringify(event), secrets, settings);
  } finally {
    release(target.endpointId, admitted);
  }

  // One statement, so no BEGIN/COMMIT round trips: it commits on its own (the transaction is only the organization scope).
  if (result.succeeded && (await recordSuccess(db)({ orgId, deliveryId, token, result }))) return;

  const schedule = settings.retryScheduleSeconds;
  const step = target.scheduleStep + 1;
  const next = !result.succeeded && step < schedule.length ? { token: newSecret(12), dueAt: new Date(Date.now() + withJitter(schedule[step])) } : null;
  await db.transaction(
    async (tx) => {
      const owned = await repo.recordAttempt(tx, orgId, deliveryId, token, result, next);
      if (owned && next) await ctx.jobs.send(tx, 'webhookDelivery', { orgId, deliveryId, token: next.token }, { startAfter: next.dueAt });
      const { disable } = await repo.noteEndpointOutcome(tx, orgId, target.endpointId, result.succeeded, result.startedAt, settings.disableAfterMs);
      if (disable) {
        const endpoint = await repo.updateEndpoint(tx, orgId, target.endpointId, { status: 'disabled', disabledReason: 'failing' });
        await repo.cancelPendingDeliveries(tx, orgId, target.endpointId);
        await writeEvent(tx, ctx.jobs, orgId, 'webhooks.endpoint.disabled', { endpoint, reason: 'failing' });
        ctx.log.warn({ orgId, endpointId: target.endpointId }, 'webhook endpoint disabled: its deliveries kept failing');
      }
    },
    { orgId },
  );
  if (next && next.dueAt.getTime() - Date.now() < 1000) ctx.jobs.wake?.('webhookDelivery');
}

/**
 * Per database: the attempts' reads and their successes are gathered across the jobs running at once
 * (group commit, see coalesce): one statement per organization for the delivery targets, one for their
 * events, one to record the successes, instead of those statements for every attempt.
 */
const batchers = new WeakMap<Database, { load: ReturnType<typeof attemptLoader>; success: ReturnType<typeof successRecorder> }>();
const batchersOf = (db: Database) => {
  let found = batchers.get(db);
  if (!found) batchers.set(db, (found = { load: attemptLoader(db), success: successRecorder(db) }));
  return found;
};
const loadAttempt = (db: Database) => batchersOf(db).load;
const recordSuccess = (db: Database) => batchersOf(db).success;

type AttemptKey = { orgId: string; deliveryId: string; token: string };
type LoadedAttempt = { target: repo.AttemptTarget; event: EventEnvelope | undefined } | undefined;

const byOrg = <T extends { orgId: string }>(items: T[]) => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(item.orgId, [...(groups.get(item.orgId) ?? []), item]);
  return groups;
};

/** The target of each job's delivery and its event, or undefined when the job is stale (token no longer held). */
function attemptLoader(db: Database) {
  return coalesce<AttemptKey, LoadedAttempt>(async (keys) => {
    const found = new Map<AttemptKey, LoadedAttempt>();
    await Promise.all(
      [...byOrg(keys)].map(([orgId, group]) =>
        db.transaction(
          async (tx) => {
            const targets = await repo.findAttemptTargets(tx, orgId, [...new Set(group.map((k) => k.deliveryId))]);
            const live = group.filter((k) => {
              const target = targets.get(k.deliveryId);
              return target && target.jobToken === k.token && target.status === 'pending';
            });
            const events = live.length ? await readEvents(tx, orgId, [...new Set(live.map((k) => targets.get(k.deliveryId)!.eventId))]) : new Map();
            for (const k of live) {
              const target = targets.get(k.deliveryId)!;
              found.set(k, { target, event: events.get(target.eventId) });
            }
          },
          { orgId, readOnly: true },
        ),
      ),
    );
    return keys.map((k) => found.get(k));
  });
}

/** Records successful attempts; answers per attempt whether its job still owned the delivery. */
function successRecorder(db: Database) {
  return coalesce<AttemptKey & { result: repo.AttemptResult }, boolean>(async (items) => {
    const owned = new Set<(typeof items)[number]>();
    await Promise.all(
      [...byOrg(items)].map(async ([orgId, group]) => {
        // One delivery once per statement; a duplicate (a re-run job) is recorded the general way.
        const seen = new Set<string>();
        const distinct = group.filter((i) => !seen.has(i.deliveryId) && seen.add(i.deliveryId));
        // One statement, so no BEGIN/COMMIT round trips: it commits on its own (the transaction is only the organization scope).
        const recorded = await db.transaction((tx) => repo.recordSuccesses(tx, orgId, distinct), { orgId, readOnly: true });
        for (const i of distinct) if (recorded.has(i.deliveryId)) owned.add(i);
      }),
    );
    return items.map((i) => owned.has(i));
  });
}

/** Decrypted endpoint secrets, by their encrypted form (which changes whenever the secret does). */
const plainSecrets = new Map<string, string>();
function decrypted(ctx: JobContext, encrypted: string): string {
  let plain = plainSecrets.get(encrypted);
  if (plain === undefined) {
    plain = decryptSecret(loadSecretKey(ctx.config), encrypted);
    if (plainSecrets.size >= 1000) plainSecrets.delete(plainSecrets.keys().next().value!);
    plainSecrets.set(encrypted, plain);
  }
  return plain;
}

/** The delay in milliseconds, plus 0–20 % jitter so retries of many deliveries spread out. */
const withJitter = (seconds: number) => Math.round(seconds * 1000 * (1 + Math.random() * 0.2));

/** A delivery URL taken apart once: the shape refusal, or where and how to connect. */
type Target = { refusal: string } | { secure: boolean; host: string; port: number; path: string; hostHeader: string };
const targets = new Map<string, Target>();
function targetOf(url: string, allowPrivate: boolean): Target {
  const key = `${allowPrivate ? 'private' : 'public'} ${url}`;
  let target = targets.get(key);
  if (target === undefined) {
    const refusal = checkUrlShape(url, allowPrivate);
    if (refusal) target = { refusal: `URL refused: ${refusal}` };
    else {
      const parsed = new URL(url);
      const secure = parsed.protocol === 'https:';
      target = { secure, host: hostOf(parsed), port: Number(parsed.port) || (secure ? 443 : 80), path: `${parsed.pathname}${parsed.search}`, hostHeader: parsed.host };
    }
    if (targets.size >= 1000) targets.delete(targets.keys().next().value!);
    targets.set(key, target);
  }
  return target;
}

/** A refusal by the connect-time check, told apart from other connection errors. */
class AddressRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * The lookup every new connection makes (net.connect's `lookup`): the host is resolved and every address
 * checked (resolveChecked), and the connection goes to the checked addresses only. A host that is an IP
 * address is not looked up; the URL's shape check (targetOf) has checked it.
 */
export function checkedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean } | number, callback: LookupCallback): void => {
    resolveChecked(hostname, allowPrivate).then(
      (resolved) => {
        if ('refused' in resolved) return callback(new AddressRefused(`address refused: ${resolved.refused}`), '');
        if ('unresolved' in resolved) return callback(Object.assign(new Error(resolved.unresolved), { code: 'ENOTFOUND' }), '');
        if (typeof options === 'object' && options.all) return callback(null, resolved.addresses);
        callback(null, resolved.address, resolved.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/**
 * Keep-alive connections, pooled per origin (host and port): one agent per protocol and SSRF setting. A
 * connection is checked when it is made (checkedLookup) and reused only for the same host and port, so
 * every request goes over a connection whose address was checked. The agent allows as many connections
 * as the worker has attempts (DELIVERY_CONCURRENCY), so it never queues a request: the per-endpoint
 * shares bound them, and a hung endpoint cannot take the connections of another on the same origin.
 */
const agents = new Map<string, http.Agent>();
function agentFor(secure: boolean, allowPrivate: boolean): http.Agent {
  const key = `${secure ? 'https' : 'http'} ${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: DELIVERY_CONCURRENCY, lookup: checkedLookup(allowPrivate) } as http.AgentOptions;
    agent = secure ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * POSTs the signed envelope to the URL: the URL's shape is checked, and every connection made for it
 * resolves the host and checks every address (SSRF rules) right before connecting, to the checked
 * address. No redirects; a 2xx answer within the timeout is success, anything else a failure with its reason.
 */
export async function sendSigned(url: string, eventId: string, body: string, secrets: string[], settings: Pick<WebhookConfig, 'allowPrivateUrls' | 'timeoutMs'>): Promise<repo.AttemptResult> {
  const startedAt = new Date();
  const started = performance.now();
  const failure = (error: string, statusCode: number | null = null, responseBody: string | null = null): repo.AttemptResult => ({
    startedAt,
    latencyMs: Math.round(performance.now() - started),
    statusCode,
    succeeded: false,
    responseBody,
    error,
  });
  const target = targetOf(url, settings.allowPrivateUrls);
  if ('refusal' in target) return failure(target.refusal);

  const timestamp = Math.floor(Date.now() / 1000);
  return new Promise<repo.AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: repo.AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = (target.secure ? https : http).request({
      method: 'POST',
      host: target.host,
      port: target.port,
      path: target.path,
      agent: agentFor(target.secure, settings.allowPrivateUrls),
      // The certificate is checked for the URL's host.
      servername: isIP(target.host) ? undefined : target.host,
      headers: {
        host: target.hostHeader,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Firstcrack-Webhooks/1',
        'service-event-id': eventId,
        'service-timestamp': String(timestamp),
        'service-signature': signatureHeader(secrets, timestamp, body),
      },
    });
    const timer = setTimeout(() => {
      request.destroy();
      settle(failure(`no answer within ${settings.timeoutMs / 1000} s`));
    }, settings.timeoutMs);
    request.on('error', (error) =>
      settle(failure(error instanceof AddressRefused ? error.reason : `connection failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`)),
    );
    request.on('response', (response) => {
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let readBytes = 0;
      const finish = () => {
        const status = response.statusCode ?? 0;
        const text = kept.length ? Buffer.concat(kept).toString('utf8') : null;
        if (status >= 200 && status < 300) {
          settle({ startedAt, latencyMs: Math.round(performance.now() - started), statusCode: status, succeeded: true, responseBody: text, error: null });
        } else {
          settle(failure(status >= 300 && status < 400 ? `answered ${status}: redirects are not followed` : `answered ${status}`, status, text));
        }
      };
      response.on('data', (chunk: Buffer) => {
        readBytes += chunk.length;
        if (keptBytes < RESPONSE_KEEP_BYTES) {
          const part = chunk.subarray(0, RESPONSE_KEEP_BYTES - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
        if (readBytes > RESPONSE_READ_LIMIT) {
          response.destroy();
          finish();
        }
      });
      response.on('end', finish);
      response.on('error', () => finish());
    });
    request.end(body);
  });
}
