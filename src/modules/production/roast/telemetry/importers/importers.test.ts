import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { RoastEventType } from '../curve.js';
import { readDelimited } from './delimited.js';
import { detectFormat, importRoastLog, ImportError, type ImportedRoast } from './index.js';
import { parsePythonLiteral } from './python-literal.js';

const FIXTURES = new URL('../../../../../../../shared/fixtures/roast-logs/', import.meta.url);

/** Fixture content as callers pass it: text as UTF-8, the binary .xls base64-encoded. */
function fixture(name: string): string {
  const bytes = readFileSync(new URL(name, FIXTURES));
  return name.endsWith('.xls') ? bytes.toString('base64') : bytes.toString('utf8');
}

interface Expected {
  format: ImportedRoast['format'];
  samples: number;
  sourceUnit: 'C' | 'F';
  events: RoastEventType[];
}

/** Expected results for every fixture; a new fixture without an entry fails the "every fixture" test. */
const EXPECTED: Record<string, Expected> = {
  '3_Ethiopia Gerba Hechere_2026-02-21.alog': {
    format: 'artisan_alog',
    samples: 789,
    sourceUnit: 'F',
    events: ['charge', 'dry_end', 'first_crack_start', 'drop', 'cool_end'],
  },
  'profile2.alog': {
    format: 'artisan_alog',
    samples: 167,
    sourceUnit: 'C',
    events: ['charge', 'dry_end', 'first_crack_start', 'first_crack_end', 'drop'],
  },
  'roast_25-08-31_1240.alog': {
    format: 'artisan_alog',
    samples: 492,
    sourceUnit: 'C',
    events: ['charge', 'dry_end', 'first_crack_start', 'first_crack_end', 'second_crack_start', 'drop', 'cool_end'],
  },
  'roast_25-09-06_1405.alog': { format: 'artisan_alog', samples: 211, sourceUnit: 'C', events: [] },
  'profile2.json': {
    format: 'artisan_json',
    samples: 167,
    sourceUnit: 'C',
    events: ['charge', 'dry_end', 'first_crack_start', 'first_crack_end', 'drop'],
  },
  'profile2.csv': {
    format: 'artisan_csv',
    samples: 167,
    sourceUnit: 'C',
    events: ['charge', 'turning_point', 'dry_end', 'first_crack_start', 'first_crack_end', 'drop'],
  },
  'IKAWA 2019-12-07 121826.csv': { format: 'ikawa_csv', samples: 660, sourceUnit: 'C', events: ['charge', 'drop'] },
  'IKAWA 2024-01-13 155121.csv': {
    format: 'ikawa_csv',
    samples: 761,
    sourceUnit: 'C',
    events: ['charge', 'first_crack_start', 'drop'],
  },
  'Batch for Glosli - Batch 995.csv': {
    format: 'roest_csv',
    samples: 412,
    sourceUnit: 'C',
    events: ['charge', 'turning_point', 'dry_end', 'first_crack_start', 'drop'],
  },
  'RST_LOG1.csv': { format: 'loring_csv', samples: 128, sourceUnit: 'C', events: ['charge', 'dry_end', 'drop'] },
  'roast_data.json': { format: 'aillio_json', samples: 1001, sourceUnit: 'C', events: ['charge', 'drop'] },
  'export-roasts_PR-0002.xls': {
    format: 'cropster_xls',
    samples: 786,
    sourceUnit: 'F',
    events: ['charge', 'turning_point', 'first_crack_start', 'drop'],
  },
};

const imported = new Map<string, ImportedRoast>();
function load(name: string): ImportedRoast {
  if (!imported.has(name)) imported.set(name, importRoastLog(fixture(name)));
  return imported.get(name)!;
}

function eventTime(roast: ImportedRoast, type: RoastEventType): number | undefined {
  return roast.curve.events.find((event) => event.type === type)?.t;
}

describe('importRoastLog on every fixture', () => {
  const files = readdirSync(FIXTURES).filter((name) => !name.endsWith('.md'));

  it('has an expectation for every fixture file', () => {
    assert.deepEqual(files.filter((name) => !(name in EXPECTED)), []);
  });

  for (const name of files) {
    it(name, () => {
      const expected = EXPECTED[name];
      const content = fixture(name);
      assert.equal(detectFormat(content), expected.format);
      const roast = load(name);
      const { samples, events } = roast.curve;
      assert.equal(roast.format, expected.format);
      assert.equal(samples.length, expected.samples);
      assert.equal(roast.meta.sourceUnit, expected.sourceUnit);
      assert.deepEqual(
        events.map((event) => event.type),
        expected.events,
      );
      for (let i = 1; i < samples.length; i++) assert.ok(samples[i].t >= samples[i - 1].t, `samples sorted at ${i}`);
      // Plausible °C: a roast never sees these in Fahrenheit-confused or ×10-scaled data.
      for (const { bt, et } of samples) {
        if (bt !== null) assert.ok(bt > 0 && bt < 300, `bt ${bt} °C`);
        if (et !== null) assert.ok(et > 0 && et < 400, `et ${et} °C`);
      }
      assert.ok(samples.filter((s) => s.bt !== null).length > samples.length * 0.9, 'most samples have BT');

      if (expected.events.length === 0) {
        assert.equal(roast.chargeFound, false);
        assert.ok(roast.warnings.some((w) => w.includes('no charge event: sample and event times are from the start of recording')), `a warning that there is no charge event: ${JSON.stringify(roast.warnings)}`);
      } else {
        assert.equal(roast.chargeFound, true);
        assert.equal(eventTime(roast, 'charge'), 0);
        assert.ok(samples.some((s) => s.t === 0), 'a sample at charge');
        assert.ok(events.every((event) => event.t >= 0), 'no event before charge');
      }
    });
  }
});

describe('format details', () => {
  it('Artisan .alog: °F converted, time rebased on CHARGE 536.4 s into the recording', () => {
    const roast = load('3_Ethiopia Gerba Hechere_2026-02-21.alog');
    const atCharge = roast.curve.samples.find((s) => s.t === 0)!;
    assert.ok(Math.abs(atCharge.bt! - ((263.3 - 32) * 5) / 9) < 1e-9, `BT at charge is 263.3 °F in °C, not ${atCharge.bt}`);
    assert.ok(Math.abs(roast.curve.samples[0].t - (0.39853463 - 536.398532152) * 1000) < 1, `the first sample is 536.4 s before charge, not at ${roast.curve.samples[0].t} ms`);
    assert.ok(Math.abs(eventTime(roast, 'drop')! - 828_000) < 1, 'DROP_time 828 s');
    assert.equal(roast.meta.roastedAt, '2026-02-21T16:00:48.000Z');
    assert.equal(roast.meta.title, 'Ethiopia Gerba Hechere');
    assert.equal(roast.meta.machine, 'Hottop 2K+');
    assert.equal(roast.meta.greenWeightKg, 0.225);
    assert.equal(roast.meta.roastedWeightKg, undefined, 'roasted weight 0 = not entered');
    assert.ok(roast.artisanComputed && roast.artisanComputed.DROP_time === 828.0, 'Artisan computed DROP_time 828 s');
  });

  it('Artisan .alog: -1 readings stay missing, double-quoted strings parse', () => {
    const roast = load('roast_25-08-31_1240.alog');
    assert.equal(roast.curve.samples.filter((s) => s.bt === null).length, 12);
    assert.ok(roast.curve.samples.every((s) => s.et === null), 'no ET channel');
  });

  it('Artisan .alog without CHARGE keeps the file time axis', () => {
    const roast = load('roast_25-09-06_1405.alog');
    assert.ok(Math.abs(roast.curve.samples[0].t - 250.660451) < 1e-6, `the first sample keeps its file time, not ${roast.curve.samples[0].t}`);
  });

  it('Artisan JSON export equals the .alog it was exported from', () => {
    assert.deepEqual(load('profile2.json').curve, load('profile2.alog').curve);
    assert.deepEqual(load('profile2.json').meta, load('profile2.alog').meta);
  });

  it('Artisan CSV: header event times are from the first sample, rebased on CHARGE; 1 s resolution', () => {
    const csv = load('profile2.csv');
    const alog = load('profile2.alog');
    assert.equal(eventTime(csv, 'first_crack_start'), 535_000); // header FCs:09:10 minus CHARGE:00:15
    assert.equal(csv.curve.samples.length, alog.curve.samples.length);
    csv.curve.samples.forEach((sample, i) => {
      assert.ok(Math.abs(sample.t - alog.curve.samples[i].t) <= 1000, `sample ${i}: CSV and .alog times within 1 s`);
      assert.equal(sample.bt, alog.curve.samples[i].bt);
      assert.equal(sample.et, alog.curve.samples[i].et);
    });
  });

  it('Artisan CSV: Date:/Time: is the local wall clock of the first sample; a date that does not exist is refused', () => {
    const csv = load('profile2.csv');
    assert.equal(csv.meta.localRoastedAt, '2015-08-10T14:25:00');
    assert.deepEqual(csv.span, { startMs: 15_000, endMs: 750_000 }, 'charge and drop on the file axis');
    const content = fixture('profile2.csv');
    assert.throws(() => importRoastLog(content.replace('Date:10.08.2015', 'Date:31.02.2015')), (error: Error) => error instanceof ImportError && /Date:31\.02\.2015/.test(error.message));
    assert.throws(() => importRoastLog(content.replace('Time:14:25', 'Time:2pm')), (error: Error) => error instanceof ImportError && /Time:HH:MM/.test(error.message));
  });

  it('Artisan .alog: every special event with its type, value and label, the type names, texts and sampling interval', () => {
    const roast = load('3_Ethiopia Gerba Hechere_2026-02-21.alog');
    const details = roast.meta.details!;
    assert.deepEqual(details.eventTypes, ['Fan', 'Drum', 'Damper', 'Heater', '--']);
    assert.equal(details.samplingIntervalS, 2);
    assert.equal(details.beans, 'Ethiopia Gerba Hechere');
    assert.equal(details.specialEvents!.length, 14);
    assert.deepEqual(details.specialEvents!.slice(-2).map(({ type, value, label }) => [type, value, label]), [[3, 1, 'Q0'], [0, 11, 'Q100']]);
    // Special events are rebased on charge like every other time.
    assert.ok(details.specialEvents!.every((event) => roast.curve.samples.some((sample) => Math.abs(sample.t - event.t) < 1e-6)), 'each on a sample');
    assert.equal(load('profile2.alog').meta.details!.specialEvents!.length, 2);
  });

  it('Artisan CSV accepts "mm:60" seconds', () => {
    const text = [
      'Date:01.02.2020\tUnit:F\tCHARGE:00:00\tTP:\tDRYe:\tFCs:\tFCe:\tSCs:\tSCe:\tDROP:00:60\tCOOL:\tTime:10:00',
      'Time1\tTime2\tET\tBT\tEvent',
      '00:00\t00:00\t400.0\t392.0\tCHARGE',
      '00:60\t00:60\t401.0\t-1.0\tDROP',
    ].join('\r\n');
    const roast = importRoastLog(text);
    assert.deepEqual(
      roast.curve.samples.map((s) => [s.t, s.bt]),
      [
        [0, 200],
        [60_000, null],
      ],
    );
    assert.equal(eventTime(roast, 'drop'), 60_000);
  });

  it('IKAWA: CHARGE at the first "doser open" row, DROP at the first "cooling" row, FCs from adfc_timestamp', () => {
    const old = load('IKAWA 2019-12-07 121826.csv');
    // 5 doser-open rows at 1 s, then the roast clock: cooling starts at clock 403 s.
    assert.equal(eventTime(old, 'drop'), 408_000);
    assert.ok(old.curve.samples.every((s) => s.et === null), 'the 2019 IKAWA log has no ET channel');
    const recent = load('IKAWA 2024-01-13 155121.csv');
    assert.ok(Math.abs(eventTime(recent, 'first_crack_start')! - 492_800) < 1e-6, `FCs at 492.8 s, not ${eventTime(recent, 'first_crack_start')}`);
    assert.ok(recent.warnings.some((w) => w.includes('no bean probe')), `a warning that there is no bean probe: ${JSON.stringify(recent.warnings)}`);
  });

  it('ROEST: times in ms from CHARGE, events from labels', () => {
    const roast = load('Batch for Glosli - Batch 995.csv');
    assert.equal(eventTime(roast, 'dry_end'), 161_000);
    assert.equal(eventTime(roast, 'first_crack_start'), 379_000);
    assert.equal(roast.curve.samples[0].bt, 187.11);
  });

  it('Loring: ×10 temperatures, wall-clock times, flag events, trailing empty row skipped', () => {
    const roast = load('RST_LOG1.csv');
    assert.equal(roast.curve.samples[0].bt, 161.4);
    assert.equal(roast.curve.samples[0].channels?.BurnerPercentage, 20);
    assert.equal(eventTime(roast, 'dry_end'), 372_000);
    assert.equal(eventTime(roast, 'drop'), 757_000);
    assert.ok(roast.warnings.some((w) => w.includes('already on in the first row')), `a warning about a flag already on in the first row: ${JSON.stringify(roast.warnings)}`);
  });

  it('Aillio RoasTime: index / sampleRate, CHARGE = roastStartIndex, DROP = roastEndIndex', () => {
    const roast = load('roast_data.json');
    assert.equal(roast.curve.samples[0].t, -2500);
    assert.equal(eventTime(roast, 'drop'), 498_000); // totalRoastTime 498
    assert.equal(roast.meta.greenWeightKg, 0.458128);
    assert.equal(roast.meta.roastedAt, '2024-09-14T04:07:56.785Z');
    assert.equal(roast.curve.samples[0].channels?.exitTemperature, null, 'exit probe absent (0)');
  });

  it('Cropster XLS: FAHRENHEIT curves converted, events from Comments and Duration', () => {
    const roast = load('export-roasts_PR-0002.xls');
    const first = roast.curve.samples[0];
    assert.ok(Math.abs(first.bt! - ((416.6 - 32) * 5) / 9) < 1e-9, `BT 416.6 °F in °C, not ${first.bt}`);
    assert.ok(Math.abs(first.et! - ((379.8 - 32) * 5) / 9) < 1e-9, `ET 379.8 °F in °C, not ${first.et}`);
    assert.equal(first.channels?.Gas, 1);
    assert.equal(roast.curve.samples.at(-1)!.channels?.Gas, null, 'Gas curve is 6 s shorter');
    assert.equal(eventTime(roast, 'turning_point'), 94_000);
    assert.equal(eventTime(roast, 'first_crack_start'), 615_000);
    assert.equal(eventTime(roast, 'drop'), 785_000);
    assert.equal(roast.meta.machine, 'Probat L-5');
    assert.ok(Math.abs(roast.meta.greenWeightKg! - 8 * 0.45359237) < 1e-9, `green weight 8 lb in kg, not ${roast.meta.greenWeightKg}`);
  });
});

describe('unreadable content throws ImportError naming the problem', () => {
  const alog = fixture('profile2.alog');
  const artisanCsv = fixture('profile2.csv');
  const roest = fixture('Batch for Glosli - Batch 995.csv');
  const xls = readFileSync(new URL('export-roasts_PR-0002.xls', FIXTURES));

  const cases: [name: string, content: string, message: RegExp][] = [
    ['empty content', '', /empty content/],
    ['whitespace only', ' \n\t', /empty content/],
    ['garbage', 'hello world\nthis is not a roast', /unrecognised roast log format.*hello world/],
    ['unknown JSON', '{"hello": 1}', /not a known roast log/],
    ['Python dict without timex', "{'hello': 1}", /'timex'/],
    ['truncated .alog', alog.slice(0, 15_000), /^Artisan \.alog: line 1, column 15001: unexpected end of input$/],
    ['truncated Artisan JSON', fixture('profile2.json').slice(0, 5000), /^Artisan JSON: invalid JSON/],
    ['truncated Aillio JSON', fixture('roast_data.json').slice(0, 1000), /^Aillio RoasTime JSON: invalid JSON/],
    ['.alog with a bad mode', alog.replace("'mode': 'C'", "'mode': 'X'"), /field 'mode' must be 'C' or 'F'/],
    ['.alog with a short temp2', alog.replace("'temp2': [221.184, ", "'temp2': ["), /'temp2' must be a list as long as 'timex'/],
    [
      'truncated Artisan CSV (mid-row)',
      artisanCsv.slice(0, 3000),
      /^line 35: expected 15 columns, found 4 \(truncated file\?\)$/,
    ],
    [
      'Artisan CSV with a non-numeric BT',
      artisanCsv.replace('\t219.454\tCHARGE', '\tabc\tCHARGE'),
      /^line 6: expected a number in column BT, got "abc"$/,
    ],
    [
      'ROEST CSV with a non-numeric bean temperature',
      roest.replace('1000,N/A,45,55,47,187.12', '1000,N/A,45,55,47,18x7.12'),
      /^line 3: expected a number in column Bean temp \(°C\), got "18x7.12"$/,
    ],
    ['truncated IKAWA CSV', fixture('IKAWA 2024-01-13 155121.csv').slice(0, 1500), /^line 12: expected 20 columns/],
    ['Loring CSV with a bad time', fixture('RST_LOG1.csv').replace('1:10:35 PM', '25:99'), /line 3: expected M\/d\/yyyy/],
    ['truncated .xls', xls.subarray(0, 60_000).toString('base64'), /^Excel file: truncated/],
    ['.xls as raw bytes', xls.toString('latin1'), /must be passed base64-encoded/],
    ['.xls with broken base64', '0M8R4KGx!!', /not valid base64/],
    [
      'OLE2 file that is not a workbook',
      Buffer.concat([xls.subarray(0, 8), Buffer.alloc(504)]).toString('base64'),
      /^Excel file: /,
    ],
  ];
  for (const [name, content, message] of cases) {
    it(name, () => {
      assert.throws(
        () => importRoastLog(content),
        (error: unknown) => error instanceof ImportError && message.test(error.message),
      );
    });
  }

  it('detectFormat throws ImportError for unknown content too', () => {
    assert.throws(() => detectFormat('a,b,c\n1,2,3'), ImportError);
  });
});

describe('parsePythonLiteral', () => {
  it('reads the repr() forms Artisan writes', () => {
    assert.deepEqual(
      parsePythonLiteral(`{'a': [1, -2.5, 1e-05], "b": "it's", 'c': (True, False, None), 'd': u'x', 'e': {}, 'f': []}`),
      { a: [1, -2.5, 1e-5], b: "it's", c: [true, false, null], d: 'x', e: {}, f: [] },
    );
  });

  it('resolves escapes inside literals', () => {
    assert.equal(parsePythonLiteral(String.raw`'a\'b\\n\n\x41\u00e9'`), "a'b\\n\nAé");
  });

  it('points at the offending column', () => {
    assert.throws(() => parsePythonLiteral("{'a': 1,\n 'b' 2}"), /^ImportError: line 2, column 6: expected ':'$/);
    assert.throws(() => parsePythonLiteral("{'a': nan}"), /unexpected name nan/);
    assert.throws(() => parsePythonLiteral("{'a': 1} x"), /unexpected text after the literal/);
  });
});

describe('readDelimited', () => {
  it('handles BOM, CRLF, quotes and blank lines, and reports start lines', () => {
    const records = readDelimited('\ufeffa,"b,c"\r\n\r\n"x ""y""",2\n"multi\nline",3', ',');
    assert.deepEqual(records, [
      { line: 1, cells: ['a', 'b,c'] },
      { line: 3, cells: ['x "y"', '2'] },
      { line: 4, cells: ['multi\nline', '3'] },
    ]);
  });

  it('rejects an unterminated quote', () => {
    assert.throws(() => readDelimited('a,"b\n1,2', ','), /line 1: unterminated quoted field/);
  });
});
