import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';

/**
 * Migration 0019: heartbeats are told through channels (docs/notifications.md, "Which channels");
 * forward only.
 *
 * - `heartbeats` gains `channel_ids` (a JSON list of channel ids, as devices' in migration 0014;
 *   null, every default channel of the user, for every existing heartbeat).
 */
export function heartbeatChannels(dialect: StoreDialect): Migration {
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema.alterTable('heartbeats').addColumn('channel_ids', 'text').execute();
    },

    async down() {
      throw new Error('migration 0019_heartbeat_channels cannot be undone');
    },
  };
}
