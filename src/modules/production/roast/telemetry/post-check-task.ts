import type { FieldError } from '../../../../rpc/errors.js';
import { checkTelemetryPost } from './schemas.js';

/** A post's JSON checked on a worker thread: what the ingest route needs of a valid one is its seq and sizes. */
export type PostCheck =
  | { ok: true; seq: number; samples: number; events: number }
  | { ok: false; malformed: string }
  | { ok: false; errors: FieldError[] };

export default function checkPostText(json: Uint8Array): PostCheck {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'));
  } catch (error) {
    return { ok: false, malformed: (error as Error).message };
  }
  const checked = checkTelemetryPost(body);
  if (!checked.ok) return checked;
  const { seq, samples, events = [] } = checked.post;
  return { ok: true, seq, samples: samples.length, events: events.length };
}
