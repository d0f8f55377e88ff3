import type { z } from 'zod';

/**
 * One event type, declared once: its name (`<namespace>.<resource>.<past-tense verb>`), what it means, and
 * the schema of its `data`. Operations list the definitions they emit; `ctx.emit` accepts only those, with
 * their payloads, and the catalog (webhooks, the event feed, OpenAPI) is read off the registry.
 */
export interface EventDefinition<Type extends string = string, Payload extends z.ZodType = z.ZodType> {
  type: Type;
  summary: string;
  payload: Payload;
}

export function defineEvent<const Type extends string, Payload extends z.ZodType>(
  type: Type,
  summary: string,
  payload: Payload,
): EventDefinition<Type, Payload> {
  if (!/^[a-z]+(\.[a-z_]+){2}$/.test(type)) throw new Error(`Event type ${type} is not <namespace>.<resource>.<past-tense verb>`);
  return { type, summary, payload };
}

/** The payload an emitter passes for event type `T` among the definitions `E`. */
export type EventPayload<E extends EventDefinition, T extends E['type']> = string extends E['type']
  ? Record<string, unknown>
  : z.input<Extract<E, { type: T }>['payload']>;

/** An event type of the catalog (src/rpc/registry.ts): its definition and the operations that emit it. */
export interface CatalogEvent extends EventDefinition {
  emittedBy: string[];
}
