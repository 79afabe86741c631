/**
 * `GET /devices/response-times` in UTC days answered with the closed days kept in memory
 * (core/reports/closed-day-cache.ts), on every store: the body is byte for byte the series read
 * whole from the store, for ranges cut mid-day, ranges reaching into the days not rolled up yet
 * and whole closed ranges, first and again from memory, also after more days close and results
 * of the running day arrive; a range of closed days asked again reads nothing of the series from
 * the store. A kept day is never answered for a device that is gone or another user's, nor once the
 * report retention removed it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock, MemoryStore, type Device, type ResponseTimeQuery, type Store } from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { http, mustRecord, recordDeviceCheck, tls } from './checks.ts';
import { assertError, assertSuccess, eachStore, type Env } from './helpers.ts';

/** After any store of the suite was made: its rollups start when it was made. */
const START = Date.parse('2036-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const enc = encodeURIComponent;

/** The store with its `listResponseTimes` calls counted; every other member is the store's own. */
function counted(store: Store): { store: Store; calls: ResponseTimeQuery[] } {
  const calls: ResponseTimeQuery[] = [];
  const proxy = new Proxy(store, {
    get(target, name) {
      if (name === 'listResponseTimes') {
        return (userId: number, deviceId: number, query: ResponseTimeQuery) => {
          calls.push(query);
          return target.listResponseTimes(userId, deviceId, query);
        };
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: proxy, calls };
}

interface World {
  t: TestApi;
  key: CreatedApiKey;
  /** The store itself, read around the API: what the series is without the cache. */
  store: Store;
  /** The `listResponseTimes` calls the API made. */
  calls: ResponseTimeQuery[];
  base: number;
}

/**
 * An API on a clock at `base`, a day boundary after every earlier test's rollups: a SQL store of
 * the suite keeps its rollup progress from test to test. The memory store's rollups start at its
 * clock, so it gets one of its own on the test's clock.
 */
async function world(env: Env, base: number): Promise<World> {
  const clock = new ManualClock(base);
  const store = env.name === 'memory' ? new MemoryStore({ clock }) : env.store;
  const spied = counted(store);
  const t = env.api({ clock, store: spied.store, rateLimit: { limit: 100_000, windowSeconds: 60 } });
  return { t, key: await t.createKey(), store, calls: spied.calls, base };
}

async function createDevice(w: World, name = 'example.com'): Promise<Device> {
  return assertSuccess(
    await w.t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key: w.key,
      body: { target_type: 'domain', target_value: name },
    }),
    201,
  );
}

/**
 * Checks of day `day` (from the world's base) at 01:00, 09:00 and 17:00, or those at or after
 * `fromHour`: two probes each, the https one refused at 09:00 on every third day. Response
 * times vary by day and hour, so every day's points differ.
 */
async function checkDay(w: World, id: number, day: number, fromHour = 0, toHour = 24): Promise<void> {
  for (const hour of [1, 9, 17]) {
    if (hour < fromHour || hour >= toHour) continue;
    const at = iso(w.base + day * DAY + hour * HOUR);
    const refused = hour === 9 && day % 3 === 0;
    const https = refused ? http(at, null) : { ...http(at, 200), response_ms: 50 + ((day * 37 + hour * 11) % 90) };
    const status = refused ? 'down' : 'up';
    await mustRecord(recordDeviceCheck(w.store, id, { checked_at: at, status, results: [https, tls(at, 60)] }));
  }
}

/** Moves the clock to `ms` after the base and rolls up every hour that ended by then. */
async function rollUpTo(w: World, ms: number): Promise<void> {
  w.t.clock.set(w.base + ms);
  // One call: a SQL store moves over the quiet years since it was made in one step.
  await w.store.rollUpResults!(iso(w.base + ms), 1_000_000);
}

const path = (id: number, from: number, to: number) =>
  `/v1/devices/response-times?id=${id}&from=${enc(iso(from))}&to=${enc(iso(to))}&bucket=day`;

/**
 * Asks the range twice (the second answer from what the first kept) and holds both to the series
 * read whole from the store, as the route sends it without the cache.
 */
async function assertSeries(w: World, id: number, from: number, to: number, label: string): Promise<void> {
  const points = await w.store.listResponseTimes(w.key.key.user_id, id, {
    from: iso(from),
    to: iso(to),
    bucket: 'day',
  });
  const expected = `{"success":true,"data":${JSON.stringify(points)}}`;
  for (const round of ['first', 'again']) {
    const res = await w.t.request(path(id, from, to), { key: w.key });
    assert.equal(res.status, 200, `${label} (${round}): ${res.text}`);
    assert.equal(res.text, expected, `${label} (${round})`);
  }
}

/** Ranges from the base, in ms: whole closed days, cut mid-day, reaching into the open days. */
function ranges(now: number): [number, number, string][] {
  return [
    [0, 20 * DAY, 'the closed days, whole'],
    [2 * DAY + 5 * HOUR, 15 * DAY + 7 * HOUR, 'closed days, cut mid-day at both ends'],
    [3 * DAY, now, 'closed days and the open ones'],
    [6 * DAY + HOUR, now, 'from mid-day to now'],
    [19 * DAY + 12 * HOUR, now, 'from the last closed day mid-day'],
    [now - 2 * DAY - HOUR, now, 'the last two days and an hour'],
    [-30 * DAY, 5 * DAY, 'before the device existed'],
    [10 * DAY, 11 * DAY, 'a day without checks'],
  ];
}

eachStore('response times in UTC days from the closed days kept', (env) => {
  test('the same bytes as the series read whole, also after more days close and the running day is checked', async () => {
    const w = await world(env, START);
    const device = await createDevice(w);
    // Days 0 to 19 and the morning of day 20; none on day 10.
    for (let day = 0; day < 20; day++) if (day !== 10) await checkDay(w, device.id, day);
    await checkDay(w, device.id, 20, 0, 12);
    await rollUpTo(w, 20 * DAY + 12 * HOUR);
    const now = 20 * DAY + 12 * HOUR;
    for (const [from, to, label] of ranges(now)) await assertSeries(w, device.id, w.base + from, w.base + to, label);

    // Asked again, closed days are read from memory, and only the open day from the store. A write
    // first, so that no answer is reused whole under the store's change marker (reused-answer.ts).
    await createDevice(w, 'another.example.com');
    w.calls.length = 0;
    await w.t.request(path(device.id, w.base, w.base + 20 * DAY), { key: w.key });
    assert.equal(w.calls.length, 0, 'a range of kept days reads no series from the store');
    await w.t.request(path(device.id, w.base + 3 * DAY, w.base + now), { key: w.key });
    assert.deepEqual(
      w.calls.map((q) => [q.from, q.to]),
      [[iso(w.base + 20 * DAY), iso(w.base + now)]],
      'only the open day',
    );

    // Five more days close, and the running day has results not rolled up yet.
    await checkDay(w, device.id, 20, 12);
    for (let day = 21; day < 25; day++) await checkDay(w, device.id, day);
    await rollUpTo(w, 25 * DAY + 30 * 60_000);
    await checkDay(w, device.id, 25, 0, 2);
    w.t.clock.set(w.base + 25 * DAY + 2 * HOUR);
    const later = 25 * DAY + 2 * HOUR;
    for (const [from, to, label] of [...ranges(later), [0, 25 * DAY, 'all closed days'] as const]) {
      await assertSeries(w, device.id, w.base + from, w.base + to, `${label}, days later`);
    }
  });

  test('a kept day is not answered for a deleted device, another user, or a new device with its id', async () => {
    const w = await world(env, START + 100 * DAY);
    const device = await createDevice(w);
    for (let day = 0; day < 5; day++) await checkDay(w, device.id, day);
    await rollUpTo(w, 5 * DAY + HOUR);
    const url = path(device.id, w.base, w.base + 5 * DAY);
    const kept = assertSuccess(await w.t.request<unknown[]>(url, { key: w.key }), 200);
    assert.equal(kept.length, 10, 'two probes a day for five days');

    const stranger = await w.t.createKey();
    assertError(await w.t.request(url, { key: stranger }), 404, 'device_not_found');
    assertSuccess(await w.t.request(`/v1/devices/delete?id=${device.id}`, { method: 'DELETE', key: w.key }), 200);
    assertError(await w.t.request(url, { key: w.key }), 404, 'device_not_found');

    // A store may give a new device the id of the one deleted: it has none of its days.
    const next = await createDevice(w, 'example.org');
    await assertSeries(w, next.id, w.base, w.base + 5 * DAY, 'a new device');
  });

  test('days the report retention removed are no longer answered', async () => {
    const w = await world(env, START + 200 * DAY);
    const device = await createDevice(w);
    for (let day = 0; day < 10; day++) await checkDay(w, device.id, day);
    await rollUpTo(w, 10 * DAY + HOUR);
    const [from, to] = [w.base, w.base + 10 * DAY];
    await assertSeries(w, device.id, from, to, 'before the retention');

    while ((await w.store.deleteReportsBefore!(iso(w.base + 4 * DAY), 1000)) > 0);
    const points = assertSuccess(await w.t.request<{ at: string }[]>(path(device.id, from, to), { key: w.key }), 200);
    assert.deepEqual(
      [...new Set(points.map((p) => p.at))],
      [4, 5, 6, 7, 8, 9].map((day) => iso(w.base + day * DAY)),
      'days 0 to 3 are gone',
    );
    await assertSeries(w, device.id, from, to, 'after the retention');
  });
});
