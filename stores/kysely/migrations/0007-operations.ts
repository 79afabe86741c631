import { sql } from 'kysely';
import type { Migration } from 'kysely';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';
import type { StoreDialect } from '../schema.ts';

/**
 * What operating the engine needs of the schema; forward only.
 *
 * - `check_results.check_id`: the check a result row belongs to, the same for every row of one
 *   check. Checks take their ids from a counter of their own (a sequence on PostgreSQL, the one
 *   row of `check_id_counter` on SQLite) that starts above every result id already stored, so
 *   the rows written before this migration, which have no check id, can answer their own id as
 *   one without meeting a later check's.
 * - `webhooks.last_delivery_error` and `webhooks.failing_since`: why the last attempt failed,
 *   and since when attempts have been failing.
 * - `webhook_attempts`: one row per delivery attempt, what `GET /webhooks/deliveries` lists. The
 *   event's type is kept with it, so an attempt still reads whole after its event is gone.
 */
export function operations(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      await db.schema.alterTable('check_results').addColumn('check_id', t.ref).execute();
      if (dialect === 'postgres') {
        await sql`create sequence check_ids as bigint`.execute(db);
        await sql`select setval('check_ids', coalesce((select max(id) from check_results), 0) + 1, false)`.execute(db);
      } else {
        await db.schema
          .createTable('check_id_counter')
          .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
          .addColumn('last', t.ref, (c) => c.notNull())
          .execute();
        await sql`insert into check_id_counter (id, last)
          select 1, coalesce(max(id), 0) from check_results`.execute(db);
      }

      await db.schema.alterTable('webhooks').addColumn('last_delivery_error', 'text').execute();
      await db.schema.alterTable('webhooks').addColumn('failing_since', t.stamp).execute();
      await db.schema
        .createTable('webhook_attempts')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('webhook_id', t.ref, (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('event_id', t.ref, (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('attempted_at', t.stamp, (c) => c.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer')
        .execute();
      // An endpoint's attempts page newest first.
      await db.schema
        .createIndex('webhook_attempts_webhook')
        .on('webhook_attempts')
        .columns(['webhook_id', 'id'])
        .execute();
      await addIdGuard(db, dialect, 'webhook_attempts');
    },
  };
}
