/**
 * The engine's record fields (docs/engine.md, "What the API shows") go out exactly as the store
 * returns them on every path a record takes: a create, a page, a streamed list and a list served
 * from the list cache. Compared as JSON text, so a dropped, renamed or reordered field shows.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MemoryStore, type BlacklistMonitor, type Device, type NewDevice, type PageRequest } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { http, lastResults, mustRecord, recordBlacklistCheck, recordDeviceCheck, service, tls } from './checks.ts';
import { assertSuccess, createTestApi } from './helpers.ts';
import { newWebDevice } from '../support/records.ts';

/**
 * A memory store with a change marker, as a database store has, so that lists go through the
 * list cache. The marker moves on every write, the engine's included, as `Store.changeMarker`
 * requires; list reads are counted to tell a cached answer from a fresh one.
 */
class MarkedStore extends MemoryStore {
  writes = 0;
  listReads = 0;
  changeMarker(): string {
    return String(this.writes);
  }
  override async createDevice(...args: Parameters<MemoryStore['createDevice']>) {
    this.writes++;
    return super.createDevice(...args);
  }
  override async recordDeviceChecks(...args: Parameters<MemoryStore['recordDeviceChecks']>) {
    this.writes++;
    return super.recordDeviceChecks(...args);
  }
  override async recordBlacklistChecks(...args: Parameters<MemoryStore['recordBlacklistChecks']>) {
    this.writes++;
    return super.recordBlacklistChecks(...args);
  }
  override async listDevices(userId: number, page: PageRequest) {
    this.listReads++;
    return super.listDevices(userId, page);
  }
}

const apis: TestApi[] = [];
after(async () => {
  for (const t of apis) await t.close();
});

function device(i: number): NewDevice {
  // Every engine field set, and differently per record, so a field lost or mixed up shows.
  return newWebDevice({
    target_value: `d${i}.example.com`,
    is_enabled: i % 7 !== 0,
    check_interval_s: 30 + i,
    status: i % 7 === 0 ? 'paused' : i % 3 === 0 ? 'down' : 'up',
    status_since: i % 2 === 0 ? null : '2026-01-01T00:01:00.000Z',
    last_checked_at: '2026-01-01T00:02:00.000Z',
    last_results: lastResults(
      http('2026-01-01T00:02:00.000Z', i % 3 === 0 ? 503 : 200),
      tls('2026-01-01T00:02:00.000Z', i),
    ),
  });
}

const body = (data: unknown) => JSON.stringify({ success: true, data });

describe('record fields on every answer path', { concurrency: 1 }, () => {
  test("a streamed list (more than one batch) is the store's records, byte for byte", async () => {
    const t = createTestApi();
    apis.push(t);
    const key = await t.createKey();
    for (let i = 0; i < 520; i++) await t.store.createDevice(key.key.user_id, device(i));
    const res = await t.api.fetch(
      new Request('http://monitoring.test/v1/devices', { headers: { authorization: `Bearer ${key.token}` } }),
      { clientAddress: '127.0.0.1' },
    );
    const text = await res.text();
    assert.equal(text, body(await t.store.listDevices(key.key.user_id, { afterId: 0, limit: 10_000 })));
    // And a page of it.
    const page = await t.request('/v1/devices?limit=3&after_id=100', { key });
    assert.equal(page.text, body(await t.store.listDevices(key.key.user_id, { afterId: 100, limit: 3 })));
  });

  test('a create answer is the record as listed', async () => {
    const t = createTestApi();
    apis.push(t);
    const key = await t.createKey();
    const created = await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: {
        target_type: 'ip',
        target_value: '1.1.1.1',
        service_type: 'dns',
        check_interval_s: 45,
        is_enabled: false,
      },
    });
    const monitor = await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
      method: 'POST',
      key,
      body: { target_type: 'ip', target_value: '1.1.1.1', check_interval_s: 600 },
    });
    assert.equal(created.text, body((await t.store.listDevices(key.key.user_id, { afterId: 0, limit: 10 }))[0]));
    assert.equal(
      monitor.text,
      body((await t.store.listBlacklistMonitors(key.key.user_id, { afterId: 0, limit: 10 }))[0]),
    );
    // The engine's fields, then the name and channels (docs/notifications.md, "Which channels").
    assert.deepEqual(Object.keys(created.body.data!).slice(-11), [
      'check_interval_s',
      'check_locations',
      'quorum',
      'quorum_state',
      'locations',
      'status',
      'status_since',
      'last_checked_at',
      'last_results',
      'name',
      'channel_ids',
    ]);
    assert.deepEqual(Object.keys(monitor.body.data!).slice(-8), [
      'check_interval_s',
      'failed_zones',
      'zones',
      'count_policy_listings',
      'listings',
      'rdns',
      'name',
      'channel_ids',
    ]);
  });

  test('the list cache keeps the fields, and a recorded check is seen at once', async () => {
    const store = new MarkedStore();
    const t = createTestApi({ store });
    apis.push(t);
    const key = await t.createKey();
    const d = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com', service_type: 'smtp' },
      }),
      201,
    );
    const fresh = await t.request('/v1/devices?limit=10', { key });
    const reads = store.listReads;
    const cached = await t.request('/v1/devices?limit=10', { key });
    assert.equal(store.listReads, reads, 'the second answer came from the cache');
    assert.equal(cached.text, fresh.text);
    assert.equal(cached.text, body([d]));

    await mustRecord(
      recordDeviceCheck(store, d.id, {
        checked_at: '2026-01-01T00:00:30.000Z',
        status: 'up',
        results: [service('2026-01-01T00:00:30.000Z', '220 mail.example.com ESMTP')],
      }),
    );
    const after = await t.request<Device[]>('/v1/devices?limit=10', { key });
    assert.equal(store.listReads, reads + 1, 'the check moved the marker: read afresh');
    assert.equal(after.text, body(await store.listDevices(key.key.user_id, { afterId: 0, limit: 11 })));
    assert.deepEqual(after.body.data![0]!.last_results, {
      service: service('2026-01-01T00:00:30.000Z', '220 mail.example.com ESMTP'),
    });
    assert.equal(after.body.data![0]!.status, 'up');
    // Served from the cache again, the same text.
    const readsNow = store.listReads;
    assert.equal((await t.request('/v1/devices?limit=10', { key })).text, after.text);
    assert.equal(store.listReads, readsNow);
  });

  test('a blacklist check is seen in the list with failed_zones', async () => {
    const t = createTestApi();
    apis.push(t);
    const key = await t.createKey();
    const m = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '8.8.8.8' },
      }),
      201,
    );
    await mustRecord(
      recordBlacklistCheck(t.store, m.id, {
        checked_at: '2026-01-01T00:00:01.000Z',
        last_status: 'error',
        failed_zones: ['a.example.net', 'b.example.net'],
      }),
    );
    const list = await t.request('/v1/blacklist-monitors', { key });
    assert.equal(
      list.text,
      body([
        {
          ...m,
          last_status: 'error',
          last_checked_at: '2026-01-01T00:00:01.000Z',
          failed_zones: ['a.example.net', 'b.example.net'],
        },
      ]),
    );
  });
});
