export { KyselyStore } from './kysely-store.ts';
export type { KyselyStoreOptions } from './kysely-store.ts';
export { migrateToLatest } from './migrations.ts';
export { openKyselyStore, POSTGRES_TIMEOUTS } from './open-database.ts';
export type { OpenedKyselyStore, OpenKyselyStoreOptions } from './open-database.ts';
export type { Database, StoreDialect } from './schema.ts';
