import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface QueryOptions {
  /**
   * Names a hot statement whose text never varies, so PostgreSQL parses it once per connection and can
   * reuse its plan instead of planning it on every call. One name, one text: a name reused for other
   * text fails. PGlite ignores it.
   */
  name?: string;
}

/** Anything that runs parameterised SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Only on an open read-write transaction: `work` runs inside it after the transaction's own work and
   * before COMMIT, in the order registered (work registered meanwhile runs too). A throw rolls the
   * transaction back. Writes gathered during the transaction (the event outbox) go out here in one statement.
   */
  beforeCommit?(work: () => Promise<void>): void;
}

export interface TransactionOptions {
  /** Organization the transaction acts for; sets `app.org_id`, which row-level security reads. */
  orgId?: string;
  readOnly?: boolean;
  /**
   * Reads that must add up across many statements (a report): one REPEATABLE READ, READ ONLY transaction,
   * so every statement sees the same committed state however long the work takes. Overrides readOnly's
   * autocommit reads.
   */
  snapshot?: boolean;
}

const SNAPSHOT = 'isolation level repeatable read, read only';

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs statements without parameters, separated by semicolons, in one round trip and one implicit
   * transaction (all or nothing; `set local` lasts until its end), outside any organization, and answers
   * the rows of the last. Values must be literals the caller made safe (numbers it checked).
   */
  script<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

/** Runs a transaction's before-commit work in order, including work that earlier work registers. */
async function runHooks(hooks: (() => Promise<void>)[]): Promise<void> {
  for (let i = 0; i < hooks.length; i++) await hooks[i]();
}

// bigint counts come back as numbers from PGlite and strings from pg; SQL casts counts to int so both agree.
// numeric stays a string in both: weights and money are never binary floats.

/**
 * Embedded, the organization is not set on the connection: PGlite's one role is its superuser, which
 * row-level security does not confine (test/tenancy.test.ts checks the policies on PostgreSQL), so
 * `app.org_id` would be read by nothing. Organizations are kept apart here by the repositories' SQL, which
 * names the organization first in every statement, and the tenancy suite runs every operation across
 * organizations on both databases.
 */
export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  /** Statements outside any transaction: a read's, one at a time on the one connection. */
  private readonly autocommit: Queryable;

  constructor(readonly pglite: PGlite) {
    this.autocommit = { query: (sql, params) => this.query(sql, params), exec: (sql) => this.exec(sql) };
  }

  static async open(options: { dataDir?: string; loadDataDir?: Blob | File }): Promise<PgliteDatabase> {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    const pglite = await PGlite.create(options.dataDir, options.loadDataDir ? { loadDataDir: options.loadDataDir } : {});
    return new PgliteDatabase(pglite);
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pglite.query<T>(sql, params)).rows;
  }

  async exec(sql: string): Promise<void> {
    await this.pglite.exec(sql);
  }

  async script<T>(sql: string): Promise<T[]> {
    return ((await this.pglite.exec(sql)).at(-1)?.rows ?? []) as T[];
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    // A read runs as autocommit statements, as on PostgreSQL: no BEGIN and COMMIT round trips into the
    // engine. Each statement waits for any transaction in progress (PGlite runs one thing at a time).
    if (options.readOnly && !options.snapshot) return work(this.autocommit);
    // PGlite has one connection; its transaction() holds it exclusively, so transactions are serial here.
    return this.pglite.transaction(async (tx) => {
      const hooks: (() => Promise<void>)[] = [];
      const q: Queryable = {
        query: async <R>(sql: string, params: unknown[] = []) => (await tx.query<R>(sql, params)).rows,
        exec: async (sql: string) => void (await tx.exec(sql)),
        beforeCommit: (hook) => void hooks.push(hook),
      };
      // Must be the transaction's first statement.
      if (options.snapshot) await q.exec(`set transaction ${SNAPSHOT}`);
      const result = await work(q);
      await runHooks(hooks);
      return result;
    });
  }

  async close(): Promise<void> {
    await this.pglite.close();
  }
}

/** How long opening a PostgreSQL connection, or waiting for a pooled one, may take before the request fails. */
export const DATABASE_CONNECT_TIMEOUT_MS = 15_000;

/**
 * Whether an error says the database could not be reached or the connection to it was lost (a restart, a
 * network fault, every connection busy past the timeout) rather than that the statement was refused: the
 * request can be retried once the database answers again. A transaction cut this way never committed,
 * except when the connection dropped after COMMIT was sent and before its answer came back; a retry with
 * the same Idempotency-Key then answers what that commit stored.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e !== 'object' || e === null) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  // SQLSTATE 08xxx connection exception; 57P01-57P03 the server shutting down, crashed or starting up;
  // 53300 too many connections.
  if (/^08[0-9A-Z]{3}$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/.test(message);
}

/** node-postgres prepares a named statement on a connection the first time it runs there, then reuses it. */
const statement = (text: string, values: unknown[], { name }: QueryOptions): pg.QueryConfig => (name === undefined ? { text, values } : { name, text, values });

/** A pooled connection remembers which organization its session is set to, so it is set only on change. */
type OrgScopedClient = pg.PoolClient & { firstcrackOrgId?: string };

export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;

  /**
   * `scoped` serves organization work: each connection's session carries app.org_id, set when the
   * connection is handed to another organization. `unscoped` never carries one, so a query outside an
   * organization can never see an organization's rows through a reused connection.
   */
  constructor(
    readonly scoped: pg.Pool,
    readonly unscoped: pg.Pool,
  ) {}

  static open(connectionString: string, poolSize = 20): PostgresDatabase {
    const make = (max: number) => {
      const pool = new pg.Pool({
        connectionString,
        max,
        // Bounds both opening a connection and waiting for a free one: with the database gone (a restart),
        // a request fails within this time (503, src/http/problems.ts) instead of hanging.
        connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
        // A server that vanished without closing its sockets (a host lost, a partition) is noticed by TCP.
        keepAlive: true,
      });
      // An idle client's error (server restart) must not crash the process; the next checkout reconnects.
      pool.on('error', () => {});
      return pool;
    };
    return new PostgresDatabase(make(poolSize), make(Math.max(2, Math.ceil(poolSize / 4))));
  }

  async query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<T[]> {
    return (await this.unscoped.query(statement(sql, params, options))).rows as T[];
  }

  async exec(sql: string): Promise<void> {
    await this.unscoped.query(sql);
  }

  async script<T>(sql: string): Promise<T[]> {
    // Several statements answer one result each; a single one, its result.
    const results = (await this.unscoped.query(sql)) as unknown as pg.QueryResult | pg.QueryResult[];
    return ((Array.isArray(results) ? results.at(-1) : results)?.rows ?? []) as T[];
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const client = (await (options.orgId ? this.scoped : this.unscoped).connect()) as OrgScopedClient;
    let broken = false;
    // A connection lost while checked out (a server restart) is emitted as 'error' on the client besides
    // failing its query; unheard, it would crash the process. The client is then discarded, not pooled.
    const lost = () => void (broken = true);
    client.on('error', lost);
    const autocommit = options.readOnly && !options.snapshot;
    const hooks: (() => Promise<void>)[] = [];
    const q: Queryable = {
      query: async <R>(sql: string, params: unknown[] = [], queryOptions: QueryOptions = {}) =>
        (await client.query(statement(sql, params, queryOptions))).rows as R[],
      exec: async (sql: string) => void (await client.query(sql)),
      // Autocommit statements have no commit to run anything before.
      ...(autocommit ? {} : { beforeCommit: (hook: () => Promise<void>) => void hooks.push(hook) }),
    };
    const switching = options.orgId !== undefined && client.firstcrackOrgId !== options.orgId;
    try {
      // A read runs as autocommit statements: no BEGIN/COMMIT round trips. Reads that must agree across
      // tables read them in one statement.
      if (autocommit) {
        if (switching) {
          // Outside any transaction: nothing can undo it behind the cache's back.
          await client.query(`select set_config('app.org_id', $1, false)`, [options.orgId]);
          client.firstcrackOrgId = options.orgId;
        }
        return await work(q);
      }
      const begin = options.snapshot ? `begin ${SNAPSHOT}` : 'begin';
      if (switching) {
        // BEGIN and the organization in one round trip (the simple protocol takes no parameters: the id
        // goes as a quoted literal). Session-level, so it outlasts the transaction, but a rollback undoes
        // it: the cache holds it only once committed, and forgets the connection's organization until then.
        client.firstcrackOrgId = undefined;
        await client.query(`${begin}; select set_config('app.org_id', ${client.escapeLiteral(options.orgId!)}, false)`);
      } else {
        await client.query(begin);
      }
      const result = await work(q);
      await runHooks(hooks);
      // A transaction aborted by a statement whose error work() caught answers COMMIT with ROLLBACK.
      const ended = await client.query('commit');
      if (switching && ended.command === 'COMMIT') client.firstcrackOrgId = options.orgId;
      return result;
    } catch (error) {
      if (!autocommit) {
        try {
          await client.query('rollback');
        } catch {
          broken = true;
        }
      }
      throw error;
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.scoped.end(), this.unscoped.end()]);
  }
}
