import type { StoreDialect } from '../schema.ts';
import { POSTGRES_SQL } from './postgres-sql.ts';
import { SQLITE_SQL } from './sqlite-sql.ts';
import type { StoreSql } from './store-sql.ts';

/** The SQL pieces (store-sql.ts) of `dialect`. */
export function sqlOf(dialect: StoreDialect): StoreSql {
  return dialect === 'postgres' ? POSTGRES_SQL : SQLITE_SQL;
}
