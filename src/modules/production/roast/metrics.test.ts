import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { startTestServer } from '../../../testing/harness.js';
import type { Curve } from './telemetry/curve.js';
import { METRIC_KEYS, deriveMetrics } from './telemetry/metrics.js';
import { bridgeToken, makeRoaster, postCurve, startBatch, syntheticRoast, unique } from './testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Metrics roastery');
const FIXTURES = [new URL('../../../../../shared/fixtures/roast-logs/', import.meta.url), new URL('../../../../../../shared/fixtures/roast-logs/', import.meta.url)].find((url) => existsSync(url))!;

/** The synthetic roast with a `burner` channel: 100 % to 300 s after charge, 60 % after. */
function withBurner(curve: Curve): Curve {
  return { ...curve, samples: curve.samples.map((s) => ({ ...s, channels: { ...s.channels, burner: s.t < 300_000 ? 100 : 60 } })) };
}

async function completeLive(machineInput: Record<string, unknown>, curve: Curve) {
  const machine = await makeRoaster(org, machineInput);
  const token = await bridgeToken(org, machine.id);
  const batch = await startBatch(org, { machineId: machine.id, chargeWeightKg: '10' });
  await postCurve(server, token, batch.id, curve);
  const res = await org.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: '8.5' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('roast metrics in the answers', () => {
  test('the completion answer and getRoastBatch carry every metric; energy from the machine’s rating, fuel and burner channel', async () => {
    const curve = withBurner(syntheticRoast({ hz: 2 }));
    const batch = await completeLive({ burnerRatingKw: '20', fuel: 'natural_gas' }, curve);
    assert.deepEqual(Object.keys(batch.metrics).sort(), [...METRIC_KEYS].sort(), 'every metric is answered');
    const expected = deriveMetrics(curve, { chargeKg: '10' }, { energy: { ratingKw: 20, fuel: 'natural_gas', burner: [{ t: -5000, pct: 100 }, { t: 300_000, pct: 60 }] } });
    // Charge→drop: 300 s at 20 kW and 300 s at 12 kW = 9600 kJ = 8/3 kWh.
    const kwh = (20 * 300 + 12 * 300) / 3600;
    assert.equal(batch.metrics.energyRoastBtu, Math.round(kwh * 3412.14 * 100) / 100);
    for (const key of METRIC_KEYS) {
      if (key === 'weightLossPct') continue;
      const value = expected[key];
      assert.equal(batch.metrics[key], typeof value === 'number' ? Math.round(value * 100) / 100 : value, key);
    }
    assert.equal(batch.metrics.co2RoastG, Math.round(kwh * 3412.14 * 5.291e-5 * 1000 * 100) / 100, 'natural gas CO2');
    const got = await org.call('production.roast.getRoastBatch', { id: batch.id }, { method: 'GET' });
    assert.deepEqual(got.body.metrics, batch.metrics, 'getRoastBatch answers the same metrics');
  });

  test('energy stays null without the machine’s rating and fuel, or without burner readings', async () => {
    const withoutRating = await completeLive({}, withBurner(syntheticRoast({ hz: 1 })));
    const withoutBurner = await completeLive({ burnerRatingKw: 15, fuel: 'lpg' }, syntheticRoast({ hz: 1 }));
    for (const batch of [withoutRating, withoutBurner]) {
      assert.deepEqual([batch.metrics.energyRoastBtu, batch.metrics.energyBatchBtu, batch.metrics.co2BatchG], [null, null, null], 'never assumed');
      assert.equal(typeof batch.metrics.aucCMin, 'number', 'the other metrics are there');
    }
  });

  test('an imported Artisan log computes energy from its own loads and AUC with its settings, as Artisan did', async () => {
    const name = '3_Ethiopia Gerba Hechere_2026-02-21.alog';
    const res = await org.call('production.roast.importLoggerRoast', { batchNumber: unique('IMP'), content: readFileSync(new URL(name, FIXTURES), 'utf8') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const m = res.body.metrics;
    // Artisan's computed: BTU_roast 557.5, BTU_batch 865.7, CO2_roast 165.2 g, AUC 564 from TP over 212 °F.
    assert.ok(Math.abs(m.energyRoastBtu - 557.5) <= 0.1, `BTU roast ${m.energyRoastBtu}`);
    assert.ok(Math.abs(m.energyBatchBtu - 865.7) <= 0.1, `BTU batch ${m.energyBatchBtu}`);
    assert.ok(Math.abs(m.co2RoastG - 165.2) <= 0.1, `CO2 roast ${m.co2RoastG}`);
    assert.ok(Math.abs(m.aucCMin - 564) <= 1, `AUC ${m.aucCMin}`);
    assert.deepEqual([m.aucBegin, m.aucBaseC], ['turning_point', 100]);
  });

  test('machines take and answer burnerRatingKw and fuel, refuse bad ones naming the field, and clear them with null', async () => {
    const machine = await makeRoaster(org, { burnerRatingKw: 0.75, fuel: 'electric' });
    assert.deepEqual([machine.burnerRatingKw, machine.fuel], ['0.750', 'electric']);
    for (const [field, value] of [['burnerRatingKw', 0], ['burnerRatingKw', '-1'], ['fuel', 'coal']] as const) {
      const res = await org.call('catalog.machine.registerMachine', { name: 'Bad', code: unique('M'), [field]: value });
      assert.equal(res.status, 400, `${field} ${value}`);
      assert.ok(JSON.stringify(res.body.errors).includes(field), `the problem names ${field}`);
    }
    const cleared = await org.call('catalog.machine.updateMachine', { id: machine.id, burnerRatingKw: null, fuel: null });
    assert.deepEqual([cleared.body.burnerRatingKw, cleared.body.fuel], [null, null]);
    const set = await org.call('catalog.machine.updateMachine', { id: machine.id, burnerRatingKw: '12.5', fuel: 'lpg' });
    assert.deepEqual([set.body.burnerRatingKw, set.body.fuel], ['12.500', 'lpg']);
  });
});

test('/openapi.json and /docs document every metric with its unit and definition', async () => {
  const doc = await (await server.request('/openapi.json')).json();
  const schema = doc.components.schemas.RoastMetrics;
  assert.deepEqual(Object.keys(schema.properties).sort(), [...METRIC_KEYS].sort(), 'every metric is in the schema');
  for (const [key, property] of Object.entries(schema.properties as Record<string, { description?: string }>)) {
    assert.match(property.description ?? '', /^[^.]+\. .{20,}/, `${key} has "unit. definition"`);
  }
  const page = await (await server.request('/docs')).text();
  for (const fragment of ['aucCMin', '°C·min', 'maxEtC', 'energyRoastBtu', 'co2BatchGPerGreenKg', 'burnerRatingKw']) {
    assert.ok(page.includes(fragment), `/docs shows ${fragment}`);
  }
});
