import { PGlite } from '@electric-sql/pglite';
const t0=Date.now();
const db = new PGlite();
await db.waitReady;
console.log('ready ms', Date.now()-t0);
const r = await db.query("select 1.500::numeric(10,3) as n, now() as t, 5::bigint as b, array['a','b'] as arr, '{\"a\":1}'::jsonb as j, version() v");
console.log(r.rows, r.fields.map(f=>f.dataTypeID));
await db.exec("create table x(id int)");
const t1=Date.now(); const dump = await db.dumpDataDir('none'); console.log('dump', Date.now()-t1, dump.size, dump.constructor.name);
const t2=Date.now(); const db2 = new PGlite({loadDataDir: dump}); await db2.waitReady; console.log('load', Date.now()-t2, (await db2.query('select count(*) from x')).rows);
// concurrency of transaction vs query
const p1 = db.transaction(async tx => { await tx.query('insert into x values (1)'); await new Promise(r=>setTimeout(r,50)); await tx.query('insert into x values (2)'); });
const p2 = db.query('select count(*)::int c from x');
console.log(await p2, await p1);
try { await db.query('select $1::int', ['x']) } catch(e) { console.log('err', e.code, e.message) }
