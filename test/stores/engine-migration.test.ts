/**
 * Migration 0003 on a database that already holds records: enabled ones become due at once,
 * disabled devices are paused, and every record reads back with the engine's defaults.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { migrationsFrom } from './migration-names.ts';
import { migrationDatabases, migrateBefore } from './migration-databases.ts';

const databases = migrationDatabases('engine-migration');

const CREATED = '2026-01-01T00:00:00.000Z';

for (const [name, make] of Object.entries(databases)) {
  test(`${name}: a database at 0002 with records is brought to 0003; enabled records are due at once`, async (t) => {
    const database = await make();
    if ('skip' in database) return t.skip(database.skip);
    const { db, store, dialect } = await openKyselyStore(database.url);
    try {
      await migrateBefore(db, dialect, '0003');
      const user = await store.createUser({ name: null, created_at: CREATED });
      for (const [target, enabled] of [
        ['on.example.com', true],
        ['off.example.com', false],
      ] as const) {
        await sql`insert into devices (user_id, target_type, target_value, service_type, port, proxy_enabled,
          check_public_http, check_public_https, check_public_tls, check_origin_http, check_origin_tls, is_enabled, created_at)
          values (${user.id}, 'domain', ${target}, 'ssh', 22, false, false, false, false, false, false, ${sql.lit(enabled)}, ${CREATED})`.execute(
          db,
        );
        await sql`insert into blacklist_monitors (user_id, target_type, target_value, is_enabled, last_status, last_checked_at, listed_on, created_at)
          values (${user.id}, 'domain', ${target}, ${sql.lit(enabled)}, 'listed', ${CREATED}, '["zen.example"]', ${CREATED})`.execute(
          db,
        );
      }
      const before = new Date().toISOString();
      assert.deepEqual(await migrateToLatest(db), migrationsFrom('0003_engine'));
      const after = new Date().toISOString();

      const devices = await store.listDevices(user.id, { afterId: 0, limit: 10 });
      assert.deepEqual(
        devices.map((d) => [
          d.target_value,
          d.status,
          d.status_since,
          d.last_checked_at,
          d.last_results,
          d.check_interval_s,
        ]),
        [
          ['on.example.com', 'pending', null, null, {}, 60],
          ['off.example.com', 'paused', null, null, {}, 60],
        ],
      );
      const monitors = await store.listBlacklistMonitors(user.id, { afterId: 0, limit: 10 });
      assert.deepEqual(
        monitors.map((m) => [m.target_value, m.last_status, m.listed_on, m.failed_zones, m.check_interval_s]),
        [
          ['on.example.com', 'listed', ['zen.example'], [], 3600],
          ['off.example.com', 'listed', ['zen.example'], [], 3600],
        ],
      );

      const claim = { owner: 'test', now: after, limit: 10, leaseUntil: '2100-01-01T00:00:00.000Z' };
      for (const claimed of [await store.claimDueDevices(claim), await store.claimDueBlacklistMonitors(claim)]) {
        assert.deepEqual(
          claimed.map((c) => c.record.target_value),
          ['on.example.com'],
        );
        assert.ok(claimed[0]!.due_at >= before && claimed[0]!.due_at <= after, `due at ${claimed[0]!.due_at}`);
      }
    } finally {
      await store.close();
      await database.remove();
    }
  });
}
