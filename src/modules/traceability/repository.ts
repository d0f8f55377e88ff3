import type { Queryable } from '../../db/client.js';
import { SqlParams, iso } from '../../db/sql.js';
import { newId, newSecret } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';
import type { CertificateFilterInput, CertificateSnapshotOutput, OriginSubjectKind } from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Certificates

interface CertificateRow {
  id: string;
  token: string;
  roasted_lot_id: string;
  order_line_id: string | null;
  fulfillment_id: string | null;
  /** Frozen at issue: the chain as it was then. */
  snapshot: CertificateSnapshotOutput;
  issued_at: Date;
}

export const certificatePath = (token: string) => `/c/${token}`;

const toCertificate = (r: CertificateRow) => ({
  id: r.id,
  roastedLotId: r.roasted_lot_id,
  orderLineId: r.order_line_id,
  fulfillmentId: r.fulfillment_id,
  /** The public token: whoever holds it can read the certificate's page, nothing else. */
  token: r.token,
  /** The public page, and its QR code as SVG and PNG, relative to the service's address. */
  publicPath: certificatePath(r.token),
  qrSvgPath: `${certificatePath(r.token)}/qr.svg`,
  qrPngPath: `${certificatePath(r.token)}/qr.png`,
  issuedAt: iso(r.issued_at)!,
  snapshot: r.snapshot,
});

export type Certificate = ReturnType<typeof toCertificate>;

/** 16 random bytes: 128 bits, 22 base64url characters. */
const TOKEN_BYTES = 16;
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export async function insertCertificate(
  q: Queryable,
  orgId: string,
  credentialId: string,
  certificate: { roastedLotId: string; orderLineId: string | null; fulfillmentId: string | null; snapshot: object; issuedAt: string },
): Promise<Certificate> {
  const [row] = await q.query<CertificateRow>(
    `insert into certificates (org_id, id, token, roasted_lot_id, order_line_id, fulfillment_id, snapshot, issued_at, credential_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [
      orgId,
      newId('cert'),
      newSecret(TOKEN_BYTES),
      certificate.roastedLotId,
      certificate.orderLineId,
      certificate.fulfillmentId,
      JSON.stringify(certificate.snapshot),
      certificate.issuedAt,
      credentialId,
    ],
  );
  return toCertificate(row);
}

export async function listCertificates(q: Queryable, orgId: string, filter: CertificateFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.roastedLotId) where.push(`roasted_lot_id = ${params.add(filter.roastedLotId)}`);
  if (filter.issuedFrom) where.push(`issued_at >= ${params.add(filter.issuedFrom)}::date`);
  if (filter.issuedTo) where.push(`issued_at < ${params.add(filter.issuedTo)}::date + 1`);
  const after = decodeCursor(page.cursor, 'certificates', ['timestamp', 'id']);
  if (after) where.push(`(issued_at, id) < (${params.add(String(after[0]))}::timestamptz, ${params.add(String(after[1]))})`);
  const rows = await q.query<CertificateRow>(
    `select * from certificates where ${where.join(' and ')} order by issued_at desc, id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toCertificate), page.limit, 'certificates', (c) => [c.issuedAt, c.id]);
}

export interface PublicCertificate {
  id: string;
  organizationName: string;
  snapshot: unknown;
  issuedAt: string;
}

/** The public page's lookup, across organizations, through the owner's SECURITY DEFINER function. */
export async function findCertificateByToken(q: Queryable, token: string): Promise<PublicCertificate | undefined> {
  const [row] = await q.query<{ id: string; organization_name: string; snapshot: unknown; issued_at: Date }>(
    `select * from firstcrack_certificate_by_token($1)`,
    [token],
  );
  return row && { id: row.id, organizationName: row.organization_name, snapshot: row.snapshot, issuedAt: iso(row.issued_at)! };
}

/** The newest certificate matching every id given (by id, roasted lot, order line); undefined when none does. */
export async function findNewestCertificate(
  q: Queryable,
  orgId: string,
  match: { certificateId?: string; roastedLotId?: string; orderLineId?: string },
): Promise<Certificate | undefined> {
  const [row] = await q.query<CertificateRow>(
    `select * from certificates
     where org_id = $1 and ($2::text is null or id = $2) and ($3::text is null or roasted_lot_id = $3) and ($4::text is null or order_line_id = $4)
     order by issued_at desc, id desc limit 1`,
    [orgId, match.certificateId ?? null, match.roastedLotId ?? null, match.orderLineId ?? null],
  );
  return row && toCertificate(row);
}

// ---------------------------------------------------------------------------------------------------
// Origin declarations and the operator identity

export interface UpstreamStatementRow {
  referenceNumber: string;
  verificationNumber: string | null;
}

interface DeclarationRow {
  subject_kind: OriginSubjectKind;
  subject_id: string;
  plot_ids: string[];
  producer_ids: string[];
  upstream_statements: UpstreamStatementRow[];
  declared_at: Date;
}

const toDeclaration = (r: DeclarationRow) => ({
  subject: { kind: r.subject_kind, id: r.subject_id },
  plotIds: r.plot_ids,
  producerIds: r.producer_ids,
  upstreamStatements: r.upstream_statements,
  declaredAt: iso(r.declared_at)!,
});

export type OriginDeclaration = ReturnType<typeof toDeclaration>;

/** Declaring again replaces the subject's declaration. */
export async function upsertDeclaration(
  q: Queryable,
  orgId: string,
  d: { kind: OriginSubjectKind; id: string; plotIds: string[]; producerIds: string[]; upstreamStatements: UpstreamStatementRow[] },
): Promise<OriginDeclaration> {
  const [row] = await q.query<DeclarationRow>(
    `insert into origin_declarations (org_id, subject_kind, subject_id, plot_ids, producer_ids, upstream_statements)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (org_id, subject_kind, subject_id) do update
       set plot_ids = excluded.plot_ids, producer_ids = excluded.producer_ids, upstream_statements = excluded.upstream_statements, declared_at = now()
     returning *`,
    [orgId, d.kind, d.id, d.plotIds, d.producerIds, JSON.stringify(d.upstreamStatements)],
  );
  return toDeclaration(row);
}

/** The declarations of the subjects named (by "kind:id"), in one query. */
export async function declarationsOf(q: Queryable, orgId: string, subjects: { kind: OriginSubjectKind; id: string }[]): Promise<Map<string, OriginDeclaration>> {
  if (subjects.length === 0) return new Map();
  const rows = await q.query<DeclarationRow>(
    `select d.* from origin_declarations d join unnest($2::text[], $3::text[]) s(kind, id) on d.subject_kind = s.kind and d.subject_id = s.id
     where d.org_id = $1`,
    [orgId, subjects.map((s) => s.kind), subjects.map((s) => s.id)],
  );
  return new Map(rows.map((r) => [`${r.subject_kind}:${r.subject_id}`, toDeclaration(r)]));
}

interface OperatorRow {
  name: string;
  country: string;
  eori: string | null;
  gs1_company_prefix: string | null;
  gtins: Record<string, string>;
}

const toOperator = (r: OperatorRow) => ({ name: r.name, country: r.country, eori: r.eori, gs1CompanyPrefix: r.gs1_company_prefix, gtins: r.gtins, recorded: true });

export async function upsertOperator(
  q: Queryable,
  orgId: string,
  o: { name: string; country: string; eori?: string; gs1CompanyPrefix?: string; gtins: Record<string, string | undefined> },
) {
  const [row] = await q.query<OperatorRow>(
    `insert into operator_identities (org_id, name, country, eori, gs1_company_prefix, gtins) values ($1, $2, $3, $4, $5, $6)
     on conflict (org_id) do update
       set name = excluded.name, country = excluded.country, eori = excluded.eori, gs1_company_prefix = excluded.gs1_company_prefix,
           gtins = excluded.gtins, updated_at = now()
     returning *`,
    [orgId, o.name, o.country, o.eori ?? null, o.gs1CompanyPrefix ?? null, JSON.stringify(o.gtins)],
  );
  return toOperator(row);
}

export async function findOperator(q: Queryable, orgId: string) {
  const [row] = await q.query<OperatorRow>(`select * from operator_identities where org_id = $1`, [orgId]);
  return row && toOperator(row);
}
