// Modules talk through seams, not through each other's tables.
//
// A module is a directory under src/modules that holds its own source files (src/modules/orders,
// src/modules/inventory/green, src/modules/lineage, …). The rules this test holds:
//
// 1. Imports. A file of one module may import another module only through that module's service.ts (its
//    rule-checked commands and reads), schemas.ts (input shapes and shared value types: no SQL, no
//    rules that touch the database) or events.ts (the declared events it owns, which another module's
//    operation may emit, as roasting emits inventory.roast.lot_created). Never repository.ts, nor any other file of it. Test support (*.test.ts,
//    testing.ts, tenancy.cases.ts) may also use another module's test support (testing.ts,
//    tenancy.cases.ts), whose fixtures go through the HTTP interface.
// 2. Tables. Every table (and view) the migrations create has exactly one owner below: a module, or `platform` for the
//    tables of the layers under the modules (organizations and credentials in src/auth, events in
//    src/events, idempotency in src/rpc, stream tickets in src/telemetry). The SQL a module runs outside its
//    test support names only the tables it owns; what it needs of another module's records it asks that
//    module's service.
//
// Both rules read the sources with the TypeScript compiler (imports from the import graph, SQL from every
// string and template literal: a table named after from, join, into, update, table or truncate), so a new
// import or query that crosses a seam fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { loadMigrations, loadRepeatables } from '../src/db/migrate.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const modulesRoot = join(root, 'src', 'modules');

/** Who owns each table: the one place ownership is declared. */
const TABLE_OWNERS: Record<string, string[]> = {
  // pgboss: the job queue's schema (src/jobs), created by its migration.
  platform: ['organizations', 'credentials', 'events', 'idempotency_records', 'stream_tickets', 'pgboss', 'link_signing_keys'],
  'catalog/location': ['locations'],
  'catalog/machine': ['machines'],
  'catalog/party': ['partners', 'producers'],
  'catalog/product': ['products'],
  'inventory/material': ['materials', 'material_transactions', 'bills_of_materials', 'bill_of_materials_lines'],
  'inventory/green': ['green_lots', 'green_lot_ledger', 'green_lot_balances', 'green_lot_cost_components', 'green_lot_landed_costs'],
  'inventory/blend': ['blends', 'blend_components'],
  'inventory/roast': ['roasted_lots', 'roasted_lot_ledger'],
  'production/profile': ['roast_profiles'],
  'production/roast': ['roast_batches', 'roast_curves'],
  'production/schedule': ['production_schedules', 'scheduled_batches'],
  // roast_demand: the view of confirmed order lines still to roast (its current text is the orders migration's).
  orders: ['customers', 'orders', 'order_lines', 'fulfillments', 'order_allocations', 'roast_demand'],
  lineage: ['lineage_edges'],
  traceability: ['certificates'],
  reporting: ['reports'],
  'quality/cupping': ['cupping_sessions', 'cupping_session_samples', 'cupping_scores'],
  'quality/grading': ['gradings'],
  'sourcing/contract': ['green_contracts', 'green_contract_lines', 'green_contract_shipments', 'green_contract_receipt_lines', 'green_contract_milestones'],
  'sourcing/sample': ['samples'],
  cafe: ['cafe_sites', 'cafe_machines', 'cafe_shots', 'cafe_shot_rollups', 'cafe_pos_sales', 'cafe_sale_rollups', 'cafe_reconciliations', 'cafe_shot_day_rollups', 'cafe_shot_hour_of_day_rollups', 'cafe_sale_day_rollups', 'cafe_sale_hour_of_day_rollups'],
  identity: ['oauth_clients', 'oauth_access_tokens', 'signing_keys', 'users', 'memberships', 'user_sessions'],
  webhooks: ['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts'],
};

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

/** Module name (path under src/modules, `/`-separated) of every directory that holds source files. */
function moduleOf(file: string): string | undefined {
  const rel = relative(modulesRoot, file);
  if (rel.startsWith('..')) return undefined;
  return dirname(rel).split(sep).join('/');
}

interface Source {
  path: string;
  text: string;
}

const sources: Source[] = walk(modulesRoot)
  .filter((f) => f.endsWith('.ts'))
  .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
const modules = [...new Set(sources.map((f) => moduleOf(f.path)!))].sort();

/** Every module specifier the file imports or re-exports, static or dynamic. */
function importedSpecifiers(source: Source): string[] {
  return ts.preProcessFile(source.text, true, true).importedFiles.map((f) => f.fileName);
}

/** What a file of `fromModule` may import from another module's file `target` (a path under src/modules). */
function importAllowed(fromFile: string, targetFile: string): boolean {
  const name = targetFile.split('/').pop()!;
  if (name === 'service.ts' || name === 'schemas.ts' || name === 'events.ts') return true;
  return isTestSupport(relative(modulesRoot, fromFile)) && (name === 'testing.ts' || name === 'tenancy.cases.ts');
}

/** Imports of another module's files that are not its seam, as "file → target". */
function crossingImports(files = sources): string[] {
  const found: string[] = [];
  for (const source of files) {
    const file = source.path;
    const own = moduleOf(file);
    for (const specifier of importedSpecifiers(source)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      const targetModule = moduleOf(target);
      if (targetModule === undefined || targetModule === own) continue;
      if (!importAllowed(file, relative(modulesRoot, target).split(sep).join('/'))) {
        found.push(`${relative(root, file)} → ${relative(root, target)}`);
      }
    }
  }
  return found;
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
  assert.deepEqual([...created].filter((t) => !owners.has(t)), [], 'tables the migrations create that TABLE_OWNERS gives no owner');
  assert.deepEqual([...owners].filter(([, o]) => o.length > 1).map(([t, o]) => `${t}: ${o.join(', ')}`), [], 'tables with several owners');
  assert.deepEqual([...owners.keys()].filter((t) => !created.has(t)), [], 'owned tables no migration creates');
  assert.deepEqual(Object.keys(TABLE_OWNERS).filter((o) => o !== 'platform' && !modules.includes(o)), [], 'owners that are not modules');
});

test('a module imports another module only through its service.ts, schemas.ts or events.ts, never its repository', () => {
  assert.ok(modules.includes('lineage') && modules.includes('inventory/green'), `modules found: ${modules.join(', ')}`);
  assert.deepEqual(crossingImports(), [], 'imports that bypass a module’s seam');
});

test('a module’s SQL names only the tables it owns', () => {
  const crossings = crossingQueries();
  assert.deepEqual(crossings.filter((c) => !KNOWN_CROSSINGS.includes(c)), [], 'queries of another module’s tables');
  assert.deepEqual(KNOWN_CROSSINGS.filter((c) => !crossings.includes(c)), [], 'KNOWN_CROSSINGS entries that no longer cross: remove them');
});

test('the checks see a crossing: a repository import and a foreign table in SQL are both caught', () => {
  // A file of the orders module as someone might write it (not on disk), checked by the same functions.
  const path = join(modulesRoot, 'orders', 'probe.ts');
  const text =
    `import { lockLot } from '../inventory/green/repository.js';\n` +
    `import { findRoastedLot } from '../inventory/roast/service.js';\n` +
    `import { TRACE_KINDS } from '../lineage/schemas.js';\n` +
    `const fresh = await import('../inventory/roast/repository.js');\n` +
    `export const theirs = \`select id from green_lots where org_id = $1 and id = \${fresh}\`;\n` +
    `export const ours = 'select id from orders where org_id = $1';\n` +
    `export const words = 'green_lots are not queried in this sentence';\n`;
  assert.deepEqual(
    crossingImports([{ path, text }]),
    ['src/modules/orders/probe.ts → src/modules/inventory/green/repository.ts', 'src/modules/orders/probe.ts → src/modules/inventory/roast/repository.ts'],
    'both repository imports (static and dynamic) are caught; the service and schemas imports are not',
  );
  assert.deepEqual(crossingQueries([{ path, text }]), ['src/modules/orders/probe.ts: green_lots (inventory/green)'], 'the foreign table is caught, the own one is not');
  const testSupport = join(modulesRoot, 'orders', 'testing.ts');
  assert.deepEqual(
    crossingImports([{ path: testSupport, text: `import { makeGreenLot } from '../inventory/green/testing.js';\nimport { x } from '../inventory/green/repository.js';\n` }]),
    ['src/modules/orders/testing.ts → src/modules/inventory/green/repository.ts'],
    'test support may use another module’s fixtures, never its repository',
  );
});
