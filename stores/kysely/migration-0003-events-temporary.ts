import type { Migration } from 'kysely';
import { primaryKey, TYPES } from './migrations.ts';
import type { StoreDialect } from './schema.ts';

/**
 * TEMPORARY, for the webhook work only: the `events` outbox as the store's migration 0003 creates
 * it (id, user_id, type, resource_kind, resource_id, created_at, data as JSON text), so that
 * migration 0004_webhooks and its tests have a table to refer to. Migration 0003 replaces it at
 * the merge: delete this file and its line in migrations.ts then.
 */
export function temporaryEvents(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      await db.schema.createTable('events')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('resource_kind', 'text', (c) => c.notNull())
        .addColumn('resource_id', t.ref, (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
