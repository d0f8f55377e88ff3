// A minimal Fastify + pg server outside the app (`node bench/minimal-server.ts <database url> <pool size>`, or
// forked by a bench): one route doing the same read as catalog.location.getLocation's, with nothing of the
// service around it (no hooks, no auth, no transaction). The ceiling the full pipeline is compared with.
// It prints `listening <url>` (or sends it over IPC when forked).
import Fastify from 'fastify';
import pg from 'pg';

const [databaseUrl, poolSize = '20'] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize) });
const app = Fastify({ logger: false });
app.get<{ Querystring: { org: string; id: string } }>('/location', async (request) => {
  const { rows } = await pool.query('select * from locations where org_id = $1 and id = $2', [request.query.org, request.query.id]);
  return rows[0];
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
if (process.send) process.send({ type: 'listening', url });
else console.log(`listening ${url}`);
process.on('disconnect', async () => {
  await app.close();
  await pool.end();
});
