import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { rewriteCountTrigger } from './change-trigger.ts';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';

/** Every event type before this migration, and after it, in the order webhooks store them. */
const EVERY_BEFORE = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'device.location_failing',
  'blacklist.listed',
  'blacklist.delisted',
  'device.paused',
  'device.resumed',
  'blacklist_monitor.paused',
  'blacklist_monitor.resumed',
  'device.maintenance_started',
  'device.maintenance_ended',
];
const EVERY_AFTER = [...EVERY_BEFORE, 'channel.disabled'];

/**
 * Migration 0014: channels (docs/notifications.md); forward only.
 *
 * - `channels`: a user's channels, each `config` a JSON object kept whole (its secrets
 *   included: sending needs them, so they cannot be hashed as API tokens are) and its `events` a
 *   JSON list.
 * - `channel_attempts`: one row per attempt to send a channel a message, what
 *   `GET /channels/deliveries` lists; the events it told of are kept with it (`event_ids`,
 *   `event_types`, JSON lists), so an attempt still reads whole after its events are gone.
 * - `devices` and `blacklist_monitors` gain `name` and `channel_ids` (a JSON list of channel ids;
 *   null is every default channel), null for every existing record: each keeps being told through
 *   its user's default channels, and named by its target.
 * - Webhooks that receive every event type receive `channel.disabled` too.
 *
 * On PostgreSQL the change marker (migration 0005) counts writes to channels and to the new
 * columns, which lists and answers show.
 */
export function channels(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema
        .createTable('channels')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('is_default', t.flag, (c) => c.notNull())
        .addColumn('remind_every_s', 'integer')
        .addColumn('escalate_after_s', 'integer')
        .addColumn('send_recovery', t.flag, (c) => c.notNull())
        .addColumn('is_enabled', t.flag, (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('last_delivery_at', t.stamp)
        .addColumn('last_delivery_status', 'text')
        .addColumn('last_delivery_error', 'text')
        .addColumn('failing_since', t.stamp)
        .addColumn('disabled_reason', 'text')
        .execute();
      await db.schema.createIndex('channels_user_id_id').on('channels').columns(['user_id', 'id']).execute();
      await addIdGuard(db, dialect, 'channels');

      await db.schema
        .createTable('channel_attempts')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('channel_id', t.ref, (c) => c.notNull().references('channels.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('event_ids', 'text', (c) => c.notNull())
        .addColumn('event_types', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('attempted_at', t.stamp, (c) => c.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer')
        .execute();
      // A channel's attempts page newest first.
      await db.schema
        .createIndex('channel_attempts_channel')
        .on('channel_attempts')
        .columns(['channel_id', 'id'])
        .execute();
      await addIdGuard(db, dialect, 'channel_attempts');

      for (const table of ['devices', 'blacklist_monitors']) {
        await db.schema.alterTable(table).addColumn('name', 'text').execute();
        await db.schema.alterTable(table).addColumn('channel_ids', 'text').execute();
      }
      await sql`update webhooks set events = ${JSON.stringify(EVERY_AFTER)}
        where events = ${JSON.stringify(EVERY_BEFORE)}`.execute(db);

      if (dialect === 'postgres') {
        await rewriteCountTrigger(db, 'devices', ['name', 'channel_ids']);
        await rewriteCountTrigger(db, 'blacklist_monitors', ['name', 'channel_ids']);
        await sql`create trigger channels_count_change after insert or delete or update
          on channels for each statement execute function count_change()`.execute(db);
      }
    },

    async down() {
      throw new Error('migration 0014_channels cannot be undone');
    },
  };
}
