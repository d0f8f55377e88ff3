// Modules talk through seams, not through each other's tables or files.
//
// A module is a folder under src/modules holding a manifest (module.ts), with everything under it up to
// another module's folder; src/modules/index.ts lists every manifest. The rules this test holds:
//
// 1. Imports (dependency-cruiser, configured in .dependency-cruiser.cjs): no import circles anywhere in src/;
//    the platform (rpc, http, db, jobs, events, auth, ratelimit, blobs, crypto, lib, streaming, app.ts,
//    services.ts) imports no module; a module imports another module only through its service.ts,
//    schemas.ts, events.ts or module.ts, and its test support also through testing.ts and tenancy.cases.ts.
// 2. Tables. Every table (and view) the migrations create has exactly one owner: a module (its manifest's
//    `tables`) or the platform (PLATFORM_TABLES). The SQL a module runs outside its test support names only
//    the tables it owns; what it needs of another module's records it asks that module's service. The SQL is
//    read with the TypeScript compiler: a table named after from, join, into, update, table or truncate in
//    any string or template literal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { loadMigrations, loadRepeatables } from '../src/db/migrate.js';
import { MODULES } from '../src/modules/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const modulesRoot = join(root, 'src', 'modules');
const DEPCRUISE = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(root, '.dependency-cruiser.cjs');

/** Tables of the layers under the modules: organizations and credentials (src/auth), events (src/events), idempotency (src/rpc), stream tickets (src/streaming), signing keys of file links (src/http) and the job queue's schema (src/jobs). */
const PLATFORM_TABLES = ['organizations', 'credentials', 'events', 'idempotency_records', 'stream_tickets', 'pgboss', 'link_signing_keys', 'purged_organizations'];

/** Who owns each table: the platform, and each module as its manifest declares. */
const TABLE_OWNERS: Record<string, readonly string[]> = { platform: PLATFORM_TABLES, ...Object.fromEntries(MODULES.map((m) => [m.name, m.tables])) };

/**
 * Queries that read another module's table, each named by file and table. There are none: labels of
 * another module's records are asked of its service or copied when the reference is made (immutable ones
 * only), and stock is locked through the owning module's service. An entry here must say why.
 */
const KNOWN_CROSSINGS: string[] = [];

const isTestSupport = (file: string) => /\.test\.ts$|(^|\/)testing\.ts$|(^|\/)tenancy\.cases\.ts$/.test(file);

function walk(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    })
    .sort();
}

/** The module folders (those holding a module.ts), as paths under src/modules. */
const moduleFolders = walk(modulesRoot)
  .filter((f) => f.endsWith(`${sep}module.ts`))
  .map((f) => relative(modulesRoot, dirname(f)).split(sep).join('/'));

/** The module a file belongs to: the innermost module folder holding it. */
function moduleOf(file: string): string | undefined {
  const rel = relative(modulesRoot, file).split(sep).join('/');
  if (rel.startsWith('..')) return undefined;
  return moduleFolders.filter((m) => rel.startsWith(`${m}/`)).sort((a, b) => b.length - a.length)[0];
}

interface Source {
  path: string;
  text: string;
}

const sources: Source[] = walk(modulesRoot)
  .filter((f) => f.endsWith('.ts') && f !== join(modulesRoot, 'index.ts'))
  .map((path) => ({ path, text: readFileSync(path, 'utf8') }));

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

/** dependency-cruiser's violations of the repository's rules in `dir`'s src/. */
async function cruise(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'json'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).catch(
    // It exits non-zero when it finds violations; the report is on stdout all the same.
    (error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout) throw new Error(`dependency-cruiser failed: ${error.stderr}`);
      return { stdout: error.stdout };
    },
  );
  const { summary } = JSON.parse(stdout) as { summary: { violations: Violation[] } };
  return summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`).sort();
}

/** The text of every string and template literal in the file (a template's literal parts, joined). */
function literals(source: Source): string[] {
  const sf = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node)) out.push([node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ? '));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const SQL = /\b(select|insert\s+into|update|delete\s+from|with\s+recursive)\b/i;
/** A table named where SQL names tables (columns may share a table's name: roast_curves.events). */
const TABLE_REFERENCE = /\b(?:from|join|into|update|table|truncate)\s+(?:only\s+)?([a-z_][a-z0-9_]*)/g;

/** Tables of other owners named in the SQL literals of a module's files (test support aside), as "file: table". */
function crossingQueries(files = sources): string[] {
  const ownerOf = new Map(Object.entries(TABLE_OWNERS).flatMap(([owner, tables]) => tables.map((t) => [t, owner] as const)));
  const found = new Set<string>();
  for (const source of files) {
    const file = source.path;
    if (isTestSupport(relative(modulesRoot, file))) continue;
    const own = moduleOf(file);
    for (const text of literals(source)) {
      if (!SQL.test(text)) continue;
      for (const [, word] of text.toLowerCase().matchAll(TABLE_REFERENCE)) {
        const owner = ownerOf.get(word);
        if (owner !== undefined && owner !== own) found.add(`${relative(root, file)}: ${word} (${owner})`);
      }
    }
  }
  return [...found].sort();
}

/** Every table and view the migrations create, versioned and repeatable. */
function migratedTables(): string[] {
  const sql = [...loadMigrations().map((m) => m.sql), ...loadRepeatables().map((r) => r.sql)].join('\n');
  const created = /\bcreate\s+(?:or\s+replace\s+)?(?:unlogged\s+|materialized\s+)?(?:table|view)\s+(?:if\s+not\s+exists\s+)?([a-z_][a-z0-9_]*)/gi;
  return [...sql.matchAll(created)].map((m) => m[1].toLowerCase());
}

test('every table and view the migrations create has exactly one owner, and every owner is a module or the platform', () => {
  const owners = new Map<string, string[]>();
  for (const [owner, tables] of Object.entries(TABLE_OWNERS)) for (const t of tables) owners.set(t, [...(owners.get(t) ?? []), owner]);
  const created = new Set(migratedTables());
  assert.deepEqual([...created].filter((t) => !owners.has(t)), [], 'tables the migrations create that no manifest (nor PLATFORM_TABLES) owns');
  assert.deepEqual([...owners].filter(([, o]) => o.length > 1).map(([t, o]) => `${t}: ${o.join(', ')}`), [], 'tables with several owners');
  assert.deepEqual([...owners.keys()].filter((t) => !created.has(t)), [], 'owned tables no migration creates');
});

test('every module folder has its manifest in the list of modules, named after its folder, and every file under src/modules belongs to one', () => {
  assert.deepEqual([...MODULES.map((m) => m.name)].sort(), [...moduleFolders].sort(), 'src/modules/index.ts lists exactly the folders holding a module.ts, each manifest named after its folder');
  // A namespace's examples.ts (the API reference's examples of its modules' operations) is named by their manifests.
  const namespaceExamples = /\/src\/modules\/[a-z-]+\/examples\.ts$/;
  assert.deepEqual(sources.map((s) => s.path).filter((path) => moduleOf(path) === undefined && !namespaceExamples.test(path)), [], 'files under src/modules outside every module');
});

test('no import circles, the platform imports no module, and a module imports another only through its seams (dependency-cruiser)', async () => {
  assert.deepEqual(await cruise(root), [], 'violations of .dependency-cruiser.cjs');
});

test('a module’s SQL names only the tables it owns', () => {
  const crossings = crossingQueries();
  assert.deepEqual(crossings.filter((c) => !KNOWN_CROSSINGS.includes(c)), [], 'queries of another module’s tables');
  assert.deepEqual(KNOWN_CROSSINGS.filter((c) => !crossings.includes(c)), [], 'KNOWN_CROSSINGS entries that no longer cross: remove them');
});

test('the checks see a crossing: a repository import, a platform import of a module, a circle and a foreign table are all caught', async (t) => {
  // A small tree laid out like src/, checked with the same configuration.
  const dir = mkdtempSync(join(tmpdir(), 'fc-boundaries-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
    'src/modules/orders/module.ts': `export default {};\n`,
    'src/modules/orders/probe.ts':
      `import { lockLot } from '../inventory/green/repository.js';\n` +
      `import { findLot } from '../inventory/green/service.js';\n` +
      `import type { Edge } from '../lineage/schemas.js';\n` +
      `export const fresh = () => import('../inventory/green/repository.js');\n` +
      `export { lockLot, findLot };\nexport type { Edge };\n`,
    'src/modules/orders/testing.ts': `import { makeLot } from '../inventory/green/testing.js';\nimport { lockLot } from '../inventory/green/repository.js';\nexport { makeLot, lockLot };\n`,
    'src/modules/inventory/green/module.ts': `export default {};\n`,
    'src/modules/inventory/green/repository.ts': `export const lockLot = 1;\n`,
    'src/modules/inventory/green/service.ts': `import { lockLot } from './repository.js';\nexport const findLot = lockLot;\n`,
    'src/modules/inventory/green/testing.ts': `export const makeLot = 1;\n`,
    'src/modules/lineage/module.ts': `export default {};\n`,
    'src/modules/lineage/schemas.ts': `export type Edge = string;\n`,
    'src/modules/production/roast/module.ts': `export default {};\n`,
    'src/modules/production/roast/repository.ts': `export const batch = 1;\n`,
    'src/modules/production/roast/telemetry/http.ts': `import { batch } from '../repository.js';\nexport const routes = batch;\n`,
    'src/rpc/registry.ts': `import orders from '../modules/orders/module.js';\nexport const all = [orders];\n`,
    'src/lib/a.ts': `import { b } from './b.js';\nexport const a = () => b;\n`,
    'src/lib/b.ts': `import type { a } from './a.js';\nexport const b: typeof a | null = null;\n`,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  assert.deepEqual(
    await cruise(dir),
    [
      'module-test-support-through-seams: src/modules/orders/testing.ts → src/modules/inventory/green/repository.ts',
      'module-through-seams: src/modules/orders/probe.ts → src/modules/inventory/green/repository.ts',
      'no-circular: src/lib/a.ts → src/lib/b.ts → src/lib/a.ts',
      'platform-imports-no-module: src/rpc/registry.ts → src/modules/orders/module.ts',
    ],
    'the repository imports (static and dynamic, in code and in test support), the platform’s import of a module and the type-only circle are caught; the service, schemas, testing and own-module imports are not',
  );

  const path = join(modulesRoot, 'orders', 'probe.ts');
  const text =
    `export const theirs = \`select id from green_lots where org_id = $1 and id = \${1}\`;\n` +
    `export const ours = 'select id from orders where org_id = $1';\n` +
    `export const words = 'green_lots are not queried in this sentence';\n`;
  assert.deepEqual(crossingQueries([{ path, text }]), ['src/modules/orders/probe.ts: green_lots (inventory/green)'], 'the foreign table is caught, the own one is not');
});
