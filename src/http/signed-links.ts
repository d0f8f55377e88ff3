import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/client.js';
import { ProblemError } from '../rpc/errors.js';

/**
 * Links that work without a credential until they expire: the path names what is served, and the query
 * carries the organization, the expiry and an HMAC-SHA256 over all three (plus the key version), so a
 * holder can neither point the link at another resource or organization nor extend it. Reports' downloads
 * use it; anything else served this way (roast-curve exports) signs its own `purpose`.
 *
 * The key lives in the database (`link_signing_keys`, made by its migration from the server's strong random
 * source), so every API process and worker signs and verifies alike without configuration. Verification
 * checks the signature first (403 link_invalid for anything altered, forged or from an unknown key) and the
 * expiry second (410 link_expired), so an expired link says so only when it is genuine.
 */

export interface LinkClaims {
  /** What the link serves, e.g. `report.pdf`: a link for one purpose never opens another. */
  purpose: string;
  /** The resource's id within its organization. */
  resourceId: string;
  orgId: string;
  /** Unix seconds after which the link answers 410. */
  expires: number;
}

interface SigningKey {
  version: number;
  secret: Buffer;
}

/** Keys never change once written (a new one is a new version), so each process reads them once. */
let keys: Promise<Map<number, SigningKey>> | undefined;

async function signingKeys(db: Queryable): Promise<Map<number, SigningKey>> {
  keys ??= db
    .query<{ version: number; secret: string }>('select version, secret from link_signing_keys order by version')
    .then((rows) => new Map(rows.map((r) => [r.version, { version: r.version, secret: Buffer.from(r.secret, 'hex') }])))
    .catch((error) => {
      keys = undefined;
      throw error;
    });
  return keys;
}

function mac(key: SigningKey, claims: LinkClaims): Buffer {
  const message = ['fc-link', key.version, claims.purpose, claims.resourceId, claims.orgId, claims.expires].join('\n');
  return createHmac('sha256', key.secret).update(message).digest();
}

/** The query string (without `?`) that makes `path` a signed link for `claims`, signed with the newest key. */
export async function signLink(db: Queryable, claims: LinkClaims): Promise<string> {
  const all = await signingKeys(db);
  const key = [...all.values()].at(-1);
  if (!key) throw new Error('No link signing key: the migration creating link_signing_keys has not run.');
  const query = new URLSearchParams({ org: claims.orgId, expires: String(claims.expires), v: String(key.version), sig: mac(key, claims).toString('base64url') });
  return query.toString();
}

export const linkInvalid = () => new ProblemError(403, 'link_invalid', 'This link was altered or was not issued by this service.');
export const linkExpired = (expires: number) =>
  new ProblemError(410, 'link_expired', `This link expired at ${new Date(expires * 1000).toISOString()}; ask for a new one.`);

/**
 * The organization a signed link was issued for, once its signature holds for this purpose and resource
 * and it has not expired; otherwise the problem (403, 410) that refuses it.
 */
export async function verifyLink(
  db: Queryable,
  target: { purpose: string; resourceId: string },
  query: Record<string, unknown>,
  now = Date.now(),
): Promise<{ orgId: string; expires: number }> {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
  const orgId = text('org');
  const expiresText = text('expires');
  const versionText = text('v');
  const sig = text('sig');
  if (!orgId || !expiresText || !/^\d{1,12}$/.test(expiresText) || !versionText || !/^\d{1,6}$/.test(versionText) || !sig) throw linkInvalid();
  const key = (await signingKeys(db)).get(Number(versionText));
  if (!key) throw linkInvalid();
  const expires = Number(expiresText);
  const expected = mac(key, { ...target, orgId, expires });
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw linkInvalid();
  if (now >= expires * 1000) throw linkExpired(expires);
  return { orgId, expires };
}
