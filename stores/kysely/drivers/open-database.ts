import { dirname, resolve } from 'node:path';
import { Kysely, sql } from 'kysely';
import type { Dialect } from 'kysely';
import type { ChangeFeed } from '../../../core/internal.ts';
import { KyselyStore } from '../kysely-store.ts';
import type { KyselyStoreOptions } from '../store-context.ts';
import { makeDirectories } from './make-directories.ts';
import { apiTimestampTypes } from './pg-timestamps.ts';
import type { Database, StoreDialect } from '../schema.ts';
import type { OpenedSqlite } from './sqlite-pragmas.ts';

export const ACCEPTED_DATABASE_URLS = 'postgres://..., postgresql://..., sqlite:PATH or sqlite::memory:';

export interface OpenKyselyStoreOptions {
  /** Most PostgreSQL connections held at once (default 10). SQLite always has one. */
  poolSize?: number;
  /** Errors of idle PostgreSQL connections (a server restart, say); default: one line on stderr. */
  onPoolError?: (error: Error) => void;
  /**
   * PostgreSQL: the connection that hears other processes' changes (docs/status-pages.md,
   * "Several instances") was lost, told once per outage; default: one line on stderr. Until it is
   * back, status answers are read afresh.
   */
  onChangesLost?: (error: Error) => void;
  /** PostgreSQL: that connection is back after an outage told by onChangesLost. */
  onChangesBack?: () => void;
  /**
   * Whether PostgreSQL statements are prepared once per connection (default true). Turn it off
   * behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode before
   * 1.21, or without max_prepared_statements).
   */
  preparedStatements?: boolean;
  /**
   * PostgreSQL: how long a query may take before its request fails (default 12 s). The server
   * cancels the statement at five sixths of it (10 s by default), cleanly; the client gives up at
   * the full time, which also covers a server that stopped answering altogether.
   */
  queryTimeoutMs?: number;
  /** PostgreSQL: how long getting a connection may take, new or from a full pool (default 5 s). */
  connectionTimeoutMs?: number;
}

/** The PostgreSQL timeouts, for a host that must outlast them (a shutdown's deadline, say). */
export const POSTGRES_TIMEOUTS = { queryTimeoutMs: 12_000, connectionTimeoutMs: 5_000 } as const;

function timeoutOption(value: number | undefined, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (!Number.isSafeInteger(ms) || ms < 1)
    throw new Error(`${name} must be a positive integer of milliseconds, not ${ms}`);
  return ms;
}

export interface OpenedKyselyStore {
  store: KyselyStore;
  db: Kysely<Database>;
  dialect: StoreDialect;
}

type DatabaseTarget =
  { dialect: 'postgres'; url: string; label: string } | { dialect: 'sqlite'; path: string; label: string };

/** Reads a database URL; throws a one-line Error naming the accepted forms for anything else. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', url, label: postgresLabel(url) };
  if (url.startsWith('sqlite:')) {
    const rest = url.slice('sqlite:'.length);
    if (rest === ':memory:') return { dialect: 'sqlite', path: ':memory:', label: 'SQLite in memory' };
    if (rest === '') throw new Error(`the database URL "sqlite:" names no file; use ${ACCEPTED_DATABASE_URLS}`);
    const path = resolve(rest);
    return { dialect: 'sqlite', path, label: `SQLite file ${path}` };
  }
  // Only the scheme is repeated: the rest of a URL may carry a password.
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  const named = scheme === undefined ? 'this database URL is' : `the database URL scheme "${scheme}" is`;
  throw new Error(`${named} not supported; use ${ACCEPTED_DATABASE_URLS}`);
}

/** Names a PostgreSQL server for error messages, leaving out the credentials. */
function postgresLabel(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname === '' ? 'localhost' : parsed.hostname;
    return `PostgreSQL at ${host}:${parsed.port === '' ? '5432' : parsed.port}${parsed.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

async function postgresDialect(
  url: string,
  options: OpenKyselyStoreOptions,
): Promise<{ dialect: Dialect; listen: KyselyStoreOptions['listenForChanges'] }> {
  const poolSize = options.poolSize ?? 10;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1) {
    throw new Error(`poolSize must be a positive integer, not ${poolSize}`);
  }
  const queryTimeoutMs = timeoutOption(options.queryTimeoutMs, POSTGRES_TIMEOUTS.queryTimeoutMs, 'queryTimeoutMs');
  const connectionTimeoutMs = timeoutOption(
    options.connectionTimeoutMs,
    POSTGRES_TIMEOUTS.connectionTimeoutMs,
    'connectionTimeoutMs',
  );
  // Imported on demand so a SQLite-only deployment never loads the PostgreSQL driver.
  const [{ default: pg }, { PgDialect }, { PgChangeListener }] = await Promise.all([
    import('pg'),
    import('./pg-dialect.ts'),
    import('./pg-change-listener.ts'),
  ]);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // An unreachable or overloaded server must produce an error, never a request that hangs.
    connectionTimeoutMillis: connectionTimeoutMs,
    // Two bounds, both pg's documented settings. The server's statement_timeout, at five sixths,
    // cancels a slow statement cleanly and keeps the connection. pg's query_timeout, at the full
    // time, is the client's own: it also ends the wait on a server that stopped answering
    // altogether, where no server-side bound can help; the connection whose answer it gave up on
    // is then closed and replaced (PgConnection).
    statement_timeout: Math.max(1, Math.floor((queryTimeoutMs * 5) / 6)),
    query_timeout: queryTimeoutMs,
    application_name: 'monitoring-api',
    types: apiTimestampTypes(pg.types),
  });
  const onPoolError =
    options.onPoolError ??
    ((error: Error) => console.error(`monitoring-api: idle PostgreSQL connection failed: ${error.message}`));
  // Without a listener, an idle client's error (server restart, network cut) is an uncaught
  // 'error' event and ends the process. The pool drops that client and connects anew later.
  pool.on('error', onPoolError);
  // The pool listens only to its idle clients. A client checked out for a query whose connection
  // fails (reset, server restart, terminated backend) also emits 'error' on itself, with no
  // listener, which would end the process (test/hardening/postgres-faults.test.ts). That error
  // has been handed to the client's queries already (a 500 for the request) and the pool discards
  // the client on release, so the event only needs a listener; idle errors still reach onPoolError.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const dialect = new PgDialect(pool, {
    preparedStatements: options.preparedStatements !== false,
    serverError: pg.DatabaseError,
  });
  const listen = (feed: ChangeFeed) =>
    new PgChangeListener(feed, {
      client: () =>
        new pg.Client({
          connectionString: url,
          connectionTimeoutMillis: connectionTimeoutMs,
          // Bounds the LISTEN connection's probe (pg-change-listener.ts) as any query is bounded.
          query_timeout: queryTimeoutMs,
          keepAlive: true,
          application_name: 'monitoring-api listen',
        }),
      onLost:
        options.onChangesLost ??
        ((error) => console.error(`monitoring-api: PostgreSQL change notifications lost: ${error.message}`)),
      ...(options.onChangesBack === undefined ? {} : { onBack: options.onChangesBack }),
    });
  return { dialect, listen };
}

/**
 * One `sqlite:` URL, the driver built into the runtime at hand: bun:sqlite on Bun, node:sqlite on
 * Node and Deno. Each is imported on demand, so no runtime loads the other's module.
 */
async function sqliteDialect(path: string): Promise<OpenedSqlite<Dialect>> {
  if ('Bun' in globalThis) return (await import('./sqlite-bun.ts')).openBunSqliteDialect(path);
  return (await import('./sqlite-node.ts')).openNodeSqliteDialect(path);
}

function describeError(error: unknown): string {
  // Node reports a refused connection to a name with several addresses (localhost: ::1 and
  // 127.0.0.1) as an AggregateError whose own message is empty.
  if (error instanceof AggregateError && error.message === '') {
    return [...new Set(error.errors.map(describeError))].join('; ');
  }
  if (error instanceof Error) {
    if (error.message !== '') return error.message;
    if ('code' in error && typeof error.code === 'string') return error.code;
    return error.name;
  }
  return String(error);
}

/**
 * Runs `select 1`: proves the database answers, or throws an Error saying which one did not and
 * why. The PostgreSQL pool's connection timeout bounds how long this takes.
 */
export async function checkConnection(db: Kysely<Database>, label = 'the database'): Promise<void> {
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    throw new Error(`cannot connect to ${label}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Opens the store a database URL names and checks that the database answers. The schema is not
 * touched: run `migrateToLatest(db)` for that. `store.close()` releases the pool or file.
 */
export async function openKyselyStore(url: string, options: OpenKyselyStoreOptions = {}): Promise<OpenedKyselyStore> {
  const target = parseDatabaseUrl(url);
  let dialect: Dialect;
  let dataVersion: (() => number) | undefined;
  let listenForChanges: KyselyStoreOptions['listenForChanges'];
  if (target.dialect === 'postgres') {
    ({ dialect, listen: listenForChanges } = await postgresDialect(target.url, options));
  } else {
    try {
      if (target.path !== ':memory:') makeDirectories(dirname(target.path));
      ({ dialect, dataVersion, listenForChanges } = await sqliteDialect(target.path));
    } catch (error) {
      throw new Error(`cannot open ${target.label}: ${describeError(error)}`, { cause: error });
    }
  }
  const db = new Kysely<Database>({ dialect });
  try {
    await checkConnection(db, target.label);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
  const store = new KyselyStore(db, target.dialect, { dataVersion, listenForChanges });
  return { store, db, dialect: target.dialect };
}
