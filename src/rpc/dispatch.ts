import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/client.js';
import type { Principal } from '../auth/credentials.js';
import { writeEvent } from '../events/emit.js';
import { canonicalJson } from '../lib/json.js';
import type { Operation, OperationContext, Services } from './define.js';
import { ProblemError, conflict } from './errors.js';
import { parseInput } from './schemas.js';
import { checkAnswer, checkEvent, checkProblem } from './contract.js';
import { toProblem } from '../http/problems.js';
import { openCursor, sealCursor } from '../db/paging.js';

export interface DispatchRequest {
  principal: Principal;
  operation: Operation;
  input: unknown;
  requestId: string;
  /** Present on POST requests that carry an Idempotency-Key header. */
  idempotencyKey?: string;
}

export interface DispatchResult {
  status: number;
  /** The answer, encoded once: a replay sends the first answer's bytes. */
  json: string;
  replayed: boolean;
}

const IDEMPOTENCY_TTL = `interval '24 hours'`;

/**
 * How often a transaction that lost a race PostgreSQL could only settle by aborting it (a deadlock, a
 * serialization failure) is run again before the caller gets 409 concurrent_update. The lock order
 * (src/modules/inventory/green/repository.ts, lockLots) keeps such losses rare; a retry is cheap beside
 * sending the client away.
 */
const MAX_ATTEMPTS = 4;
const RACE_LOST = new Set(['40P01', '40001']);

const lostRace = (error: unknown) => RACE_LOST.has((error as { code?: string } | null)?.code ?? '');
/** Jittered, growing pause before attempt `attempt` (2, 3, …), so the racers do not meet again at once. */
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));

/**
 * The part of the request pipeline after the guard chain (src/http/guards.ts: authenticate → limit →
 * grant, where the grant checks the operation's module and permission): validate input → one transaction
 * scoped to the organization, holding the domain writes, events and idempotency record together. The
 * principal given has been granted the operation.
 */
export class Dispatcher {
  /** Set when the suite runs (FIRSTCRACK_CHECK_CONTRACT=1): every answer, event and problem is held to its declaration. */
  private readonly checkContract = process.env.FIRSTCRACK_CHECK_CONTRACT === '1';

  /** Transactions run again after losing a race (deadlock or serialization failure), for the operator's eye. */
  racesRetried = 0;

  constructor(
    private readonly db: Database,
    private readonly services: Services,
    private readonly onAfterCommitError: (error: unknown) => void = () => {},
    private readonly onRaceLost: (operation: string, attempt: number, error: unknown) => void = () => {},
  ) {}

  async dispatch(request: DispatchRequest): Promise<DispatchResult> {
    const { principal, operation } = request;
    const input = openPageCursor(this.services, principal.orgId, parseInput(operation.input, request.input ?? {}));

    const key = request.idempotencyKey;
    const requestHash = key === undefined ? '' : createHash('sha256').update(operation.name).update('\n').update(canonicalJson(request.input)).digest('hex');
    if (key !== undefined) {
      const stored = await this.findStored(principal, key);
      if (stored) return this.replay(stored, requestHash);
    }

    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(request, input, requestHash);
      } catch (error) {
        if (!lostRace(error) || attempt === MAX_ATTEMPTS) throw error;
        this.racesRetried++;
        this.onRaceLost(operation.name, attempt, error);
        await backoff(attempt + 1);
      }
    }
  }

  /** One run of the operation's transaction; nothing of a run that throws is kept. */
  private async attempt(request: DispatchRequest, input: unknown, requestHash: string): Promise<DispatchResult> {
    const { principal, operation } = request;
    const key = request.idempotencyKey;
    const afterCommit: (() => Promise<void>)[] = [];
    let wakeQueued = false;
    try {
      const result = await this.db.transaction(
        async (tx) => {
          if (key !== undefined && !(await this.claimKey(tx, principal, key, operation.name, requestHash))) {
            throw new KeyTakenMeanwhile();
          }
          const ctx: OperationContext = {
            orgId: principal.orgId,
            principal,
            tx,
            requestId: request.requestId,
            services: this.services,
            afterCommit: (work) => void afterCommit.push(work),
            emit: async (type, data) => {
              if (this.checkContract) checkEvent(operation, type, data);
              const { queued } = await writeEvent(tx, principal.orgId, type, data);
              // Workers in this process take what the events queued (webhook deliveries) at once rather than at their next poll.
              if (!wakeQueued) {
                wakeQueued = true;
                afterCommit.push(async () => {
                  for (const work of await queued) this.services.jobs.wake?.(work);
                });
              }
            },
            enqueue: (job, payload) => this.services.jobs.sendJob(tx, job, payload),
          };
          const body = sealNextCursor(this.services, principal.orgId, input, (await operation.handler(ctx, input)) ?? {});
          if (this.checkContract) checkAnswer(operation, body);
          const json = JSON.stringify(body);
          if (key !== undefined) {
            await tx.query(
              `update idempotency_records set response_status = 200, response_body = $4
               where org_id = $1 and credential_id = $2 and key = $3`,
              [principal.orgId, principal.credentialId, key, json],
            );
          }
          return { status: 200, json, replayed: false };
        },
        { orgId: principal.orgId, readOnly: operation.get && key === undefined },
      );
      for (const work of afterCommit) await work().catch(this.onAfterCommitError);
      return result;
    } catch (error) {
      if (error instanceof KeyTakenMeanwhile) {
        // A concurrent request with the same key committed first: answer with what it answered.
        const stored = await this.findStored(principal, key!);
        if (stored) return this.replay(stored, requestHash);
        throw conflict('idempotency_key_in_flight', 'A request with this Idempotency-Key is still being processed.');
      }
      // Every failure is mapped to its problem in one place (src/http/problems.ts, database refusals by
      // SQLSTATE among them); the contract check holds the problem the caller will get.
      if (this.checkContract && !lostRace(error)) checkProblem(operation, toProblem(error));
      throw error;
    }
  }

  /**
   * A list's whole answer for an export (src/http/exports.ts): `input` is the list's input (its filter)
   * without a page; the handler is called page after page of `pageLimit` items through its own keyset cursor,
   * and `onPage` gets each page's items before the next is read, so it paces the reading (it waits while the
   * client is behind, and throws to stop: the transaction then rolls back and its connection is released).
   *
   * On PostgreSQL every page is read in ONE REPEATABLE READ, READ ONLY transaction scoped to the
   * organization: the file is one consistent snapshot however long it takes to send, and rows committed
   * meanwhile neither appear nor shift a page. PGlite has one connection that every request waits for, so
   * there each page is its own read-only transaction and the connection is free while the client catches up
   * (keyset paging still gives every row that stays once). Each page's answer is held to the output schema
   * in the suite's contract mode, as a JSON call's is. Resolves once the last page was given to `onPage`.
   */
  async exportPages(request: Omit<DispatchRequest, 'idempotencyKey'>, pageLimit: number, onPage: (items: unknown[]) => Promise<void>): Promise<void> {
    const { principal, operation } = request;
    // Validated as the JSON call's input (400 naming the field), with a page the schema takes; the export's own
    // page size is set after, as handlers read it from the validated input.
    const parsed = parseInput(operation.input, { ...(request.input as object), page: {} }) as { page: { limit: number; cursor?: string } };
    const input = { ...parsed, page: { limit: pageLimit } as { limit: number; cursor?: string } };
    const ctx = (tx: Queryable): OperationContext => ({
      orgId: principal.orgId,
      principal,
      tx,
      requestId: request.requestId,
      services: this.services,
      afterCommit: () => {
        throw new Error(`${operation.name} is a list: an export runs it read only, with nothing to do after commit`);
      },
      emit: async () => {
        throw new Error(`${operation.name} is a list: an export runs it read only, emitting nothing`);
      },
      enqueue: async () => {
        throw new Error(`${operation.name} is a list: an export runs it read only, enqueueing nothing`);
      },
    });
    const readPage = async (tx: Queryable, page: { limit: number; cursor?: string }) => {
      const body = (await operation.handler(ctx(tx), { ...input, page })) as { items: unknown[]; nextCursor: string | null };
      if (this.checkContract) checkAnswer(operation, body);
      return body;
    };
    const pageAfter = (cursor: string) => ({ limit: pageLimit, cursor });
    try {
      if (this.db.kind === 'postgres') {
        await this.db.transaction(
          async (tx) => {
            // The next page is asked for as soon as a page is in, so the database reads it while this one is
            // written out: two pages in memory at most.
            let reading = readPage(tx, input.page);
            for (;;) {
              const page = await reading;
              if (page.nextCursor !== null) {
                reading = readPage(tx, pageAfter(page.nextCursor));
                // Its failure is met when it is awaited; until then (the client being slow) it is not unhandled.
                reading.catch(() => {});
              }
              try {
                await onPage(page.items);
              } catch (error) {
                // Stopped: the read under way ends (either way) before the transaction is rolled back.
                if (page.nextCursor !== null) await reading.then(
                  () => {},
                  () => {},
                );
                throw error;
              }
              if (page.nextCursor === null) return;
            }
          },
          { orgId: principal.orgId, snapshot: true },
        );
      } else {
        for (let page = input.page; ; ) {
          // A page's statements agree with each other: one read-only transaction per page.
          const body = await this.db.transaction((tx) => readPage(tx, page), { orgId: principal.orgId, snapshot: true });
          await onPage(body.items);
          if (body.nextCursor === null) return;
          page = pageAfter(body.nextCursor);
        }
      }
    } catch (error) {
      if (this.checkContract) checkProblem(operation, toProblem(error));
      throw error;
    }
  }

  private async findStored(principal: Principal, key: string) {
    const [row] = await this.db.transaction(
      (tx) =>
        tx.query<StoredAnswer>(
          `select request_hash, response_status, response_body from idempotency_records
           where org_id = $1 and credential_id = $2 and key = $3 and created_at > now() - ${IDEMPOTENCY_TTL}`,
          [principal.orgId, principal.credentialId, key],
        ),
      { orgId: principal.orgId, readOnly: true },
    );
    return row;
  }

  private replay(stored: StoredAnswer, requestHash: string): DispatchResult {
    if (stored.request_hash !== requestHash) {
      throw new ProblemError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
    }
    if (stored.response_status === null) {
      throw conflict('idempotency_key_in_flight', 'A request with this Idempotency-Key is still being processed.');
    }
    return { status: stored.response_status, json: stored.response_body!, replayed: true };
  }

  /**
   * Inserts the key's record first thing in the transaction. A concurrent request with the same key
   * waits on the unique index until this one ends, then finds the key taken and replays the answer.
   */
  private async claimKey(tx: Queryable, principal: Principal, key: string, operation: string, requestHash: string): Promise<boolean> {
    await tx.query(
      `delete from idempotency_records where org_id = $1 and credential_id = $2 and key = $3 and created_at <= now() - ${IDEMPOTENCY_TTL}`,
      [principal.orgId, principal.credentialId, key],
    );
    const rows = await tx.query(
      `insert into idempotency_records (org_id, credential_id, key, operation, request_hash, response_status, response_body)
       values ($1, $2, $3, $4, $5, null, null) on conflict do nothing returning key`,
      [principal.orgId, principal.credentialId, key, operation, requestHash],
    );
    return rows.length === 1;
  }
}

/**
 * Page cursors cross the API sealed for the organization (db/paging.ts): a list's `page.cursor` is opened
 * here, before its handler runs (400 invalid_cursor if it was not sealed for this organization), and the
 * `nextCursor` a list answers is sealed on the way out. A list is an operation whose input has a page.
 */
function openPageCursor<T>(services: Services, orgId: string, input: T): T {
  const page = (input as { page?: { cursor?: unknown } } | null)?.page;
  if (typeof page?.cursor !== 'string') return input;
  return { ...input, page: { ...page, cursor: openCursor(services.config, orgId, page.cursor) } };
}

function sealNextCursor(services: Services, orgId: string, input: unknown, body: object): object {
  const listed = typeof (input as { page?: unknown } | null)?.page === 'object';
  const next = (body as { nextCursor?: unknown }).nextCursor;
  return listed && typeof next === 'string' ? { ...body, nextCursor: sealCursor(services.config, orgId, next) } : body;
}

class KeyTakenMeanwhile extends Error {}

interface StoredAnswer {
  request_hash: string;
  /** null while the first request is in flight. */
  response_status: number | null;
  /** The first answer's JSON, as sent. */
  response_body: string | null;
}
