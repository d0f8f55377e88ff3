import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/client.js';
import type { Principal } from '../auth/credentials.js';
import { requireGrant } from '../auth/grant.js';
import { writeEvent } from '../events/emit.js';
import { camelCase, canonicalJson } from '../lib/json.js';
import type { Operation, OperationContext, Services } from './define.js';
import { ProblemError, conflict, invalidInput } from './errors.js';
import { fieldErrors } from './schemas.js';
import { checkAnswer, checkEvent, checkProblem } from './contract.js';

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
  body: unknown;
  replayed: boolean;
}

const IDEMPOTENCY_TTL = `interval '24 hours'`;

/**
 * The part of the request pipeline after authentication and rate limiting: module enabled →
 * permission → validate input → one transaction scoped to the organization, holding the domain
 * writes, events and idempotency record together.
 */
export class Dispatcher {
  /** Set when the suite runs (FIRSTCRACK_CHECK_CONTRACT=1): every answer, event and problem is held to its declaration. */
  private readonly checkContract = process.env.FIRSTCRACK_CHECK_CONTRACT === '1';

  constructor(
    private readonly db: Database,
    private readonly services: Services,
    private readonly onAfterCommitError: (error: unknown) => void = () => {},
  ) {}

  async dispatch(request: DispatchRequest): Promise<DispatchResult> {
    const { principal, operation } = request;
    requireGrant(principal, operation.module, operation.permission);
    const parsed = operation.input.safeParse(request.input ?? {});
    if (!parsed.success) throw invalidInput(fieldErrors(parsed.error));

    const key = request.idempotencyKey;
    const requestHash = key === undefined ? '' : createHash('sha256').update(operation.name).update('\n').update(canonicalJson(request.input)).digest('hex');
    if (key !== undefined) {
      const stored = await this.findStored(principal, key);
      if (stored) return this.replay(stored, requestHash);
    }

    const afterCommit: (() => Promise<void>)[] = [];
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
              await writeEvent(tx, principal.orgId, type, data);
            },
            enqueue: (job, payload) => this.services.jobs.send(tx, job, payload),
          };
          const body = (await operation.handler(ctx, parsed.data)) ?? {};
          if (this.checkContract) checkAnswer(operation, body);
          if (key !== undefined) {
            await tx.query(
              `update idempotency_records set response_status = 200, response_body = $4
               where org_id = $1 and credential_id = $2 and key = $3`,
              [principal.orgId, principal.credentialId, key, JSON.stringify(body)],
            );
          }
          return { status: 200, body, replayed: false };
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
      const problem = translateDatabaseError(error);
      if (this.checkContract) checkProblem(operation, problem);
      throw problem;
    }
  }

  private async findStored(principal: Principal, key: string) {
    const [row] = await this.db.transaction(
      (tx) =>
        tx.query<{ request_hash: string; response_status: number | null; response_body: unknown }>(
          `select request_hash, response_status, response_body from idempotency_records
           where org_id = $1 and credential_id = $2 and key = $3 and created_at > now() - ${IDEMPOTENCY_TTL}`,
          [principal.orgId, principal.credentialId, key],
        ),
      { orgId: principal.orgId, readOnly: true },
    );
    return row;
  }

  private replay(stored: { request_hash: string; response_status: number | null; response_body: unknown }, requestHash: string): DispatchResult {
    if (stored.request_hash !== requestHash) {
      throw new ProblemError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
    }
    if (stored.response_status === null) {
      throw conflict('idempotency_key_in_flight', 'A request with this Idempotency-Key is still being processed.');
    }
    return { status: stored.response_status, body: stored.response_body, replayed: true };
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

class KeyTakenMeanwhile extends Error {}

/**
 * Constraint violations that reach here are rules the database enforced: answer them as the client's
 * problem, naming the field. Constraint names follow PostgreSQL's defaults (`<table>_org_id_<column>_key`,
 * `<table>_org_id_<column>_fkey`), so the field is read off the name.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof ProblemError) return error;
  const e = error as { code?: string; constraint?: string; message?: string };
  const field = e?.constraint ? fieldFromConstraint(e.constraint) : undefined;
  switch (e?.code) {
    case '23505':
      return conflict('duplicate', `Another record in this organization already has this ${field ?? 'value'}.`, {
        errors: [{ path: field ?? '', message: 'already used in this organization' }],
      });
    case '23503':
      return new ProblemError(404, 'not_found', `The ${field ?? 'referenced record'} does not exist in this organization.`, {
        errors: [{ path: field ?? '', message: 'not found' }],
      });
    case '23514':
      return invalidInput([{ path: '', message: `violates the rule ${e.constraint}` }], 'The change would break a rule of the record.');
    case '40001':
    case '40P01':
      return conflict('concurrent_update', 'A concurrent request changed the same records; retry the request.');
    default:
      return error;
  }
}

function fieldFromConstraint(constraint: string): string | undefined {
  const m = /_org_id_(.+)_(key|fkey)$/.exec(constraint);
  return m ? camelCase(m[1]) : undefined;
}
