/**
 * The client's `reports` methods against a real HTTP server: the API over node:http on 127.0.0.1,
 * on the memory store and a manual clock, with checks recorded through the store as the engine
 * records them (docs/contract.md §6.12).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createNodeHandler } from '../../adapters/node/index.ts';
import { createMonitoringClient, isApiError, type Incident, type MonitoringClient } from '../../client/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import { mustRecord, recordBlacklistCheck, recordDeviceCheck, tls } from '../api/checks.ts';

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const at = (minutes: number) => new Date(START + minutes * MINUTE).toISOString();

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('client reports against the API over node:http', { concurrency: 1 }, () => {
  let t: TestApi;
  let server: Server;
  let api: MonitoringClient;
  const urls: URL[] = [];
  let deviceId: number;
  let monitorId: number;

  before(async () => {
    t = createTestApi({ start: new Date(START), rateLimit: { limit: 10_000, windowSeconds: 60 } });
    server = createServer(createNodeHandler(t.api));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    api = createMonitoringClient({
      baseUrl,
      token: (await t.createKey()).token,
      fetch: async (input, init) => {
        urls.push(new URL(String(input)));
        return fetch(input, init);
      },
    });
    deviceId = (await api.devices.create({ target_type: 'domain', target_value: 'example.com' })).id;
    // Up, then three 10-minute outages an hour apart, each down with a failing TLS probe.
    const check = (minutes: number, up: boolean) =>
      mustRecord(
        recordDeviceCheck(t.store, deviceId, {
          checked_at: at(minutes),
          status: up ? 'up' : 'down',
          results: [tls(at(minutes), up ? 30 : -1)],
        }),
      );
    await check(1, true);
    for (const hour of [1, 2, 3]) {
      await check(hour * 60, false);
      await check(hour * 60 + 10, true);
    }
    monitorId = (await api.blacklistMonitors.create({ target_type: 'ip', target_value: '8.8.8.8' })).id;
    await mustRecord(
      recordBlacklistCheck(t.store, monitorId, {
        checked_at: at(5),
        last_status: 'listed',
        listed_on: ['zen.spamhaus.org'],
        listings: [
          {
            zone: 'zen.spamhaus.org',
            answer: '127.0.0.2',
            meaning: null,
            policy: false,
            delist_url: null,
            since: at(5),
          },
        ],
      }),
    );
    t.clock.set(START + 24 * 60 * MINUTE);
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  test('availability: from and to as Dates or strings, sent as given', async () => {
    urls.length = 0;
    const report = await api.reports.availability(deviceId, { from: new Date(START), to: at(24 * 60) });
    assert.equal(report.availability, 97.9167);
    assert.equal(report.downtime_s, 1800);
    assert.equal(report.incidents, 3);
    assert.equal(urls[0]!.pathname, '/v1/devices/availability');
    assert.equal(urls[0]!.searchParams.get('from'), at(0));
    assert.equal(urls[0]!.searchParams.get('id'), String(deviceId));
  });

  test('responseTimes: bucket and timeZone as query parameters', async () => {
    urls.length = 0;
    const hours = await api.reports.responseTimes(deviceId, { from: at(0), bucket: 'hour' });
    assert.deepEqual(
      hours.map((point) => point.checks),
      [1, 2, 2, 2],
    );
    const days = await api.reports.responseTimes(deviceId, { from: at(-60 * 24), timeZone: 'Asia/Tokyo' });
    assert.deepEqual(
      days.map((point) => [point.at, point.checks]),
      [['2025-12-31T15:00:00.000Z', 7]],
    );
    assert.equal(urls[1]!.searchParams.get('time_zone'), 'Asia/Tokyo');
  });

  test('incidents: a page and its cursor, then every page; the cursor keeps the range', async () => {
    const first = await api.reports.incidents({ deviceId, limit: 2 });
    assert.equal(first.data.length, 2);
    assert.ok(first.next !== null);
    assert.equal(first.next.deviceId, deviceId);
    assert.equal(first.next.to, at(24 * 60));
    t.clock.advance(MINUTE);
    const second = await api.reports.incidents(first.next);
    assert.equal(second.data.length, 1);
    assert.equal(second.next, null);
    const all: Incident[] = await collect(api.reports.allIncidents({ pageSize: 1 }));
    assert.deepEqual(
      all.map((incident) => incident.id),
      [...first.data, ...second.data].map((incident) => incident.id),
    );
    assert.deepEqual(all[2]!.cause, { probe: 'public_tls', error: 'CERT_HAS_EXPIRED' });
  });

  test('acknowledge: POST with the id, answers the incident with the key that acknowledged it', async () => {
    urls.length = 0;
    const [newest] = (await api.reports.incidents({ deviceId, limit: 1 })).data;
    assert.equal(newest!.acknowledged_at, null);
    const acknowledged = await api.reports.acknowledge(newest!.id);
    assert.equal(urls[1]!.pathname, '/v1/incidents/acknowledge');
    assert.equal(urls[1]!.searchParams.get('id'), String(newest!.id));
    assert.equal(acknowledged.id, newest!.id);
    assert.equal(acknowledged.acknowledged_at, new Date(t.clock.now()).toISOString());
    assert.equal(typeof acknowledged.acknowledged_by, 'number');
    await assert.rejects(api.reports.acknowledge(newest!.id + 1000), (error) =>
      isApiError(error, 'incident_not_found'),
    );
  });

  test('listings, and errors as MonitoringApiError with their codes', async () => {
    assert.deepEqual(await api.reports.listings(monitorId), [
      { zone: 'zen.spamhaus.org', answer: '127.0.0.2', listed_at: at(5), delisted_at: null },
    ]);
    await assert.rejects(api.reports.availability(deviceId, { from: at(60), to: at(0) }), (error) => {
      assert.ok(isApiError(error, 'validation_failed'));
      assert.deepEqual(
        error.details?.map((d) => [d.field, d.code]),
        [['from', 'out_of_range']],
      );
      return true;
    });
    await assert.rejects(api.reports.listings(deviceId + 1000), (error) =>
      isApiError(error, 'blacklist_monitor_not_found'),
    );
  });
});
