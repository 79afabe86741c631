/**
 * The client's results methods against a real HTTP server: the API over node:http on 127.0.0.1,
 * on the memory store (the database stores' engine methods are not written yet), with checks
 * recorded through the store as the engine records them.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createNodeHandler } from '../../adapters/node/index.ts';
import {
  createMonitoringClient,
  isApiError,
  MonitoringApiError,
  type DeviceProbeResult,
  type DnsblResult,
  type MonitoringClient,
  type WebhookAttempt,
} from '../../client/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import { dnsbl, http, mustRecord, recordBlacklistCheck, recordDeviceCheck, tls } from '../api/checks.ts';
import { emitterFor } from '../webhooks/support.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

interface Sent {
  url: string;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('client results() and allResults() against the API over node:http', { concurrency: 1 }, () => {
  let t: TestApi;
  let server: Server;
  let baseUrl: string;
  let token: string;
  const log: Sent[] = [];
  let api: MonitoringClient;

  before(async () => {
    t = createTestApi({ rateLimit: { limit: 10_000, windowSeconds: 60 } });
    server = createServer(createNodeHandler(t.api));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    token = (await t.createKey()).token;
    api = createMonitoringClient({
      baseUrl,
      token,
      fetch: async (input, init) => {
        log.push({ url: String(input) });
        return fetch(input, init);
      },
    });
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  test("a device's results: typed, newest first, one page and its cursor, then every page", async () => {
    const device = await api.devices.create({
      target_type: 'domain',
      target_value: 'example.com',
      check_interval_s: 120,
    });
    assert.equal(device.check_interval_s, 120);
    assert.equal(device.status, 'pending');
    assert.deepEqual(device.last_results, {});
    assert.deepEqual(await api.devices.results(device.id), { data: [], next: null });
    for (let i = 1; i <= 5; i++) {
      await mustRecord(
        recordDeviceCheck(t.store, device.id, {
          checked_at: at(i),
          status: 'up',
          results: [http(at(i), 200), tls(at(i), 50 - i)],
        }),
      );
    }
    const first = await api.devices.results(device.id, { limit: 4 });
    const rows: DeviceProbeResult[] = first.data;
    assert.deepEqual(
      rows.map((r) => [r.probe, r.checked_at]),
      [
        ['public_tls', at(5)],
        ['public_https', at(5)],
        ['public_tls', at(4)],
        ['public_https', at(4)],
      ],
    );
    assert.deepEqual(first.next, { limit: 4, beforeId: rows[3]!.id });
    const second = await api.devices.results(device.id, first.next!);
    assert.equal(second.data.length, 4);
    assert.ok(second.data[0]!.id < rows[3]!.id);

    log.length = 0;
    const all = await collect(api.devices.allResults(device.id, { pageSize: 3 }));
    assert.equal(all.length, 10);
    assert.deepEqual(
      all.map((r) => r.id),
      [...all.map((r) => r.id)].sort((a, b) => b - a),
    );
    assert.equal(log.length, 4, 'pages of 3, 3, 3 and 1');
    assert.deepEqual(
      log.map((s) => new URL(s.url).search),
      [
        `?id=${device.id}&limit=3`,
        `?id=${device.id}&limit=3&before_id=${all[2]!.id}`,
        `?id=${device.id}&limit=3&before_id=${all[5]!.id}`,
        `?id=${device.id}&limit=3&before_id=${all[8]!.id}`,
      ],
    );
    // From a cursor of the caller's choosing, with the server's default page size.
    assert.deepEqual(
      (await collect(api.devices.allResults(device.id, { beforeId: all[7]!.id }))).map((r) => r.id),
      all.slice(8).map((r) => r.id),
    );
    const [listed] = (await api.devices.list()).data;
    assert.deepEqual(Object.keys(listed!.last_results).sort(), ['public_https', 'public_tls']);
    assert.equal(listed!.last_checked_at, at(5));
  });

  test("a blacklist monitor's results are DNSBL rows", async () => {
    const monitor = await api.blacklistMonitors.create({
      target_type: 'ip',
      target_value: '8.8.8.8',
      check_interval_s: 900,
    });
    assert.equal(monitor.check_interval_s, 900);
    assert.deepEqual(monitor.failed_zones, []);
    await mustRecord(
      recordBlacklistCheck(t.store, monitor.id, {
        checked_at: at(1),
        last_status: 'listed',
        listed_on: ['zen.spamhaus.org'],
        results: [dnsbl(at(1), 'zen.spamhaus.org', true)],
      }),
    );
    const page = await api.blacklistMonitors.results(monitor.id);
    const rows: DnsblResult[] = page.data;
    assert.deepEqual(
      rows.map((r) => [r.zone, r.listed, r.answer]),
      [['zen.spamhaus.org', true, '127.0.0.2']],
    );
    assert.equal(page.next, null);
  });

  test("errors are typed: 404 for a record that is not the caller's, 400 for a bad id or limit", async () => {
    const other = await t.createKey();
    const theirs = await createMonitoringClient({ baseUrl, token: other.token }).devices.create({
      target_type: 'domain',
      target_value: 'theirs.example.com',
    });
    for (const [call, status, code] of [
      [api.devices.results(theirs.id), 404, 'device_not_found'],
      [api.blacklistMonitors.results(9_007_199_254_740_991), 404, 'blacklist_monitor_not_found'],
      [api.devices.results(0), 400, 'invalid_id'],
      [api.devices.results(1, { limit: 1001 }), 400, 'validation_failed'],
      [collect(api.blacklistMonitors.allResults(1, { pageSize: 0 })), 400, 'validation_failed'],
    ] as const) {
      await assert.rejects(
        call,
        (error: unknown) => error instanceof MonitoringApiError && error.status === status && error.code === code,
      );
    }
  });

  test("a webhook's delivery attempts: newest first, one page and its cursor, then every page", async () => {
    const webhook = await api.webhooks.create({ url: 'https://hooks.example.com/attempts' });
    const userId = (await api.me()).user_id;
    const emit = emitterFor('memory', { store: t.store, cleanup: async () => {} });
    // After the webhook was made, whatever the test API's clock says: only then is it announced to it.
    await emit(userId, 'blacklist.listed', '2100-01-01T00:00:00.000Z');
    await t.store.fanOutEvents(at(1), 10);
    for (const [minute, status] of [
      [2, 500],
      [3, 502],
      [4, 204],
    ] as const) {
      const [claimed] = await t.store.claimDeliveries({
        owner: 'c',
        now: at(minute),
        limit: 1,
        leaseUntil: at(minute + 1),
      });
      assert.ok(claimed, `a delivery due at minute ${minute}`);
      const delivered = status === 204;
      assert.equal(
        await t.store.recordDeliveryAttempt(claimed.lease, {
          attempted_at: at(minute),
          state: delivered ? 'delivered' : 'pending',
          next_attempt_at: delivered ? null : at(minute),
          response_status: status,
          error: delivered ? null : `http_${status}`,
          duration_ms: minute,
        }),
        true,
      );
    }
    const page = await api.webhooks.deliveries(webhook.id, { limit: 2 });
    const attempts: WebhookAttempt[] = page.data;
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.http_status, a.error, a.duration_ms]),
      [
        [3, 204, null, 4],
        [2, 502, 'http_502', 3],
      ],
    );
    assert.deepEqual(page.next, { limit: 2, beforeId: attempts[1]!.id });
    assert.deepEqual(
      (await collect(api.webhooks.allDeliveries(webhook.id, { pageSize: 2 }))).map((a) => a.attempt),
      [3, 2, 1],
    );
    await assert.rejects(api.webhooks.deliveries(webhook.id + 1000), (error: unknown) =>
      isApiError(error, 'webhook_not_found'),
    );
  });
});
