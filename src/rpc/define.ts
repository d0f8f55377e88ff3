import type { z } from 'zod';
import type { Queryable } from '../db/client.js';
import type { Permission } from '../auth/permissions.js';
import type { Module } from '../auth/plans.js';
import type { Principal } from '../auth/credentials.js';

export interface OperationContext {
  orgId: string;
  principal: Principal;
  /** The request's one transaction, scoped to the organization. Everything a handler writes goes here. */
  tx: Queryable;
  /** Records an event in the same transaction as the change it describes. */
  emit(type: string, data: Record<string, unknown>): Promise<void>;
  requestId: string;
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
