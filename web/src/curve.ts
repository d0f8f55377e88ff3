import type uPlot from 'uplot';

/**
 * The roast curve as the console holds it (no drawing here: the chart, uPlot, is loaded only by the pages that
 * draw one, so the dashboard's first load does not carry it).
 */
export interface RoastEventMark {
  type: string;
  t: number;
}

export interface Reference {
  /** seconds, °C */
  t: number[];
  bt: (number | null)[];
  dropTempC?: number | null;
  totalTimeS?: number | null;
}

const EVENT_LABELS: Record<string, string> = {
  charge: 'Charge',
  turning_point: 'TP',
  dry_end: 'Dry end',
  first_crack_start: 'FC',
  first_crack_end: 'FC end',
  second_crack_start: 'SC',
  second_crack_end: 'SC end',
  drop: 'Drop',
  cool_end: 'Cool',
};
export const eventLabel = (type: string) => EVENT_LABELS[type] ?? type;

/** RoR window: BT's rise over the last 30 seconds, per minute. */
const ROR_WINDOW_S = 30;

/** A growing curve: samples appended as they arrive (placed by time if one comes late), RoR computed per new sample. */
export class CurveBuffer {
  t: number[] = [];
  bt: (number | null)[] = [];
  et: (number | null)[] = [];
  ror: (number | null)[] = [];
  events: RoastEventMark[] = [];

  add(sample: { t: number; bt: number | null; et: number | null }): void {
    const s = sample.t / 1000;
    let i = this.t.length;
    while (i > 0 && this.t[i - 1] > s) i--;
    if (i === this.t.length) {
      this.t.push(s);
      this.bt.push(sample.bt);
      this.et.push(sample.et);
      this.ror.push(this.rorAt(i));
    } else {
      this.t.splice(i, 0, s);
      this.bt.splice(i, 0, sample.bt);
      this.et.splice(i, 0, sample.et);
      this.ror.splice(i, 0, null);
      for (let k = i; k < this.t.length; k++) this.ror[k] = this.rorAt(k);
    }
  }

  addEvent(event: RoastEventMark): void {
    if (!this.events.some((e) => e.type === event.type && e.t === event.t)) this.events.push(event);
    this.events.sort((a, b) => a.t - b.t);
  }

  private rorAt(i: number): number | null {
    const bt = this.bt[i];
    if (bt === null || this.t[i] < 0) return null;
    let j = i;
    while (j > 0 && this.t[i] - this.t[j - 1] <= ROR_WINDOW_S) j--;
    while (j < i && this.bt[j] === null) j++;
    const dt = this.t[i] - this.t[j];
    if (j === i || dt < ROR_WINDOW_S / 3) return null;
    return ((bt - (this.bt[j] as number)) / dt) * 60;
  }

  /** The time (s) of the last sample, or 0. */
  get now(): number {
    return this.t.length ? this.t[this.t.length - 1] : 0;
  }

  /** The series for the chart; RoR ends at drop (after it the beans are out and BT reads the empty drum). */
  data(): uPlot.AlignedData {
    const drop = this.events.find((e) => e.type === 'drop');
    const ror = drop ? this.ror.map((v, i) => (this.t[i] * 1000 > drop.t ? null : v)) : this.ror;
    return [this.t, this.bt, this.et, ror] as uPlot.AlignedData;
  }
}

/** Drying (charge → dry end), Maillard (dry end → first crack), development (first crack → drop), in seconds. */
export function phasesOf(events: RoastEventMark[], now: number) {
  const at = (type: string) => {
    const e = events.find((x) => x.type === type);
    return e ? e.t / 1000 : null;
  };
  const charge = at('charge') ?? 0;
  const dryEnd = at('dry_end');
  const fc = at('first_crack_start');
  const drop = at('drop');
  const end = drop ?? now;
  const drying = (dryEnd ?? (fc ?? end)) - charge;
  const maillard = dryEnd !== null ? (fc ?? end) - dryEnd : 0;
  const development = fc !== null ? end - fc : 0;
  const total = end - charge;
  return {
    drying: Math.max(0, drying),
    maillard: Math.max(0, maillard),
    development: Math.max(0, development),
    total: Math.max(0, total),
    dtrPct: fc !== null && total > 0 ? (development / total) * 100 : null,
  };
}
