/**
 * Migration 0021 on a database in service: a pending notification already tried counts each of
 * its attempts as one that may have reached the service (whether they did was not kept), so an
 * escalation waiting for its retry keeps its recovery; every other row starts at 0.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { newChannel } from './channels-contract.ts';
import { migrationsFrom } from './migration-names.ts';
import { migrationDatabases, migrateBefore } from './migration-databases.ts';

const databases = migrationDatabases('notification-reach-migration');

const AT = '2026-01-01T00:00:00.000Z';

for (const [name, make] of Object.entries(databases)) {
  test(`${name}: 0021 counts a pending notification's attempts as reaching, and nothing else's`, async (t) => {
    const database = await make();
    if ('skip' in database) return t.skip(database.skip);
    const { db, store, dialect } = await openKyselyStore(database.url);
    try {
      await migrateBefore(db, dialect, '0021');
      const user = await store.createUser({ name: null, created_at: AT });
      const channel = await store.createChannel(user.id, newChannel());
      const { rows } = await sql<{
        id: number;
      }>`insert into events (user_id, type, resource_kind, resource_id, created_at, data)
        values (${user.id}, 'device.down', 'device', 1, ${AT}, '{"id":1}') returning id`.execute(db);
      const event = Number(rows[0]!.id);
      const row = (status: string, attempts: number, reason: string) =>
        sql`insert into notifications (channel_id, event_id, status, attempts, next_attempt_at, reason, seq, due_at)
          values (${channel.id}, ${event}, ${status}, ${attempts}, ${AT}, ${reason}, 0, ${AT})`.execute(db);
      await row('pending', 2, 'escalation');
      await row('pending', 0, 'reminder');
      await row('failed', 3, 'event');
      assert.deepEqual(await migrateToLatest(db), migrationsFrom('0021_notification_reach'));
      const { rows: after } = await sql<{ reason: string; reached_attempts: number }>`
        select reason, reached_attempts from notifications order by id`.execute(db);
      assert.deepEqual(
        after.map((r) => [r.reason, Number(r.reached_attempts)]),
        [
          ['escalation', 2],
          ['reminder', 0],
          ['event', 0],
        ],
      );
    } finally {
      await store.close();
      await database.remove();
    }
  });
}
