import type { DetectConfig } from './config.js';

export type AutoEvent = 'charge' | 'turning_point' | 'drop';

/**
 * Charge, turning point and drop from BT as it arrives, after Artisan's rules: auto-charge is a sharp BT fall
 * from a preheated drum (the cold beans hitting the probe), auto-drop BT falling again late in the roast
 * (the beans leaving it), both dated at the last reading before the fall (Artisan's BTbreak marks the reading
 * before the break, here where the steep fall began); the turning point is the lowest BT after charge (the latest on ties), marked once BT has
 * risen tp_rise_c above it. Artisan compares the last readings at its sampling interval (3 s); at up to 10 Hz
 * a window of seconds says the same without reacting to one noisy reading.
 * Events known otherwise (marked by hand, or found in the journal or the batch) are never marked again, and a
 * hand-marked charge or drop is what the later rules count from.
 */
export class Detector {
  private readonly known = new Map<string, number>();
  /** Recent readings (t ms, bt) within the longer of the two windows. */
  private window: { t: number; bt: number }[] = [];
  private low?: { t: number; bt: number };

  constructor(private readonly config: DetectConfig) {}

  has(type: string): boolean {
    return this.known.has(type);
  }

  /** An event marked elsewhere (by hand, by the service, or read back from the journal). */
  mark(type: string, t: number): void {
    if (!this.known.has(type)) this.known.set(type, t);
  }

  /** Feeds one reading; answers the events it completes, each with its time. */
  add(t: number, bt: number | null): { type: AutoEvent; t: number }[] {
    if (bt === null) return [];
    const c = this.config;
    const span = Math.max(c.charge_window_s, c.drop_window_s) * 1000;
    this.window.push({ t, bt });
    while (this.window.length > 1 && this.window[0].t < t - span) this.window.shift();
    const found: { type: AutoEvent; t: number }[] = [];
    const emit = (type: AutoEvent, at: number) => {
      this.known.set(type, at);
      found.push({ type, t: at });
    };

    const charge = this.known.get('charge');
    if (charge === undefined) {
      if (c.auto_charge) {
        const peak = this.peakWithin(t, c.charge_window_s);
        if (peak && peak.bt >= c.charge_min_bt_c && peak.bt - bt >= c.charge_fall_c) {
          emit('charge', this.fallStart(c.charge_fall_c / c.charge_window_s));
          this.low = { t, bt };
        }
      }
      return found;
    }
    if (this.known.has('drop')) return found;

    if (!this.known.has('turning_point') && t > charge) {
      if (!this.low || bt <= this.low.bt) this.low = { t, bt };
      else if (c.turning_point && bt - this.low.bt >= c.tp_rise_c) emit('turning_point', this.low.t);
    }
    const afterTp = this.known.has('turning_point') || !c.turning_point;
    if (c.auto_drop && afterTp && t - charge >= c.drop_min_after_charge_s * 1000) {
      const peak = this.peakWithin(t, c.drop_window_s);
      if (peak && peak.t > charge && peak.bt >= c.drop_min_bt_c && peak.bt - bt >= c.drop_fall_c) emit('drop', this.fallStart(c.drop_fall_c / c.drop_window_s));
    }
    return found;
  }

  /**
   * When the fall that completed a charge or drop began: walking back from the newest reading, the first one
   * BT did not fall steeply from (at least half the rule's average rate, °C/s). A drum cooling slowly while
   * preheated, or BT still rising before drop, is not part of the fall.
   */
  private fallStart(ratePerS: number): number {
    const w = this.window;
    let i = w.length - 1;
    while (i > 0 && (w[i - 1].bt - w[i].bt) / Math.max((w[i].t - w[i - 1].t) / 1000, 1e-3) >= ratePerS / 2) i--;
    return w[i].t;
  }

  /** The highest reading within the last `seconds` (the latest of equals). */
  private peakWithin(t: number, seconds: number): { t: number; bt: number } | undefined {
    let peak: { t: number; bt: number } | undefined;
    for (const r of this.window) if (r.t >= t - seconds * 1000 && (!peak || r.bt >= peak.bt)) peak = r;
    return peak;
  }
}
