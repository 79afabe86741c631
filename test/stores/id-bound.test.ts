/**
 * Ids are answered as JSON numbers and accepted up to 2^53-1 (docs/contract.md §3, §6.3). A table whose id
 * sequence reaches past that must refuse the insert, not store a record it then reports as a
 * failure: such a row could never be deleted (`invalid_id`) and would break every list of its user.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Migrator, sql } from 'kysely';
import type { BlacklistMonitor, Device } from '../../core/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { migrations } from '../../stores/kysely/migrations.ts';
import { availableStores, type OpenedStore } from '../support/stores.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { migrationsFrom } from './migration-names.ts';
import { migrationDatabases } from './migration-databases.ts';

const MAX = Number.MAX_SAFE_INTEGER;

const RESOURCES = [
  {
    table: 'devices',
    path: '/v1/devices',
    body: (i: number) => ({ target_type: 'domain', target_value: `d${i}.example.com` }),
  },
  {
    table: 'blacklist_monitors',
    path: '/v1/blacklist-monitors',
    body: (i: number) => ({ target_type: 'domain', target_value: `m${i}.example.com` }),
  },
] as const;

for (const factory of (await availableStores()).filter((f) => f.name !== 'memory')) {
  suiteOrSkip(`ids stop at 2^53-1 (${factory.name})`, factory.skip, {}, () => {
    let opened: OpenedStore;
    let t: TestApi;
    let key: CreatedApiKey;
    before(async () => {
      opened = await factory.open();
      t = createTestApi({ store: opened.store });
      key = await t.createKey();
    });
    after(async () => {
      await t.close();
      await opened.cleanup();
    });

    /** The next id the table hands out becomes `next`. */
    async function moveSequence(table: string, next: number): Promise<void> {
      if (factory.name === 'postgres') {
        await opened.execute!(`select setval(pg_get_serial_sequence('${table}', 'id'), ${next - 1})`);
      } else {
        await opened.execute!(`update sqlite_sequence set seq = ${next - 1} where name = '${table}'`);
      }
    }

    for (const r of RESOURCES) {
      test(`${r.table}: the last safe id is handed out; the next create is refused and stores nothing`, async () => {
        const create = (i: number) =>
          t.request<Device | BlacklistMonitor>(`${r.path}/create`, { method: 'POST', key, body: r.body(i) });
        const first = await create(0);
        assert.equal(first.status, 201);
        await moveSequence(r.table, MAX - 1);
        assert.equal((await create(1)).body.data?.id, MAX - 1);
        assert.equal((await create(2)).body.data?.id, MAX);
        const refused = await create(3);
        assert.equal(refused.status, 500, refused.text);
        assert.equal(refused.body.error?.code, 'server_error');
        const list = await t.request<(Device | BlacklistMonitor)[]>(r.path, { key });
        assert.equal(list.status, 200, list.text);
        assert.deepEqual(
          list.body.data?.map((x) => x.id),
          [first.body.data?.id, MAX - 1, MAX],
        );
        const deleted = await t.request(`${r.path}/delete?id=${MAX}`, { method: 'DELETE', key });
        assert.equal(deleted.status, 200, deleted.text);
      });
    }

    test('users and keys: past 2^53-1 the creation fails and stores nothing', async () => {
      await moveSequence('users', MAX + 1);
      await assert.rejects(t.api.keys.createUser({ name: 'beyond' }));
      await moveSequence('api_keys', MAX + 1);
      await assert.rejects(t.api.keys.createApiKey({ userId: key.key.user_id, scopes: ['read'] }));
      // The user's existing key still works, and its list of keys still reads.
      assert.equal((await t.request('/v1/me', { key })).status, 200);
      assert.equal((await t.api.keys.listApiKeys(key.key.user_id)).length, 1);
    });
  });
}

describe('a database made before the id guard', () => {
  const databases = migrationDatabases('id-bound');
  for (const [name, make] of Object.entries(databases)) {
    test(`${name}: is brought up to date with its rows, even one already past the bound`, async (t) => {
      const database = await make();
      if ('skip' in database) return t.skip(database.skip);
      const { db, store, dialect } = await openKyselyStore(database.url);
      try {
        const first = migrations(dialect)['0001_initial']!;
        const old = await new Migrator({
          db,
          provider: { getMigrations: async () => ({ '0001_initial': first }) },
        }).migrateToLatest();
        assert.equal(old.error, undefined);
        const user = await store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
        await sql`insert into devices (id, user_id, target_type, target_value, service_type, port, proxy_enabled,
          check_public_http, check_public_https, check_public_tls, check_origin_http, check_origin_tls, is_enabled, created_at)
          values (${MAX + 8}, ${user.id}, 'domain', 'old.example.com', 'web', 443, false, true, true, true, false, false, true,
          '2026-01-01T00:00:00.000Z')`.execute(db);
        assert.deepEqual(await migrateToLatest(db), migrationsFrom('0002_safe_ids'));
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from devices`.execute(db);
        assert.equal(Number(rows[0]!.n), 1);
        // The engine never claims it: the claim's update would break the guard, failing every claim.
        const claim = {
          owner: 'test',
          now: '2100-01-01T00:00:00.000Z',
          limit: 10,
          leaseUntil: '2100-01-01T00:01:00.000Z',
        };
        assert.deepEqual(await store.claimDueDevices(claim), []);
      } finally {
        await store.close();
        await database.remove();
      }
    });
  }
});
