import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';

/**
 * Migration 0017: the channels' notification queue (docs/notifications.md, "Delivery"); forward
 * only.
 *
 * - `notifications`: one per event and channel that serves it, pending until its message is
 *   delivered, given up, or its channel disabled.
 * - `channel_queue`: per channel, its lease (the dispatcher claims a channel, not a notification)
 *   and the end of its grouping window. Apart from `channels`, so the dispatcher's writes leave
 *   the channels' change marker (migration 0005) alone.
 * - `channel_event_fanouts` and `channel_fanout_floor`: which outbox events were fanned out, as
 *   webhooks' (migration 0004). The floor starts at the newest event: an upgraded server does not
 *   send channels what happened before it.
 */
export function notifications(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema
        .createTable('notifications')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('channel_id', t.ref, (c) => c.notNull().references('channels.id').onDelete('cascade'))
        .addColumn('event_id', t.ref, (c) => c.notNull().references('events.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', t.stamp, (c) => c.notNull())
        .execute();
      // One per event and channel: the fan-out is idempotent through it.
      await db.schema
        .createIndex('notifications_identity')
        .unique()
        .on('notifications')
        .columns(['channel_id', 'event_id'])
        .execute();
      await sql`create index notifications_due on notifications (channel_id, next_attempt_at, id)
        where status = 'pending'`.execute(db);
      await db.schema.createIndex('notifications_event_id').on('notifications').column('event_id').execute();
      await addIdGuard(db, dialect, 'notifications');

      await db.schema
        .createTable('channel_queue')
        .addColumn('channel_id', t.ref, (c) => c.primaryKey().references('channels.id').onDelete('cascade'))
        .addColumn('next_message_at', t.stamp)
        .addColumn('lease_token', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', t.stamp)
        .execute();

      await db.schema
        .createTable('channel_event_fanouts')
        .addColumn('event_id', t.ref, (c) => c.primaryKey().references('events.id').onDelete('cascade'))
        .addColumn('fanned_out_at', t.stamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('channel_fanout_floor')
        .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('event_id', t.ref, (c) => c.notNull())
        .execute();
      await sql`insert into channel_fanout_floor (id, event_id)
        select 1, coalesce(max(id), 0) from events`.execute(db);
    },

    async down() {
      throw new Error('migration 0017_notifications cannot be undone');
    },
  };
}
