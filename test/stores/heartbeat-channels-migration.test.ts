/**
 * Migration 0019 on a database in service: existing heartbeats answer `channel_ids: null` (every
 * default channel of their user), and a channel whose events were exactly the default list gains
 * `heartbeat.down` and `heartbeat.up`, which the default holds from 0019 on; a channel whose list
 * was chosen otherwise keeps it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { EventType } from '../../core/index.ts';
import { DEFAULT_CHANNEL_EVENTS } from '../../core/validation/channel-input.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { newChannel } from './channels-contract.ts';
import { migrationsFrom } from './migration-names.ts';
import { migrationDatabases, migrateBefore } from './migration-databases.ts';

const databases = migrationDatabases('heartbeat-channels-migration');

const CREATED = '2026-01-01T00:00:00.000Z';
const OLD_DEFAULT: EventType[] = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'blacklist.listed',
  'blacklist.delisted',
  'channel.disabled',
];

for (const [name, make] of Object.entries(databases)) {
  test(`${name}: 0019 gives heartbeats channel_ids null and the default channels the heartbeats' events`, async (t) => {
    const database = await make();
    if ('skip' in database) return t.skip(database.skip);
    const { db, store, dialect } = await openKyselyStore(database.url);
    try {
      await migrateBefore(db, dialect, '0019');
      const user = await store.createUser({ name: null, created_at: CREATED });
      const byDefault = await store.createChannel(user.id, newChannel({ events: OLD_DEFAULT }));
      const chosen = await store.createChannel(user.id, newChannel({ events: ['device.down', 'channel.disabled'] }));
      await sql`insert into heartbeats (user_id, name, period_s, time_zone, grace_s, is_enabled, ping_token,
          status, status_since, created_at)
        values (${user.id}, 'nightly backup', 86400, 'UTC', 300, ${sql.lit(true)},
          '00000000-0000-4000-8000-000000000019', 'new', ${CREATED}, ${CREATED})`.execute(db);
      assert.deepEqual(await migrateToLatest(db), migrationsFrom('0019_heartbeat_channels'));

      const [heartbeat] = await store.listHeartbeats(user.id, { afterId: 0, limit: 10 });
      assert.deepEqual([heartbeat?.name, heartbeat?.channel_ids], ['nightly backup', null]);
      assert.deepEqual((await store.getChannel(user.id, byDefault.id))?.events, DEFAULT_CHANNEL_EVENTS);
      assert.ok(DEFAULT_CHANNEL_EVENTS.includes('heartbeat.down') && DEFAULT_CHANNEL_EVENTS.includes('heartbeat.up'));
      assert.deepEqual((await store.getChannel(user.id, chosen.id))?.events, ['device.down', 'channel.disabled']);
    } finally {
      await store.close();
      await database.remove();
    }
  });
}
