/**
 * The stores every API suite runs against: the in-process memory store, SQLite (a temporary file)
 * and PostgreSQL (a fresh database of its own, dropped afterwards).
 *
 * PostgreSQL that cannot be reached skips its suites with the reason, except when CI=true, where
 * `availableStores()` rejects, so the test file fails instead of passing without it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { MemoryStore, type Store } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase, probePostgres } from './postgres.ts';
import { HANG_GUARD_MS } from './hang-guard.ts';

export type StoreName = 'memory' | 'sqlite' | 'postgres';

export interface OpenedStore {
  store: Store;
  cleanup(): Promise<void>;
  /** Runs one raw SQL statement on a database-backed store (to break its schema on purpose). */
  execute?(statement: string): Promise<void>;
}

export interface StoreFactory {
  name: StoreName;
  /** Set when the store cannot run here: its suites are skipped with this reason. */
  skip?: string;
  /** A new, empty store with its schema migrated. */
  open(): Promise<OpenedStore>;
  /**
   * A new, empty store whose schema was never migrated; undefined for stores without a schema.
   * Used to check that a missing schema is answered 500 `missing_table`.
   */
  openUnmigrated?(): Promise<OpenedStore>;
}

const memory: StoreFactory = {
  name: 'memory',
  async open() {
    const store = new MemoryStore();
    return { store, cleanup: () => store.close() };
  },
};

async function openSqlite(migrate: boolean): Promise<OpenedStore> {
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-api-test-'));
  try {
    const { store, db } = await openKyselyStore(`sqlite:${join(dir, 'test.db')}`);
    if (migrate) await migrateToLatest(db);
    return {
      store,
      async cleanup() {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
      async execute(statement) {
        await sql.raw(statement).execute(db);
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

const sqlite: StoreFactory = {
  name: 'sqlite',
  open: () => openSqlite(true),
  openUnmigrated: () => openSqlite(false),
};

async function openPostgres(migrate: boolean): Promise<OpenedStore> {
  const database = await createTestDatabase({ migrated: migrate });
  if (database.skip !== undefined) throw new Error(database.skip);
  let closing = false;
  // pg's Pool.end() resolves before its sockets are gone, so dropping the database right after
  // may terminate a connection that is already on its way out: expected then, and not worth a line.
  const onPoolError = (error: Error) => {
    if (!closing) console.error(`test PostgreSQL pool: idle connection failed: ${error.message}`);
  };
  try {
    // No bound but the hang guard on getting a connection or a query's answer: a busy machine makes
    // both slow, and a test about those bounds opens its own store with them.
    const { store, db } = await openKyselyStore(database.url, {
      poolSize: 10,
      onPoolError,
      connectionTimeoutMs: HANG_GUARD_MS,
      queryTimeoutMs: HANG_GUARD_MS,
    });
    try {
      if (migrate) await migrateToLatest(db);
    } catch (error) {
      await store.close();
      throw error;
    }
    return {
      store,
      async cleanup() {
        closing = true;
        await store.close();
        await database.drop();
      },
      async execute(statement) {
        await sql.raw(statement).execute(db);
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

const postgres: StoreFactory = {
  name: 'postgres',
  open: () => openPostgres(true),
  openUnmigrated: () => openPostgres(false),
};

let probed: Promise<StoreFactory[]> | undefined;

/**
 * The store factories, PostgreSQL marked `skip` when its server is unreachable or will not let us
 * create databases (outside CI: there, probePostgres throws, and that must fail the run).
 */
export function availableStores(): Promise<StoreFactory[]> {
  probed ??= (async () => {
    const probe = await probePostgres();
    if (probe.skip !== undefined) {
      const reason = `skipped: ${probe.skip} (set CI=true to make this a failure)`;
      console.warn(`[test/support/stores] PostgreSQL suites ${reason}`);
      return [memory, sqlite, { ...postgres, skip: reason }];
    }
    return [memory, sqlite, postgres];
  })();
  return probed;
}

/** Every store factory, PostgreSQL included unconditionally (for callers that probe themselves). */
export const STORE_FACTORIES: readonly StoreFactory[] = [memory, sqlite, postgres];

/**
 * A fresh, empty SQL database of `kind` for tests that open their own stores on it (two stores on
 * one database stand for two processes): its URL and `remove`. PostgreSQL that cannot be reached
 * gives `skip`, except under CI=true, where it rejects.
 */
export async function freshSqlDatabase(
  kind: 'sqlite' | 'postgres',
): Promise<{ url: string; remove(): Promise<void> } | { skip: string }> {
  if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'monitoring-api-test-'));
    return { url: `sqlite:${join(dir, 'test.db')}`, remove: () => rm(dir, { recursive: true, force: true }) };
  }
  const database = await createTestDatabase();
  if (database.skip !== undefined) {
    if (process.env.CI === 'true') throw new Error(database.skip);
    return { skip: database.skip };
  }
  return { url: database.url, remove: () => database.drop() };
}
