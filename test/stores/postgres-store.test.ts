import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { storeContract } from './store-contract.ts';

// One database migrated for the suite, one left bare for the missing-schema check.
const migrated = await createTestDatabase();
const bare = await createTestDatabase();

if (migrated.skip !== undefined || bare.skip !== undefined) {
  const reason = migrated.skip ?? bare.skip ?? '';
  it('PostgreSQL store', (t) => t.skip(reason));
} else {
  describe('KyselyStore on PostgreSQL', () => {
    let concurrentRuns: string[][] = [];
    before(async () => {
      // Two pools migrating at once: Kysely's advisory lock lets one do the work.
      const [a, b] = [await openKyselyStore(migrated.url), await openKyselyStore(migrated.url)];
      try {
        concurrentRuns = await Promise.all([migrateToLatest(a.db), migrateToLatest(b.db)]);
      } finally {
        await Promise.all([a.store.close(), b.store.close()]);
      }
    });
    after(() => Promise.all([migrated.drop(), bare.drop()]));

    storeContract('KyselyStore on PostgreSQL', async () => {
      const { store } = await openKyselyStore(migrated.url, { poolSize: 5 });
      return { store, cleanup: () => store.close() };
    }, {
      openUnmigrated: async () => {
        const { store } = await openKyselyStore(bare.url);
        return { store, cleanup: () => store.close() };
      },
    });

    it('applied the migrations once when two processes migrated together; a third run is a no-op', async () => {
      assert.deepEqual([...concurrentRuns].sort((x, y) => y.length - x.length), [['0001_initial'], []]);
      const { db, store, dialect } = await openKyselyStore(migrated.url);
      try {
        assert.equal(dialect, 'postgres');
        assert.deepEqual(await migrateToLatest(db), []);
      } finally {
        await store.close();
      }
    });

    it('uses int8 ids, timestamptz and boolean columns', async () => {
      const { db, store } = await openKyselyStore(migrated.url);
      try {
        const { rows } = await sql<{ column_name: string; data_type: string }>`
          select column_name, data_type from information_schema.columns
          where table_name = 'devices' and column_name in ('id', 'user_id', 'created_at', 'is_enabled')
          order by column_name`.execute(db);
        assert.deepEqual(rows, [
          { column_name: 'created_at', data_type: 'timestamp with time zone' },
          { column_name: 'id', data_type: 'bigint' },
          { column_name: 'is_enabled', data_type: 'boolean' },
          { column_name: 'user_id', data_type: 'bigint' },
        ]);
      } finally {
        await store.close();
      }
    });

    it('bounds statements and survives the loss of an idle connection', async () => {
      const poolErrors: Error[] = [];
      const { db, store } = await openKyselyStore(migrated.url, { onPoolError: (error) => poolErrors.push(error) });
      const admin = await openKyselyStore(migrated.url);
      try {
        const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db);
        assert.deepEqual(rows, [{ statement_timeout: '10s' }]);
        // The idle client of the first pool is killed from outside, as a server restart would.
        await sql`select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = 'monitoring-api' and pid <> pg_backend_pid()
            and datname = current_database() and state = 'idle'`.execute(admin.db);
        for (let waited = 0; poolErrors.length === 0 && waited < 2_000; waited += 20) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.ok(poolErrors.length > 0, 'the pool reported no error');
        assert.deepEqual(await store.listDevices(1, { afterId: 0, limit: 1 }), []);
      } finally {
        await Promise.all([store.close(), admin.store.close()]);
      }
    });

    it('fails fast with a clear error when PostgreSQL cannot be reached', async () => {
      const started = Date.now();
      await assert.rejects(openKyselyStore('postgres://postgres:secret@127.0.0.1:1/test'), (error: Error) => {
        assert.match(error.message, /^cannot connect to PostgreSQL at 127\.0\.0\.1:1\/test: .*ECONNREFUSED/);
        assert.doesNotMatch(error.message, /secret/);
        return true;
      });
      assert.ok(Date.now() - started < 6_000);
    });

    it('refuses an unsupported URL scheme', async () => {
      const refused = /the database URL scheme "mongodb:" is not supported; use postgres:\/\//;
      await assert.rejects(openKyselyStore('mongodb://127.0.0.1/test'), refused);
    });
  });
}
