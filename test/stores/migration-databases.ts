import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import type { Database, StoreDialect } from '../../stores/kysely/index.ts';
import { migrations } from '../../stores/kysely/migrations.ts';
import { createTestDatabase } from '../support/postgres.ts';

/** An empty database a migration test makes and removes, or why it cannot run here. */
export type MigrationDatabase = { url: string; remove(): Promise<void> } | { skip: string };

/**
 * A maker of an empty database of each kind, for a test that migrates one part of the way, writes
 * rows as an older release would, and migrates on: a SQLite file in a folder of its own
 * (`monitoring-<name>-...`), and a PostgreSQL database of its own, skipped where none is reachable
 * (except under CI=true, where that fails).
 */
export function migrationDatabases(name: string): Record<'sqlite' | 'postgres', () => Promise<MigrationDatabase>> {
  return {
    async sqlite() {
      const dir = await mkdtemp(join(tmpdir(), `monitoring-${name}-`));
      return { url: `sqlite:${join(dir, 'old.db')}`, remove: () => rm(dir, { recursive: true, force: true }) };
    },
    async postgres() {
      const database = await createTestDatabase();
      if (database.skip !== undefined) return { skip: database.skip };
      return { url: database.url, remove: () => database.drop() };
    },
  };
}

/**
 * Applies the package's migrations named before `first` (`0019`, or `0019_heartbeat_channels`), as
 * an older release left the database.
 */
export async function migrateBefore(db: Kysely<Database>, dialect: StoreDialect, first: string): Promise<void> {
  const before = Object.fromEntries(Object.entries(migrations(dialect)).filter(([name]) => name < first));
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest();
  assert.equal(error, undefined);
}
