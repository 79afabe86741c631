import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { StoreDialect } from '../schema.ts';

/**
 * Makes inserts into a table fail once its id would pass 2^53-1, as migration 0002 does for the
 * first tables: ids are answered as JSON numbers, so a row past that could be neither read back
 * exactly nor named again. PostgreSQL: a check (NOT VALID, so rows already there are left alone).
 * SQLite: a trigger after the insert, when the id is known, aborting the statement.
 */
export async function addIdGuard(db: Kysely<unknown>, dialect: StoreDialect, table: string): Promise<void> {
  const max = sql.lit(Number.MAX_SAFE_INTEGER);
  const guard = sql.id(`${table}_id_safe`);
  if (dialect === 'postgres') {
    await sql`alter table ${sql.table(table)} add constraint ${guard} check (id <= ${max}) not valid`.execute(db);
  } else {
    await sql`create trigger ${guard} after insert on ${sql.table(table)} when new.id > ${max}
      begin select raise(abort, ${sql.lit(`${table}.id beyond 2^53-1`)}); end`.execute(db);
  }
}

export async function dropIdGuard(db: Kysely<unknown>, dialect: StoreDialect, table: string): Promise<void> {
  const guard = sql.id(`${table}_id_safe`);
  if (dialect === 'postgres') await sql`alter table ${sql.table(table)} drop constraint ${guard}`.execute(db);
  else await sql`drop trigger ${guard}`.execute(db);
}
