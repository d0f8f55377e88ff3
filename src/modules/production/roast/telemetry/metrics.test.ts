import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type Curve, type CurveSample, type RoastEventType } from './curve.js';
import { importRoastLog } from './importers/index.js';
import { METRIC_KEYS, burnerFromChannel, deriveMetrics, downsampleTo1Hz, type RoastMetrics } from './metrics.js';

/** The shared fixtures, found from the main checkout (/work/main) or a worktree (/work/wt/<name>). */
const FIXTURES = [new URL('../../../../../../shared/fixtures/roast-logs/', import.meta.url), new URL('../../../../../../../shared/fixtures/roast-logs/', import.meta.url)].find((url) => existsSync(url))!;

type Kind = 'time' | 'temp' | 'delta' | 'ror' | 'pct' | 'auc' | 'btu' | 'kwh';

/**
 * Every key Artisan writes into `computed`, with our metric and how to compare it, or the reason it is not compared.
 * `expected` derives Artisan's side when it is not a single key.
 */
type Rule =
  | { ours: keyof RoastMetrics; kind: Kind; expected?: (computed: Record<string, unknown>) => number }
  | { skip: string };
const RULES: Record<string, Rule> = {
  CHARGE_ET: { ours: 'chargeEtC', kind: 'temp' },
  CHARGE_BT: { ours: 'chargeTempC', kind: 'temp' },
  TP_idx: { skip: 'an index into the file\'s sample list; TP_time is compared instead' },
  TP_time: { ours: 'turningPointS', kind: 'time' },
  TP_ET: { ours: 'turningPointEtC', kind: 'temp' },
  TP_BT: { ours: 'turningPointTempC', kind: 'temp' },
  MET: { ours: 'maxEtC', kind: 'temp' },
  DRY_time: { ours: 'dryEndS', kind: 'time' },
  DRY_ET: { ours: 'dryEndEtC', kind: 'temp' },
  DRY_BT: { ours: 'dryEndTempC', kind: 'temp' },
  FCs_time: { ours: 'firstCrackStartS', kind: 'time' },
  FCs_ET: { ours: 'firstCrackStartEtC', kind: 'temp' },
  FCs_BT: { ours: 'firstCrackStartTempC', kind: 'temp' },
  FCe_time: { ours: 'firstCrackEndS', kind: 'time' },
  FCe_ET: { ours: 'firstCrackEndEtC', kind: 'temp' },
  FCe_BT: { ours: 'firstCrackEndTempC', kind: 'temp' },
  SCs_time: { ours: 'secondCrackStartS', kind: 'time' },
  SCs_ET: { ours: 'secondCrackStartEtC', kind: 'temp' },
  SCs_BT: { ours: 'secondCrackStartTempC', kind: 'temp' },
  SCe_time: { ours: 'secondCrackEndS', kind: 'time' },
  SCe_ET: { ours: 'secondCrackEndEtC', kind: 'temp' },
  SCe_BT: { ours: 'secondCrackEndTempC', kind: 'temp' },
  DROP_time: { ours: 'dropS', kind: 'time' },
  DROP_ET: { ours: 'dropEtC', kind: 'temp' },
  DROP_BT: { ours: 'dropTempC', kind: 'temp' },
  COOL_time: { ours: 'coolEndS', kind: 'time' },
  COOL_ET: { ours: 'coolEndEtC', kind: 'temp' },
  COOL_BT: { ours: 'coolEndTempC', kind: 'temp' },
  totaltime: { ours: 'totalTimeS', kind: 'time' },
  dryphasetime: { ours: 'dryingPhaseS', kind: 'time' },
  midphasetime: { ours: 'maillardPhaseS', kind: 'time' },
  finishphasetime: { ours: 'developmentPhaseS', kind: 'time' },
  coolphasetime: { ours: 'coolingPhaseS', kind: 'time' },
  dry_phase_ror: { ours: 'rorDryingCPerMin', kind: 'ror' },
  mid_phase_ror: { ours: 'rorMaillardCPerMin', kind: 'ror' },
  finish_phase_ror: { ours: 'rorDevelopmentCPerMin', kind: 'ror' },
  total_ror: { ours: 'rorTotalCPerMin', kind: 'ror' },
  fcs_ror: { skip: 'the value of Artisan\'s smoothed RoR curve at first crack: it depends on its RoR span and filter settings, which the log does not store' },
  dry_phase_delta_temp: { ours: 'riseDryingC', kind: 'delta' },
  mid_phase_delta_temp: { ours: 'riseMaillardC', kind: 'delta' },
  finish_phase_delta_temp: { ours: 'riseDevelopmentC', kind: 'delta' },
  total_ts: { ours: 'tempTimeEtMinusBtCMin', kind: 'auc' },
  total_ts_ET: { ours: 'tempTimeEtCMin', kind: 'auc' },
  total_ts_BT: { ours: 'tempTimeBtCMin', kind: 'auc' },
  AUC: { ours: 'aucCMin', kind: 'auc' },
  AUCbegin: { skip: 'a setting, checked by "AUC begins where the log says" below' },
  AUCbase: { ours: 'aucBaseC', kind: 'temp' },
  AUCfromeventflag: { skip: 'a display setting (AUC target from an event); no value' },
  dry_phase_AUC: { ours: 'aucDryingCMin', kind: 'auc' },
  mid_phase_AUC: { ours: 'aucMaillardCMin', kind: 'auc' },
  finish_phase_AUC: { ours: 'aucDevelopmentCMin', kind: 'auc' },
  weight_loss: { ours: 'weightLossPct', kind: 'pct' },
  total_loss: { skip: 'weight loss including entered defects; defects are not modelled (weight_loss is compared)' },
  weightin: { skip: 'an input, not a metric: the importer tests check the charge weight' },
  weightout: { skip: 'an input, not a metric: the importer tests check the drop weight' },
  volumein: { skip: 'volumes are not modelled' },
  volumeout: { skip: 'volumes are not modelled' },
  set_density: { skip: 'densities are not modelled' },
  roast_defects_weight: { skip: 'defect weights are not modelled' },
  total_yield: { skip: 'yield after entered defects; defects are not modelled' },
  ambient_temperature: { skip: 'an input (ambient conditions), not a metric' },
  det: { skip: 'mean deviation of ET from a background profile, which an import does not have' },
  dbt: { skip: 'mean deviation of BT from a background profile, which an import does not have' },
  BTU_preheat: { skip: 'Artisan\'s entered preheat allowance; everything before charge is compared as BTU_bbp + BTU_preheat' },
  CO2_preheat: { skip: 'see BTU_preheat; CO2 before charge is part of CO2_batch (compared)' },
  BTU_bbp: { ours: 'energyBeforeChargeBtu', kind: 'btu', expected: (c) => Number(c.BTU_bbp) + Number(c.BTU_preheat ?? 0) },
  CO2_bbp: { skip: 'CO2 before charge is part of CO2_batch (compared)' },
  BTU_cooling: { ours: 'energyCoolingBtu', kind: 'btu' },
  CO2_cooling: { skip: 'CO2 of cooling is part of CO2_batch (compared)' },
  BTU_LPG: { skip: 'per-fuel split of BTU_batch; a machine has one fuel, BTU_batch is compared' },
  BTU_NG: { skip: 'per-fuel split of BTU_batch; a machine has one fuel, BTU_batch is compared' },
  BTU_ELEC: { skip: 'per-fuel split of BTU_batch; a machine has one fuel, BTU_batch is compared' },
  BTU_batch: { ours: 'energyBatchBtu', kind: 'btu' },
  BTU_batch_per_green_kg: { ours: 'energyBatchBtuPerGreenKg', kind: 'btu' },
  BTU_roast: { ours: 'energyRoastBtu', kind: 'btu' },
  BTU_roast_per_green_kg: { ours: 'energyRoastBtuPerGreenKg', kind: 'btu' },
  CO2_batch: { ours: 'co2BatchG', kind: 'btu' },
  CO2_batch_per_green_kg: { ours: 'co2BatchGPerGreenKg', kind: 'btu' },
  CO2_roast: { ours: 'co2RoastG', kind: 'btu' },
  CO2_roast_per_green_kg: { ours: 'co2RoastGPerGreenKg', kind: 'btu' },
  KWH_batch_per_green_kg: { ours: 'energyBatchKwhPerGreenKg', kind: 'kwh' },
  KWH_roast_per_green_kg: { ours: 'energyRoastKwhPerGreenKg', kind: 'kwh' },
  bbp_total_time: { skip: 'between-batch protocol: needs the previous batch\'s drop' },
  bbp_bottom_temp: { skip: 'between-batch protocol: needs the previous batch\'s drop' },
  bbp_begin_to_bottom_time: { skip: 'between-batch protocol: needs the previous batch\'s drop' },
  bbp_bottom_to_charge_time: { skip: 'between-batch protocol: needs the previous batch\'s drop' },
  bbp_begin_to_bottom_ror: { skip: 'between-batch protocol: needs the previous batch\'s drop' },
  bbp_bottom_to_charge_ror: { skip: 'between-batch protocol: needs the previous batch\'s drop' },
};

/**
 * Brief's tolerances: 1 s, 0.5 °C, 0.1 °C/min, 1 AUC unit (°C·min). Artisan stores weight loss, energy and CO2
 * rounded to 0.1, kWh/kg rounded to 0.1 (so ±0.05 plus our difference).
 */
const TOLERANCE: Record<Kind, number> = { time: 1, temp: 0.5, delta: 0.5, ror: 0.1, pct: 0.1, auc: 1, btu: 0.1, kwh: 0.06 };

/** Artisan's value in our unit (°C, °C/min); areas are °C·min in Artisan whatever the file's unit. */
function artisanInCelsius(value: number, kind: Kind, unit: 'C' | 'F'): number {
  if (unit === 'C') return value;
  if (kind === 'temp') return ((value - 32) * 5) / 9;
  if (kind === 'delta' || kind === 'ror') return (value * 5) / 9;
  return value;
}

const FIXTURE_NAMES = readdirSync(FIXTURES).filter((name) => !name.endsWith('.md'));

function importFixture(name: string) {
  const content = readFileSync(new URL(name, FIXTURES));
  return importRoastLog(name.endsWith('.xls') ? content.toString('base64') : content.toString('utf8'));
}

function metricsOf(roast: ReturnType<typeof importRoastLog>, curve = roast.curve): RoastMetrics {
  return deriveMetrics(curve, { chargeKg: roast.meta.greenWeightKg, dropKg: roast.meta.roastedWeightKg }, roast.meta.metricsOptions);
}

describe('deriveMetrics agrees with every value in the computed dictionary of every shared fixture that has one', () => {
  const maxDeviation: Partial<Record<Kind, number>> = {};
  const notCompared = new Map<string, string>();

  for (const name of FIXTURE_NAMES) {
    it(name, (t) => {
      let roast;
      try {
        roast = importFixture(name);
      } catch (error) {
        assert.fail(`${name} does not import: ${(error as Error).message}`);
      }
      const computed = roast.artisanComputed;
      if (!computed) {
        t.diagnostic('no computed dictionary in this format');
        return;
      }
      const metrics = metricsOf(roast);

      // Without a charge Artisan times events and TP from the start of recording (its TP here: 6.2 s, when the probe
      // cooled after a reading of 177 °C) and writes 0 for the phase figures; ours are null there, by design.
      const noCharge = !roast.chargeFound;
      let compared = 0;
      for (const [key, theirsRaw] of Object.entries(computed)) {
        const rule = RULES[key];
        assert.ok(rule, `Artisan key ${key} has neither a metric nor a stated reason not to compare it`);
        if ('skip' in rule) {
          notCompared.set(key, rule.skip);
          continue;
        }
        const theirs = rule.expected ? rule.expected(computed) : Number(theirsRaw);
        const ours = metrics[rule.ours];
        if (noCharge && ours === null && !/^(TP|DRY|FCs|FCe|SCs|SCe|DROP|COOL)_/.test(key)) {
          assert.ok(theirs === 0 || rule.kind === 'pct' || key === 'AUCbase', `${key}: Artisan ${theirsRaw} without a charge`);
          notCompared.set(`${name}: ${key}`, 'no charge: phase figures are left empty (Artisan writes 0)');
          continue;
        }
        if (typeof theirsRaw === 'number' && theirsRaw === -1 && ours === null) {
          notCompared.set(`${name}: ${key}`, 'Artisan writes -1 for a missing ET channel; ours is null');
          continue;
        }
        if (rule.kind === 'pct' && !(roast.meta.roastedWeightKg! > 0)) {
          // Artisan writes 100 % weight loss when the roasted weight is 0 (not entered); we return null.
          assert.equal(ours, null, 'weight loss without a roasted weight is null');
          notCompared.set(`${name}: ${key}`, 'Artisan writes 100 % without a roasted weight; ours is null');
          continue;
        }
        if (rule.kind === 'auc' && ours === null && theirs === 0 && roast.curve.samples.every((sample) => sample.et === null)) {
          notCompared.set(`${name}: ${key}`, 'Artisan writes 0 for ET areas when the ET channel is missing; ours is null');
          continue;
        }
        if ((rule.kind === 'btu' || rule.kind === 'kwh') && ours === null && theirs === 0) {
          notCompared.set(`${name}: ${key}`, 'Artisan writes 0 without energy loads; ours is null (never guessed)');
          continue;
        }
        assert.equal(typeof ours, 'number', `${rule.ours} missing, Artisan has ${key} = ${theirsRaw}`);
        const deviation = Math.abs((ours as number) - artisanInCelsius(theirs, rule.kind, roast.meta.sourceUnit));
        assert.ok(
          deviation <= TOLERANCE[rule.kind],
          `${rule.ours}: ours ${ours}, Artisan ${key} ${theirsRaw} ${roast.meta.sourceUnit} (deviation ${deviation.toFixed(3)})`,
        );
        maxDeviation[rule.kind] = Math.max(maxDeviation[rule.kind] ?? 0, deviation);
        compared++;
      }
      // Events we report that Artisan's dictionary lacks would be invented ones.
      for (const [ours, artisanKey] of [['dryEndS', 'DRY_time'], ['firstCrackStartS', 'FCs_time'], ['firstCrackEndS', 'FCe_time'], ['secondCrackStartS', 'SCs_time'], ['secondCrackEndS', 'SCe_time'], ['dropS', 'DROP_time'], ['coolEndS', 'COOL_time']] as const) {
        if (!(artisanKey in computed)) assert.equal(metrics[ours], null, `${ours} must be null like Artisan's absent ${artisanKey}`);
      }
      if (noCharge) assert.ok(compared >= 2, 'the turning point is compared without a charge');
      t.diagnostic(`${compared} values compared`);
    });
  }

  it('AUC begins where the log says, with the log\'s base', () => {
    for (const name of FIXTURE_NAMES.filter((n) => n.endsWith('.alog'))) {
      const roast = importFixture(name);
      const metrics = metricsOf(roast);
      if (!roast.chargeFound) continue;
      const begin = { CHARGE: 'charge', TP: 'turning_point', DRY: 'dry_end', FCs: 'first_crack_start' }[String(roast.artisanComputed!.AUCbegin)];
      assert.equal(metrics.aucBegin, begin, `${name}: AUC begin`);
    }
  });

  it('takes the AUC start event and base from the log\'s computed dictionary (in the file\'s unit), also for ET areas', () => {
    const original = readFileSync(new URL('profile2.alog', FIXTURES), 'utf8');
    const edited = original.replace("'AUCbegin': 'TP'", "'AUCbegin': 'DRY'").replace("'AUCbase': 100,", "'AUCbase': 150,");
    assert.notEqual(edited, original);
    const roast = importRoastLog(edited);
    assert.deepEqual(roast.meta.metricsOptions!.auc, { begin: 'dry_end', baseC: 150 });
    const m = metricsOf(roast);
    const fixed = deriveMetrics(roast.curve, undefined, { ...roast.meta.metricsOptions, auc: { begin: 'dry_end', baseC: 150 } });
    assert.deepEqual([m.aucBegin, m.aucBaseC, m.aucCMin, m.tempTimeEtCMin], ['dry_end', 150, fixed.aucCMin, fixed.tempTimeEtCMin]);
    assert.ok(m.aucCMin! < metricsOf(importFixture('profile2.alog')).aucCMin!, 'a later start over a higher base is a smaller area');
    // The Fahrenheit log's base, 212 °F, is 100 °C.
    assert.equal(importFixture('3_Ethiopia Gerba Hechere_2026-02-21.alog').meta.metricsOptions!.auc!.baseC, 100);
  });

  it('reports the largest deviations and every field it could not compare, with the reason', (t) => {
    t.diagnostic(`max deviation by kind (°C, s, °C/min, °C·min): ${JSON.stringify(maxDeviation)}`);
    for (const [key, reason] of notCompared) t.diagnostic(`not compared: ${key}: ${reason}`);
    assert.ok(notCompared.size > 0, 'the report lists the fields not compared');
  });
});

/** The fixture's curve without the given events. */
function without(curve: Curve, ...types: RoastEventType[]): Curve {
  return { samples: curve.samples, events: curve.events.filter((event) => !types.includes(event.type)) };
}

/** Artisan's findDryEnd by hand: seconds since charge of the first sample from `fromS` on with BT ≥ threshold. */
function firstReaching(curve: Curve, fromS: number, thresholdC: number): { s: number; bt: number } {
  const sample = curve.samples.find((s) => s.t / 1000 >= fromS - 1e-9 && s.bt !== null && s.bt >= thresholdC)!;
  return { s: sample.t / 1000, bt: sample.bt! };
}

const near = (actual: number | null, expected: number, tolerance: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} against ${expected}`);

describe('missing events, built from the shared fixtures with events removed, follow Artisan\'s fallbacks', () => {
  for (const name of ['profile2.alog', '3_Ethiopia Gerba Hechere_2026-02-21.alog', 'roast_25-08-31_1240.alog']) {
    describe(name, () => {
      const roast = importFixture(name);
      const full = metricsOf(roast);
      const phases = roast.meta.metricsOptions!.phases!;

      it('no dry end: drying ends where BT first reaches the dry-end phase temperature after the turning point', () => {
        const m = metricsOf(roast, without(roast.curve, 'dry_end'));
        const dry = firstReaching(roast.curve, full.turningPointS!, phases.dryEndC!);
        assert.deepEqual([m.dryEndS, m.dryEndTempC, m.dryEndEtC], [null, null, null], 'no invented dry-end event');
        near(m.dryingPhaseS, dry.s, 1e-6, 'drying phase');
        near(m.maillardPhaseS, full.firstCrackStartS! - dry.s, 1e-6, 'Maillard phase');
        near(m.rorDryingCPerMin, ((dry.bt - full.turningPointTempC!) / (dry.s - full.turningPointS!)) * 60, 1e-9, 'drying RoR');
        near(m.rorMaillardCPerMin, ((full.firstCrackStartTempC! - dry.bt) / (full.firstCrackStartS! - dry.s)) * 60, 1e-9, 'Maillard RoR');
        assert.equal(m.developmentPhaseS, full.developmentPhaseS, 'development unchanged');
        assert.equal(m.aucCMin, full.aucCMin, 'AUC from TP unchanged');
      });

      it('no first crack start: Maillard ends where BT first reaches the first-crack phase temperature after dry end', () => {
        const m = metricsOf(roast, without(roast.curve, 'first_crack_start'));
        const fcs = firstReaching(roast.curve, full.dryEndS!, phases.firstCrackC!);
        assert.equal(m.firstCrackStartS, null, 'no invented first crack');
        near(m.maillardPhaseS, fcs.s - full.dryEndS!, 1e-6, 'Maillard phase');
        near(m.developmentPhaseS, full.dropS! - fcs.s, 1e-6, 'development phase');
        near(m.developmentTimeRatioPct, ((full.dropS! - fcs.s) / full.dropS!) * 100, 1e-6, 'DTR');
        near(m.rorDevelopmentCPerMin, ((full.dropTempC! - fcs.bt) / (full.dropS! - fcs.s)) * 60, 1e-9, 'development RoR');
      });

      it('no dry end and no first crack: both boundaries from the phase temperatures', () => {
        const m = metricsOf(roast, without(roast.curve, 'dry_end', 'first_crack_start'));
        const dry = firstReaching(roast.curve, m.turningPointS ?? 0, phases.dryEndC!);
        const fcs = firstReaching(roast.curve, dry.s, phases.firstCrackC!);
        near(m.dryingPhaseS, dry.s, 1e-6, 'drying phase');
        near(m.maillardPhaseS, fcs.s - dry.s, 1e-6, 'Maillard phase');
      });

      it('no first crack end: only the first-crack-end values go', () => {
        const m = metricsOf(roast, without(roast.curve, 'first_crack_end'));
        const changed = METRIC_KEYS.filter((key) => m[key] !== full[key]);
        const expected = full.firstCrackEndS === null ? [] : ['firstCrackEndS', 'firstCrackEndTempC', 'firstCrackEndEtC'].filter((k) => full[k as keyof RoastMetrics] !== null);
        assert.deepEqual(changed, expected, 'nothing else depends on first crack end');
      });

      it('no drop: the roast ends at the last sample; total time and DTR are null', () => {
        const m = metricsOf(roast, without(roast.curve, 'drop', 'cool_end'));
        const last = roast.curve.samples[roast.curve.samples.length - 1];
        assert.deepEqual([m.dropS, m.dropTempC, m.totalTimeS, m.developmentTimeRatioPct, m.coolingPhaseS], [null, null, null, null, null], 'drop values null');
        near(m.developmentPhaseS, last.t / 1000 - full.firstCrackStartS!, 1e-6, 'development to the last sample');
        assert.equal(m.dryingPhaseS, full.dryingPhaseS, 'drying unchanged');
        assert.ok(m.aucCMin! >= full.aucCMin!, 'AUC runs to the last sample');
      });

      it('no cool end: no cooling phase', () => {
        const m = metricsOf(roast, without(roast.curve, 'cool_end'));
        assert.deepEqual([m.coolEndS, m.coolEndTempC, m.coolingPhaseS], [null, null, null], 'cooling values null');
        assert.equal(m.totalTimeS, full.totalTimeS, 'total unchanged');
      });

      it('a turning point on the charge sample: TP at 0 s, drying RoR, total RoR and AUC from charge', () => {
        // Charge moved onto the turning point: BT never falls below its charge reading after that.
        const tpT = full.turningPointS! * 1000;
        const curve: Curve = {
          samples: roast.curve.samples.map((s) => ({ ...s, t: s.t - tpT })),
          events: roast.curve.events.map((e) => (e.type === 'charge' ? { ...e, t: 0 } : { ...e, t: e.t - tpT })),
        };
        const m = metricsOf(roast, curve);
        assert.equal(m.turningPointS, 0, 'the turning point is the charge sample');
        near(m.rorDryingCPerMin, full.rorDryingCPerMin!, 1e-9, 'drying RoR from charge (= the old TP)');
        near(m.aucCMin, full.aucCMin!, 1e-9, 'AUC from charge (= the old TP)');
      });
    });
  }
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

  it('puts the turning point on the charge sample (0 s) when BT never falls below its charge reading, as findTPint does', () => {
    const metrics = deriveMetrics(curveOf([100, 110, 120], { charge: 0 }));
    assert.deepEqual([metrics.turningPointS, metrics.turningPointTempC], [0, 100]);
  });

  it('does not invent events, but phases fall back to the phase temperatures (150 °C dry end, 200 °C first crack)', () => {
    const metrics = deriveMetrics(curveOf(bts, { charge: 0, drop: 10 }));
    assert.deepEqual([metrics.dryEndS, metrics.firstCrackStartS], [null, null], 'no dry end or first crack event invented');
    assert.equal(metrics.dryingPhaseS, 6, 'first BT ≥ 150 °C after the turning point');
    assert.equal(metrics.maillardPhaseS, 3, 'first BT ≥ 200 °C after dry end');
    assert.equal(metrics.developmentPhaseS, 1);
    assert.equal(metrics.rorDryingCPerMin, ((150 - 90) / 2) * 60);
    assert.equal(metrics.totalTimeS, 10);
  });

  it('computes AUC above the base from the turning point, and MET', () => {
    const metrics = deriveMetrics(curveOf(bts, { charge: 0, dry_end: 6, first_crack_start: 8, drop: 10 }), undefined, { auc: { baseC: 150 } });
    // Intervals ending at 4..9: means 90, 105, 135, 160, 180, 195 → above 150: 10 + 30 + 45 = 85 °C·s.
    assert.equal(metrics.aucCMin, 85 / 60);
    const fromEvent = deriveMetrics(curveOf(bts, { charge: 0, dry_end: 6, first_crack_start: 8, drop: 10 }), undefined, { auc: { baseC: 150, baseFromEvent: true } });
    // Base = BT at the turning point (90 °C): means above 90 over intervals ending at 4..9: 0, 15, 45, 70, 90, 105 °C·s.
    assert.deepEqual([fromEvent.aucBaseC, fromEvent.aucCMin], [90, 325 / 60], 'AUCbaseFlag: base from the begin event');
    const withEt = deriveMetrics({ ...curveOf(bts, { charge: 0, drop: 10 }), samples: bts.map((bt, i) => ({ t: i * 1000, bt, et: i === 7 ? 260 : 240 })) });
    assert.deepEqual([withEt.maxEtC, withEt.maxEtS], [260, 7], 'MET and its time');
  });

  it('computes energy from burner steps: before charge, roast, cooling; pressure loads by the square root; renewable share', () => {
    const curve: Curve = {
      samples: Array.from({ length: 21 }, (_, i) => ({ t: (i - 5) * 1000, bt: 100 + i, et: null })),
      events: [{ type: 'charge', t: 0 }, { type: 'drop', t: 10_000 }, { type: 'cool_end', t: 15_000 }],
    };
    const steps = [{ t: -5000, pct: 100 }, { t: 5000, pct: 25 }];
    const kWhBtu = (kWs: number) => (kWs / 3600) * 3412.14;
    const m = deriveMetrics(curve, { chargeKg: 2 }, { energy: { ratingKw: 36, fuel: 'lpg', burner: steps } });
    assert.ok(Math.abs(m.energyBeforeChargeBtu! - kWhBtu(36 * 5)) < 1e-9, 'before charge: 5 s at 100 %');
    assert.ok(Math.abs(m.energyRoastBtu! - kWhBtu(36 * 5 + 9 * 5)) < 1e-9, 'roast: 5 s at 100 %, 5 s at 25 %');
    assert.ok(Math.abs(m.energyCoolingBtu! - kWhBtu(9 * 5)) < 1e-9, 'cooling: 5 s at 25 %');
    assert.ok(Math.abs(m.energyBatchBtu! - kWhBtu(36 * 10 + 9 * 10)) < 1e-9, 'batch = the sum');
    assert.ok(Math.abs(m.co2RoastG! - m.energyRoastBtu! * 6.288e-5 * 1000) < 1e-9, 'LPG CO2');
    assert.ok(Math.abs(m.energyRoastBtuPerGreenKg! - m.energyRoastBtu! / 2) < 1e-9, 'per kg green');
    const gas = deriveMetrics(curve, undefined, { energy: { ratingKw: 36, fuel: 'natural_gas', burner: steps, pressure: true } });
    assert.ok(Math.abs(gas.energyRoastBtu! - kWhBtu(36 * 5 + 18 * 5)) < 1e-9, 'pressure 25 % → heat 50 %');
    assert.equal(gas.energyRoastBtuPerGreenKg, null, 'no charge weight, no per-kg figure');
    const green = deriveMetrics(curve, undefined, { energy: { ratingKw: 36, fuel: 'electric', burner: steps, renewablePct: 100 } });
    assert.equal(green.co2BatchG, 0, 'fully renewable electricity');
    const none = deriveMetrics(curve, undefined, { energy: { ratingKw: 36, fuel: 'lpg', burner: [] } });
    assert.equal(none.energyBatchBtu, null, 'no burner readings, no energy');
  });

  it('keeps missing readings missing', () => {
    const gappy: (number | null)[] = [...bts];
    gappy[8] = null;
    const metrics = deriveMetrics(curveOf(gappy, { charge: 0, dry_end: 6, first_crack_start: 8, drop: 10 }));
    assert.equal(metrics.firstCrackStartTempC, null);
    assert.equal(metrics.rorMaillardCPerMin, null);
    assert.equal(metrics.developmentPhaseS, 2, 'times do not depend on readings');
  });

  it('without a charge: marked events and the turning point from the start of recording, phase metrics null, weight loss computed', () => {
    const metrics = deriveMetrics(curveOf(bts, { dry_end: 6, first_crack_start: 9 }), { chargeKg: '10.0', dropKg: 8.5 });
    assert.deepEqual([metrics.dryEndS, metrics.dryEndTempC, metrics.firstCrackStartS, metrics.firstCrackStartTempC], [6, 150, 9, 200]);
    assert.deepEqual([metrics.turningPointS, metrics.turningPointTempC], [4, 90], 'lowest BT before first crack, latest on ties');
    for (const key of ['totalTimeS', 'dryingPhaseS', 'maillardPhaseS', 'developmentPhaseS', 'rorTotalCPerMin', 'aucCMin', 'maxEtC', 'tempTimeBtCMin'] as const) {
      assert.equal(metrics[key], null, key);
    }
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

describe('burnerFromChannel', () => {
  it('reads the first burner channel the curve has, one step per change', () => {
    const samples = [0, 1, 2, 3].map((i) => ({ t: i * 1000, bt: 100, et: null, channels: { 'Power (%)': i < 2 ? 80 : 60, fan: 30 } }));
    assert.deepEqual(burnerFromChannel({ samples, events: [] }), [{ t: 0, pct: 80 }, { t: 2000, pct: 60 }]);
    assert.deepEqual(burnerFromChannel({ samples: samples.map((s) => ({ ...s, channels: { fan: 30 } })), events: [] }), [], 'no burner channel, no steps');
  });

  it('finds the Loring burner column of the shared fixture', () => {
    const roast = importFixture('RST_LOG1.csv');
    const steps = burnerFromChannel(roast.curve);
    assert.ok(steps.length > 1 && steps.every((s) => s.pct >= 0 && s.pct <= 100), `burner steps from BurnerPercentage: ${steps.length}`);
  });
});
