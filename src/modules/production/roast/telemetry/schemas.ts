import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import type { FieldError } from '../../../../rpc/errors.js';
import { fieldErrors, strict } from '../../../../rpc/schemas.js';
import type { RoastEventType } from './curve.js';

/** The roast events a bridge may report, in roast order. */
export const ROAST_EVENT_TYPES = [
  'charge',
  'turning_point',
  'dry_end',
  'first_crack_start',
  'first_crack_end',
  'second_crack_start',
  'second_crack_end',
  'drop',
  'cool_end',
] as const satisfies readonly RoastEventType[];
// Every RoastEventType is listed: adding one to curve.ts without adding it here fails to compile.
const everyEventTypeListed: Exclude<RoastEventType, (typeof ROAST_EVENT_TYPES)[number]> extends never ? true : never = true;
void everyEventTypeListed;

/** One post carries at most this many samples: a 10 Hz bridge catching up on more than three minutes splits its backlog. */
export const MAX_SAMPLES_PER_POST = 2000;
export const MAX_EVENTS_PER_POST = 100;
export const MAX_CHANNELS_PER_SAMPLE = 32;

/** Readings outside this range are a broken probe or a unit mix-up (°F sent as °C), never a roast. */
const MIN_CELSIUS = -50;
const MAX_CELSIUS = 700;
/** A day either side of charge: a roast is minutes long, so anything further is a clock or unit error. */
const MAX_ABS_T_MS = 86_400_000;

const celsius = z
  .number()
  .min(MIN_CELSIUS, `must be between ${MIN_CELSIUS} and ${MAX_CELSIUS} °C`)
  .max(MAX_CELSIUS, `must be between ${MIN_CELSIUS} and ${MAX_CELSIUS} °C`)
  .nullable();

const msSinceCharge = z.number().int('must be whole milliseconds').min(-MAX_ABS_T_MS).max(MAX_ABS_T_MS);

const CHANNEL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * `{ name: number | null }`. Checked by one loop rather than z.record, which builds a schema result per key:
 * this runs for every sample of every post, and the loop costs a third as much. Issues name the channel's
 * path (`samples[3].channels.inlet`) like any other field.
 */
const channels = z.unknown().superRefine((value, ctx) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'must be an object of named readings' });
    return;
  }
  let count = 0;
  for (const name in value) {
    if (++count > MAX_CHANNELS_PER_SAMPLE) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_CHANNELS_PER_SAMPLE} channels` });
      return;
    }
    const reading = (value as Record<string, unknown>)[name];
    if (!CHANNEL_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'channel names are 1–64 letters, digits, _ . or -' });
    else if (reading !== null && (typeof reading !== 'number' || !Number.isFinite(reading))) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'must be a number or null' });
    }
  }
})
  .meta({
    type: 'object',
    description: 'Further named readings (inlet, exhaust, burner, airflow, drum speed, …).',
    maxProperties: MAX_CHANNELS_PER_SAMPLE,
    propertyNames: { pattern: CHANNEL_NAME.source },
    additionalProperties: { type: ['number', 'null'] },
  }) as unknown as z.ZodType<Record<string, number | null>>;

export const TelemetrySample = strict({
  t: msSinceCharge,
  bt: celsius,
  et: celsius,
  channels: channels.optional(),
});

export const TelemetryEvent = strict({
  type: z.enum(ROAST_EVENT_TYPES),
  t: msSinceCharge,
});

/** The body of POST /ingest/v1/roast/{batchId}/samples (DESIGN.md, "The telemetry channel"). */
export const TelemetryPost = strict({
  seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  samples: z.array(TelemetrySample).max(MAX_SAMPLES_PER_POST),
  events: z.array(TelemetryEvent).max(MAX_EVENTS_PER_POST).optional(),
});
export type TelemetryPost = z.output<typeof TelemetryPost>;

/**
 * The post schema compiled by Ajv from the zod schema's own JSON Schema. On the ingest path (every post of
 * every machine) it decides valid or not at a fraction of zod's cost; a refused post is parsed again by zod,
 * whose messages name every path. Both read the one definition above, and a test holds them to the same
 * verdicts.
 */
const isValidPost = new Ajv2020({ allErrors: false }).compile<TelemetryPost>(z.toJSONSchema(TelemetryPost, { io: 'input', target: 'draft-2020-12' }));

export function checkTelemetryPost(body: unknown): { ok: true; post: TelemetryPost } | { ok: false; errors: FieldError[] } {
  if (isValidPost(body)) return { ok: true, post: body };
  const parsed = TelemetryPost.safeParse(body);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error) };
  // Reached only if a schema feature were translated wrongly (the test rules it out): refuse, the stricter verdict.
  const [error] = isValidPost.errors ?? [];
  return { ok: false, errors: [{ path: error?.instancePath ?? '', message: error?.message ?? 'is not valid' }] };
}
