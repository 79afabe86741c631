import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { TYPES } from './column-types.ts';

/**
 * Migration 0018: acknowledgements, reminders and escalations (docs/notifications.md,
 * "Reminders, escalation and acknowledgement"); forward only.
 *
 * - `incidents` gains `acknowledged_at` and `acknowledged_by` (the API key's id; no reference, so
 *   deleting a key leaves the record of who acknowledged).
 * - `notifications` gains `reason` (`event`, `escalation`, `reminder`, `acknowledgement`), `seq`
 *   (a reminder's number) and `due_at` (when it was scheduled; retries move `next_attempt_at`,
 *   never it). Their identity becomes (channel, event, reason, seq): a reminder or an
 *   acknowledgement of an incident is a notification of the event that opened it, inserted once
 *   whichever worker inserts it.
 * - `events_record`: a record's events of a type, by id, so the event that opened an incident is
 *   found (by an acknowledgement, by a recovery to an escalating channel) without reading the
 *   whole outbox, which keeps every event.
 */
export function acknowledgements(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema.alterTable('incidents').addColumn('acknowledged_at', t.stamp).execute();
      await db.schema.alterTable('incidents').addColumn('acknowledged_by', t.ref).execute();
      await db.schema
        .alterTable('notifications')
        .addColumn('reason', 'text', (c) => c.notNull().defaultTo('event'))
        .execute();
      await db.schema
        .alterTable('notifications')
        .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('notifications').addColumn('due_at', t.stamp).execute();
      await db.schema.dropIndex('notifications_identity').execute();
      await db.schema
        .createIndex('notifications_identity')
        .unique()
        .on('notifications')
        .columns(['channel_id', 'event_id', 'reason', 'seq'])
        .execute();
      await db.schema
        .createIndex('events_record')
        .on('events')
        .columns(['resource_kind', 'resource_id', 'type', 'id'])
        .execute();
    },

    async down() {
      throw new Error('migration 0018_acknowledgements cannot be undone');
    },
  };
}
