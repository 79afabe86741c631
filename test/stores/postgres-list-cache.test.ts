import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Device } from '../../core/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { assertChannelWritesShow, assertRecordedCheckShows } from './list-cache-checks.ts';
import { sshDevice } from './records.ts';

// PostgreSQL's change marker is a count kept by triggers in the writing transaction (migration
// 0005). Two stores on one database stand for two instances of the server; a plain `pg` client
// stands for anything else that writes (psql, another program): what any of them commits, the
// other instance's next list must show.
const database: TestDatabase = await createTestDatabase({ migrated: true });

describe('list answers reused on PostgreSQL, never stale', { skip: database.skip }, () => {
  let one: OpenedKyselyStore;
  let two: OpenedKyselyStore;
  let other: pg.Client;
  let a: TestApi;
  let b: TestApi;
  before(async () => {
    if (database.skip !== undefined) return;
    one = await openKyselyStore(database.url);
    await migrateToLatest(one.db);
    two = await openKyselyStore(database.url);
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
    a = createTestApi({ store: one.store });
    b = createTestApi({ store: two.store, clock: a.clock });
  });
  after(async () => {
    if (database.skip !== undefined) return;
    await other.end();
    await one.store.close();
    await two.store.close();
    await database.drop();
  });

  const marker = () => one.store.changeMarker();
  const targets = async (t: TestApi, key: string, path = '/v1/devices') =>
    ((await t.request(path, { key })).body.data as { target_value: string }[]).map((d) => d.target_value);

  it('the marker moves with every committed write to listed records, from any connection, not with reads or claims', async () => {
    const start = await marker();
    assert.equal(typeof start, 'string');
    const user = await one.store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
    await one.store.listDevices(user.id, { afterId: 0, limit: 10 });
    assert.equal(await marker(), start, 'users and reads are not listed records');
    const created = await two.store.createDevice(
      user.id,
      sshDevice({ target_type: 'domain', target_value: 'marker.example.com' }),
    );
    assert.ok('created' in created);
    const afterCreate = await marker();
    assert.notEqual(afterCreate, start, 'a create by another instance');
    await two.store.claimDueDevices({
      owner: 'test',
      now: '2100-01-01T00:00:00.000Z',
      limit: 10,
      leaseUntil: '2100-01-01T00:01:00.000Z',
    });
    assert.equal(await marker(), afterCreate, 'a claim changes only the lease, which no answer shows');

    // A write still open in another session is not counted; once committed, it is.
    await other.query('begin');
    await other.query('update devices set location = $1 where id = $2', ['in a transaction', created.created.id]);
    assert.equal(await marker(), afterCreate, 'not committed yet');
    await other.query('commit');
    const afterCommit = await marker();
    assert.notEqual(afterCommit, afterCreate, 'committed by a plain client');
    await other.query('begin');
    await other.query('delete from devices where id = $1', [created.created.id]);
    await other.query('rollback');
    assert.equal(await marker(), afterCommit, 'a rolled back write changes nothing');
  });

  it('creates, deletes, webhooks and engine results written elsewhere show in the next list', async () => {
    const key = await a.createKey();
    const token = key.token;
    const create = (api: TestApi, value: string) =>
      api.request('/v1/devices/create', {
        method: 'POST',
        key: token,
        body: { target_type: 'domain', target_value: value },
      });
    assert.deepEqual(await targets(a, token), []);
    assert.deepEqual(await targets(a, token), [], 'a second, cached answer');
    assert.equal((await create(b, 'one.example.com')).status, 201);
    assert.deepEqual(await targets(a, token), ['one.example.com']);
    assert.equal((await create(a, 'two.example.com')).status, 201);
    assert.deepEqual(await targets(a, token), ['one.example.com', 'two.example.com']);
    const firstId = (await a.request<Device[]>('/v1/devices', { key: token })).body.data![0]!.id;
    assert.equal((await b.request(`/v1/devices/delete?id=${firstId}`, { method: 'DELETE', key: token })).status, 200);
    assert.deepEqual(await targets(a, token), ['two.example.com']);

    assert.deepEqual((await a.request('/v1/webhooks', { key: token })).body.data, []);
    assert.equal(
      (
        await b.request('/v1/webhooks/create', {
          method: 'POST',
          key: token,
          body: { url: 'https://hooks.example.com/x' },
        })
      ).status,
      201,
    );
    assert.equal(((await a.request('/v1/webhooks', { key: token })).body.data as unknown[]).length, 1);

    await assertRecordedCheckShows(a, b, two.store, token);
    await assertChannelWritesShow(a, b, token);
  });

  it('lists asked at once share marker reads, and each sees what was committed before it asked', async () => {
    const key = await a.createKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        if (i === 10) await create(b, key.token, 'concurrent.example.com');
        return targets(a, key.token);
      }),
    );
    assert.equal(answers.length, 20);
    assert.deepEqual(
      await targets(a, key.token),
      ['concurrent.example.com'],
      'after the create answered, every list shows it',
    );
  });

  it('without the change count (a schema older than 0005), no marker: lists are read afresh, and no connection is lost over it', async () => {
    const key = await a.createKey();
    const backends = async () =>
      (
        await other.query<{ pid: number }>(
          "select pid from pg_stat_activity where datname = current_database() and application_name = 'monitoring-api' order by pid",
        )
      ).rows.map((row) => row.pid);
    assert.equal(typeof (await marker()), 'string');
    const before = await backends();
    await other.query('alter table change_counts rename to change_counts_away');
    try {
      for (let i = 0; i < 5; i++) assert.equal(await marker(), undefined);
      assert.deepEqual(await backends(), before, 'a failed marker read leaves its connection in the pool');
      assert.deepEqual(await targets(a, key.token), []);
      // No trigger can count this write (its table is gone); a list read afresh still shows it.
      await other.query('alter table devices disable trigger devices_count_change');
      try {
        assert.equal((await create(b, key.token, 'unmarked.example.com')).status, 201);
      } finally {
        await other.query('alter table devices enable trigger devices_count_change');
      }
      assert.deepEqual(await targets(a, key.token), ['unmarked.example.com']);
    } finally {
      await other.query('alter table change_counts_away rename to change_counts');
    }
    assert.equal(typeof (await marker()), 'string');
  });

  const create = (api: TestApi, token: string, value: string) =>
    api.request('/v1/devices/create', {
      method: 'POST',
      key: token,
      body: { target_type: 'domain', target_value: value },
    });
});
