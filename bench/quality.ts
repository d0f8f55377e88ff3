// Cupping at a real table's size: 20 coffees × 12 cuppers (240 SCA forms).
// 1. finalizeCuppingSession through the whole pipeline (auth … transaction, the aggregation of every coffee's
//    mean, spread, attribute means and top descriptors returning the coffees' rows, closing the session, the
//    event) against the same aggregation (with its returning) and update as bare SQL in one transaction on the owner pool.
//    Each round finalizes two identically seeded sessions, one each way; ratio = bare ms / service ms.
// 2. getCuppingTable of a finalized session under load (32 connections) against a bare route running one
//    statement that reads the same session, coffees and scores; ratio = service req/s / bare req/s.
// Goal: ≥ 50% for both. Run: node --import tsx bench/quality.ts (DATABASE_URL set: PostgreSQL).
import { fileURLToPath } from 'node:url';
import { createOrganization } from '../src/auth/organizations.js';
import type { Database } from '../src/db/client.js';
import { FINALIZE_AGGREGATION } from '../src/modules/quality/cupping/repository.js';
import { ATTRIBUTES } from '../src/modules/quality/cupping/schemas.js';
import { load, median, printTable, record, startBenchApp } from './lib.js';

const COFFEES = 20;
const CUPPERS = 12;

const BARE_TABLE = `
  select jsonb_build_object('session', to_jsonb(s), 'coffees', (
    select jsonb_agg(jsonb_build_object('coffee', to_jsonb(ss), 'scores', (
      select coalesce(jsonb_agg(to_jsonb(c) order by c.id), '[]'::jsonb) from cupping_scores c where c.org_id = ss.org_id and c.session_sample_id = ss.id
    )) order by ss.blind_code)
    from cupping_session_samples ss where ss.org_id = s.org_id and ss.session_id = s.id)) as t
  from cupping_sessions s where s.org_id = $1 and s.id = $2`;

/** 12 forms per coffee, the same for every session (scores hashed from position, cupper and attribute). */
function seedScores(owner: Database, orgId: string, sessionId: string, credentialId: string) {
  const value = (k: number) => `(6 + (abs(hashtext(ss.position || ':' || c || ':${k}')) % 17) / 4.0)`;
  const values = ATTRIBUTES.map((_, k) => value(k));
  const descriptor = (k: number) => `(array['citrus','cocoa','jasmine','caramel','berry','nutty','honey'])[1 + abs(hashtext(ss.position || ':' || c || ':d${k}')) % 7]`;
  return owner.query(
    `insert into cupping_scores (org_id, id, session_id, session_sample_id, cupper_key, cupper_name, ${ATTRIBUTES.map(([, col]) => col).join(', ')},
       total_score, defects_penalty, final_score, descriptors, credential_id)
     select ss.org_id, 'csc_' || substr(md5(ss.id || ':' || c), 1, 26), ss.session_id, ss.id, 'name:cupper ' || c, 'Cupper ' || c, ${values.join(', ')},
            ${values.join(' + ')}, 0, ${values.join(' + ')}, array[${descriptor(1)}, ${descriptor(2)}, ${descriptor(3)}], $3
     from cupping_session_samples ss cross join generate_series(1, ${CUPPERS}) c
     where ss.org_id = $1 and ss.session_id = $2`,
    [orgId, sessionId, credentialId],
  );
}

export async function benchQuality(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
  let bareDb: Database | undefined;
  const bench = await startBenchApp({
    plugins: [
      (app) => {
        app.get<{ Querystring: { org: string; id: string } }>('/bench/bare/cupping-table', async (request) => {
          const [row] = await bareDb!.query<{ t: unknown }>(BARE_TABLE, [request.query.org, request.query.id]);
          return row.t;
        });
      },
    ],
  });
  bareDb = bench.app.databases.owner;
  const owner = bench.app.databases.owner;
  const { organizationId: orgId, apiKey } = await createOrganization(owner, 'Bench roastery', 'enterprise');
  const [{ id: credentialId }] = await owner.query<{ id: string }>(`select id from credentials where org_id = $1`, [orgId]);
  const rpc = async (operation: string, input: unknown) => {
    const started = performance.now();
    const res = await fetch(`${bench.url}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(body)}`);
    return { body, ms: performance.now() - started };
  };
  let sessions = 0;
  const seededSession = async () => {
    const samples = Array.from({ length: COFFEES }, (_, i) => ({ kind: 'outside', name: `Coffee ${i + 1}` }));
    const { body } = await rpc('quality.cupping.createCuppingSession', { sessionNumber: `BENCH-${++sessions}`, name: 'Bench table', mode: 'blind', samples });
    await seedScores(owner, orgId, body.session.id, credentialId);
    // Statistics as autovacuum would keep them, so neither side plans against empty tables.
    await owner.query(`analyze cupping_scores`);
    await owner.query(`analyze cupping_session_samples`);
    return body.session.id as string;
  };

  // 1. Finalize: service vs bare, paired per round, after one warm-up of each.
  const finalizeRows: Record<string, string | number>[] = [];
  const finalizeRatios: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const viaService = await seededSession();
    const viaBare = await seededSession();
    const viaServiceRun = async () => {
      const { body, ms } = await rpc('quality.cupping.finalizeCuppingSession', { sessionId: viaService });
      if (body.coffees.length !== COFFEES || body.coffees.some((c: any) => c.result.cupperCount !== CUPPERS)) throw new Error('finalize did not count every form');
      return ms;
    };
    const viaBareRun = async () => {
      const started = performance.now();
      await owner.transaction(async (tx) => {
        await tx.query(`select 1 from cupping_sessions where org_id = $1 and id = $2 for update`, [orgId, viaBare]);
        // The aggregation answers the coffees' updated rows (returning), as the service reads them.
        await tx.query(FINALIZE_AGGREGATION, [orgId, viaBare]);
        await tx.query(`update cupping_sessions set status = 'finalized', finalized_at = now(), finalized_by = $3, updated_at = now() where org_id = $1 and id = $2`, [orgId, viaBare, credentialId]);
      });
      return performance.now() - started;
    };
    // Alternate which side goes first, so drift on a shared machine hits both alike.
    let serviceMs: number;
    let bareMs: number;
    if (round % 2 === 0) {
      serviceMs = await viaServiceRun();
      bareMs = await viaBareRun();
    } else {
      bareMs = await viaBareRun();
      serviceMs = await viaServiceRun();
    }
    if (round === 0) continue; // warm-up
    finalizeRatios.push(bareMs / serviceMs);
    finalizeRows.push({ round, 'service ms': serviceMs.toFixed(1), 'bare ms': bareMs.toFixed(1), 'bare/service': `${((bareMs / serviceMs) * 100).toFixed(1)}%` });
  }
  printTable(`finalizeCuppingSession, ${COFFEES} coffees × ${CUPPERS} cuppers, ${bench.kind}: service vs bare SQL`, finalizeRows);
  const finalizeRatio = median(finalizeRatios);
  record({ measure: 'finalizeCuppingSession bare / service', goal: '≥ 50%', figure: finalizeRatio, unit: 'ratio', pass: finalizeRatio >= 0.5 });

  // 2. getCuppingTable of a finalized session under load.
  const sessionId = await seededSession();
  await rpc('quality.cupping.finalizeCuppingSession', { sessionId });
  const full = { url: `${bench.url}/rpc/v1/quality.cupping.getCuppingTable`, method: 'POST' as const, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ sessionId }) };
  const bare = { url: `${bench.url}/bench/bare/cupping-table?org=${orgId}&id=${sessionId}` };
  await load({ ...full, duration: 2 });
  await load({ ...bare, duration: 2 });
  const tableRows: Record<string, string | number>[] = [];
  const tableRatios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const b = await load(bare);
    const f = await load(full);
    tableRatios.push(f.requestsPerSecond / b.requestsPerSecond);
    tableRows.push({ round, 'full/bare': `${((f.requestsPerSecond / b.requestsPerSecond) * 100).toFixed(1)}%`, 'bare req/s': b.requestsPerSecond, 'full req/s': f.requestsPerSecond, 'full p99 ms': f.p99Ms, 'full non-2xx': f.non2xx, 'bare non-2xx': b.non2xx });
  }
  printTable(`getCuppingTable, ${COFFEES} coffees × ${CUPPERS} cuppers (finalized), ${bench.kind}: full pipeline vs bare route (32 connections, 5 s rounds)`, tableRows);
  const tableRatio = median(tableRatios);
  record({ measure: 'getCuppingTable full / bare', goal: '≥ 50%', figure: tableRatio, unit: 'ratio', pass: tableRatio >= 0.5 });
  await bench.close();
  return { finalizeRatio, tableRatio };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchQuality();
