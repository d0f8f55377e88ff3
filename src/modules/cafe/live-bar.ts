import type { LiveWindowOptions, LiveWindowStore } from '../../streaming/live-window.js';
import { LIVE_RETAIN_SECONDS } from './targets.js';

/**
 * A cafe site's live bar: the shots its machines pulled in the last hour, judged at ingest, which is all
 * getLiveBar reads (never the database). A live window of the streaming platform (src/streaming/live-window.ts).
 */
export interface LiveShot {
  shotId: string;
  machineId: string;
  group: number;
  /** Milliseconds since the epoch. */
  startedAt: number;
  durationS: number;
  doseG: number;
  yieldG: number;
  outsideTarget: boolean;
  channeling: boolean;
}

export type LiveBarStore = LiveWindowStore<LiveShot>;

/** The live bar's window: an hour, at most 5,000 shots per site (a very busy bar pulls a few hundred an hour). */
export const LIVE_BAR: LiveWindowOptions<LiveShot> & { keyPrefix: string } = {
  retainSeconds: LIVE_RETAIN_SECONDS,
  maxItems: 5000,
  identity: (shot) => `${shot.machineId}:${shot.shotId}`,
  keyPrefix: 'firstcrack:bar',
};
