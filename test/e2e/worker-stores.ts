/**
 * One database seen by several workers. On PostgreSQL each worker has its own store (its own
 * pool), as separate `monitoring-api worker` processes would: a fresh database of the file's own.
 *
 * On SQLite the workers share one store (one connection), as the engine and the API of
 * `serve --worker` do. Separate connections to one file cannot share a process: node:sqlite
 * is synchronous, so a connection waiting out `busy_timeout` for the write lock blocks the very
 * event loop the lock holder needs to commit, and fails with SQLITE_BUSY after 5 s. Several
 * processes on one SQLite file are not a configuration docs/engine.md §3 offers ("on SQLite one
 * process claims under the write lock"). The memory store can only be shared.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { MemoryStore, type Store } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase } from '../support/postgres.ts';
import type { StoreName } from '../support/stores.ts';

export interface WorkerStores {
  /** `stores[0]` serves the API; every one serves a worker. */
  stores: Store[];
  /** Outbox rows by `type`, read straight from the database; undefined for the memory store. */
  eventCounts?(): Promise<Record<string, number>>;
  cleanup(): Promise<void>;
}

export async function openWorkerStores(name: StoreName, count: number): Promise<WorkerStores> {
  if (name === 'memory') {
    const store = new MemoryStore();
    return { stores: Array.from({ length: count }, () => store), cleanup: () => store.close() };
  }
  let url: string;
  let drop: () => Promise<void>;
  if (name === 'postgres') {
    const database = await createTestDatabase({ migrated: true });
    if (database.skip !== undefined) throw new Error(database.skip);
    url = database.url;
    drop = () => database.drop();
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'monitoring-api-e2e-'));
    url = `sqlite:${join(dir, 'workers.db')}`;
    drop = () => rm(dir, { recursive: true, force: true });
  }
  const opened: Awaited<ReturnType<typeof openKyselyStore>>[] = [];
  try {
    const connections = name === 'postgres' ? count : 1;
    for (let i = 0; i < connections; i++)
      opened.push(await openKyselyStore(url, { poolSize: 4, onPoolError: () => {} }));
    await migrateToLatest(opened[0]!.db);
  } catch (error) {
    for (const { store } of opened) await store.close();
    await drop();
    throw error;
  }
  const db = opened[0]!.db;
  return {
    stores: Array.from({ length: count }, (_, i) => opened[i % opened.length]!.store),
    async eventCounts() {
      const { rows } = await sql<{
        type: string;
        n: number | string;
      }>`select type, count(*) as n from events group by type`.execute(db);
      return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
    },
    async cleanup() {
      for (const { store } of opened) await store.close();
      await drop();
    },
  };
}
