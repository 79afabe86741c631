import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Device } from '../../core/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { assertChannelWritesShow, assertRecordedCheckShows } from './list-cache-checks.ts';
import { sshDevice } from './records.ts';

// List answers are reused while the store's change marker stays the same. Two stores on one
// SQLite file stand for two processes: whatever one writes, the other's next list must show.
describe('list answers reused on SQLite, never stale', () => {
  let dir: string;
  let one: OpenedKyselyStore;
  let two: OpenedKyselyStore;
  let a: TestApi;
  let b: TestApi;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'monitoring-cache-'));
    const url = `sqlite:${join(dir, 'shared.db')}`;
    one = await openKyselyStore(url);
    await migrateToLatest(one.db);
    two = await openKyselyStore(url);
    a = createTestApi({ store: one.store });
    b = createTestApi({ store: two.store, clock: a.clock });
  });
  after(async () => {
    await one.store.close();
    await two.store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const targets = async (t: TestApi, key: string, path = '/v1/devices') =>
    ((await t.request(path, { key })).body.data as { target_value: string }[]).map((d) => d.target_value);

  it("the marker moves with this store's writes and with another connection's commits, not with reads", async () => {
    const start = await one.store.changeMarker();
    assert.equal(typeof start, 'string');
    const user = await one.store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
    await one.store.listDevices(user.id, { afterId: 0, limit: 10 });
    const seenByOne = await one.store.changeMarker();
    assert.equal(await one.store.changeMarker(), seenByOne, 'a read moves nothing');
    await two.store.createDevice(user.id, sshDevice({ target_type: 'domain', target_value: 'marker.example.com' }));
    assert.notEqual(await one.store.changeMarker(), seenByOne, 'a commit by another connection');
    const before = await one.store.changeMarker();
    await one.store.deleteDevice(user.id, 1);
    assert.notEqual(await one.store.changeMarker(), before, 'a write by this store');
  });

  it('a marker read after a request arrived serves it and those before it; a later request reads again', async () => {
    const user = await one.store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
    const arrived = performance.now();
    const read = await one.store.changeMarker(arrived);
    await two.store.createDevice(user.id, sshDevice({ target_type: 'domain', target_value: 'since.example.com' }));
    // Arrived before that read began: the read reflects every write it could have seen answered.
    assert.equal(await one.store.changeMarker(arrived), read, 'reused for a request that arrived before the read');
    assert.notEqual(
      await one.store.changeMarker(performance.now()),
      read,
      'read again for a request that arrived after it',
    );
    await two.store.createDevice(user.id, sshDevice({ target_type: 'domain', target_value: 'since-2.example.com' }));
    const fresh = await one.store.changeMarker();
    assert.notEqual(fresh, read, 'without an arrival time, always read');
  });

  it('requests that arrive in one turn share one read, made after that turn: a commit before it shows', async () => {
    const user = await one.store.createUser({ name: null, created_at: '2026-01-01T00:00:00.000Z' });
    const before = await one.store.changeMarker();
    // Three list requests read in one turn, and a create by another connection begun after the
    // first of them: node:sqlite runs it within the turn, before the shared read begins.
    const first = one.store.changeMarker(performance.now());
    const createdBetween = two.store.createDevice(
      user.id,
      sshDevice({ target_type: 'domain', target_value: 'turn.example.com' }),
    );
    const second = one.store.changeMarker(performance.now());
    const third = one.store.changeMarker(performance.now());
    assert.equal(first, second, 'one read for the turn');
    assert.equal(second, third);
    await createdBetween;
    assert.notEqual(await first, before, 'the shared read starts after the turn, so it sees the commit');
  });

  it('creates, deletes and checks made through another process show in the next list', async () => {
    const key = await a.createKey();
    const keyB = key.token;
    const create = (t: TestApi, value: string) =>
      t.request('/v1/devices/create', {
        method: 'POST',
        key: keyB,
        body: { target_type: 'domain', target_value: value },
      });
    assert.deepEqual(await targets(a, keyB), []);
    assert.deepEqual(await targets(a, keyB), [], 'a second, cached answer');
    assert.equal((await create(b, 'one.example.com')).status, 201);
    assert.deepEqual(await targets(a, keyB), ['one.example.com']);
    assert.deepEqual(await targets(a, keyB, '/v1/devices?limit=1'), ['one.example.com']);
    assert.equal((await create(a, 'two.example.com')).status, 201);
    assert.deepEqual(await targets(a, keyB), ['one.example.com', 'two.example.com']);
    const page = await a.request('/v1/devices?limit=1', { key: keyB });
    assert.match(page.headers.get('link') ?? '', /after_id=/, 'a cached page keeps its Link once more records follow');
    const firstId = (await a.request<Device[]>('/v1/devices', { key: keyB })).body.data![0]!.id;
    assert.equal((await b.request(`/v1/devices/delete?id=${firstId}`, { method: 'DELETE', key: keyB })).status, 200);
    assert.deepEqual(await targets(a, keyB), ['two.example.com']);

    await assertRecordedCheckShows(a, b, two.store, keyB);
    await assertChannelWritesShow(a, b, keyB);
  });

  it('each user and each query has its own answer', async () => {
    const k1 = await a.createKey();
    const k2 = await a.createKey();
    await a.request('/v1/devices/create', {
      method: 'POST',
      key: k1,
      body: { target_type: 'domain', target_value: 'mine.example.com' },
    });
    assert.deepEqual(await targets(a, k1.token), ['mine.example.com']);
    assert.deepEqual(await targets(a, k2.token), []);
    assert.deepEqual(await targets(a, k1.token, '/v1/devices?after_id=999999'), []);
  });
});
