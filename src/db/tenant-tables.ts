import type { Queryable } from './client.js';

/**
 * The tables an organization's rows live in: every base table with an org_id column, read from the catalog, so
 * a table a new migration adds is exported and purged without a list anyone must keep (test/org-export.test.ts
 * and test/organization-deletion.test.ts check every manifest's tables against it).
 */
export async function tenantTables(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ table: string }>(
    `select c.table_name as table from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
     where c.table_schema = 'public' and c.column_name = 'org_id' order by 1`,
  );
  return rows.map((r) => r.table);
}

/**
 * The tenant tables in an order their rows can be deleted in: every table before the tables its foreign keys
 * point to (referencing rows first). A cycle of foreign keys between tenant tables has no such order and throws.
 */
export async function tenantTablesInDeleteOrder(db: Queryable): Promise<string[]> {
  const tables = await tenantTables(db);
  const edges = await db.query<{ child: string; parent: string }>(
    `select ch.relname as child, pa.relname as parent from pg_constraint k
     join pg_class ch on ch.oid = k.conrelid join pg_class pa on pa.oid = k.confrelid
     join pg_namespace n on n.oid = ch.relnamespace
     where k.contype = 'f' and n.nspname = 'public' and k.conrelid <> k.confrelid`,
  );
  const inSet = new Set(tables);
  // referencedBy[parent] = children still to delete before parent
  const waitingOn = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const { child, parent } of edges) if (inSet.has(child) && inSet.has(parent)) waitingOn.get(parent)!.add(child);
  const order: string[] = [];
  const done = new Set<string>();
  while (order.length < tables.length) {
    const ready = tables.filter((t) => !done.has(t) && [...waitingOn.get(t)!].every((c) => done.has(c)));
    if (ready.length === 0) throw new Error(`Foreign keys form a cycle among ${tables.filter((t) => !done.has(t)).join(', ')}: no delete order`);
    for (const t of ready) {
      order.push(t);
      done.add(t);
    }
  }
  return order;
}
