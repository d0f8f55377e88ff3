import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { celsiusToFahrenheit, type Curve, type CurveSample, type RoastEventType } from './curve.js';
import { importRoastLog } from './importers/index.js';
import { deriveMetrics, downsampleTo1Hz, type RoastMetrics } from './metrics.js';

const FIXTURES = new URL('../../../shared/fixtures/roast-logs/', import.meta.url);

type Kind = 'time' | 'temp' | 'ror' | 'pct';

/** Our metric ↔ Artisan's `computed` key, and how to compare them. */
const AGREEMENT: [ours: keyof RoastMetrics, artisan: string, kind: Kind][] = [
  ['chargeTempC', 'CHARGE_BT', 'temp'],
  ['turningPointS', 'TP_time', 'time'],
  ['turningPointTempC', 'TP_BT', 'temp'],
  ['dryEndS', 'DRY_time', 'time'],
  ['dryEndTempC', 'DRY_BT', 'temp'],
  ['firstCrackStartS', 'FCs_time', 'time'],
  ['firstCrackStartTempC', 'FCs_BT', 'temp'],
  ['firstCrackEndS', 'FCe_time', 'time'],
  ['secondCrackStartS', 'SCs_time', 'time'],
  ['dropS', 'DROP_time', 'time'],
  ['dropTempC', 'DROP_BT', 'temp'],
  ['totalTimeS', 'totaltime', 'time'],
  ['dryingPhaseS', 'dryphasetime', 'time'],
  ['maillardPhaseS', 'midphasetime', 'time'],
  ['developmentPhaseS', 'finishphasetime', 'time'],
  ['rorDryingCPerMin', 'dry_phase_ror', 'ror'],
  ['rorMaillardCPerMin', 'mid_phase_ror', 'ror'],
  ['rorDevelopmentCPerMin', 'finish_phase_ror', 'ror'],
  ['weightLossPct', 'weight_loss', 'pct'],
];

/** Brief's tolerances: 1 s, 0.5° and 0.5°/min in the file's unit; Artisan stores weight loss rounded to 0.1 %. */
const TOLERANCE: Record<Kind, number> = { time: 1, temp: 0.5, ror: 0.5, pct: 0.1 };

/** Our °C value in the file's unit, so the comparison is made in the unit Artisan stored. */
function inFileUnit(value: number, kind: Kind, unit: 'C' | 'F'): number {
  if (unit === 'C' || kind === 'time' || kind === 'pct') return value;
  return kind === 'temp' ? celsiusToFahrenheit(value) : (value * 9) / 5;
}

describe('deriveMetrics agrees with the computed block Artisan stored in each .alog', () => {
  const alogs = readdirSync(FIXTURES).filter((name) => name.endsWith('.alog'));
  const maxDeviation: Record<Kind, number> = { time: 0, temp: 0, ror: 0, pct: 0 };

  for (const name of alogs) {
    it(name, (t) => {
      const roast = importRoastLog(readFileSync(new URL(name, FIXTURES), 'utf8'));
      const computed = roast.artisanComputed!;
      const metrics = deriveMetrics(roast.curve, {
        chargeKg: roast.meta.greenWeightKg,
        dropKg: roast.meta.roastedWeightKg,
      });

      if (!roast.chargeFound) {
        // Artisan still reports a TP here, timed from the recording start (6.2 s, when the probe cooled after a
        // reading of 177 °C). Without a charge there is no "seconds since charge", so we deliberately return null.
        assert.equal(typeof computed.TP_time, 'number');
        assert.deepEqual(
          Object.entries(metrics).filter(([key, value]) => key !== 'weightLossPct' && value !== null),
          [],
        );
        return;
      }

      let compared = 0;
      for (const [ours, artisanKey, kind] of AGREEMENT) {
        const theirs = computed[artisanKey];
        if (typeof theirs !== 'number') {
          assert.equal(metrics[ours], null, `${ours} should be null like Artisan's absent ${artisanKey}`);
          continue;
        }
        // Artisan writes 100 % weight loss when the roasted weight is 0 (not entered); we return null.
        if (artisanKey === 'weight_loss' && !(roast.meta.roastedWeightKg! > 0)) {
          assert.equal(metrics.weightLossPct, null);
          continue;
        }
        const value = metrics[ours];
        assert.notEqual(value, null, `${ours} missing, Artisan has ${artisanKey} = ${theirs}`);
        const deviation = Math.abs(inFileUnit(value!, kind, roast.meta.sourceUnit) - theirs);
        assert.ok(
          deviation <= TOLERANCE[kind],
          `${ours}: ours ${value} °C-based, Artisan ${artisanKey} ${theirs} (${roast.meta.sourceUnit})`,
        );
        maxDeviation[kind] = Math.max(maxDeviation[kind], deviation);
        compared++;
      }
      t.diagnostic(`${compared} values compared`);
    });
  }

  it('reports the largest deviations', (t) => {
    t.diagnostic(
      `max deviation: time ${maxDeviation.time.toFixed(3)} s, temperature ${maxDeviation.temp.toFixed(3)}°, ` +
        `RoR ${maxDeviation.ror.toFixed(3)}°/min, weight loss ${maxDeviation.pct.toFixed(3)} %`,
    );
  });
});

/** A curve with 1 s samples from `bts` and events at sample indexes. */
function curveOf(bts: (number | null)[], events: Partial<Record<RoastEventType, number>>): Curve {
  return {
    samples: bts.map((bt, i) => ({ t: i * 1000, bt, et: null })),
    events: Object.entries(events).map(([type, index]) => ({ type: type as RoastEventType, t: index! * 1000 })),
  };
}

describe('deriveMetrics on synthetic curves', () => {
  //            0    1    2    3   4   5    6    7    8    9    10
  const bts = [200, 150, 100, 90, 90, 120, 150, 170, 190, 200, 205];

  it('derives phases, DTR and RoR (drying RoR from the turning point)', () => {
    const metrics = deriveMetrics(curveOf(bts, { charge: 0, dry_end: 6, first_crack_start: 8, drop: 10 }));
    assert.equal(metrics.chargeTempC, 200);
    assert.equal(metrics.turningPointS, 4, 'ties go to the later sample, as in Artisan');
    assert.equal(metrics.turningPointTempC, 90);
    assert.equal(metrics.dryingPhaseS, 6);
    assert.equal(metrics.maillardPhaseS, 2);
    assert.equal(metrics.developmentPhaseS, 2);
    assert.equal(metrics.totalTimeS, 10);
    assert.equal(metrics.developmentTimeRatioPct, 20);
    assert.equal(metrics.rorDryingCPerMin, ((150 - 90) / 2) * 60);
    assert.equal(metrics.rorMaillardCPerMin, ((190 - 150) / 2) * 60);
    assert.equal(metrics.rorDevelopmentCPerMin, ((205 - 190) / 2) * 60);
    assert.equal(metrics.dropTempC, 205);
  });

  it('searches the turning point before first crack only, and prefers an explicit event', () => {
    const dip = [200, 150, 100, 120, 80, 130];
    assert.equal(deriveMetrics(curveOf(dip, { charge: 0, first_crack_start: 4 })).turningPointS, 2);
    assert.equal(deriveMetrics(curveOf(dip, { charge: 0, turning_point: 3 })).turningPointS, 3);
  });

  it('has no turning point when BT never falls below its charge reading', () => {
    assert.equal(deriveMetrics(curveOf([100, 110, 120], { charge: 0 })).turningPointS, null);
  });

  it('does not invent events: no dry end means no drying or Maillard metrics', () => {
    const metrics = deriveMetrics(curveOf(bts, { charge: 0, drop: 10 }));
    assert.equal(metrics.dryEndS, null);
    assert.equal(metrics.dryingPhaseS, null);
    assert.equal(metrics.maillardPhaseS, null);
    assert.equal(metrics.rorDryingCPerMin, null);
    assert.equal(metrics.totalTimeS, 10);
  });

  it('keeps missing readings missing', () => {
    const gappy: (number | null)[] = [...bts];
    gappy[8] = null;
    const metrics = deriveMetrics(curveOf(gappy, { charge: 0, dry_end: 6, first_crack_start: 8, drop: 10 }));
    assert.equal(metrics.firstCrackStartTempC, null);
    assert.equal(metrics.rorMaillardCPerMin, null);
    assert.equal(metrics.developmentPhaseS, 2, 'times do not depend on readings');
  });

  it('returns null time metrics without a charge event, weight loss still computed', () => {
    const metrics = deriveMetrics(curveOf(bts, {}), { chargeKg: '10.0', dropKg: 8.5 });
    assert.equal(metrics.totalTimeS, null);
    assert.equal(metrics.turningPointS, null);
    assert.ok(Math.abs(metrics.weightLossPct! - 15) < 1e-9, `weight loss 15 %, not ${metrics.weightLossPct}`);
  });

  it('gives null weight loss for missing, zero or unparseable weights', () => {
    const curve = curveOf(bts, { charge: 0 });
    assert.equal(deriveMetrics(curve).weightLossPct, null);
    assert.equal(deriveMetrics(curve, { chargeKg: 10, dropKg: 0 }).weightLossPct, null);
    assert.equal(deriveMetrics(curve, { chargeKg: '10 kg', dropKg: 8 }).weightLossPct, null);
  });

  it('measures event times from the charge event even if the curve is not rebased', () => {
    const shifted: Curve = {
      samples: bts.map((bt, i) => ({ t: 5000 + i * 1000, bt, et: null })),
      events: [
        { type: 'charge', t: 5000 },
        { type: 'drop', t: 15_000 },
      ],
    };
    assert.equal(deriveMetrics(shifted).totalTimeS, 10);
    assert.equal(deriveMetrics(shifted).turningPointS, 4);
  });
});

describe('downsampleTo1Hz', () => {
  const sample = (t: number, bt: number | null): CurveSample => ({ t, bt, et: null });

  it('keeps the sample nearest each whole second, re-stamped to that second', () => {
    const out = downsampleTo1Hz([
      sample(-600, 1),
      sample(-100, 2),
      sample(200, 3),
      sample(400, 4),
      sample(900, 5),
      sample(1400, 6),
      sample(3500, 7),
      sample(4499, 8),
    ]);
    // 3500 ms and 4499 ms both round to 4000; 4499 is closer (499 ms against 500 ms).
    assert.deepEqual(
      out.map((s) => [s.t, s.bt]),
      [
        [-1000, 1],
        [0, 2],
        [1000, 5],
        [4000, 8],
      ],
    );
  });

  it('keeps nulls and channels of the chosen sample, and leaves empty seconds out', () => {
    const out = downsampleTo1Hz([
      { t: 0, bt: null, et: 200, channels: { gas: 40 } },
      { t: 500, bt: 100, et: 201 },
      { t: 5000, bt: 101, et: 202 },
    ]);
    assert.deepEqual(out, [
      { t: 0, bt: null, et: 200, channels: { gas: 40 } },
      { t: 1000, bt: 100, et: 201 },
      { t: 5000, bt: 101, et: 202 },
    ]);
  });

  it('reduces a 2 Hz RoasTime curve to one sample per second', () => {
    const roast = importRoastLog(readFileSync(new URL('roast_data.json', FIXTURES), 'utf8'));
    const out = downsampleTo1Hz(roast.curve.samples);
    assert.equal(out.length, 501);
    assert.ok(out.every((s, i) => i === 0 || s.t - out[i - 1].t === 1000), 'samples 1 s apart');
  });
});
