// EPCIS export against the trace it is built from (run: node --import tsx bench/epcis.ts; DATABASE_URL set
// for PostgreSQL). The organization of bench/trace.ts (loadHistory, TRACE_BENCH_SCALE), every producer with a
// 2 ha plot declared by point so each commissioning event carries its plots; the trace of the ~500-node
// case (forward from a producer) exported as an EPCIS 2.0 document through traceability.exportEpcis and
// walked through traceability.traceForward, in alternating paired rounds under the same load. Reported:
// export req/s as a share of trace req/s, and the document's size against the trace answer's.
import { fileURLToPath } from 'node:url';
import { createOrganization } from '../src/auth/organizations.js';
import { load, median, printTable, startBenchApp } from './lib.js';
import { loadHistory } from './trace.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

export async function benchEpcis(rounds = Number(process.env.BENCH_ROUNDS ?? 3)) {
  const bench = await startBenchApp();
  const owner = bench.app.databases.owner;
  const scale = Number(process.env.TRACE_BENCH_SCALE ?? (bench.kind === 'postgres' ? 1 : 0.05));
  const { organizationId: orgId, apiKey, keyId } = await createOrganization(owner, 'Bench origin', 'enterprise');
  const shape = await loadHistory(owner, orgId, keyId, scale);
  await owner.query(
    `insert into plots (org_id, id, producer_id, name, area_ha, geometry)
     select $1, 'plot_' || i, 'pr_' || i, 'Plot ' || i, 2,
            jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(38.5 + i / 100000.0 + 0.0000011, 6.5 + i / 100000.0 + 0.0000013))
     from generate_series(1, $2) i`,
    [orgId, shape.producers],
  );
  const headers = { authorization: `Bearer ${apiKey}` };
  const url = (operation: string, input: unknown) => `${bench.url}/rpc/v1/${operation}?input=${encodeURIComponent(JSON.stringify(input))}`;
  const get = async (u: string) => {
    const res = await fetch(u, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${u}: ${res.status} ${text}`);
    return text;
  };

  // The widest forward trace of bench/trace.ts: from the producer of the first merged lot.
  const merged = Math.min(20, shape.greenLots);
  const start = { kind: 'producer', id: `pr_${(merged % shape.producers) + 1}` };
  const traceUrl = url('traceability.traceForward', start);
  const epcisUrl = url('traceability.exportEpcis', { direction: 'forward', ...start });
  const traceText = await get(traceUrl);
  const epcisText = await get(epcisUrl);
  const trace = JSON.parse(traceText);
  const epcis = JSON.parse(epcisText);
  const measure = (u: string, duration: number) => load({ url: u, headers, duration, connections: CONNECTIONS, workers: 1 });
  await measure(traceUrl, 1);
  await measure(epcisUrl, 1);
  const ratios: number[] = [];
  let last = { trace: 0, epcis: 0, traceP99: 0, epcisP99: 0 };
  for (let round = 0; round < rounds; round++) {
    const t = await measure(traceUrl, ROUND_SECONDS);
    const e = await measure(epcisUrl, ROUND_SECONDS);
    if (t.non2xx || e.non2xx) throw new Error(`${t.non2xx} trace and ${e.non2xx} export requests failed`);
    ratios.push(e.requestsPerSecond / t.requestsPerSecond);
    last = { trace: t.requestsPerSecond, epcis: e.requestsPerSecond, traceP99: t.p99Ms, epcisP99: e.p99Ms };
  }
  printTable(`EPCIS export vs trace on ${bench.kind}, ${CONNECTIONS} connections, median of ${rounds} paired ${ROUND_SECONDS} s rounds`, [
    {
      start: `${start.kind} ${start.id}`,
      nodes: trace.nodes.length,
      edges: trace.edges.length,
      events: epcis.epcisBody.eventList.length,
      'trace KB': (traceText.length / 1024).toFixed(0),
      'EPCIS KB': (epcisText.length / 1024).toFixed(0),
      'trace req/s': last.trace,
      'EPCIS req/s': last.epcis,
      'trace p99 ms': last.traceP99,
      'EPCIS p99 ms': last.epcisP99,
      'EPCIS/trace': `${(median(ratios) * 100).toFixed(1)}%`,
    },
  ]);
  await bench.close();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchEpcis();
