/**
 * docs/contract.md §6.3 Delete and §6.4 Lists: the same rules for devices and blacklist monitors, defined once
 * and registered by devices.test.ts and blacklist-monitors.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type {
  BlacklistMonitor,
  Deleted,
  Device,
  NewBlacklistMonitor,
  NewDevice,
  PageRequest,
  Store,
} from '../../core/index.ts';
import type { TestApi, TestResponse } from '../../core/testing/index.ts';
import { assertError, assertSuccess, assertValidation, JSON_TYPE, type Env, validationOnly } from './helpers.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { newMonitor, newWebDevice } from '../support/records.ts';

export interface Resource {
  /** Path segment: `devices` or `blacklist-monitors`. */
  segment: 'devices' | 'blacklist-monitors';
  notFound: 'device_not_found' | 'blacklist_monitor_not_found';
  /** A create body whose target differs for every i. */
  body(i: number): Record<string, unknown>;
  /** Puts a record straight into the store (for lists too long to create over HTTP). */
  seed(store: Store, userId: number, i: number): Promise<number>;
}

const seedDevice = (i: number): NewDevice => newWebDevice({ target_value: `d${i}.example.com` });

const seedMonitor = (i: number): NewBlacklistMonitor => newMonitor({ target_value: `m${i}.example.com` });

export const DEVICES: Resource = {
  segment: 'devices',
  notFound: 'device_not_found',
  body: (i) => ({ target_type: 'domain', target_value: `d${i}.example.com` }),
  async seed(store, userId, i) {
    const result = await store.createDevice(userId, seedDevice(i));
    assert.ok('created' in result);
    return result.created.id;
  },
};

export const MONITORS: Resource = {
  segment: 'blacklist-monitors',
  notFound: 'blacklist_monitor_not_found',
  body: (i) => ({ target_type: 'domain', target_value: `m${i}.example.com` }),
  async seed(store, userId, i) {
    const result = await store.createBlacklistMonitor(userId, seedMonitor(i));
    assert.ok('created' in result);
    return result.created.id;
  },
};

async function create(t: TestApi, key: CreatedApiKey, r: Resource, i: number): Promise<number> {
  const record = assertSuccess(
    await t.request<Device | BlacklistMonitor>(`/v1/${r.segment}/create`, { method: 'POST', key, body: r.body(i) }),
    201,
  );
  return record.id;
}

async function ids(t: TestApi, key: CreatedApiKey, r: Resource, query = ''): Promise<number[]> {
  const data = assertSuccess(await t.request(`/v1/${r.segment}${query}`, { key }), 200);
  assert.ok(Array.isArray(data), 'a list answer is an array');
  return (data as { id: number }[]).map((x) => x.id);
}

/** The next page of a Link header, resolved against the request URL, or null. */
function nextLink(res: TestResponse, requestUrl: string): string | null {
  const link = res.headers.get('link');
  if (link === null) return null;
  const match = /^<([^>]*)>\s*;\s*rel="next"$/.exec(link);
  assert.ok(match, `Link header syntax: ${link}`);
  const url = new URL(match[1]!, new URL(requestUrl, 'http://monitoring.test'));
  return url.pathname + url.search;
}

async function parallel<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

export function defineDeleteTests(env: Env, r: Resource): void {
  const base = `/v1/${r.segment}/delete`;

  test(`delete ${r.segment}: 200 {id, deleted: true}, then gone; deleting again is 404`, async () => {
    const { t, key } = await env.setup();
    const a = await create(t, key, r, 1);
    const b = await create(t, key, r, 2);
    const res = await t.request<Deleted>(`${base}?id=${a}`, { method: 'DELETE', key });
    const data = assertSuccess(res, 200);
    assert.equal(data.id, a);
    assert.equal(data.deleted, true);
    assert.deepEqual(await ids(t, key, r), [b]);
    assertError(await t.request(`${base}?id=${a}`, { method: 'DELETE', key }), 404, r.notFound);
    assert.deepEqual(await ids(t, key, r), [b]);
  });

  test(`delete ${r.segment}: another user's record is the same 404 and survives`, async () => {
    const t = env.api();
    const owner = await t.createKey();
    const other = await t.createKey();
    const id = await create(t, owner, r, 1);
    const never = 9_007_199_254_740_991;
    const foreign = await t.request(`${base}?id=${id}`, { method: 'DELETE', key: other });
    const missing = await t.request(`${base}?id=${never}`, { method: 'DELETE', key: other });
    const e1 = assertError(foreign, 404, r.notFound);
    const e2 = assertError(missing, 404, r.notFound);
    // Nobody learns whether another user's id exists: the two answers are the same.
    assert.deepEqual(e1, e2);
    assert.deepEqual(await ids(t, owner, r), [id]);
    // Another key of the same user may delete it.
    const sibling = await t.createKey({ userId: owner.key.user_id });
    assertSuccess(await t.request(`${base}?id=${id}`, { method: 'DELETE', key: sibling }), 200);
  });

  test(`delete ${r.segment}: the id of the other resource kind is not found here`, async () => {
    const { t, key } = await env.setup();
    const otherSegment = r.segment === 'devices' ? 'blacklist-monitors' : 'devices';
    const other = assertSuccess(
      await t.request<Device | BlacklistMonitor>(`/v1/${otherSegment}/create`, {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'cross.example.com' },
      }),
      201,
    );
    // Make sure no record of this kind holds that id for this user.
    const mine = await ids(t, key, r);
    if (!mine.includes(other.id))
      assertError(await t.request(`${base}?id=${other.id}`, { method: 'DELETE', key }), 404, r.notFound);
  });

  validationOnly(env, () => {
    test(`delete ${r.segment}: id exactly once, decimal digits only, 1 to 2^53-1, else 400 invalid_id`, async () => {
      const { t, key } = await env.setup();
      const id = await create(t, key, r, 1);
      const queries = [
        '',
        '?',
        '?id',
        '?id=',
        '?id=0',
        '?id=-1',
        '?id=1.0',
        `?id=${id}.0`,
        '?id=1e3',
        '?id=0x10',
        '?id=+1',
        '?id=%2B1',
        '?id=%201',
        `?id=${id}%20`,
        '?id=abc',
        '?id=1a',
        '?id=9007199254740992',
        '?id=9007199254740993',
        '?id=99999999999999999999',
        '?id=18446744073709551617',
        `?id=${id}&id=${id}`,
        `?id=${id}&id=1`,
        `?id[]=${id}`,
        `?ID=${id}`,
        '?id=Infinity',
        '?id=NaN',
        '?id=%00',
        `?id=${id}%00`,
        '?id=１',
        '?id=00',
        '?id=-0',
        '?id=true',
        '?id=null',
        `?id=[${id}]`,
      ];
      for (const query of queries) {
        assertError(await t.request(`${base}${query}`, { method: 'DELETE', key }), 400, 'invalid_id');
      }
      // Nothing was deleted by any of them.
      assert.deepEqual(await ids(t, key, r), [id]);
    });
  });

  test(`delete ${r.segment}: the largest valid id (2^53-1) is a 404, not a 400 or 500`, async () => {
    const { t, key } = await env.setup();
    assertError(await t.request(`${base}?id=9007199254740991`, { method: 'DELETE', key }), 404, r.notFound);
    assertError(await t.request(`${base}?id=2147483648`, { method: 'DELETE', key }), 404, r.notFound);
    assertError(await t.request(`${base}?id=1`, { method: 'DELETE', key }), 404, r.notFound);
    // Decimal digits with their value in range: leading zeros do not count against the length.
    assertError(await t.request(`${base}?id=00000000000000000001`, { method: 'DELETE', key }), 404, r.notFound);
    assertError(await t.request(`${base}?id=0000009007199254740991`, { method: 'DELETE', key }), 404, r.notFound);
    assertError(await t.request(`${base}?id=0000009007199254740992`, { method: 'DELETE', key }), 400, 'invalid_id');
  });

  test(`delete ${r.segment}: two concurrent deletes of one record give one 200 and one 404`, async () => {
    const { t, key } = await env.setup();
    for (let round = 0; round < 3; round++) {
      const id = await create(t, key, r, round);
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => t.request(`${base}?id=${id}`, { method: 'DELETE', key })),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 404, 404, 404]);
    }
    assert.deepEqual(await ids(t, key, r), []);
  });

  test(`delete ${r.segment}: a body is not needed`, async () => {
    const { t, key } = await env.setup();
    const id = await create(t, key, r, 1);
    const res = await t.api.fetch(
      new Request(`http://monitoring.test${base}?id=${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key.token}` },
      }),
      { clientAddress: '127.0.0.1' },
    );
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), JSON_TYPE);
    assert.deepEqual(await res.json(), { success: true, data: { id, deleted: true } });
  });
}

/**
 * The batch size the stream tests run with: the default (500) on the memory store, 25 on the
 * database stores, where seeding 2,000 records one by one for the default cost a third of the
 * api area's CPU. The stream is the same code at any size (core/routes/list-response.ts).
 */
function streamBatch(env: Env): { size: number; options: { listBatchSize?: number } } {
  return env.name === 'memory' ? { size: 500, options: {} } : { size: 25, options: { listBatchSize: 25 } };
}

export function defineListTests(env: Env, r: Resource): void {
  const path = `/v1/${r.segment}`;

  test(`list ${r.segment}: only the caller's user's records, ascending by id`, async () => {
    const t = env.api();
    const a = await t.createKey();
    const b = await t.createKey();
    const a2 = await t.createKey({ userId: a.key.user_id, scopes: ['read'] });
    const mineA: number[] = [];
    const mineB: number[] = [];
    for (let i = 0; i < 6; i++) {
      mineA.push(await create(t, a, r, i));
      mineB.push(await create(t, b, r, i));
    }
    assert.deepEqual(await ids(t, a, r), mineA);
    assert.deepEqual(await ids(t, a2, r), mineA, 'every key of the user sees the same records');
    assert.deepEqual(await ids(t, b, r), mineB);
    const fresh = await t.createKey();
    assert.deepEqual(await ids(t, fresh, r), []);
    for (const list of [mineA, mineB])
      assert.deepEqual(
        [...list].sort((x, y) => x - y),
        list,
      );
  });

  test(`list ${r.segment}: limit and after_id page through; Link rel="next" exactly when more follow`, async () => {
    const { t, key } = await env.setup();
    const other = await t.createKey();
    const all: number[] = [];
    for (let i = 0; i < 5; i++) {
      all.push(await create(t, key, r, i));
      await create(t, other, r, i);
    }
    const first = await t.request(`${path}?limit=2`, { key });
    assert.deepEqual(
      (assertSuccess(first, 200) as { id: number }[]).map((x) => x.id),
      all.slice(0, 2),
    );
    assert.ok(first.headers.get('link') !== null);
    // Following the links walks every record exactly once.
    const walked: number[] = [];
    let url: string | null = `${path}?limit=2`;
    let pages = 0;
    while (url !== null) {
      const res = await t.request(url, { key });
      walked.push(...(assertSuccess(res, 200) as { id: number }[]).map((x) => x.id));
      url = nextLink(res, url);
      pages++;
      assert.ok(pages <= 10, 'the links end');
    }
    assert.deepEqual(walked, all);
    assert.equal(pages, 3);
    // after_id is a cursor: strictly greater ids.
    assert.deepEqual(await ids(t, key, r, `?after_id=${all[1]}`), all.slice(2));
    assert.deepEqual(await ids(t, key, r, `?after_id=${all[1]}&limit=2`), all.slice(2, 4));
    assert.deepEqual(await ids(t, key, r, `?after_id=${all[4]}`), []);
    assert.deepEqual(await ids(t, key, r, '?after_id=0'), all);
    assert.deepEqual(await ids(t, key, r, '?after_id=9007199254740991'), []);
    assert.deepEqual(
      await ids(t, key, r, `?limit=00000000000000000002&after_id=0000000000000000000${all[1]}`),
      all.slice(2, 4),
    );
    // A cursor between ids works too.
    assert.deepEqual(await ids(t, key, r, `?after_id=${all[0]! + 0}&limit=1000`), all.slice(1));
    // No Link when the page holds the rest.
    for (const query of [
      '?limit=5',
      '?limit=6',
      '?limit=1000',
      `?limit=3&after_id=${all[1]}`,
      `?limit=1&after_id=${all[3]}`,
      '?after_id=0',
      '',
    ]) {
      const res = await t.request(`${path}${query}`, { key });
      assertSuccess(res, 200);
      assert.equal(res.headers.get('link'), null, `no Link for ${query}`);
    }
    for (const query of ['?limit=4', '?limit=1', `?limit=2&after_id=${all[1]}`]) {
      const res = await t.request(`${path}${query}`, { key });
      assert.ok(res.headers.get('link') !== null, `a Link for ${query}`);
    }
  });

  test(`list ${r.segment}: exactly a multiple of the page size ends without a dangling Link`, async () => {
    const { t, key } = await env.setup();
    const all: number[] = [];
    for (let i = 0; i < 4; i++) all.push(await create(t, key, r, i));
    const p1 = await t.request(`${path}?limit=2`, { key });
    const next = nextLink(p1, `${path}?limit=2`);
    assert.ok(next !== null);
    const p2 = await t.request(next, { key });
    assert.deepEqual(
      (assertSuccess(p2, 200) as { id: number }[]).map((x) => x.id),
      all.slice(2),
    );
    assert.equal(p2.headers.get('link'), null);
  });

  validationOnly(env, () => {
    test(`list ${r.segment}: other query parameters or invalid values are 400 validation_failed`, async () => {
      const { t, key } = await env.setup();
      const cases: [string, string][] = [
        ['?limit=0', 'limit'],
        ['?limit=1001', 'limit'],
        ['?limit=abc', 'limit'],
        ['?limit=-1', 'limit'],
        ['?limit=1.5', 'limit'],
        ['?limit=', 'limit'],
        ['?limit=%201', 'limit'],
        ['?limit=1e2', 'limit'],
        ['?limit=0x10', 'limit'],
        ['?limit=+5', 'limit'],
        ['?limit=1&limit=2', 'limit'],
        ['?limit=5&limit=5', 'limit'],
        ['?limit=99999999999999999999', 'limit'],
        ['?after_id=abc', 'after_id'],
        ['?after_id=-1', 'after_id'],
        ['?after_id=1.5', 'after_id'],
        ['?after_id=', 'after_id'],
        ['?after_id=9007199254740992', 'after_id'],
        ['?after_id=1&after_id=2', 'after_id'],
        ['?limit=000000000000000000001001', 'limit'],
        ['?after_id=000000009007199254740992', 'after_id'],
        ['?limit=00000000000000000000', 'limit'],
        ['?foo=1', 'foo'],
        ['?LIMIT=5', 'LIMIT'],
        ['?offset=10', 'offset'],
        ['?page=2', 'page'],
        ['?id=1', 'id'],
        ['?limit=5&foo=bar', 'foo'],
        ['?cursor=1', 'cursor'],
        ['?limit=５', 'limit'],
        ['?after_id=１', 'after_id'],
      ];
      for (const [query, field] of cases) {
        const res = await t.request(`${path}${query}`, { key });
        assertValidation(res, [[field, ['invalid_type', 'invalid_value', 'out_of_range', 'unknown_field', 'missing']]]);
      }
      const both = await t.request(`${path}?limit=0&after_id=x&foo=1`, { key });
      assertValidation(both, [
        ['limit', ['invalid_type', 'invalid_value', 'out_of_range']],
        ['after_id', ['invalid_type', 'invalid_value', 'out_of_range']],
        ['foo', 'unknown_field'],
      ]);
    });
  });

  validationOnly(env, () => {
    test(`list ${r.segment}: an integer out of range is out_of_range, whatever its sign or length; a non-integer is invalid_type`, async () => {
      const { t, key } = await env.setup();
      const cases: [string, string, string][] = [
        ['?limit=-1', 'limit', 'out_of_range'],
        ['?after_id=-1', 'after_id', 'out_of_range'],
        ['?limit=0', 'limit', 'out_of_range'],
        ['?limit=-0', 'limit', 'out_of_range'],
        ['?limit=1001', 'limit', 'out_of_range'],
        ['?limit=99999999999999999999', 'limit', 'out_of_range'],
        ['?limit=-99999999999999999999', 'limit', 'out_of_range'],
        ['?after_id=9007199254740992', 'after_id', 'out_of_range'],
        ['?after_id=-9007199254740992', 'after_id', 'out_of_range'],
        ['?limit=000000000000000000001001', 'limit', 'out_of_range'],
        ['?limit=abc', 'limit', 'invalid_type'],
        ['?limit=1.5', 'limit', 'invalid_type'],
        ['?limit=+5', 'limit', 'invalid_type'],
        ['?limit=-', 'limit', 'invalid_type'],
        ['?limit=--1', 'limit', 'invalid_type'],
        ['?after_id=', 'after_id', 'invalid_type'],
        ['?limit=1e2', 'limit', 'invalid_type'],
        ['?limit=%201', 'limit', 'invalid_type'],
      ];
      for (const [query, field, code] of cases) {
        assertValidation(await t.request(`${path}${query}`, { key }), [[field, code]]);
      }
      assertSuccess(await t.request(`${path}?after_id=-0`, { key }), 200);
    });
  });

  test(`list ${r.segment}: limit 1 and 1000 are valid`, async () => {
    const { t, key } = await env.setup();
    const a = await create(t, key, r, 1);
    const b = await create(t, key, r, 2);
    assert.deepEqual(await ids(t, key, r, '?limit=1'), [a]);
    assert.deepEqual(await ids(t, key, r, '?limit=1000'), [a, b]);
  });

  const batch = streamBatch(env);

  test(
    `list ${r.segment}: exactly one batch of records (${batch.size}, the stream's boundary) arrives whole`,
    { timeout: HANG_GUARD_MS },
    async () => {
      const t = env.api(batch.options);
      const key = await t.createKey();
      const seeded = (await parallel(batch.size, 16, (i) => r.seed(env.store, key.key.user_id, i))).sort(
        (x, y) => x - y,
      );
      const response = await t.api.fetch(
        new Request(`http://monitoring.test${path}`, { headers: { authorization: `Bearer ${key.token}` } }),
        { clientAddress: '127.0.0.1' },
      );
      const body = JSON.parse(await response.text()) as { success: boolean; data: { id: number }[] };
      assert.equal(body.success, true);
      assert.deepEqual(
        body.data.map((x) => x.id),
        seeded,
      );
      assert.deepEqual(await ids(t, key, r, `?after_id=${seeded[0]}`), seeded.slice(1));
      assert.deepEqual(await ids(t, key, r, `?after_id=${seeded[batch.size - 2]}`), seeded.slice(batch.size - 1));
    },
  );

  // 2.4 batches of the caller's (1,200 records at the default size), among 0.6 of another user's.
  const own = (batch.size * 12) / 5;
  test(
    `list ${r.segment}: a list of ${own} records (${own / batch.size} batches) is streamed whole, valid JSON, ascending, the caller's only`,
    { timeout: HANG_GUARD_MS },
    async () => {
      const t = env.api(batch.options);
      const key = await t.createKey();
      const other = await t.createKey();
      const expected = (
        await parallel(batch.size * 3, 16, async (i) => {
          // Every fifth record belongs to someone else, interleaving the two users' ids.
          if (i % 5 === 4) {
            await r.seed(env.store, other.key.user_id, i);
            return null;
          }
          return r.seed(env.store, key.key.user_id, i);
        })
      )
        .filter((id): id is number => id !== null)
        .sort((x, y) => x - y);
      assert.equal(expected.length, own);
      // Streamed from the store: read page by page, never all at once.
      const pages: PageRequest[] = [];
      const counted = new Proxy(env.store, {
        get(target, property, receiver) {
          const value: unknown = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          if (property === 'listDevices' || property === 'listBlacklistMonitors') {
            return (userId: number, page: PageRequest) => {
              pages.push(page);
              return (value as (u: number, p: PageRequest) => Promise<unknown>).call(target, userId, page);
            };
          }
          return value.bind(target);
        },
      });
      const streaming = env.api({ ...batch.options, store: counted });
      const response = await streaming.api.fetch(
        new Request(`http://monitoring.test${path}`, {
          headers: { authorization: `Bearer ${key.token}`, 'x-request-id': 'stream-1' },
        }),
        { clientAddress: '127.0.0.1' },
      );
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), JSON_TYPE);
      assert.equal(response.headers.get('x-request-id'), 'stream-1');
      assert.equal(response.headers.get('ratelimit-policy'), '"key";q=120;w=60');
      const text = await response.text();
      const body = JSON.parse(text) as { success: boolean; data: { id: number; target_value: string }[] };
      assert.deepEqual(Object.keys(body).sort(), ['data', 'success']);
      assert.equal(body.success, true);
      assert.deepEqual(
        body.data.map((x) => x.id),
        expected,
      );
      assert.equal(new Set(body.data.map((x) => x.target_value)).size, own);
      assert.equal(pages.length, 3, `the store was read in batches (${pages.length} reads)`);
      for (const page of pages) assert.equal(page.limit, batch.size);
      // From a cursor in the middle, the rest, still streamed.
      const cut = own / 12;
      assert.deepEqual(await ids(t, key, r, `?after_id=${expected[cut - 1]}`), expected.slice(cut));
      // Paging with pages of two batches walks the same records (1000, the largest, at the default).
      const walked: number[] = [];
      let url: string | null = `${path}?limit=${batch.size * 2}`;
      while (url !== null) {
        const res = await t.request(url, { key });
        walked.push(...(assertSuccess(res, 200) as { id: number }[]).map((x) => x.id));
        url = nextLink(res, url);
      }
      assert.deepEqual(walked, expected);
      assert.equal((await ids(t, other, r)).length, batch.size * 3 - own);
    },
  );
}
