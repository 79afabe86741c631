export { KyselyStore } from './kysely-store.ts';
export type { KyselyStoreOptions } from './kysely-store.ts';
export { migrateToLatest } from './migrations.ts';
export { openKyselyStore, POSTGRES_TIMEOUTS } from './drivers/open-database.ts';
export type { OpenedKyselyStore, OpenKyselyStoreOptions } from './drivers/open-database.ts';
export type { Database, StoreDialect } from './schema.ts';
