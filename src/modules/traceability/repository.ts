import type { Queryable } from '../../db/client.js';
import { SqlParams, iso } from '../../db/sql.js';
import { newId, newSecret } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';
import type { CertificateFilterInput, CertificateSnapshotOutput } from './schemas.js';

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
