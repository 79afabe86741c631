import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';

/**
 * Migration 0021: a queued notification counts the attempts that carried it and may have reached
 * the service (`reached_attempts`: delivered, or failed with an answer that can come after the
 * service took the message in, a 5xx or a timeout), so an escalation that was dropped or given up
 * after such an attempt is followed by its recovery (docs/notifications.md, "Reminders,
 * escalation and acknowledgement"). A pending row already tried counts each attempt as one that
 * may have (whether they did was not kept); every other row starts at 0. Forward only.
 */
export function notificationReach(dialect: StoreDialect): Migration {
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema
        .alterTable('notifications')
        .addColumn('reached_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db
        .updateTable('notifications')
        .set((eb) => ({ reached_attempts: eb.ref('attempts') }))
        .where('status', '=', 'pending')
        .where('attempts', '>', 0)
        .execute();
    },
    async down() {
      throw new Error('migration 0021_notification_reach cannot be undone');
    },
  };
}
