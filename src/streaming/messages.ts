/**
 * A time-stamped point of a live session (a sample or an event), `t` in ms from the session's origin. The
 * stores order the curve by `t` and keep every other field as the producer posted it.
 */
export interface LivePoint {
  t: number;
}

/** A session's buffered points: samples and events, each sorted by `t`. */
export interface LiveCurve<Sample extends LivePoint = LivePoint, Event extends LivePoint = LivePoint> {
  samples: Sample[];
  events: Event[];
}

/** One message of a session's feed, as watchers receive it. */
export interface LiveMessage {
  /** Increasing per batch from 1; the SSE `id:`, so Last-Event-ID resumes without gaps. */
  id: number;
  event: 'sample' | 'roast_event' | 'status';
  data: LivePoint | { state: string };
}
