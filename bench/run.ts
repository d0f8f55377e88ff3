// `npm run bench`: every benchmark, each stating the machine's cores and load before it starts and printing
// its ratio against a baseline measured in the same run, the load generated from another process. It ends
// with one summary (measure, goal, figure, pass/miss), also written as JSON to bench/.results/<timestamp>.json
// for `npm run bench:compare A B`. Set DATABASE_URL (and REDIS_URL) to measure on PostgreSQL (the goals are
// stated for it). BENCH_ONLY=catalog,ledger runs some of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatFigure, machineState, recorded } from './lib.js';
import { benchCatalogRead } from './catalog-read.js';
import { benchRoastComplete } from './roast-complete.js';
import { benchTrace } from './trace.js';
import { benchTelemetry } from './telemetry.js';
import { benchFanOut } from './fanout.js';
import { benchQuality } from './quality.js';
import { benchSourcing } from './sourcing.js';
import { benchCafe } from './cafe.js';
import { benchIdentity } from './identity.js';
import { benchWebhooks } from './webhooks.js';
import { benchReporting } from './reporting.js';
import { benchBridge } from './bridge.js';
import { benchLedger } from './ledger.js';
import { benchExports } from './exports.js';
import { benchAllocation } from './allocation.js';

const BENCHES: [string, () => Promise<unknown>][] = [
  ['catalog', () => benchCatalogRead()],
  ['roast', () => benchRoastComplete()],
  ['trace', () => benchTrace()],
  ['allocation', () => benchAllocation()],
  ['telemetry', () => benchTelemetry()],
  ['fanout', () => benchFanOut()],
  ['quality', () => benchQuality()],
  ['sourcing', () => benchSourcing()],
  ['cafe', () => benchCafe()],
  ['identity', () => benchIdentity()],
  ['webhooks', () => benchWebhooks()],
  ['reporting', () => benchReporting()],
  ['bridge', () => benchBridge()],
  ['ledger', () => benchLedger(['writes'])],
  ['exports', () => benchExports()],
];

const only = process.env.BENCH_ONLY?.split(',');
const startedAt = new Date();
const before = machineState();
const failures: { bench: string; error: string }[] = [];
for (const [name, run] of BENCHES) {
  if (only && !only.includes(name)) continue;
  try {
    await run();
  } catch (error) {
    // One bench failing does not lose the others' figures; the run still fails at the end.
    console.error(`bench ${name} failed:`, error);
    failures.push({ bench: name, error: String(error) });
  }
}
const after = machineState();

const rows = recorded().map((m) => ({ measure: m.measure, goal: m.goal, figure: formatFigure(m), result: m.pass ? 'pass' : 'MISS', note: m.note ?? '' }));
console.log(`\nSummary (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}${process.env.REDIS_URL ? ' + Redis' : ''}; at start ${before.note}; at end ${after.note})`);
console.table(rows);
for (const f of failures) console.log(`FAILED: ${f.bench}: ${f.error}`);

let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {}
const dir = fileURLToPath(new URL('./.results/', import.meta.url));
mkdirSync(dir, { recursive: true });
const file = `${dir}${startedAt.toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(
  file,
  JSON.stringify({ startedAt: startedAt.toISOString(), commit, database: process.env.DATABASE_URL ? 'postgres' : 'pglite', redis: !!process.env.REDIS_URL, machine: { before, after }, measures: recorded(), failures }, null, 2) + '\n',
);
console.log(`written to ${file}`);
if (failures.length > 0) process.exitCode = 1;
