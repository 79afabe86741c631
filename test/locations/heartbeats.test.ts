/**
 * docs/engine.md, "Locations": heartbeats and `GET /locations` on every store. Through the testing
 * kit (memory store, manual clock) the engine's heartbeat and the ages that make a worker live,
 * not live and forgotten; on SQLite and PostgreSQL the same ages by the database's own clock,
 * reached by setting a heartbeat's time back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMonitoringEngine } from '../../engine/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { availableStores } from '../support/stores.ts';

interface Location {
  name: string;
  live_workers: number;
  last_seen_at: string;
}

describe('GET /locations through the testing kit', () => {
  it('lists the location of a worker that ran, live for 30 s, listed for 24 h', async () => {
    const t = createTestApi({ start: '2026-03-01T12:00:00.000Z' });
    const key = await t.createKey({ scopes: ['read'] });
    const list = async () => {
      const response = await t.request<Location[]>('/v1/locations', { key });
      assert.equal(response.status, 200);
      return response.body.data!;
    };
    assert.deepEqual(await list(), []);
    const engine = (workerId: string, location?: string) =>
      createMonitoringEngine({ store: t.store, clock: t.clock, workerId, ...(location ? { location } : {}) });
    await engine('a').runOnce();
    await engine('b', 'eu-west').runOnce();
    await engine('c', 'eu-west').runOnce();
    assert.deepEqual(await list(), [
      { name: 'default', live_workers: 1, last_seen_at: '2026-03-01T12:00:00.000Z' },
      { name: 'eu-west', live_workers: 2, last_seen_at: '2026-03-01T12:00:00.000Z' },
    ]);
    t.clock.advance(29_999);
    await engine('c', 'eu-west').runOnce();
    assert.deepEqual(
      (await list()).map((l) => [l.name, l.live_workers]),
      [
        ['default', 1],
        ['eu-west', 2],
      ],
    );
    t.clock.advance(1);
    assert.deepEqual(
      (await list()).map((l) => [l.name, l.live_workers, l.last_seen_at]),
      [
        ['default', 0, '2026-03-01T12:00:00.000Z'],
        ['eu-west', 1, '2026-03-01T12:00:29.999Z'],
      ],
      'a heartbeat 30 s old is no longer live; the location stays listed',
    );
    t.clock.set('2026-03-02T12:00:00.000Z');
    assert.deepEqual(
      (await list()).map((l) => [l.name, l.live_workers]),
      [['eu-west', 0]],
      'a day after its last heartbeat a location is no longer listed',
    );
  });

  it('needs the read scope, takes no query, refuses other methods', async () => {
    const t = createTestApi();
    const write = await t.createKey({ scopes: ['write'] });
    const read = await t.createKey({ scopes: ['read'] });
    const denied = await t.request('/v1/locations', { key: write });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error?.code, 'insufficient_scope');
    const query = await t.request('/v1/locations?limit=1', { key: read });
    assert.equal(query.status, 400);
    assert.equal(query.body.error?.code, 'validation_failed');
    const post = await t.request('/v1/locations', { key: read, method: 'POST', body: {} });
    assert.equal(post.status, 405);
  });

  it('an engine given a bad location refuses to start', () => {
    const t = createTestApi();
    for (const location of ['', 'EU', 'a b', 'x'.repeat(33)]) {
      assert.throws(() => createMonitoringEngine({ store: t.store, location }), /location must be 1 to 32/);
    }
    assert.throws(
      () => createMonitoringEngine({ store: t.store, probeSourceAddress: 'host' }),
      /probeSourceAddress must be an IP address/,
    );
  });
});

for (const factory of await availableStores()) {
  if (factory.name === 'memory') continue;
  describe(`heartbeats on ${factory.name}, by the database's clock`, { skip: factory.skip }, () => {
    it('one row per worker; live under 30 s, listed under 24 h', async () => {
      const { store, execute, cleanup } = await factory.open();
      try {
        const beat = (worker_id: string, location: string) =>
          store.recordHeartbeat!({ worker_id, location, version: '1.2.3', started_at: '2026-03-01T12:00:00.000Z' });
        const before = Date.now();
        await beat('w1', 'eu-west');
        await beat('w2', 'eu-west');
        await beat('w3', 'us-east');
        await beat('w3', 'us-east');
        const listed = await store.listLocations();
        assert.deepEqual(
          listed.map((l) => [l.name, l.live_workers]),
          [
            ['eu-west', 2],
            ['us-east', 1],
          ],
        );
        for (const l of listed) assert.ok(Math.abs(Date.parse(l.last_seen_at) - before) < 60_000, l.last_seen_at);
        // Ages set back by the database's own arithmetic, as its clock would have moved them.
        const back = (worker: string, seconds: number) =>
          execute!(
            factory.name === 'postgres'
              ? `update worker_heartbeats set last_seen_at = now() - interval '${seconds} seconds' where worker_id = '${worker}'`
              : `update worker_heartbeats set last_seen_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-${seconds} seconds') where worker_id = '${worker}'`,
          );
        await back('w1', 31);
        await back('w3', 86_401);
        assert.deepEqual(
          (await store.listLocations()).map((l) => [l.name, l.live_workers]),
          [['eu-west', 1]],
        );
        await back('w2', 40);
        assert.deepEqual(
          (await store.listLocations()).map((l) => [l.name, l.live_workers]),
          [['eu-west', 0]],
          'a location whose workers all stopped stays listed',
        );
        await beat('w4', 'ap-south');
        assert.deepEqual(
          (await store.listLocations()).map((l) => l.name),
          ['ap-south', 'eu-west'],
          'a heartbeat forgets rows older than a day, not younger ones',
        );
      } finally {
        await cleanup();
      }
    });
  });
}
