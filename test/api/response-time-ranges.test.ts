/**
 * `GET /devices/response-times` over a range that begins or ends inside a bucket (docs/contract.md
 * §6.12, docs/engine.md "Reports"), on every store: every bucket that overlaps the range is
 * answered, the first and last counting the checks inside the range; in hours, UTC days and the
 * days of a time zone. The answers kept under the change marker and the closed UTC days kept in
 * memory give the bytes a fresh read of the store gives, also once the retention removes the raw
 * results of a cut hour and its rollup answers for it whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock, MemoryStore, type Device, type ResponseTimePoint, type Store } from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { http, mustRecord, recordDeviceCheck, tls } from './checks.ts';
import { assertSuccess, eachStore, type Env } from './helpers.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const enc = encodeURIComponent;

interface World {
  t: TestApi;
  key: CreatedApiKey;
  store: Store;
  device: Device;
}

/**
 * An API whose clock starts at `createdAt`, and a device created then. A SQL store of the suite
 * is shared and its rollups began when it was made; the memory store's begin at its clock, so it
 * gets one of its own on the test's clock.
 */
async function world(env: Env, createdAt: number): Promise<World> {
  const clock = new ManualClock(createdAt);
  const store = env.name === 'memory' ? new MemoryStore({ clock }) : env.store;
  const t = env.api({ clock, store, rateLimit: { limit: 100_000, windowSeconds: 60 } });
  const key = await t.createKey();
  const device = assertSuccess(
    await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: 'ranges.example.com' },
    }),
    201,
  );
  return { t, key, store, device };
}

/** A check at `atMs`: https answered in `ms`, and the certificate's handshake in 40 ms. */
async function check(w: World, atMs: number, ms: number): Promise<void> {
  const at = iso(atMs);
  const https = { ...http(at, 200), response_ms: ms };
  await mustRecord(
    recordDeviceCheck(w.store, w.device.id, { checked_at: at, status: 'up', results: [https, tls(at, 60)] }),
  );
}

function path(w: World, from: number, to: number, query = ''): string {
  return `/v1/devices/response-times?id=${w.device.id}&from=${enc(iso(from))}&to=${enc(iso(to))}${query}`;
}

async function points(w: World, url: string): Promise<ResponseTimePoint[]> {
  return assertSuccess(await w.t.request<ResponseTimePoint[]>(url, { key: w.key }), 200);
}

eachStore('response times over a range cut inside its buckets', (env) => {
  test('a device created at 07:22: its first hour, day and local day are answered from created_at', async () => {
    const created = Date.parse('2036-04-01T07:22:00.000Z');
    const w = await world(env, created);
    for (const [minute, ms] of [
      [23, 100],
      [40, 120],
      [65, 140],
      [90, 160],
    ] as const) {
      await check(w, created - 22 * MINUTE + minute * MINUTE, ms);
    }
    const now = created + 83 * MINUTE; // 08:45
    w.t.clock.set(now);
    const https = (list: ResponseTimePoint[]) =>
      list.filter((p) => p.probe === 'public_https').map((p) => [p.at, p.checks, p.min_ms, p.max_ms]);

    assert.deepEqual(
      https(await points(w, path(w, created, now, '&bucket=hour'))),
      [
        ['2036-04-01T07:00:00.000Z', 2, 100, 120],
        ['2036-04-01T08:00:00.000Z', 2, 140, 160],
      ],
      'the first hour, from created_at',
    );
    assert.deepEqual(
      https(await points(w, path(w, created, created + 48 * MINUTE, '&bucket=hour'))),
      [
        ['2036-04-01T07:00:00.000Z', 2, 100, 120],
        ['2036-04-01T08:00:00.000Z', 1, 140, 140],
      ],
      'a range ending at 08:10 counts the last hour up to it',
    );
    assert.deepEqual(
      https(await points(w, path(w, created, now, '&bucket=day'))),
      [['2036-04-01T00:00:00.000Z', 4, 100, 160]],
      'the first UTC day',
    );
    assert.deepEqual(
      https(await points(w, path(w, created, now, '&bucket=day&time_zone=Europe%2FBerlin'))),
      [['2036-03-31T22:00:00.000Z', 4, 100, 160]],
      'the first day in Berlin (UTC+2 in April)',
    );
  });

  test('kept answers and kept days give the bytes of a fresh read, also after the retention', async () => {
    const base = Date.parse('2037-06-01T00:00:00.000Z');
    const w = await world(env, base + 7 * HOUR + 22 * MINUTE);
    // Four checks a day on days 0 to 2, two on the morning of day 3, response times differing by check.
    for (let day = 0; day < 4; day++) {
      for (const [hour, minute] of [
        [1, 10],
        [7, 40],
        [13, 5],
        [19, 50],
      ] as const) {
        const at = base + day * DAY + hour * HOUR + minute * MINUTE;
        if (at < base + 7 * HOUR + 22 * MINUTE || (day === 3 && hour > 12)) continue;
        await check(w, at, 50 + ((day * 31 + hour * 7) % 90));
      }
    }
    const now = base + 3 * DAY + 12 * HOUR;
    w.t.clock.set(now);
    await w.store.rollUpResults!(iso(now), 1_000_000);

    const ranges: [number, number, string][] = [
      [base + 7 * HOUR + 22 * MINUTE, now, '&bucket=day'],
      [base + DAY + 7 * HOUR + 30 * MINUTE, base + 2 * DAY + 13 * HOUR + 20 * MINUTE, '&bucket=day'],
      [base + 2 * DAY + 7 * HOUR + 45 * MINUTE, base + 3 * DAY + 7 * HOUR, '&bucket=day'],
      [base + 7 * HOUR + 22 * MINUTE, now, '&bucket=day&time_zone=Asia%2FKolkata'],
      [base + DAY + 3 * HOUR + 10 * MINUTE, now, '&bucket=day&time_zone=America%2FNew_York'],
      [base + 2 * DAY + 7 * HOUR + 45 * MINUTE, base + 2 * DAY + 13 * HOUR + 20 * MINUTE, '&bucket=hour'],
    ];
    /** Each range asked twice (the second answer kept), held to the series read afresh from the store. */
    const answers = async (label: string): Promise<string[]> => {
      const bodies: string[] = [];
      for (const [from, to, query] of ranges) {
        const params = new URLSearchParams(query.slice(1));
        const fresh = await w.store.listResponseTimes(w.key.key.user_id, w.device.id, {
          from: iso(from),
          to: iso(to),
          bucket: params.get('bucket') as 'hour' | 'day',
          ...(params.has('time_zone') ? { time_zone: params.get('time_zone')! } : {}),
        });
        const expected = `{"success":true,"data":${JSON.stringify(fresh)}}`;
        for (const round of ['first', 'again']) {
          const res = await w.t.request(path(w, from, to, query), { key: w.key });
          assert.equal(res.text, expected, `${label}: ${iso(from)} to ${iso(to)}${query} (${round})`);
        }
        bodies.push(expected);
      }
      return bodies;
    };
    const kept = await answers('raw results kept');

    // The retention removes the raw results up to day 2 08:00: the cut hour day 2 07:00 (its check at
    // 07:40 lies before the range's 07:45) is then answered whole, from its rollup.
    while ((await w.store.deleteCheckResultsBefore(iso(base + 2 * DAY + 8 * HOUR), 1000)) > 0);
    const expired = await answers('raw results expired');
    assert.notEqual(expired[2], kept[2], 'the cut hour counts whole once only its rollup is left');
    const hours = JSON.parse(expired[5]!) as { data: ResponseTimePoint[] };
    assert.deepEqual(
      [...new Set(hours.data.map((p) => p.at))],
      [iso(base + 2 * DAY + 7 * HOUR), iso(base + 2 * DAY + 13 * HOUR)],
    );
  });
});
