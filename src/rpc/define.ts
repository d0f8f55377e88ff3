import type { z } from 'zod';
import type { Queryable } from '../db/client.js';
import type { Permission } from '../auth/permissions.js';
import type { Module } from '../auth/plans.js';
import type { Principal } from '../auth/credentials.js';
import type { LiveSessionStore } from '../telemetry/live.js';
import type { BlobStore } from '../blobs/store.js';
import type { JobName, JobPayload } from '../jobs/catalog.js';
import type { JobSender } from '../jobs/queue.js';

/** Infrastructure handlers may use besides the transaction; each has an embedded and a server implementation. */
export interface Services {
  liveSessions: LiveSessionStore;
  blobs: BlobStore;
  jobs: JobSender;
}

export interface OperationContext {
  orgId: string;
  principal: Principal;
  /** The request's one transaction, scoped to the organization. Everything a handler writes goes here. */
  tx: Queryable;
  /** Records an event in the same transaction as the change it describes. */
  emit(type: string, data: Record<string, unknown>): Promise<void>;
  /**
   * Sends a job of the catalog (src/jobs/catalog.ts) in the same transaction: it runs only if the
   * operation commits. An unknown job or a payload its schema refuses throws (a programming error).
   * Resolves to the new job's id.
   */
  enqueue<Name extends JobName>(job: Name, payload: JobPayload<Name>): Promise<string>;
  requestId: string;
  services: Services;
  /**
   * Runs `work` once the transaction has committed (never if it rolls back): for effects outside the
   * database that must only happen after the writes are confirmed, such as discarding a live buffer.
   * A failure there is logged, not reported: the operation's result already stands.
   */
  afterCommit(work: () => Promise<void>): void;
}

/** One declarative definition per operation; HTTP, OpenAPI, checks and conformance tests all read it. */
export interface Operation<Input extends z.ZodType = z.ZodType> {
  /** `namespace.operation`, e.g. `catalog.location.getLocation`. */
  name: string;
  permission: Permission;
  module: Module;
  /** Also callable as GET with `?input=<URL-encoded JSON>`, cacheable with an ETag. */
  get: boolean;
  summary: string;
  input: Input;
  /** Event types this operation emits on success. */
  emits: readonly string[];
  handler(ctx: OperationContext, input: z.output<Input>): Promise<unknown>;
}

export function defineOperation<Input extends z.ZodType>(
  definition: Omit<Operation<Input>, 'emits'> & { emits?: readonly string[] },
): Operation<Input> {
  return { emits: [], ...definition };
}
