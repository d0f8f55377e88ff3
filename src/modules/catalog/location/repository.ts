import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern, setClause } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { LOCATION_KINDS } from './schemas.js';

type LocationKind = (typeof LOCATION_KINDS)[number];

interface LocationRow {
  id: string;
  code: string;
  name: string;
  kind: LocationKind;
  address: Record<string, string> | null;
  timezone: string | null;
  is_active: boolean;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type Location = ReturnType<typeof toLocation>;

const toLocation = (r: LocationRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  kind: r.kind,
  address: r.address,
  timezone: r.timezone,
  isActive: r.is_active,
  archivedAt: iso(r.archived_at),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export async function insertLocation(
  q: Queryable,
  orgId: string,
  input: { code: string; name: string; kind: string; address?: object; timezone?: string },
): Promise<Location> {
  const [row] = await q.query<LocationRow>(
    `insert into locations (org_id, id, code, name, kind, address, timezone)
     values ($1, $2, $3, $4, $5, $6, $7) returning *`,
    [orgId, newId('loc'), input.code, input.name, input.kind, input.address ? JSON.stringify(input.address) : null, input.timezone ?? null],
  );
  return toLocation(row);
}

export async function findLocation(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Location | undefined> {
  const [row] = await q.query<LocationRow>(
    `select * from locations where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toLocation(row);
}

/** Code, name and whether archived, of each location that exists in the organization, by id. */
export async function locationLabels(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, LocationLabel>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; code: string; name: string; archived: boolean }>(
    `select id, code, name, archived_at is not null as archived from locations where org_id = $1 and id = any($2::text[])`,
    [orgId, ids],
    { name: 'location.labels' },
  );
  return new Map(rows.map((r) => [r.id, { code: r.code, name: r.name, archived: r.archived }]));
}

export interface LocationLabel {
  code: string;
  name: string;
  archived: boolean;
}

export async function updateLocation(
  q: Queryable,
  orgId: string,
  id: string,
  changes: { name?: string; kind?: string; address?: object | null; timezone?: string | null; isActive?: boolean },
): Promise<Location> {
  const params = new SqlParams();
  const set = setClause(params, {
    name: changes.name,
    kind: changes.kind,
    address: changes.address === undefined ? undefined : changes.address && JSON.stringify(changes.address),
    timezone: changes.timezone,
    is_active: changes.isActive,
  });
  const [row] = await q.query<LocationRow>(
    `update locations set ${set ? `${set}, ` : ''}updated_at = now()
     where org_id = ${params.add(orgId)} and id = ${params.add(id)} returning *`,
    params.values,
  );
  return toLocation(row);
}

export async function archiveLocation(q: Queryable, orgId: string, id: string): Promise<Location> {
  const [row] = await q.query<LocationRow>(
    `update locations set archived_at = now(), is_active = false, updated_at = now()
     where org_id = $1 and id = $2 returning *`,
    [orgId, id],
  );
  return toLocation(row);
}

export async function listLocations(
  q: Queryable,
  orgId: string,
  filter: { kind?: string; isActive?: boolean; includeArchived?: boolean; q?: string },
  page: Page,
) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (!filter.includeArchived) where.push('archived_at is null');
  if (filter.kind) where.push(`kind = ${params.add(filter.kind)}`);
  if (filter.isActive !== undefined) where.push(`is_active = ${params.add(filter.isActive)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or code ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'locations', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<LocationRow>(
    `select * from locations where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toLocation), page.limit, 'locations', (l) => [l.id]);
}
