import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { LeasedItemContext, LeasedWorkContext, LeasedWorkDefinition } from '../../jobs/leased-work.js';
import type { WebhookConfig } from '../../config.js';
import { decryptSecret, loadSecretKey } from '../../crypto/secrets.js';
import type { Database } from '../../db/client.js';
import { coalesce } from '../../lib/coalesce.js';
import { writeEvent } from '../../events/emit.js';
import * as repo from './repository.js';
import { checkUrlShape, hostOf, resolveChecked } from './ssrf.js';
import { signatureHeader } from './signing.js';

/**
 * Webhook delivery. The deliveries table is the queue (src/jobs/leased-work.ts): a pending delivery is
 * due at its next_attempt_at; a worker leases due ones (a fresh token, for LEASE_SECONDS: the 15 s answer
 * timeout plus the database work around it), sends each, and records the attempt under the token, which
 * ends the lease. An attempt whose delivery was meanwhile redelivered or canceled (the token no longer
 * held) is kept as history and moves nothing. A failed attempt makes the delivery due again at the
 * schedule's next delay (Svix's: 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each +0–20 % jitter). A
 * worker killed mid-attempt leaves its lease to expire, and the delivery is sent again: at least once.
 *
 * Isolation: a worker process runs up to DELIVERY_CONCURRENCY attempts at once. One endpoint may hold at
 * most BUSY_ENDPOINT_SLOTS of them, so some slots are always left for the others; an endpoint that is
 * slow (an attempt in flight or finished past SLOW_MS within the last minute) holds at most
 * SLOW_ENDPOINT_SLOTS. An attempt that finds no slot waits up to ADMIT_WAIT_MS in process (a slow
 * endpoint's not at all), then its delivery is made due a second later (no attempt counted). A fast
 * endpoint gets most of the worker; a hung one a few slots, never all of them.
 *
 * Statements: a worker holds up to LEASED_AT_ONCE leased deliveries waiting for a slot or sending, so
 * attempts always find the next one loaded, and claims again once CLAIM_AT_LEAST of them are done. One
 * statement leases them with their endpoints and events; the successes are recorded together (gathering
 * up to SUCCESS_GATHER_MS), and so are deferrals. Each statement costs the worker's main thread far more
 * than the rows it carries (the write that wakes PostgreSQL), so batches are kept large.
 */
export const DELIVERY_CONCURRENCY = 64;
const LEASED_AT_ONCE = 8 * DELIVERY_CONCURRENCY;
const CLAIM_AT_LEAST = 2 * DELIVERY_CONCURRENCY;
const SUCCESS_GATHER_MS = 20;
export const BUSY_ENDPOINT_SLOTS = 12;
export const SLOW_ENDPOINT_SLOTS = 4;
const LEASE_SECONDS = 30;
const POLLING_INTERVAL_SECONDS = 2;
const SLOW_MS = 1000;
const SLOW_MEMORY_MS = 60_000;
const DEFER_MS = 1000;
const ADMIT_WAIT_MS = 250;
const RESPONSE_KEEP_BYTES = 1024;
const RESPONSE_READ_LIMIT = 256 * 1024;

/** Per endpoint, in this process: when each attempt in flight started, and until when it counts as slow. */
const loads = new Map<string, { started: number[]; slowUntil: number }>();
let attemptsInFlight = 0;

const isSlow = (load: { started: number[]; slowUntil: number } | undefined, now: number) =>
  Boolean(load && (load.slowUntil > now || load.started.some((t) => now - t > SLOW_MS)));

/** Starts an attempt if the worker and the endpoint have a slot for it: answers its start time, or undefined. */
function admit(endpointId: string): number | undefined {
  if (attemptsInFlight >= DELIVERY_CONCURRENCY) return undefined;
  const load = loads.get(endpointId) ?? { started: [], slowUntil: 0 };
  const now = Date.now();
  if (load.started.length >= (isSlow(load, now) ? SLOW_ENDPOINT_SLOTS : BUSY_ENDPOINT_SLOTS)) return undefined;
  load.started.push(now);
  loads.set(endpointId, load);
  attemptsInFlight++;
  return now;
}

/** Attempts waiting for a slot, oldest first: each slot that frees is handed to the first of them that may take it. */
const waiting: { endpointId: string; admitted: (startedAt: number) => void }[] = [];

/**
 * As admit, but an attempt for an endpoint that is only busy (at its share, answering fast), or that
 * finds the worker's slots taken, waits up to ADMIT_WAIT_MS for a slot rather than being put back for a
 * second: under a burst that is a few milliseconds, not a second plus a poll. A slow endpoint's is put back at once.
 */
async function admitSoon(endpointId: string): Promise<number | undefined> {
  const admitted = admit(endpointId);
  if (admitted !== undefined || isSlow(loads.get(endpointId), Date.now())) return admitted;
  return new Promise<number | undefined>((resolve) => {
    const waiter = {
      endpointId,
      admitted: (startedAt: number) => {
        clearTimeout(timer);
        resolve(startedAt);
      },
    };
    const timer = setTimeout(() => {
      const at = waiting.indexOf(waiter);
      if (at < 0) return; // admitted meanwhile
      waiting.splice(at, 1);
      resolve(undefined);
    }, ADMIT_WAIT_MS);
    waiting.push(waiter);
  });
}

function release(endpointId: string, startedAt: number): void {
  attemptsInFlight--;
  const load = loads.get(endpointId);
  if (load) {
    load.started.splice(load.started.indexOf(startedAt), 1);
    const now = Date.now();
    if (now - startedAt > SLOW_MS) load.slowUntil = now + SLOW_MEMORY_MS;
    if (load.started.length === 0 && load.slowUntil <= now) loads.delete(endpointId);
  }
  for (let i = 0; i < waiting.length; i++) {
    const started = admit(waiting[i].endpointId);
    if (started === undefined) continue;
    waiting.splice(i, 1)[0].admitted(started);
    return;
  }
}

export const webhookDelivery: LeasedWorkDefinition<repo.LeasedDelivery> = {
  summary: 'Sends due webhook deliveries, records each attempt, and schedules the next on failure (or disables a failing endpoint).',
  concurrency: LEASED_AT_ONCE,
  claimAtLeast: CLAIM_AT_LEAST,
  // A commit in this process wakes the worker at once (the dispatcher's afterCommit); others find the deliveries at their poll.
  pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
  claim: (ctx, limit) => repo.claimDueDeliveries(ctx.databases.owner, limit, LEASE_SECONDS),
  handler: deliver,
};

async function deliver(ctx: LeasedItemContext, { target, event }: repo.LeasedDelivery): Promise<void> {
  const { orgId, deliveryId, token } = target;
  const settings = ctx.config.webhooks;
  const db = ctx.databases.service;
  // The single-statement writes below run without BEGIN/COMMIT round trips: each commits on its own (the
  // transaction is only the organization scope).
  if (target.endpointDeleted || target.endpointStatus !== 'active' || !event) {
    await db.transaction((tx) => repo.cancelDelivery(tx, orgId, deliveryId, token), { orgId, readOnly: true });
    return;
  }
  const admitted = await admitSoon(target.endpointId);
  if (admitted === undefined) {
    await defer(db)({ orgId, deliveryId, token });
    ctx.wakeIn(DEFER_MS);
    return;
  }
  let result: repo.AttemptResult;
  try {
    const secrets = [target.secretEncrypted, ...(target.previousSecretEncrypted ? [target.previousSecretEncrypted] : [])].map((s) => decrypted(ctx, s));
    result = await sendSigned(target.url, event.id, JSON.stringify(event), secrets, settings);
  } finally {
    release(target.endpointId, admitted);
    ctx.settling();
  }

  if (result.succeeded && (await recordSuccess(db)({ orgId, deliveryId, token, result }))) return;

  const schedule = settings.retryScheduleSeconds;
  const step = target.scheduleStep + 1;
  const next = !result.succeeded && step < schedule.length ? { dueAt: new Date(Date.now() + withJitter(schedule[step])) } : null;
  const disabled = await db.transaction(
    async (tx) => {
      await repo.recordAttempt(tx, orgId, deliveryId, token, result, next);
      const { disable } = await repo.noteEndpointOutcome(tx, orgId, target.endpointId, result.succeeded, result.startedAt, settings.disableAfterMs);
      if (!disable) return false;
      const endpoint = await repo.updateEndpoint(tx, orgId, target.endpointId, { status: 'disabled', disabledReason: 'failing' });
      await repo.cancelPendingDeliveries(tx, orgId, target.endpointId);
      await writeEvent(tx, orgId, 'webhooks.endpoint.disabled', { endpoint, reason: 'failing' });
      ctx.log.warn({ orgId, endpointId: target.endpointId }, 'webhook endpoint disabled: its deliveries kept failing');
      return true;
    },
    { orgId },
  );
  // The disabled event's own deliveries are due now; a retry due before the next poll is claimed when due.
  if (disabled) ctx.wakeIn(0);
  else if (next && next.dueAt.getTime() - Date.now() < POLLING_INTERVAL_SECONDS * 1000) ctx.wakeIn(next.dueAt.getTime() - Date.now());
}

/**
 * Per database: the successes of the attempts in flight are recorded together, and so are the deferrals
 * (group commit, see coalesce), one statement per organization.
 */
const writers = new WeakMap<Database, { success: ReturnType<typeof successRecorder>; defer: ReturnType<typeof deferrer> }>();
const writersOf = (db: Database) => {
  let found = writers.get(db);
  if (!found) writers.set(db, (found = { success: successRecorder(db), defer: deferrer(db) }));
  return found;
};
const recordSuccess = (db: Database) => writersOf(db).success;
const defer = (db: Database) => writersOf(db).defer;

const byOrg = <T extends { orgId: string }>(items: T[]) => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.orgId);
    if (group) group.push(item);
    else groups.set(item.orgId, [item]);
  }
  return groups;
};

type Lease = { orgId: string; deliveryId: string; token: string };

/** Records successful attempts; answers per attempt whether its lease still held the delivery. */
function successRecorder(db: Database) {
  return coalesce<Lease & { result: repo.AttemptResult }, boolean>(async (items) => {
    const owned = new Set<(typeof items)[number]>();
    await Promise.all(
      [...byOrg(items)].map(async ([orgId, group]) => {
        // One delivery once per statement; a duplicate is recorded the general way.
        const seen = new Set<string>();
        const distinct = group.filter((i) => !seen.has(i.deliveryId) && seen.add(i.deliveryId));
        const recorded = await db.transaction((tx) => repo.recordSuccesses(tx, orgId, distinct), { orgId, readOnly: true });
        for (const i of distinct) if (recorded.has(i.deliveryId)) owned.add(i);
      }),
    );
    return items.map((i) => owned.has(i));
  }, 256, { items: 256, ms: SUCCESS_GATHER_MS });
}

/** Makes leased deliveries due again `DEFER_MS` from now, without an attempt (their endpoints had no slot). */
function deferrer(db: Database) {
  return coalesce<Lease, void>(async (items) => {
    const dueAt = new Date(Date.now() + DEFER_MS);
    await Promise.all(
      [...byOrg(items)].map(([orgId, group]) => db.transaction((tx) => repo.deferDeliveries(tx, orgId, group, dueAt), { orgId, readOnly: true })),
    );
    return items.map(() => undefined);
  }, 1000);
}

/** Decrypted endpoint secrets, by their encrypted form (which changes whenever the secret does). */
const plainSecrets = new Map<string, string>();
function decrypted(ctx: LeasedWorkContext, encrypted: string): string {
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
