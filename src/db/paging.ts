import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { loadSecretKey, type SecretKey } from '../crypto/secrets.js';
import { ProblemError } from '../rpc/errors.js';

/**
 * Keyset paging. A cursor is opaque to clients: base64url of the JSON array `[list, ...key]`, where
 * `list` names the list that issued it and `key` is the sort key of the last row returned, sealed for the
 * organization it was issued to (sealCursor: `<cursor>.<MAC>`). A cursor is checked in full before any of
 * it reaches SQL: its seal, the list that issued it, the number of key parts and each part's kind, so a
 * forged cursor, another organization's or another list's is a 400, never a database error or a page of
 * somebody else's list.
 */

// ---------------------------------------------------------------------------------------------------
// Sealing. The MAC is HMAC-SHA-256 (first 128 bits) over the organization id and the cursor, under a key
// derived (HKDF) from the service's secret key: FIRSTCRACK_SECRET_KEY in server mode, which every process
// of a deployment shares, or the data directory's key file embedded. A cursor outlives neither a change of
// that key nor its organization. Operations see plain cursors: the dispatcher opens `page.cursor` before the
// handler runs and seals the `nextCursor` it answers.

const MAC_BYTES = 16;
const MAC = /^[A-Za-z0-9_-]{22}$/;
const macKeys = new WeakMap<SecretKey, Buffer>();

type KeySource = Pick<Config, 'secretKey' | 'databaseUrl' | 'dataDir'>;

function macKey(config: KeySource): Buffer {
  const secret = loadSecretKey(config);
  let key = macKeys.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret.key, Buffer.alloc(0), 'firstcrack page cursors v1', 32));
    macKeys.set(secret, key);
  }
  return key;
}

const macOf = (key: Buffer, orgId: string, cursor: string) =>
  createHmac('sha256', key).update(orgId).update('\n').update(cursor).digest().subarray(0, MAC_BYTES);

/** A plain cursor sealed for the organization, as clients get it. */
export function sealCursor(config: KeySource, orgId: string, cursor: string): string {
  return `${cursor}.${macOf(macKey(config), orgId, cursor).toString('base64url')}`;
}

/** The plain cursor of one sealed for this organization; anything else throws `problem` (default: 400 invalid_cursor). */
export function openCursor(config: KeySource, orgId: string, sealed: string, problem: () => Error = invalidCursor): string {
  const dot = sealed.lastIndexOf('.');
  const cursor = sealed.slice(0, dot);
  const mac = sealed.slice(dot + 1);
  if (dot < 0 || !MAC.test(mac)) throw problem();
  // Compared as text: a MAC spelled another way (its last character's spare bits) is not the one issued.
  if (!timingSafeEqual(Buffer.from(mac), Buffer.from(macOf(macKey(config), orgId, cursor).toString('base64url')))) throw problem();
  return cursor;
}

/** Whether a sealed cursor has the form of one (a cursor and a MAC); its seal is checked where the organization is known. */
export function isSealedCursorForm(sealed: string): boolean {
  const dot = sealed.lastIndexOf('.');
  return dot > 0 && MAC.test(sealed.slice(dot + 1)) && readCursor(sealed.slice(0, dot)) !== undefined;
}

// ---------------------------------------------------------------------------------------------------
// Plain cursors

/** What a list's page input holds once validated. */
export interface Page {
  limit: number;
  cursor?: string;
}

/** A sort key part: a record id, an RFC 3339 timestamp, or a non-negative integer sequence number. */
export type KeyPart = 'id' | 'timestamp' | 'integer';

export const CURSOR_MESSAGE = 'not a cursor returned by this list';

export const invalidCursor = () =>
  new ProblemError(400, 'invalid_cursor', 'The page cursor was not returned by this list; start again without a cursor.', {
    errors: [{ path: 'page.cursor', message: CURSOR_MESSAGE }],
  });

const MAX_KEY_PARTS = 4;
const LIST = /^[a-z_]{1,64}$/;
const KEY_PARTS: readonly KeyPart[] = ['id', 'timestamp', 'integer'];
const ID = /^[a-z]+_[0-9a-z]{1,60}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export function encodeCursor(list: string, key: (string | number)[]): string {
  return Buffer.from(JSON.stringify([list, ...key])).toString('base64url');
}

/**
 * The cursor's list and key if it is well formed (base64url JSON array of a list name and 1 to 4 key
 * parts, each of one of the key kinds), whichever list issued it; undefined otherwise. The page schema
 * uses this so a malformed cursor is reported with the rest of the input, before any record is read.
 */
export function readCursor(cursor: string): { list: string; key: (string | number)[] } | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length < 2 || value.length > MAX_KEY_PARTS + 1) return undefined;
  const [list, ...key] = value;
  if (typeof list !== 'string' || !LIST.test(list)) return undefined;
  if (!key.every((part) => KEY_PARTS.some((kind) => partMatches(kind, part)))) return undefined;
  return { list, key };
}

/**
 * The key of a cursor issued by `list` with parts of the given kinds; undefined without a cursor.
 * Anything else (another list's cursor, a forged one) is `400 invalid_cursor`.
 */
export function decodeCursor(cursor: string | undefined, list: string, parts: readonly KeyPart[]): (string | number)[] | undefined {
  if (cursor === undefined) return undefined;
  const read = readCursor(cursor);
  if (!read || read.list !== list || read.key.length !== parts.length) throw invalidCursor();
  read.key.forEach((value, i) => {
    if (!partMatches(parts[i], value)) throw invalidCursor();
  });
  return read.key;
}

function partMatches(kind: KeyPart, value: unknown): boolean {
  switch (kind) {
    case 'id':
      return typeof value === 'string' && ID.test(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'timestamp':
      // Only what this service writes: UTC in toISOString's form, a real instant from year 0001 on.
      return (
        typeof value === 'string' &&
        TIMESTAMP.test(value) &&
        value >= '0001' &&
        !Number.isNaN(Date.parse(value)) &&
        new Date(value).toISOString().slice(0, 19) === value.slice(0, 19)
      );
  }
}

/** Fetch limit + 1 rows, return `limit` of them and the cursor (issued by `list`) to the rest. */
export function pageOf<T>(rows: T[], limit: number, list: string, keyOf: (row: T) => (string | number)[]): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? encodeCursor(list, keyOf(items[items.length - 1])) : null;
  return { items, nextCursor };
}
