/**
 * The run's migrated template database (docs/development.md, "Tests"). A PostgreSQL store in the
 * tests is a fresh database with the schema migrated; copying a migrated template costs
 * PostgreSQL about as much as creating an empty database, while migrating each copy cost a tenth
 * of a second of CPU more, some sixty times a run. `npm test` makes the template once, before the
 * suites, names it to them in TEST_POSTGRES_TEMPLATE and drops it after them.
 */
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase } from './postgres.ts';

export interface MigratedTemplate {
  /** The database's name, for `create database … template <name>`. */
  name: string;
  drop(): Promise<void>;
}

/**
 * Makes the template, or resolves undefined when PostgreSQL cannot be reached: the suites then
 * migrate their own databases, and skip or fail as they always do.
 */
export async function createMigratedTemplate(): Promise<MigratedTemplate | undefined> {
  const database = await createTestDatabase().catch(() => undefined);
  if (database === undefined || database.skip !== undefined) return undefined;
  try {
    // Nothing may stay connected to a template while it is copied: the store is closed at once.
    const { store, db } = await openKyselyStore(database.url, { poolSize: 1 });
    try {
      await migrateToLatest(db);
    } finally {
      await store.close();
    }
  } catch (error) {
    await database.drop();
    throw error;
  }
  // Any database can be copied by its owner, as the test processes' role is (it made this one).
  return { name: decodeURIComponent(new URL(database.url).pathname.slice(1)), drop: () => database.drop() };
}
