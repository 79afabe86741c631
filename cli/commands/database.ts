import {
  migrateToLatest,
  openKyselyStore,
  type OpenedKyselyStore,
  type OpenKyselyStoreOptions,
} from '../../stores/kysely/index.ts';
import { parseDatabaseUrl } from '../../stores/kysely/drivers/open-database.ts';
import { env } from '../flags.ts';
import type { CliIo } from '../io.ts';
import { UnreachableError } from '../unreachable-error.ts';
import { UsageError } from '../usage-error.ts';

export const DEFAULT_DATABASE = 'sqlite:./data/monitoring.db';

export function databaseUrl(flag: string | undefined, variables: CliIo['env']): string {
  const url = flag ?? env(variables, 'DATABASE_URL') ?? DEFAULT_DATABASE;
  try {
    parseDatabaseUrl(url);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return url;
}

/**
 * Opens the store and brings its schema up to date: every command works on a fresh database. The
 * one-shot commands gain nothing from prepared statements, so by default they send none, which
 * also keeps them working behind any pooler; `serve` says what it wants.
 */
export async function openMigrated(
  url: string,
  options: OpenKyselyStoreOptions = { preparedStatements: false },
): Promise<OpenedKyselyStore & { applied: string[] }> {
  let opened: OpenedKyselyStore;
  try {
    opened = await openKyselyStore(url, options);
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
