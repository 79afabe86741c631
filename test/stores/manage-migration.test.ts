/**
 * Migration 0006 on a database that already holds webhooks: one that received every event type
 * receives the types this release adds; one with a chosen list keeps its list.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { EVENT_TYPES } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { migrations } from '../../stores/kysely/migrations.ts';
import { migrationDatabases, migrateBefore } from './migration-databases.ts';

const databases = migrationDatabases('manage-migration');

const OLD_TYPES = ['device.down', 'device.up', 'device.tls_expiring', 'blacklist.listed', 'blacklist.delisted'];

for (const [name, make] of Object.entries(databases)) {
  test(`${name}: 0006 gives webhooks of every type the new types, and leaves chosen lists alone`, async (t) => {
    const database = await make();
    if ('skip' in database) return t.skip(database.skip);
    const { db, store, dialect } = await openKyselyStore(database.url);
    try {
      const all = migrations(dialect);
      await migrateBefore(db, dialect, '0006');
      const user = await store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
      // As the store of that version wrote them: this version's store writes columns later migrations add.
      const enabled = dialect === 'postgres' ? sql`true` : sql`1`;
      const make = async (url: string, events: string[]) => {
        const { rows } = await sql<{
          id: number;
        }>`insert into webhooks (user_id, url, events, is_enabled, secret, created_at)
          values (${user.id}, ${url}, ${JSON.stringify(events)}, ${enabled}, 'whsec_x', '2026-01-01T00:00:00.000Z')
          returning id`.execute(db);
        return Number(rows[0]!.id);
      };
      const every = await make('https://hooks.example.com/all', OLD_TYPES);
      const chosen = await make('https://hooks.example.com/down', ['device.down']);
      assert.deepEqual(
        await migrateToLatest(db),
        Object.keys(all)
          .filter((key) => key >= '0006')
          .sort(),
      );
      assert.deepEqual((await store.getWebhook(user.id, every))?.events, [...EVENT_TYPES]);
      assert.deepEqual((await store.getWebhook(user.id, chosen))?.events, ['device.down']);
    } finally {
      await store.close();
      await database.remove();
    }
  });
}
