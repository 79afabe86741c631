/**
 * Migration 0007 on a database that already holds check results and a webhook: the old rows
 * answer their own id as check_id, a check written afterwards takes a check id above every one of
 * them (shared by all its rows), and the webhook reads back with no delivery error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { migrations } from '../../stores/kysely/migrations.ts';
import { migrationDatabases, migrateBefore } from './migration-databases.ts';

const databases = migrationDatabases('operations-migration');

const AT = '2026-01-01T00:00:00.000Z';

for (const [name, make] of Object.entries(databases)) {
  test(`${name}: results and webhooks from before 0007 read back; later checks get ids of their own`, async (t) => {
    const database = await make();
    if ('skip' in database) return t.skip(database.skip);
    const { db, store, dialect } = await openKyselyStore(database.url);
    try {
      const all = migrations(dialect);
      await migrateBefore(db, dialect, '0007');
      const user = await store.createUser({ name: null, created_at: AT });
      // As the store of that version wrote it: this version's store writes columns later migrations add.
      const enabled = dialect === 'postgres' ? sql`true` : sql`1`;
      const { rows } = await sql<{ id: number }>`insert into blacklist_monitors
          (user_id, target_type, target_value, is_enabled, listed_on, failed_zones, check_interval_s, created_at, next_check_at)
        values (${user.id}, 'ip', '192.0.2.1', ${enabled}, '[]', '[]', 3600, ${AT}, ${AT}) returning id`.execute(db);
      const id = Number(rows[0]!.id);
      const ok = dialect === 'postgres' ? sql`true` : sql`1`;
      for (const zone of ['a.example', 'b.example']) {
        await sql`insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields)
          values ('blacklist_monitor', ${id}, ${AT}, 'dnsbl', ${ok}, 3, null, ${JSON.stringify({ zone, listed: false, answer: null })})`.execute(
          db,
        );
      }
      // As the store of that version wrote it: this version's store reads columns 0007 adds.
      await sql`insert into webhooks (user_id, url, events, is_enabled, secret, created_at, last_delivery_at, last_delivery_status)
        values (${user.id}, 'https://hooks.example.com/', '["device.down"]', ${ok}, ${`whsec_${Buffer.alloc(32, 1).toString('base64')}`},
          ${AT}, ${AT}, 'failing')`.execute(db);

      assert.deepEqual(
        await migrateToLatest(db),
        Object.keys(all)
          .filter((key) => key >= '0007')
          .sort(),
      );
      const old = await store.listCheckResults(user.id, 'blacklist_monitor', id, { limit: 10 });
      assert.deepEqual(
        old!.map((r) => r.check_id),
        old!.map((r) => r.id),
        'a row from before answers its own id',
      );
      const [hook] = await store.listWebhooks(user.id, { afterId: 0, limit: 10 });
      assert.deepEqual(
        [hook?.last_delivery_status, hook?.last_delivery_error, hook?.failing_since],
        ['failing', null, null],
      );

      const [claimed] = await store.claimDueBlacklistMonitors({
        owner: 't',
        now: '2030-01-01T00:00:00.000Z',
        limit: 1,
        leaseUntil: '2030-01-02T00:00:00.000Z',
      });
      const results = ['a.example', 'b.example'].map((zone) => ({
        checked_at: '2030-01-01T00:00:00.000Z',
        probe: 'dnsbl' as const,
        ok: true,
        response_ms: 2,
        error: null,
        zone,
        listed: false,
        answer: null,
        meaning: null,
        policy: false,
        delist_url: null,
        since: null,
      }));
      assert.deepEqual(
        await store.recordBlacklistChecks([
          {
            lease: claimed!.lease,
            outcome: {
              checked_at: '2030-01-01T00:00:00.000Z',
              last_status: 'clean',
              listed_on: [],
              failed_zones: [],
              listings: [],
              rdns: null,
              results,
              next_check_at: '2030-01-01T01:00:00.000Z',
              events: [],
            },
          },
        ]),
        [true],
      );
      const now = await store.listCheckResults(user.id, 'blacklist_monitor', id, { limit: 10 });
      const [first, second] = now!;
      assert.equal(first!.check_id, second!.check_id, 'one check, one id');
      assert.ok(
        first!.check_id > Math.max(...old!.map((r) => r.id)),
        `${first!.check_id} is above every older row's id`,
      );
    } finally {
      await store.close();
      await database.remove();
    }
  });
}
