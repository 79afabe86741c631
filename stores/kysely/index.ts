export { KyselyStore } from './kysely-store.ts';
export type { KyselyStoreOptions } from './kysely-store.ts';
export { migrateToLatest, migrations, StoreMigrationProvider } from './migrations.ts';
export { ACCEPTED_DATABASE_URLS, checkConnection, openKyselyStore, parseDatabaseUrl, POSTGRES_TIMEOUTS } from './open-database.ts';
export type { OpenedKyselyStore, OpenKyselyStoreOptions } from './open-database.ts';
export { dialectOf } from './schema.ts';
export type { Database, StoreDialect } from './schema.ts';
