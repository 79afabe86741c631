import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore, parseDatabaseUrl, type OpenedKyselyStore } from '../stores/kysely/index.ts';
import { UnreachableError, UsageError } from './usage-error.ts';

export const DEFAULT_DATABASE = 'sqlite:./data/monitoring.db';

export function databaseUrl(flag: string | undefined): string {
  const url = flag ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE;
  try {
    parseDatabaseUrl(url);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return url;
}

/** Opens the store and brings its schema up to date: every command works on a fresh database. */
export async function openMigrated(url: string): Promise<OpenedKyselyStore & { applied: string[] }> {
  let opened: OpenedKyselyStore;
  try {
    opened = await openKyselyStore(url);
  } catch (error) {
    throw new UnreachableError((error as Error).message);
  }
  try {
    const applied = await migrateToLatest(opened.db, opened.dialect);
    return { ...opened, applied };
  } catch (error) {
    await opened.store.close();
    throw new UnreachableError(`cannot migrate the database: ${(error as Error).message}`);
  }
}

export async function hasUsers(opened: OpenedKyselyStore): Promise<boolean> {
  const row = await sql<{ found: number }>`select 1 as found from users limit 1`.execute(opened.db);
  return row.rows.length > 0;
}
