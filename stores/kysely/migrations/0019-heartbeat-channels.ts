import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';

/** A channel's default events before heartbeats could be told through channels. */
const DEFAULT_BEFORE = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'blacklist.listed',
  'blacklist.delisted',
  'channel.disabled',
];
/** The default since: the heartbeats' two events in their place in the list of event types. */
const DEFAULT_AFTER = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'blacklist.listed',
  'blacklist.delisted',
  'heartbeat.down',
  'heartbeat.up',
  'channel.disabled',
];

/**
 * Migration 0019: heartbeats are told through channels (docs/notifications.md, "Which channels");
 * forward only.
 *
 * - `heartbeats` gains `channel_ids` (a JSON list of channel ids, as devices' in migration 0014;
 *   null, every default channel of the user, for every existing heartbeat).
 * - A channel whose `events` are exactly the default list gains `heartbeat.down` and
 *   `heartbeat.up`, which the default holds from here on: it holds what it would hold had it been
 *   made with the default now. A channel whose list was chosen otherwise keeps it as it is.
 */
export function heartbeatChannels(dialect: StoreDialect): Migration {
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema.alterTable('heartbeats').addColumn('channel_ids', 'text').execute();
      await sql`update channels set events = ${JSON.stringify(DEFAULT_AFTER)}
        where events = ${JSON.stringify(DEFAULT_BEFORE)}`.execute(db);
    },

    async down() {
      throw new Error('migration 0019_heartbeat_channels cannot be undone');
    },
  };
}
