import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { z } from 'zod';
import { startTestServer } from '../src/testing/harness.js';
import { REGISTRY } from '../src/modules/index.js';

const { operations } = REGISTRY;
import type { Operation } from '../src/rpc/define.js';
import { encodeCursor, sealCursor } from '../src/db/paging.js';

/**
 * Every registered operation, fed malformed inputs derived from its own input schema: text PostgreSQL
 * cannot store (NUL, a lone surrogate) in every string field at any depth, bytes that are not UTF-8 in
 * every string field, impossible or unstorable dates (years 0001 to 0999 among them) in every date and
 * date-time field, decimals written loosely (leading spaces or zeros, a sign, an exponent) in every decimal
 * field, values of the wrong type in every field, forged or foreign page cursors (another organization's
 * among them) and page sizes past the cap in every list, and bodies announced past the limit to every
 * operation. Each must be a 400 naming the field (or 413 for a body too large), none a 5xx or a 429, and
 * none may write anything. The inputs come from the registry and the schemas, so an operation added later
 * is covered as it is.
 */

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Fuzzed roastery');
const otherOrg = await server.createOrg('enterprise', 'Another roastery');

type Schema = {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  prefixItems?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  default?: unknown;
};

type Path = (string | number)[];

interface Field {
  path: Path;
  schema: Schema;
}

const inputSchema = (op: Operation) => z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Schema;

const alternatives = (s: Schema): Schema[] => [...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap((alt) => (alt.anyOf || alt.oneOf ? alternatives(alt) : [alt]));

/** The JSON types a schema accepts (empty: anything). */
function jsonTypes(s: Schema): Set<string> {
  if (s.anyOf || s.oneOf) return new Set(alternatives(s).flatMap((alt) => [...jsonTypes(alt)]));
  if (s.const !== undefined) return new Set([typeOfJson(s.const)]);
  if (s.enum) return new Set(s.enum.map(typeOfJson));
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  return new Set(types.flatMap((t) => (t === 'integer' ? ['integer', 'number'] : [t])));
}

function typeOfJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * Every field of the input, nested objects, (first) array items and tuple positions included. Of a union of
 * objects or of arrays, the first alternative is walked: the one `sample` fills in, so that a case changes one
 * field of a value that is otherwise valid (a field of another alternative would make the rest invalid too).
 */
function fieldsOf(schema: Schema, path: Path = []): Field[] {
  const out: Field[] = [];
  if (path.length > 0) out.push({ path, schema });
  const shapes = [schema, ...alternatives(schema)];
  const object = shapes.find((s) => s.properties);
  if (object) for (const [key, child] of Object.entries(object.properties!)) out.push(...fieldsOf(child, [...path, key]));
  const array = shapes.find((s) => s.items || s.prefixItems);
  if (array?.prefixItems) array.prefixItems.forEach((item, i) => out.push(...fieldsOf(item, [...path, i])));
  else if (array?.items) out.push(...fieldsOf(array.items, [...path, 0]));
  return out;
}

const SAMPLE_STRINGS = ['abc_123', 'EUR', 'ET', 'A1', '12.5', 'Fuzz text', 'a@example.com'];

/** A value the schema accepts, as far as its JSON Schema tells (refinements it cannot show may still refuse it). */
function sample(s: Schema): unknown {
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const alts = alternatives(s).filter((alt) => alt.type !== 'null');
  if (alts.length > 0) return sample(alts[0]);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = sample(s.properties?.[key] ?? {});
      return out;
    }
    case 'array':
      // A tuple (prefixItems): one sample per position.
      if (s.prefixItems) return s.prefixItems.map(sample);
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items ?? {}));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string': {
      if (s.format === 'date') return '2026-01-15';
      if (s.format === 'date-time') return '2026-01-15T10:00:00Z';
      if (s.format === 'email') return 'a@example.com';
      if (s.format === 'uri') return 'https://example.com';
      const fits = (v: string) => (!s.pattern || new RegExp(s.pattern).test(v)) && v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
      return SAMPLE_STRINGS.find(fits) ?? 'x'.repeat(Math.max(1, s.minLength ?? 1));
    }
    default:
      return 'Fuzz text';
  }
}

/** `base` with the value at `path` replaced, the objects and lists on the way filled with samples. */
function withValue(base: Record<string, unknown>, schema: Schema, path: Path, value: unknown): Record<string, unknown> {
  const root = structuredClone(base);
  let node: any = root;
  let nodeSchema = schema;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    const childSchema = childOf(nodeSchema, key);
    if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object') node[key] = typeof path[i + 1] === 'number' ? [] : {};
    if (Array.isArray(node[key]) && node[key].length === 0 && typeof path[i + 1] === 'number') node[key].push(sample(childOf(childSchema, 0)));
    else if (!Array.isArray(node[key]) && typeof path[i + 1] !== 'number') Object.assign(node[key], { ...(sample(objectOf(childSchema)) as object), ...node[key] });
    node = node[key];
    nodeSchema = childSchema;
  }
  node[path[path.length - 1]] = value;
  return root;
}

const objectOf = (s: Schema): Schema => [s, ...alternatives(s)].find((x) => x.properties) ?? {};
function childOf(s: Schema, key: string | number): Schema {
  if (typeof key === 'number') {
    const array = [s, ...alternatives(s)].find((x) => x.items || x.prefixItems);
    return array?.prefixItems?.[key] ?? array?.items ?? {};
  }
  return objectOf(s).properties?.[key] ?? {};
}

const formatPath = (path: Path) => path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${key}` : key), '');

const IMPOSSIBLE_DATES = ['0000-01-01', '0001-01-01', '0500-06-15', '0999-12-31', '1899-12-31', '9999-12-31', '2026-02-30', '2025-02-29', '10000-01-01'];
const IMPOSSIBLE_DATE_TIMES = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '0999-12-31T23:59:59Z',
  '1900-01-01T00:00:00+01:00',
  '2026-02-30T10:00:00Z',
  '2026-01-01T10:00:00+16:00',
  '10000-01-01T00:00:00Z',
];
const WRONG_TYPES: unknown[] = [12345, 'text', true, { nested: 1 }, ['list'], null];
/** Decimals written otherwise than the one rule allows. */
const LOOSE_DECIMALS = [' 1', '1 ', '00012', '01.5', '+1', '1e3', '.5'];
/** Where invalid UTF-8 goes: the string is sent with these bytes in place of the marker. */
const BAD_UTF8_MARKER = 'BADUTF8';
const BAD_UTF8 = Buffer.from([0xc3, 0x28, 0xff]);

interface Case {
  operation: string;
  what: string;
  input: Record<string, unknown>;
  /** The field the answer must name (none for malformed JSON). */
  path: string;
  code: 'invalid_input' | 'invalid_cursor' | 'malformed_json';
}

function casesFor(op: Operation): Case[] {
  const schema = inputSchema(op);
  const base = sample(schema) as Record<string, unknown>;
  const cases: Case[] = [];
  const add = (what: string, path: Path, value: unknown, code: Case['code'] = 'invalid_input') =>
    cases.push({ operation: op.name, what, input: withValue(base, schema, path, value), path: formatPath(path), code });
  for (const { path, schema: field } of fieldsOf(schema)) {
    const types = jsonTypes(field);
    if (types.has('string')) {
      add('NUL', path, 'before\u0000after');
      add('lone surrogate', path, 'before\ud800after');
      add('invalid UTF-8', path, `before${BAD_UTF8_MARKER}after`, 'malformed_json');
    }
    // A decimal field takes a string or a JSON number (rpc/schemas.ts decimal()).
    if (types.has('string') && types.has('number') && !types.has('object')) for (const d of LOOSE_DECIMALS) add(`decimal ${JSON.stringify(d)}`, path, d);
    const formats = new Set([field, ...alternatives(field)].map((s) => s.format));
    if (formats.has('date')) for (const d of IMPOSSIBLE_DATES) add(`date ${d}`, path, d);
    if (formats.has('date-time')) for (const d of IMPOSSIBLE_DATE_TIMES) add(`date-time ${d}`, path, d);
    if (types.size > 0) {
      const wrong = WRONG_TYPES.find((v) => !types.has(typeOfJson(v)) && !(typeOfJson(v) === 'integer' && types.has('number')));
      if (wrong !== undefined) add(`wrong type ${JSON.stringify(wrong)}`, path, wrong);
    }
  }
  cases.push({ operation: op.name, what: 'NUL in a field name', input: { ...base, 'x\u0000y': 1 }, path: 'x\\u0000y', code: 'invalid_input' });
  if (schema.properties?.page) {
    const forged: [string, string][] = [
      ['not base64', '%%%not-a-cursor%%%'],
      ['base64 of text', Buffer.from('hello').toString('base64url')],
      ['base64 of an object', Buffer.from(JSON.stringify({ id: 'loc_1' })).toString('base64url')],
      ['base64 of an empty list', Buffer.from('[]').toString('base64url')],
      ['base64 of nested values', Buffer.from(JSON.stringify(['locations', { id: 1 }])).toString('base64url')],
      ['base64 of a float key', Buffer.from(JSON.stringify(['locations', 1.5])).toString('base64url')],
      ['base64 of a NUL key', Buffer.from(JSON.stringify(['locations', 'a\u0000'])).toString('base64url')],
      ['base64 with a bad timestamp', Buffer.from(JSON.stringify(['roast_batches', '0000-01-01T00:00:00Z', 'rb_1'])).toString('base64url')],
      ['hand-made, of the right shape', Buffer.from(JSON.stringify(['locations', 'loc_0'])).toString('base64url')],
      ['hand-made with a made-up seal', `${Buffer.from(JSON.stringify(['locations', 'loc_0'])).toString('base64url')}.${'A'.repeat(22)}`],
      ['sealed for another organization', sealCursor(server.app.services.config, otherOrg.id, encodeCursor('locations', ['loc_0']))],
    ];
    for (const [what, cursor] of forged) add(`forged cursor: ${what}`, ['page', 'cursor'], cursor, 'invalid_cursor');
    for (const limit of [201, 10000, 1e9]) add(`page limit ${limit}`, ['page', 'limit'], limit);
  }
  return cases;
}

/** The body of a case as sent: JSON, with invalid UTF-8 bytes where the marker stands. */
function bodyOf(input: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(input));
  const at = json.indexOf(BAD_UTF8_MARKER);
  return at < 0 ? json : Buffer.concat([json.subarray(0, at), BAD_UTF8, json.subarray(at + BAD_UTF8_MARKER.length)]);
}

/**
 * Cursors sealed for this organization but of another list, or of this list with keys of the wrong kinds:
 * well formed and sealed, refused where the list is read.
 */
function foreignCursors(): [string, string][] {
  const sealed = (list: string, key: (string | number)[]) => sealCursor(server.app.services.config, org.id, encodeCursor(list, key));
  return [
    ['another list', sealed('fuzz_other_list', ['abc_123'])],
    ['an id where a timestamp is', sealed('roast_batches', ['abc_123', 'rb_1'])],
    ['a timestamp of year 0', sealed('roast_batches', ['0000-01-01T00:00:00.000Z', 'rb_1'])],
    ['an integer where an id is', sealed('locations', [42])],
  ];
}

/** Rows per table holding the organization's data: nothing a refused request touches may change. */
async function orgRows(): Promise<Record<string, number>> {
  const tables = await server.owner.query<{ table_name: string }>(
    `select table_name from information_schema.columns
     where column_name = 'org_id' and table_schema = current_schema() order by table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await server.owner.query<{ n: number }>(`select count(*)::int as n from "${table_name}" where org_id = $1`, [org.id]);
    counts[table_name] = row.n;
  }
  return counts;
}

/**
 * POSTs an operation over plain node:http with kept-alive connections: the same requests as the
 * harness's fetch, at a fraction of its cost per call for over a thousand of them.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
after(() => agent.destroy());
function post(operation: string, input: unknown): Promise<{ status: number; body: any; contentType: string }> {
  const body = bodyOf(input);
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, hostname, port, method: 'POST', path: `/rpc/v1/${operation}`, headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, contentType: String(res.headers['content-type']) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

test('every operation answers malformed input with a 400 naming the field, and writes nothing', async () => {
  const before = await orgRows();
  const cases = operations.flatMap(casesFor);
  const failures: string[] = [];
  await inParallel(cases, 8, async (c) => {
    const res = await post(c.operation, c.input);
    const paths: string[] = (res.body?.errors ?? []).map((e: { path: string }) => e.path);
    if (res.status !== 400 || res.body?.code !== c.code || (c.code !== 'malformed_json' && !paths.includes(c.path))) {
      failures.push(`${c.operation} ${c.what} at ${c.path}: ${res.status} ${res.body?.code} ${JSON.stringify(res.body?.errors ?? res.body)}`);
    } else if (!res.contentType.startsWith('application/problem+json')) {
      failures.push(`${c.operation} ${c.what}: answered ${res.contentType}`);
    }
  });
  assert.deepEqual(failures, [], `${failures.length} of ${cases.length} malformed inputs were not a 400 naming the field`);
  const classes = new Set(cases.map((c) => c.what.split(/[ :]/)[0]));
  for (const expected of ['NUL', 'lone', 'invalid', 'decimal', 'date', 'date-time', 'wrong', 'forged', 'page']) assert.ok(classes.has(expected), `the schemas gave ${expected} cases`);
  assert.deepEqual(await orgRows(), before, 'a refused request wrote nothing');
  console.log(`Fuzzed ${operations.length} operations with ${cases.length} malformed inputs: every one a 400 naming its field`);
});

test('a well-formed cursor of another list, or with keys of the wrong kinds, is 400 invalid_cursor in every list', async () => {
  const before = await orgRows();
  const lists = operations.filter((op) => inputSchema(op).properties?.page);
  assert.ok(lists.length > 10, 'the registry has its lists');
  const failures: string[] = [];
  let reached = 0;
  for (const op of lists) {
    const base = sample(inputSchema(op)) as Record<string, unknown>;
    const plain = await org.call(op.name, base);
    // A list of one record's rows (a lot's ledger) needs the record: its cursor is checked in test/validation.test.ts.
    if (plain.status === 404) continue;
    assert.equal(plain.status, 200, `${op.name} answers its sample input: ${JSON.stringify(plain.body)}`);
    reached++;
    for (const [what, cursor] of foreignCursors()) {
      const res = await org.call(op.name, { ...base, page: { cursor } });
      if (res.status !== 400 || res.body.code !== 'invalid_cursor' || res.body.errors?.[0]?.path !== 'page.cursor') {
        failures.push(`${op.name} ${what}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(reached >= lists.length - 1, `${reached} of ${lists.length} lists were reached with a foreign cursor`);
  assert.deepEqual(await orgRows(), before);
});

test('every operation answers a body announced past 1 MiB with 413 before reading it, never a 429', async () => {
  const { hostname, port } = new URL(server.url);
  const failures: string[] = [];
  await inParallel([...operations], 4, async (op) => {
    for (const length of [4 * 1024 * 1024, 1e12]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ hostname, port, method: 'POST', path: `/rpc/v1/${op.name}`, headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json', 'content-length': String(length) } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
          req.destroy();
        });
        req.on('error', reject);
        req.write('{"');
      });
      if (status !== 413) failures.push(`${op.name} Content-Length ${length}: ${status}`);
    }
  });
  assert.deepEqual(failures, []);
});

test('a webhook URL naming a private IPv4 address inside an IPv6 one is refused, in either case of scheme', async () => {
  const urls = [
    'https://[64:ff9b:1::a00:1]/hook', 'HTTPS://[::10.0.0.1]/hook', 'https://[::ffff:0:a00:1]/hook', 'Https://[2001:0:a00:1::]/hook',
    'https://[::ffff:7f00:1]/hook', 'https://[64:ff9b::a9fe:a9fe]/hook', 'https://[2002:c0a8:101::1]/hook', 'https://[::ffff:0:a9fe:a9fe]/hook',
  ];
  const takesUrl = operations.filter((op) => op.name.startsWith('webhooks.') && inputSchema(op).properties?.url);
  assert.ok(takesUrl.length > 0, 'the registry has operations taking a webhook URL');
  const before = await orgRows();
  const failures: string[] = [];
  for (const op of takesUrl) {
    const base = sample(inputSchema(op)) as Record<string, unknown>;
    for (const url of urls) {
      const res = await post(op.name, { ...base, url });
      if (res.status !== 400 || res.body?.errors?.[0]?.path !== 'url') failures.push(`${op.name} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(await orgRows(), before);
});
