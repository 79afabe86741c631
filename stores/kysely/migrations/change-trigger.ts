import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Makes a change-marker trigger of migration 0005 (`<table>_count_change`, PostgreSQL) again on
 * the columns it counts now, less `next_check_at` (which claims write and no answer shows), and
 * with the columns `added`: columns an earlier migration added to it stay counted.
 */
export async function rewriteCountTrigger(db: Kysely<unknown>, table: string, added: readonly string[]): Promise<void> {
  const trigger = `${table}_count_change`;
  const { rows } = await sql<{ name: string }>`
    select a.attname as name
    from pg_trigger t
    cross join lateral unnest(cast(t.tgattr as int2[])) with ordinality as c (attnum, n)
    join pg_attribute a on a.attrelid = t.tgrelid and a.attnum = c.attnum
    where t.tgname = ${trigger} and t.tgrelid = cast(${table} as regclass)
    order by c.n`.execute(db);
  const columns = [...rows.map((row) => row.name).filter((name) => name !== 'next_check_at'), ...added];
  if (columns.length === 0) return;
  await sql`drop trigger ${sql.id(trigger)} on ${sql.table(table)}`.execute(db);
  await sql`create trigger ${sql.id(trigger)} after insert or delete or update of ${sql.join(columns.map((c) => sql.id(c)))}
    on ${sql.table(table)} for each statement execute function count_change()`.execute(db);
}
