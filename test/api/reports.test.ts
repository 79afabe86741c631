/**
 * docs/contract.md §6.12 through the API, on every store: availability from the status timeline
 * (exact to the second: a 10-minute outage in a day is 99.3056 %), incidents newest first with
 * their cause and paged by Link, response times per bucket, listing periods, and 404 for ids that
 * are not the user's. Checks are recorded through the store as the engine records them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type {
  AvailabilityReport,
  BlacklistMonitor,
  Device,
  Incident,
  ListingPeriod,
  ResponseTimePoint,
} from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { TestApi, TestResponse } from '../../core/testing/index.ts';
import { http, mustRecord, recordBlacklistCheck, recordDeviceCheck } from './checks.ts';
import { assertError, assertSuccess, eachStore, ISO_MS } from './helpers.ts';

const START = '2026-03-02T00:00:00.000Z';
const T0 = Date.parse(START);
/** A start after any store of the suite was made. */
const LATER = '2036-03-02T00:00:00.000Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const enc = encodeURIComponent;

async function createDevice(t: TestApi, key: CreatedApiKey, name = 'example.com'): Promise<Device> {
  return assertSuccess(
    await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: name },
    }),
    201,
  );
}

/** Records one check of the device's https probe at `atMs`: up with `ms` of response time, or down (refused). */
async function check(t: TestApi, id: number, atMs: number, status: 'up' | 'down', ms = 87): Promise<void> {
  const result = status === 'up' ? { ...http(iso(atMs), 200), response_ms: ms } : http(iso(atMs), null);
  await mustRecord(recordDeviceCheck(t.store, id, { checked_at: iso(atMs), status, results: [result] }));
}

/** A device created at T0, up, down from T0 + 2 h for `outages` 10-minute outages an hour apart. */
async function deviceWithOutages(t: TestApi, key: CreatedApiKey, outages: number, name?: string): Promise<Device> {
  const device = await createDevice(t, key, name);
  await check(t, device.id, T0 + MINUTE, 'up');
  for (let i = 0; i < outages; i++) {
    const down = T0 + (2 + i) * HOUR;
    await check(t, device.id, down, 'down');
    await check(t, device.id, down + 10 * MINUTE, 'up');
  }
  return device;
}

eachStore('reports', (env) => {
  const setup = async (start = START) => {
    const t = env.api({ start, rateLimit: { limit: 100_000, windowSeconds: 60 } });
    return { t, key: await t.createKey() };
  };

  test('a device down 10 minutes in a day: availability 99.3056, one incident of 600 s', async () => {
    const { t, key } = await setup();
    const device = await deviceWithOutages(t, key, 1);
    t.clock.set(T0 + DAY + HOUR);
    const report = assertSuccess(
      await t.request<AvailabilityReport>(
        `/v1/devices/availability?id=${device.id}&from=${enc(START)}&to=${enc(iso(T0 + DAY))}`,
        { key },
      ),
      200,
    );
    assert.deepEqual(report, {
      from: START,
      to: iso(T0 + DAY),
      availability: 99.3056,
      uptime_s: 86_400 - 600,
      downtime_s: 600,
      maintenance_s: 0,
      paused_s: 0,
      unknown_s: 0,
      incidents: 1,
      longest_incident_s: 600,
      mean_incident_s: 600,
      mtbf_s: 86_400 - 600,
    });
  });

  test('time before the device existed is unknown_s, not uptime; a range in offsets reads as UTC', async () => {
    const { t, key } = await setup();
    const device = await deviceWithOutages(t, key, 1);
    t.clock.set(T0 + DAY);
    // From a day before the device was created to the end of its first day, written in +02:00.
    const from = '2026-03-01T02:00:00+02:00';
    const to = '2026-03-03T02:00:00.000999+02:00';
    const report = assertSuccess(
      await t.request<AvailabilityReport>(`/v1/devices/availability?id=${device.id}&from=${enc(from)}&to=${enc(to)}`, {
        key,
      }),
      200,
    );
    assert.equal(report.from, iso(T0 - DAY));
    assert.equal(report.to, iso(T0 + DAY), 'a to up to a minute ahead is now, digits past the ms dropped');
    assert.equal(report.unknown_s, 86_400);
    assert.equal(report.downtime_s, 600);
    assert.equal(report.availability, 99.3056);
  });

  test('without from and to: the last 30 days up to now; a range wholly before the device is null', async () => {
    const { t, key } = await setup();
    const device = await deviceWithOutages(t, key, 1);
    t.clock.set(T0 + 10 * DAY);
    const report = assertSuccess(
      await t.request<AvailabilityReport>(`/v1/devices/availability?id=${device.id}`, { key }),
      200,
    );
    assert.equal(report.to, iso(T0 + 10 * DAY));
    assert.equal(report.from, iso(T0 - 20 * DAY));
    assert.equal(report.unknown_s, 20 * 86_400);
    assert.equal(report.downtime_s, 600);
    const before = assertSuccess(
      await t.request<AvailabilityReport>(
        `/v1/devices/availability?id=${device.id}&from=${enc(iso(T0 - 400 * DAY))}&to=${enc(START)}`,
        { key },
      ),
      200,
    );
    assert.equal(before.availability, null, 'exactly 400 days is accepted; nothing was counted');
    assert.equal(before.unknown_s, 400 * 86_400);
    assert.equal(before.incidents, 0);
    assert.equal('mtbf_s' in before, false);
  });

  test('incidents: newest first, with cause, open ones unresolved, paged by a Link that keeps the range', async () => {
    const { t, key } = await setup();
    const device = await deviceWithOutages(t, key, 3);
    const other = await createDevice(t, key, 'example.org');
    await check(t, other.id, T0 + 5 * HOUR, 'down');
    t.clock.set(T0 + DAY);

    const all = assertSuccess(await t.request<Incident[]>('/v1/incidents', { key }), 200);
    assert.equal(all.length, 4);
    assert.deepEqual(
      all.map((incident) => incident.id),
      all.map((incident) => incident.id).sort((a, b) => b - a),
      'newest first',
    );
    const open = all[0]!;
    assert.equal(open.device_id, other.id);
    assert.equal(open.started_at, iso(T0 + 5 * HOUR));
    assert.equal(open.resolved_at, null);
    assert.equal(open.duration_s, null);
    const first = all[3]!;
    assert.deepEqual(first, {
      id: first.id,
      device_id: device.id,
      heartbeat_id: null,
      started_at: iso(T0 + 2 * HOUR),
      resolved_at: iso(T0 + 2 * HOUR + 10 * MINUTE),
      duration_s: 600,
      cause: { probe: 'public_https', error: 'ECONNREFUSED' },
      locations: null,
      acknowledged_at: null,
      acknowledged_by: null,
    });

    // One device's, one at a time: each page's Link names the next, with the range the first resolved.
    const seen: number[] = [];
    let path: string | null = `/v1/incidents?device_id=${device.id}&limit=1`;
    let pages = 0;
    while (path !== null) {
      const res: TestResponse<Incident[]> = await t.request<Incident[]>(path, { key });
      const page = assertSuccess(res, 200);
      pages++;
      seen.push(...page.map((incident) => incident.id));
      const link: string | null = res.headers.get('link');
      if (link === null) path = null;
      else {
        const target: string = /^<([^>]+)>; rel="next"$/.exec(link)![1]!;
        const next = new URL(target, 'http://monitoring.test/v1/incidents');
        assert.equal(next.searchParams.get('from'), iso(T0 + DAY - 30 * DAY));
        assert.equal(next.searchParams.get('to'), iso(T0 + DAY));
        assert.equal(next.searchParams.get('device_id'), String(device.id));
        assert.equal(next.searchParams.get('limit'), '1');
        // The clock moves on between pages: the link's range does not.
        t.clock.advance(MINUTE);
        path = target;
      }
    }
    assert.deepEqual(
      seen,
      all.slice(1).map((incident) => incident.id),
    );
    assert.equal(pages, 3);

    // A range that holds only the second outage.
    const second = assertSuccess(
      await t.request<Incident[]>(
        `/v1/incidents?device_id=${device.id}&from=${enc(iso(T0 + 3 * HOUR))}&to=${enc(iso(T0 + 3 * HOUR + MINUTE))}`,
        { key },
      ),
      200,
    );
    assert.deepEqual(
      second.map((incident) => incident.started_at),
      [iso(T0 + 3 * HOUR)],
    );
  });

  test("another user's device or monitor, or none, is 404 on every report route, and their incidents are not listed", async () => {
    const { t, key } = await setup();
    const device = await deviceWithOutages(t, key, 1);
    const stranger = await t.createKey();
    t.clock.set(T0 + DAY);
    for (const path of [
      `/v1/devices/availability?id=${device.id}`,
      `/v1/devices/response-times?id=${device.id}`,
      `/v1/incidents?device_id=${device.id}`,
      '/v1/devices/availability?id=9007199254740991',
    ])
      assertError(await t.request(path, { key: stranger }), 404, 'device_not_found');
    assertError(
      await t.request('/v1/blacklist-monitors/listings?id=9007199254740991', { key }),
      404,
      'blacklist_monitor_not_found',
    );
    assert.deepEqual(assertSuccess(await t.request<Incident[]>('/v1/incidents', { key: stranger }), 200), []);
  });

  test('response times: hours for a day, days for longer, the running hour included', async () => {
    // A store's rollups and raw tail start when its report tables were made (now, by the real
    // clock, for the suite's shared store): these checks are written after that, on a clock of
    // their own. The stores' own tests cover rollups; here the series is read as the API shapes it.
    const T0 = Date.parse(LATER);
    const START = LATER;
    const { t, key } = await setup(LATER);
    const device = await createDevice(t, key);
    // Hour 0: 20 checks of 100..290 ms; hour 1: one failure and one of 50 ms; hour 2 (running): one of 70 ms.
    for (let i = 0; i < 20; i++) await check(t, device.id, T0 + (i + 1) * MINUTE, 'up', 100 + 10 * i);
    await check(t, device.id, T0 + HOUR + MINUTE, 'down');
    await check(t, device.id, T0 + HOUR + 2 * MINUTE, 'up', 50);
    await check(t, device.id, T0 + 2 * HOUR + MINUTE, 'up', 70);
    t.clock.set(T0 + 2 * HOUR + 30 * MINUTE);

    const hours = assertSuccess(
      await t.request<ResponseTimePoint[]>(`/v1/devices/response-times?id=${device.id}&from=${enc(START)}`, { key }),
      200,
    );
    assert.deepEqual(hours.slice(0, 2), [
      {
        at: START,
        probe: 'public_https',
        checks: 20,
        failures: 0,
        avg_ms: 195,
        p95_ms: hours[0]!.p95_ms,
        min_ms: 100,
        max_ms: 290,
      },
      {
        at: iso(T0 + HOUR),
        probe: 'public_https',
        checks: 2,
        failures: 1,
        avg_ms: 50,
        p95_ms: 50,
        min_ms: 50,
        max_ms: 50,
      },
    ]);
    // The exact p95 of 100..290 by tens (nearest rank, the 19th of 20) is 280.
    assert.ok(Math.abs(hours[0]!.p95_ms! - 280) <= 280 * 0.05, `p95 ${hours[0]!.p95_ms}`);
    assert.equal(hours.length, 3, 'the running hour is part of the series');
    assert.equal(hours[2]!.at, iso(T0 + 2 * HOUR));
    assert.equal(hours[2]!.checks, 1);

    const days = assertSuccess(
      await t.request<ResponseTimePoint[]>(
        `/v1/devices/response-times?id=${device.id}&from=${enc(iso(T0 - 3 * DAY))}`,
        { key },
      ),
      200,
    );
    assert.equal(days.length, 1, 'over two days: one point per day');
    assert.equal(days[0]!.at, START);
    assert.equal(days[0]!.checks, 23);
    assert.equal(days[0]!.failures, 1);
    assert.equal(days[0]!.min_ms, 50);
    assert.equal(days[0]!.max_ms, 290);
    for (const point of [...hours, ...days]) assert.match(point.at, ISO_MS);

    // In New York, the checks fall on the local day that began at 05:00 UTC the day before.
    const local = assertSuccess(
      await t.request<ResponseTimePoint[]>(
        `/v1/devices/response-times?id=${device.id}&from=${enc(iso(T0 - DAY))}&time_zone=America%2FNew_York`,
        { key },
      ),
      200,
    );
    assert.deepEqual(
      local.map((point) => [point.at, point.checks]),
      [[iso(T0 - DAY + 5 * HOUR), 23]],
    );
  });

  test('listings: each zone listing period of a monitor, closed when delisted', async () => {
    const { t, key } = await setup();
    const monitor = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '8.8.8.8' },
      }),
      201,
    );
    const listing = (zone: string, since: number) => ({
      zone,
      answer: '127.0.0.2',
      meaning: null,
      policy: false,
      delist_url: null,
      since: iso(since),
    });
    const listedAt = T0 + HOUR;
    await mustRecord(
      recordBlacklistCheck(t.store, monitor.id, {
        checked_at: iso(listedAt),
        last_status: 'listed',
        listed_on: ['zen.spamhaus.org', 'bl.spamcop.net'],
        listings: [listing('bl.spamcop.net', listedAt), listing('zen.spamhaus.org', listedAt)],
      }),
    );
    await mustRecord(
      recordBlacklistCheck(t.store, monitor.id, {
        checked_at: iso(listedAt + HOUR),
        last_status: 'listed',
        listed_on: ['zen.spamhaus.org'],
        listings: [listing('zen.spamhaus.org', listedAt)],
      }),
    );
    t.clock.set(T0 + DAY);
    const periods = assertSuccess(
      await t.request<ListingPeriod[]>(`/v1/blacklist-monitors/listings?id=${monitor.id}`, { key }),
      200,
    );
    assert.deepEqual(periods, [
      { zone: 'bl.spamcop.net', answer: '127.0.0.2', listed_at: iso(listedAt), delisted_at: iso(listedAt + HOUR) },
      { zone: 'zen.spamhaus.org', answer: '127.0.0.2', listed_at: iso(listedAt), delisted_at: null },
    ]);
    const stranger = await t.createKey();
    assertError(
      await t.request(`/v1/blacklist-monitors/listings?id=${monitor.id}`, { key: stranger }),
      404,
      'blacklist_monitor_not_found',
    );
  });
});
