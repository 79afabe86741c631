import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';

/**
 * Migration 0016: status pages and their notices (docs/status-pages.md); forward only.
 *
 * - `status_pages`: a page of a user. `slug` and `hostname` are unique across all users, by
 *   unique indexes, so that two concurrent creates of one slug make one page (a null hostname is
 *   no hostname: both databases let several rows hold null under a unique index). Components are
 *   JSON, naming their records by id as maintenance windows do: a deleted device simply shows as
 *   not monitored. The public routes find a page by its slug or hostname through these indexes.
 * - `status_page_notices`: what the owner writes on a page, with its updates as JSON (appended by
 *   a compare-and-set on the column, so two concurrent appends both land). Deleted with its page
 *   (and its user). An index on the page's id and its own finds the notices a page shows, newest first.
 *
 * No list answer of either is kept (docs/architecture.md, "Caches"), so the change marker's
 * triggers (migration 0005) are left as they are.
 */
export function statusPages(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      // The foreign keys lock `users` briefly: wait at most 2 s for it, as 0013 does (docs/operations.md).
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema
        .createTable('status_pages')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('components', 'text', (c) => c.notNull())
        .addColumn('history_days', 'integer', (c) => c.notNull())
        .addColumn('time_zone', 'text', (c) => c.notNull())
        .addColumn('show_response_times', t.flag, (c) => c.notNull())
        .addColumn('show_targets', t.flag, (c) => c.notNull())
        .addColumn('hostname', 'text')
        .addColumn('is_public', t.flag, (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('updated_at', t.stamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('status_pages_slug').on('status_pages').column('slug').unique().execute();
      await db.schema.createIndex('status_pages_hostname').on('status_pages').column('hostname').unique().execute();
      await db.schema.createIndex('status_pages_user_id_id').on('status_pages').columns(['user_id', 'id']).execute();
      await addIdGuard(db, dialect, 'status_pages');

      await db.schema
        .createTable('status_page_notices')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('status_page_id', t.ref, (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('impact', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        // JSON: a list of indexes into the page's components.
        .addColumn('component_indexes', 'text', (c) => c.notNull())
        // JSON: a list of {status, message, at}, oldest first.
        .addColumn('updates', 'text', (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('updated_at', t.stamp, (c) => c.notNull())
        .addColumn('resolved_at', t.stamp)
        .execute();
      await db.schema
        .createIndex('status_page_notices_page_id')
        .on('status_page_notices')
        .columns(['status_page_id', 'id'])
        .execute();
      await db.schema
        .createIndex('status_page_notices_user_id_id')
        .on('status_page_notices')
        .columns(['user_id', 'id'])
        .execute();
      await addIdGuard(db, dialect, 'status_page_notices');
    },

    async down() {
      throw new Error('migration 0016_status_pages cannot be undone');
    },
  };
}
