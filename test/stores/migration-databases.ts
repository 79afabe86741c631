import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
