import { sql } from 'kysely';
import type { StoreSql } from './store-sql.ts';

/** PostgreSQL's spelling of the store's SQL pieces (store-sql.ts). */
export const POSTGRES_SQL: StoreSql = {
  parameter: (n) => `$${n}`,
  same: 'is not distinct from',
  forUpdate: ' for update',
  skipLocked: (alias) => (alias === undefined ? ' for update skip locked' : ` for update of ${alias} skip locked`),
  stamp: (text) => sql`cast(${text} as timestamptz)`,
  ago: (ms) => (ms === 0 ? sql`now()` : sql`now() - ${ms} * interval '1 millisecond'`),
  flag: (value) => value,
  rowKey: 'ctid',
};
