import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { KyselyStore, migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { waitFor } from '../support/wait-for.ts';
import { readEvents } from './outbox.ts';
import { webDevice } from './records.ts';
import { storeContract } from './store-contract.ts';
import { MIGRATION_NAMES } from './migration-names.ts';

/** The tables a test may write, children before their parents. */
const EVERY_TABLE = [
  'channel_attempts',
  'channels',
  'webhook_event_fanouts',
  'webhook_deliveries',
  'webhooks',
  'events',
  'check_results',
  'devices',
  'blacklist_monitors',
  'api_keys',
  'users',
];

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

    storeContract(
      'KyselyStore on PostgreSQL',
      async () => {
        const { store, db } = await openKyselyStore(migrated.url, { poolSize: 5 });
        // One database for every test, and claims take whatever is due in it: each test starts empty.
        // Deleted, children first, rather than truncated: each test leaves a few dozen rows, and a
        // truncate of the nine tables cost PostgreSQL about 37 ms a test (new files for every table),
        // 1.1 s of its time over the file.
        for (const table of EVERY_TABLE) await sql`delete from ${sql.table(table)}`.execute(db);
        return { store, cleanup: () => store.close(), events: () => readEvents(db) };
      },
      {
        openUnmigrated: async () => {
          const { store } = await openKyselyStore(bare.url);
          return { store, cleanup: () => store.close() };
        },
      },
    );

    it('applied the migrations once when two processes migrated together; a third run is a no-op', async () => {
      assert.deepEqual(
        [...concurrentRuns].sort((x, y) => y.length - x.length),
        [[...MIGRATION_NAMES], []],
      );
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
        // Told as soon as the terminated backend's message arrives.
        await waitFor('the pool to report the lost connection', () => poolErrors.length > 0, 20);
        assert.deepEqual(await store.listDevices(1, { afterId: 0, limit: 1 }), []);
      } finally {
        await Promise.all([store.close(), admin.store.close()]);
      }
    });

    const device = (n: number) =>
      webDevice({ target_value: `prepared-${n}.example.com`, is_enabled: true, status: 'pending' });
    const preparedInserts = async (db: Awaited<ReturnType<typeof openKyselyStore>>['db']) =>
      (
        await sql<{
          count: string;
        }>`select count(*) from pg_prepared_statements where statement like 'insert into "devices"%'`.execute(db)
      ).rows[0]!.count;

    it('prepares a repeated statement once per connection, unless told not to', async () => {
      for (const preparedStatements of [true, false]) {
        const { db, store } = await openKyselyStore(migrated.url, { poolSize: 1, preparedStatements });
        try {
          const user = await store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
          for (let n = 0; n < 3; n++) assert.ok('created' in (await store.createDevice(user.id, device(n))));
          assert.equal(await preparedInserts(db), preparedStatements ? '1' : '0');
        } finally {
          await store.close();
        }
      }
    });

    // A store a host makes over a Kysely instance it holds, beside the one openKyselyStore made: the
    // two agree on records and duplicates, the unique index deciding for both.
    it("a store over a host's own Kysely creates and finds duplicates as one opened by URL", async () => {
      const opened = await openKyselyStore(migrated.url, { poolSize: 1 });
      const hosted = new KyselyStore(opened.db, 'postgres', { destroyOnClose: false });
      try {
        const user = await opened.store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
        const [first, second] = [device(900), device(901)];
        const viaPool = await opened.store.createDevice(user.id, first);
        const viaKysely = await hosted.createDevice(user.id, second);
        assert.ok('created' in viaPool && 'created' in viaKysely);
        const { id: poolId, ...poolRecord } = viaPool.created;
        const { id: kyselyId, ...kyselyRecord } = viaKysely.created;
        assert.deepEqual(kyselyRecord, { ...poolRecord, target_value: second.target_value });
        assert.deepEqual(await hosted.createDevice(user.id, first), { duplicateOf: poolId });
        assert.deepEqual(await opened.store.createDevice(user.id, second), { duplicateOf: kyselyId });
      } finally {
        await hosted.close();
        await opened.store.close();
      }
    });

    // The `db` openKyselyStore returns runs on the store's own dialect (stores/kysely/drivers/pg-dialect.ts):
    // what a host does with Kysely there works as on Kysely's PostgresDialect.
    it('the returned db: affected rows, transaction settings, savepoints and rollbacks', async () => {
      const { db, store } = await openKyselyStore(migrated.url, { poolSize: 2 });
      try {
        const name = 'savepoint-user';
        const updated = await db.updateTable('users').set({ name }).where('id', '=', -1).executeTakeFirst();
        assert.equal(updated.numUpdatedRows, 0n);
        const level = await db
          .transaction()
          .setIsolationLevel('serializable')
          .setAccessMode('read only')
          .execute(
            async (trx) =>
              (
                await sql<{ level: string; ro: string }>`
            select current_setting('transaction_isolation') as level, current_setting('transaction_read_only') as ro`.execute(
                  trx,
                )
              ).rows[0],
          );
        assert.deepEqual(level, { level: 'serializable', ro: 'on' });
        const trx = await db.startTransaction().execute();
        const kept = await trx
          .insertInto('users')
          .values({ name, created_at: '2026-01-01T00:00:00.000Z' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const point = await trx.savepoint('before "second"').execute();
        await point.insertInto('users').values({ name, created_at: '2026-01-01T00:00:00.000Z' }).execute();
        const back = await point.rollbackToSavepoint('before "second"').execute();
        await back.releaseSavepoint('before "second"').execute();
        await back.commit().execute();
        const rows = await db.selectFrom('users').select('id').where('name', '=', name).execute();
        assert.deepEqual(
          rows.map((row) => String(row.id)),
          [String(kept.id)],
        );
        await assert.rejects(
          db.transaction().execute(async (inner) => {
            await inner.deleteFrom('users').where('name', '=', name).execute();
            throw new Error('changed my mind');
          }),
          /changed my mind/,
        );
        assert.equal((await db.selectFrom('users').select('id').where('name', '=', name).execute()).length, 1);
        await db.deleteFrom('users').where('name', '=', name).execute();
      } finally {
        await store.close();
      }
    });

    it('a schema change under a running store (a rolling deploy that migrates): creates go on', async () => {
      const own = await createTestDatabase();
      if (own.skip !== undefined) throw new Error(own.skip);
      const { db, store } = await openKyselyStore(own.url, { poolSize: 2 });
      try {
        await migrateToLatest(db);
        const user = await store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
        for (let n = 0; n < 6; n++) assert.ok('created' in (await store.createDevice(user.id, device(n))));
        // RETURNING * now has another shape: PostgreSQL refuses the prepared plan (0A000).
        await sql`alter table devices add column added_later text`.execute(db);
        for (let n = 6; n < 12; n++) {
          const result = await store.createDevice(user.id, device(n));
          assert.ok('created' in result && result.created.target_value === `prepared-${n}.example.com`);
        }
        // Inside a transaction the unprepared retry cannot run (the transaction is aborted): the
        // stale plan itself is reported, not "current transaction is aborted".
        const read = (on: typeof db) => sql`select * from devices where id = ${0}`.execute(on);
        for (let n = 0; n < 3; n++) await read(db);
        await sql`alter table devices add column added_later_too text`.execute(db);
        await assert.rejects(
          db.transaction().execute((trx) => read(trx)),
          (error: Error & { code?: string }) => {
            assert.equal(error.code, '0A000', error.message);
            return true;
          },
        );
        assert.deepEqual((await read(db)).rows, [], 'and outside it, the statement is prepared afresh');
      } finally {
        await store.close();
        await own.drop();
      }
    });

    it('fails fast with a clear error when PostgreSQL cannot be reached', { timeout: HANG_GUARD_MS }, async () => {
      // Fast: no timeout of the store's could end the attempt before the test's hang guard, so only
      // the refusal itself can, and the error names it (a connect timeout would read "timeout").
      const refused = openKyselyStore('postgres://postgres:secret@127.0.0.1:1/test', {
        connectionTimeoutMs: HANG_GUARD_MS,
        queryTimeoutMs: HANG_GUARD_MS,
      });
      await assert.rejects(refused, (error: Error) => {
        assert.match(error.message, /^cannot connect to PostgreSQL at 127\.0\.0\.1:1\/test: .*ECONNREFUSED/);
        assert.doesNotMatch(error.message, /secret/);
        return true;
      });
    });

    it('refuses an unsupported URL scheme', async () => {
      const refused = /the database URL scheme "mongodb:" is not supported; use postgres:\/\//;
      await assert.rejects(openKyselyStore('mongodb://127.0.0.1/test'), refused);
    });
  });
}
