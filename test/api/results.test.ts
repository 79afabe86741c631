/**
 * GET /devices/results and GET /blacklist-monitors/results (docs/engine.md, "What the API shows"):
 * a record's check results, newest first, paged with limit/before_id and Link, under the rules of
 * deletes for the id and ownership and of lists for the other parameters. On the memory store:
 * the database stores' engine methods are not written yet.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { BlacklistMonitor, CheckResult, Device, DeviceProbeResult, DnsblResult } from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { TestApi, TestResponse } from '../../core/testing/index.ts';
import {
  dnsbl,
  dnsblFailure,
  http,
  mustRecord,
  recordBlacklistCheck,
  recordDeviceCheck,
  service,
  tls,
} from './checks.ts';
import { assertError, assertSuccess, assertValidation, createTestApi } from './helpers.ts';

const apis: TestApi[] = [];
after(async () => {
  for (const t of apis) await t.close();
});

async function setup(): Promise<{ t: TestApi; key: CreatedApiKey }> {
  const t = createTestApi({ rateLimit: { limit: 10_000, windowSeconds: 60 } });
  apis.push(t);
  return { t, key: await t.createKey() };
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

async function createDevice(t: TestApi, key: CreatedApiKey, body: Record<string, unknown> = {}): Promise<Device> {
  return assertSuccess(
    await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: 'example.com', ...body },
    }),
    201,
  );
}

async function createMonitor(t: TestApi, key: CreatedApiKey, value = '8.8.8.8'): Promise<BlacklistMonitor> {
  const type = /^[0-9.]+$/.test(value) ? 'ip' : 'domain';
  return assertSuccess(
    await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
      method: 'POST',
      key,
      body: { target_type: type, target_value: value },
    }),
    201,
  );
}

/** `count` checks of one probe each, a minute apart, so the results are easy to count and order. */
async function deviceChecks(t: TestApi, id: number, count: number): Promise<void> {
  for (let i = 1; i <= count; i++)
    await mustRecord(recordDeviceCheck(t.store, id, { checked_at: at(i), status: 'up', results: [http(at(i), 200)] }));
}

function ids(res: TestResponse): number[] {
  return (assertSuccess(res, 200) as CheckResult[]).map((r) => r.id);
}

function linkOf(res: TestResponse): string | null {
  const link = res.headers.get('link');
  if (link === null) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  assert.ok(match, `Link syntax: ${link}`);
  return match[1]!;
}

describe('check results', { concurrency: 1 }, () => {
  test('a device: [] before any check; then every probe result, newest first, as the store keeps it', async () => {
    const { t, key } = await setup();
    const device = await createDevice(t, key);
    assert.deepEqual(assertSuccess(await t.request(`/v1/devices/results?id=${device.id}`, { key }), 200), []);
    const first = [http(at(1), 200), tls(at(1), 90), http(at(1), 301, 'origin_http')];
    const second = [http(at(2), null), tls(at(2), -3)];
    await mustRecord(recordDeviceCheck(t.store, device.id, { checked_at: at(1), status: 'up', results: first }));
    await mustRecord(
      recordDeviceCheck(t.store, device.id, {
        checked_at: at(2),
        status: 'validating',
        results: second,
        consecutive_failures: 1,
      }),
    );
    const res = await t.request<DeviceProbeResult[]>(`/v1/devices/results?id=${device.id}`, { key });
    const data = assertSuccess(res, 200);
    assert.equal(res.headers.get('link'), null);
    // Newest first: the later check's rows, then the earlier's, each row with its id.
    const rows = data.map(({ id: _id, check_id: _checkId, check_location, ...rest }) => {
      // The memory store keeps no schedule per location: every result is from any one location.
      assert.equal(check_location, null);
      return rest;
    });
    assert.deepEqual(rows, [...second].reverse().concat([...first].reverse()));
    const rowIds = data.map((r) => r.id);
    assert.deepEqual(
      rowIds,
      [...rowIds].sort((a, b) => b - a),
    );
    assert.equal(new Set(rowIds).size, 5);
    // The rows of one check share its check_id; the later check's is larger.
    const checkIds = data.map((r) => r.check_id);
    assert.equal(checkIds[0], checkIds[1]);
    assert.deepEqual(checkIds.slice(2), [checkIds[2], checkIds[2], checkIds[2]]);
    assert.ok(checkIds[0]! > checkIds[2]!, `${checkIds[0]} > ${checkIds[2]}`);
    // The answer is the store's page, field for field and in its order.
    assert.equal(
      res.text,
      JSON.stringify({
        success: true,
        data: await t.store.listCheckResults(key.key.user_id, 'device', device.id, { limit: 101 }),
      }),
    );
  });

  test('a device record shows its status, status_since, last_checked_at and last result per probe', async () => {
    const { t, key } = await setup();
    const device = await createDevice(t, key, { service_type: 'ssh' });
    await mustRecord(
      recordDeviceCheck(t.store, device.id, {
        checked_at: at(1),
        status: 'up',
        results: [service(at(1), 'SSH-2.0-OpenSSH_9.6'), tls(at(1), 30)],
      }),
    );
    await mustRecord(
      recordDeviceCheck(t.store, device.id, {
        checked_at: at(2),
        status: 'up',
        results: [service(at(2), 'SSH-2.0-OpenSSH_9.7')],
      }),
    );
    const [listed] = assertSuccess(await t.request<Device[]>('/v1/devices', { key }), 200);
    assert.deepEqual(listed, {
      ...device,
      status: 'up',
      status_since: at(1),
      last_checked_at: at(2),
      last_results: { service: service(at(2), 'SSH-2.0-OpenSSH_9.7'), public_tls: tls(at(1), 30) },
    });
  });

  test('a blacklist monitor: one dnsbl row per zone asked, newest check first', async () => {
    const { t, key } = await setup();
    const monitor = await createMonitor(t, key);
    const zones = [
      dnsbl(at(1), 'zen.spamhaus.org', true),
      dnsbl(at(1), 'bl.spamcop.net', false),
      dnsblFailure(at(1), 'psbl.surriel.com'),
    ];
    await mustRecord(
      recordBlacklistCheck(t.store, monitor.id, {
        checked_at: at(1),
        last_status: 'listed',
        listed_on: ['zen.spamhaus.org'],
        failed_zones: ['psbl.surriel.com'],
        results: zones,
      }),
    );
    await mustRecord(
      recordBlacklistCheck(t.store, monitor.id, {
        checked_at: at(61),
        last_status: 'clean',
        results: [dnsbl(at(61), 'zen.spamhaus.org', false)],
      }),
    );
    const data = assertSuccess(
      await t.request<DnsblResult[]>(`/v1/blacklist-monitors/results?id=${monitor.id}`, { key }),
      200,
    );
    assert.deepEqual(
      data.map(({ id: _id, check_id: _checkId, check_location, ...rest }) => {
        // The memory store keeps no schedule per location: every result is from any one location.
        assert.equal(check_location, null);
        return rest;
      }),
      [dnsbl(at(61), 'zen.spamhaus.org', false), ...[...zones].reverse()],
    );
    assert.deepEqual(
      data.slice(2).map((r) => r.check_id),
      [data[1]!.check_id, data[1]!.check_id],
    );
    assert.notEqual(data[0]!.check_id, data[1]!.check_id);
  });

  test('limit and before_id page backwards; Link rel="next" exactly when older results follow', async () => {
    const { t, key } = await setup();
    const device = await createDevice(t, key);
    await deviceChecks(t, device.id, 5);
    const base = `/v1/devices/results?id=${device.id}`;
    const all = ids(await t.request(base, { key }));
    assert.equal(all.length, 5);
    // Following the links walks every result once, newest to oldest.
    const walked: number[] = [];
    let url: string | null = `${base}&limit=2`;
    const links: string[] = [];
    while (url !== null) {
      const res = await t.request(url, { key });
      walked.push(...ids(res));
      url = linkOf(res);
      if (url !== null) links.push(url);
      assert.ok(links.length <= 5, 'the links end');
    }
    assert.deepEqual(walked, all);
    assert.deepEqual(links, [`${base}&limit=2&before_id=${all[1]}`, `${base}&limit=2&before_id=${all[3]}`]);
    // before_id is a cursor: strictly smaller ids; a page holding the rest has no Link.
    assert.deepEqual(ids(await t.request(`${base}&before_id=${all[0]}`, { key })), all.slice(1));
    assert.deepEqual(ids(await t.request(`${base}&before_id=${all[4]}`, { key })), []);
    assert.deepEqual(ids(await t.request(`${base}&before_id=9007199254740991`, { key })), all);
    assert.deepEqual(ids(await t.request(`${base}&before_id=0000${all[2]}&limit=0002`, { key })), all.slice(3, 5));
    for (const query of ['&limit=5', '&limit=1000', `&limit=3&before_id=${all[1]}`, `&limit=1&before_id=${all[3]}`]) {
      assert.equal((await t.request(`${base}${query}`, { key })).headers.get('link'), null, query);
    }
    for (const query of ['&limit=4', '&limit=1', `&limit=2&before_id=${all[1]}`]) {
      assert.ok((await t.request(`${base}${query}`, { key })).headers.get('link') !== null, query);
    }
  });

  test('without limit a page is 100 results, and its Link names the limit', async () => {
    const { t, key } = await setup();
    const device = await createDevice(t, key);
    await deviceChecks(t, device.id, 101);
    const res = await t.request(`/v1/devices/results?id=${device.id}`, { key });
    const page = ids(res);
    assert.equal(page.length, 100);
    assert.equal(linkOf(res), `/v1/devices/results?id=${device.id}&limit=100&before_id=${page[99]}`);
    const rest = await t.request(linkOf(res)!, { key });
    assert.equal(ids(rest).length, 1);
    assert.equal(rest.headers.get('link'), null);
  });

  for (const [segment, notFound] of [
    ['devices', 'device_not_found'],
    ['blacklist-monitors', 'blacklist_monitor_not_found'],
  ] as const) {
    const path = `/v1/${segment}/results`;
    const create = (t: TestApi, key: CreatedApiKey) =>
      segment === 'devices' ? createDevice(t, key) : createMonitor(t, key);

    test(`${segment}/results: id as deletes read it, else 400 invalid_id, before any other parameter`, async () => {
      const { t, key } = await setup();
      const { id } = await create(t, key);
      for (const query of [
        '',
        '?',
        '?id',
        '?id=',
        '?id=0',
        '?id=-1',
        `?id=${id}.0`,
        '?id=1e3',
        '?id=+1',
        '?id=abc',
        '?id=9007199254740992',
        `?id=${id}&id=${id}`,
        `?ID=${id}`,
        `?id[]=${id}`,
        '?id=%00',
        '?id=１',
        '?limit=5',
        `?id=x&limit=0&foo=1`,
        '?before_id=1',
      ]) {
        assertError(await t.request(`${path}${query}`, { key }), 400, 'invalid_id');
      }
      assertSuccess(await t.request(`${path}?id=00${id}`, { key }), 200);
    });

    test(`${segment}/results: a missing id, another user's and the other kind's are the same 404 ${notFound}`, async () => {
      const { t, key } = await setup();
      const other = await t.createKey();
      const { id } = await create(t, other);
      const foreign = assertError(await t.request(`${path}?id=${id}`, { key }), 404, notFound);
      const missing = assertError(await t.request(`${path}?id=9007199254740991`, { key }), 404, notFound);
      assert.deepEqual(foreign, missing);
      // The caller's own record of the other kind is not one of these. (Each kind counts its own
      // ids in this fresh store: the second record of the other kind has an id no record of this
      // kind has.)
      const otherKind = (value: string) =>
        segment === 'devices' ? createMonitor(t, key, value) : createDevice(t, key, { target_value: value });
      await otherKind('one.example.com');
      const mine = await otherKind('two.example.com');
      assert.equal(mine.id, id + 1);
      assertError(await t.request(`${path}?id=${mine.id}`, { key }), 404, notFound);
      // The owner's other keys see them.
      const sibling = await t.createKey({ userId: other.key.user_id, scopes: ['read'] });
      assertSuccess(await t.request(`${path}?id=${id}`, { key: sibling }), 200);
    });

    test(`${segment}/results: bad limit, before_id and other parameters are 400 validation_failed`, async () => {
      const { t, key } = await setup();
      const { id } = await create(t, key);
      const cases: [string, string][] = [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=-1', 'limit'],
        ['limit=1.5', 'limit'],
        ['limit=', 'limit'],
        ['limit=1&limit=2', 'limit'],
        ['limit=５', 'limit'],
        ['before_id=0', 'before_id'],
        ['before_id=-1', 'before_id'],
        ['before_id=x', 'before_id'],
        ['before_id=', 'before_id'],
        ['before_id=9007199254740992', 'before_id'],
        ['before_id=1&before_id=2', 'before_id'],
        ['after_id=1', 'after_id'],
        ['foo=1', 'foo'],
        ['LIMIT=5', 'LIMIT'],
        ['offset=10', 'offset'],
      ];
      for (const [query, field] of cases) {
        assertValidation(await t.request(`${path}?id=${id}&${query}`, { key }), [
          [field, ['invalid_type', 'invalid_value', 'out_of_range', 'unknown_field']],
        ]);
      }
      const all = await t.request(`${path}?id=${id}&limit=0&before_id=x&foo=1`, { key });
      assertValidation(all, [
        ['limit', 'out_of_range'],
        ['before_id', 'invalid_type'],
        ['foo', 'unknown_field'],
      ]);
      // Parameters are judged before the record is looked up: the same 400 for an id nobody has.
      assertValidation(await t.request(`${path}?id=9007199254740991&limit=0`, { key }), [['limit', 'out_of_range']]);
    });

    test(`${segment}/results: scope read; GET only (405 with Allow)`, async () => {
      const { t, key } = await setup();
      const { id } = await create(t, key);
      const writer = await t.createKey({ userId: key.key.user_id, scopes: ['write'] });
      assertError(await t.request(`${path}?id=${id}`, { key: writer }), 403, 'insufficient_scope');
      assertError(await t.request(`${path}?id=${id}`), 401, 'missing_api_key');
      for (const method of ['POST', 'DELETE', 'PUT', 'PATCH']) {
        const res = await t.request(`${path}?id=${id}`, { method, key });
        assertError(res, 405, 'method_not_allowed');
        assert.equal(res.headers.get('allow'), 'GET');
      }
    });
  }

  test('deleting a record deletes its results: 404 afterwards, and a new record does not inherit them', async () => {
    const { t, key } = await setup();
    const monitor = await createMonitor(t, key);
    await mustRecord(
      recordBlacklistCheck(t.store, monitor.id, {
        checked_at: at(1),
        last_status: 'clean',
        results: [dnsbl(at(1), 'zen.spamhaus.org', false)],
      }),
    );
    assertSuccess(await t.request(`/v1/blacklist-monitors/delete?id=${monitor.id}`, { method: 'DELETE', key }), 200);
    assertError(
      await t.request(`/v1/blacklist-monitors/results?id=${monitor.id}`, { key }),
      404,
      'blacklist_monitor_not_found',
    );
    const again = await createMonitor(t, key);
    assert.deepEqual(assertSuccess(await t.request(`/v1/blacklist-monitors/results?id=${again.id}`, { key }), 200), []);
  });
});
