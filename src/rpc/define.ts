import type { z } from 'zod';
import type { Queryable } from '../db/client.js';
import type { Permission } from '../auth/permissions.js';
import type { Feature } from '../auth/plans.js';
import type { Principal } from '../auth/credentials.js';
import type { BlobStore } from '../blobs/store.js';

import type { ProblemCode } from './problem-codes.js';
import type { JobDefinition, JobSender } from '../jobs/define.js';
import type { CatalogEvent, EventDefinition, EventPayload } from '../events/define.js';
import type { Config } from '../config.js';

/**
 * Services a module adds (its manifest's `services`: live stores), each declared by that module beside its
 * manifest with `declare module '…/rpc/define.js' { interface ModuleServices { name: Type } }`, so the
 * platform names none of them.
 */
export interface ModuleServices {}

/** Infrastructure handlers may use besides the transaction; each has an embedded and a server implementation. */
export interface Services extends ModuleServices {
  blobs: BlobStore;
  jobs: JobSender;
  /** The process's configuration, for settings an operation applies (webhook URL rules, the secret key). */
  config: Config;
  /** Every event type some operation emits, with its payload schema and emitters (read off the modules' operations). */
  eventCatalog: ReadonlyMap<string, CatalogEvent>;
  /**
   * Removes what every module keeps for an organization outside the database and the blob store (live state:
   * roast sessions in Redis or on disk), through their manifests' `purgeOrganization`; answers how many items.
   * Only the organization purge calls it (src/jobs/organization-purge.ts).
   */
  purgeOrganizationState(orgId: string): Promise<number>;
}

export interface OperationContext<Events extends EventDefinition = EventDefinition> {
  orgId: string;
  principal: Principal;
  /** The request's one transaction, scoped to the organization. Everything a handler writes goes here. */
  tx: Queryable;
  /**
   * Records an event in the same transaction as the change it describes. Only the event types the
   * operation declares in `emits` are accepted, each with its declared payload.
   */
  emit<T extends Events['type']>(type: T, data: EventPayload<Events, T>): Promise<void>;
  /**
   * Sends a job (its definition, listed in its module's manifest) in the same transaction: it runs only if
   * the operation commits. A job outside the catalog or a payload its schema refuses throws (a programming
   * error). Resolves to the new job's id.
   */
  enqueue<Payload extends z.ZodType>(job: JobDefinition<Payload>, payload: z.input<Payload>): Promise<string>;
  requestId: string;
  services: Services;
  /**
   * Runs `work` once the transaction has committed (never if it rolls back): for effects outside the
   * database that must only happen after the writes are confirmed, such as discarding a live buffer.
   * A failure there is logged, not reported: the operation's result already stands.
   */
  afterCommit(work: () => Promise<void>): void;
}

/** One declarative definition per operation; HTTP, OpenAPI, the typed client, checks and conformance tests all read it. */
export interface Operation<
  Input extends z.ZodType = z.ZodType,
  Output extends z.ZodType = z.ZodType,
  Events extends EventDefinition = EventDefinition,
> {
  /** `namespace.operation`, e.g. `catalog.location.getLocation`. */
  name: string;
  permission: Permission;
  /** The plan feature it belongs to (the API's `module`: a plan without it answers module_not_enabled). */
  feature: Feature;
  /** Also callable as GET with `?input=<URL-encoded JSON>`, cacheable with an ETag. */
  get: boolean;
  /** One line: what the operation does. */
  summary: string;
  /** The rules a caller needs: what is refused and why, defaults, ordering, side effects. */
  description: string;
  /** Registered beyond the specification's operations (documented as an extension). */
  extension?: boolean;
  /** Rate-limit points a call costs when more than 1; such calls run in the heavy lane (src/rpc/cost.ts). */
  cost?: number;
  input: Input;
  /** The answer's schema, as served (JSON): documented in OpenAPI, typed in the client, checked in tests. */
  output: Output;
  /** Problem codes the handler can answer beyond the pipeline's own (PIPELINE_CODES). */
  errors: readonly ProblemCode[];
  /** Events this operation emits on success. */
  emits: readonly Events[];
  handler(ctx: OperationContext<Events>, input: z.output<Input>): Promise<z.input<Output>>;
}

export function defineOperation<Input extends z.ZodType, Output extends z.ZodType, const Events extends EventDefinition = never>(
  definition: Omit<Operation<Input, Output, Events>, 'emits'> & { emits?: readonly Events[] },
): Operation {
  // The registry holds operations of every type; a handler typed for its own input and events is not
  // assignable to the erased one (parameters are contravariant), and the dispatcher validates the input
  // against this operation's own schema before calling it, so the erasure is sound.
  return { emits: [], ...definition } as unknown as Operation;
}
