/**
 * Migration 0010 on a database in service: every record keeps its due time and status, except
 * that a record leased when it runs is due again at its lease's expiry (a claim's new rule), so
 * it is neither claimed twice nor lost.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { migrationsFrom } from './migration-names.ts';
import { migrationDatabases, migrateBefore } from './migration-databases.ts';

const databases = migrationDatabases('locations-migration');

const CREATED = '2026-01-01T00:00:00.000Z';
const DUE = '2026-01-01T00:01:00.000Z';
const LEASED_UNTIL = '2026-01-01T00:03:00.000Z';

for (const [name, make] of Object.entries(databases)) {
  test(`${name}: 0010 keeps every schedule and status, and moves a held lease's due time to its expiry`, async (t) => {
    const database = await make();
    if ('skip' in database) return t.skip(database.skip);
    const { db, store, dialect } = await openKyselyStore(database.url);
    try {
      // The migrations before 0010: those after it need its columns.
      await migrateBefore(db, dialect, '0010');
      const user = await store.createUser({ name: null, created_at: CREATED });
      const rows: [string, string, string | null, string | null][] = [
        ['free.example.com', 'up', DUE, null],
        ['leased.example.com', 'down', DUE, LEASED_UNTIL],
        ['paused.example.com', 'paused', null, null],
      ];
      for (const [target, status, due, lease] of rows) {
        await sql`insert into devices (user_id, target_type, target_value, service_type, port, proxy_enabled,
          check_public_http, check_public_https, check_public_tls, check_origin_http, check_origin_tls, is_enabled,
          created_at, status, next_check_at, lease_owner, lease_token, lease_expires_at)
          values (${user.id}, 'domain', ${target}, 'ssh', 22, false, false, false, false, false, false,
          ${sql.lit(status !== 'paused')}, ${CREATED}, ${status}, ${due}, ${lease === null ? null : 'old'},
          ${lease === null ? null : 'token'}, ${lease})`.execute(db);
      }
      assert.deepEqual(await migrateToLatest(db), migrationsFrom('0010_locations'));

      const devices = await store.listDevices(user.id, { afterId: 0, limit: 10 });
      assert.deepEqual(
        devices.map((d) => [d.target_value, d.status]),
        rows.map(([target, status]) => [target, status]),
      );
      const schedule = await sql<{ target_value: string; next_check_at: string | Date | null }>`
        select target_value, next_check_at from devices order by id`.execute(db);
      assert.deepEqual(
        schedule.rows.map((r) => [
          r.target_value,
          r.next_check_at === null ? null : new Date(r.next_check_at).toISOString(),
        ]),
        [
          ['free.example.com', DUE],
          ['leased.example.com', LEASED_UNTIL],
          ['paused.example.com', null],
        ],
      );
      // Before the lease runs out only the free record is due; after it, the leased one too.
      const claim = (now: string) => ({ owner: 'new', now, limit: 10, leaseUntil: '2100-01-01T00:00:00.000Z' });
      assert.deepEqual(
        (await store.claimDueDevices(claim('2026-01-01T00:02:00.000Z'))).map((c) => c.record.target_value),
        ['free.example.com'],
      );
      const [late] = await store.claimDueDevices(claim(LEASED_UNTIL));
      assert.equal(late?.record.target_value, 'leased.example.com');
      assert.equal(late.due_at, LEASED_UNTIL);
    } finally {
      await store.close();
      await database.remove();
    }
  });
}
