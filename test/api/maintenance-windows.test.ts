/**
 * docs/contract.md §6.10: /maintenance-windows on every store, each request through a real
 * node:http server (the node adapter) in front of the API.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test, type TestContext } from 'node:test';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { Device, MaintenanceWindow } from '../../core/index.ts';
import type { TestApi, TestBody, TestRequestInit, TestResponse } from '../../core/testing/index.ts';
import { createNodeHandler } from '../../adapters/node/index.ts';
import { assertError, assertSuccess, assertValidation, eachStore, type Env } from './helpers.ts';

interface Served {
  t: TestApi;
  key: CreatedApiKey;
  request<T = unknown>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>;
}

async function serve(env: Env, context: TestContext): Promise<Served> {
  // The clock: Thursday 2026-01-01 00:00 UTC.
  const { t, key } = await env.setup();
  const server = createServer(createNodeHandler(t.api));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  context.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  async function request<T = unknown>(path: string, init: TestRequestInit = {}): Promise<TestResponse<T>> {
    const headers = new Headers(init.headers);
    if (init.key !== undefined)
      headers.set('authorization', `Bearer ${typeof init.key === 'string' ? init.key : init.key.token}`);
    let body: string | undefined;
    if (typeof init.body === 'string') body = init.body;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers.set('content-type', 'application/json');
    }
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: init.method ?? 'GET', headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as TestBody<T>, text };
  }
  return { t, key, request };
}

const create = (body: unknown, key: CreatedApiKey): TestRequestInit => ({ method: 'POST', key, body });
const patch = (body: unknown, key: CreatedApiKey): TestRequestInit => ({ method: 'PATCH', key, body });

async function device(s: Served, name: string, key = s.key): Promise<Device> {
  return assertSuccess(
    await s.request<Device>('/v1/devices/create', create({ target_type: 'domain', target_value: name }, key)),
    201,
  );
}

eachStore('maintenance windows', (env) => {
  test('a one-off window: created, listed, read, changed and deleted; active_now and next_* follow the clock', async (c) => {
    const s = await serve(env, c);
    const d = await device(s, 'mw1.example.com');
    const body = {
      name: 'Upgrade',
      starts_at: '2026-01-01T02:00:00+01:00',
      ends_at: '2026-01-01T03:00:00Z',
      device_ids: [d.id],
    };
    const window = assertSuccess(
      await s.request<MaintenanceWindow>('/v1/maintenance-windows/create', create(body, s.key)),
      201,
    );
    assert.deepEqual(window, {
      id: window.id,
      name: 'Upgrade',
      starts_at: '2026-01-01T01:00:00.000Z',
      ends_at: '2026-01-01T03:00:00.000Z',
      repeat: null,
      device_ids: [d.id],
      all_devices: false,
      blacklist_monitor_ids: [],
      all_blacklist_monitors: false,
      heartbeat_ids: [],
      all_heartbeats: false,
      created_at: '2026-01-01T00:00:00.000Z',
      active_now: false,
      next_start_at: '2026-01-01T01:00:00.000Z',
      next_end_at: '2026-01-01T03:00:00.000Z',
    });
    assert.deepEqual(assertSuccess(await s.request('/v1/maintenance-windows', { key: s.key }), 200), [window]);
    s.t.clock.advance(90 * 60_000);
    const active = assertSuccess(
      await s.request<MaintenanceWindow>(`/v1/maintenance-windows/get?id=${window.id}`, { key: s.key }),
      200,
    );
    assert.equal(active.active_now, true);
    const renamed = assertSuccess(
      await s.request<MaintenanceWindow>(
        `/v1/maintenance-windows/update?id=${window.id}`,
        patch({ name: 'Bigger upgrade', all_devices: true }, s.key),
      ),
      200,
    );
    assert.deepEqual(
      [renamed.name, renamed.all_devices, renamed.device_ids, renamed.active_now],
      ['Bigger upgrade', true, [d.id], true],
    );
    s.t.clock.advance(2 * 3_600_000);
    const over = assertSuccess(
      await s.request<MaintenanceWindow>(`/v1/maintenance-windows/get?id=${window.id}`, { key: s.key }),
      200,
    );
    assert.deepEqual([over.active_now, over.next_start_at, over.next_end_at], [false, null, null]);
    assertSuccess(
      await s.request(`/v1/maintenance-windows/delete?id=${window.id}`, { method: 'DELETE', key: s.key }),
      200,
    );
    assertError(
      await s.request(`/v1/maintenance-windows/get?id=${window.id}`, { key: s.key }),
      404,
      'maintenance_window_not_found',
    );
  });

  test('a weekly window in a zone: next_start_at is the local start, across daylight saving', async (c) => {
    const s = await serve(env, c);
    // Sunday 2026-03-08 is the day New York moves from EST (UTC-5) to EDT (UTC-4).
    s.t.clock.set(Date.parse('2026-03-07T16:00:00Z'));
    const repeat = { days: ['sun', 'sat'], start: '09:00', duration_s: 3600, time_zone: 'America/New_York' };
    const window = assertSuccess(
      await s.request<MaintenanceWindow>(
        '/v1/maintenance-windows/create',
        create({ name: 'Weekly', repeat, all_devices: true }, s.key),
      ),
      201,
    );
    assert.deepEqual(window.repeat, { ...repeat, days: ['sat', 'sun'] });
    assert.deepEqual([window.starts_at, window.ends_at, window.active_now], [null, null, false]);
    assert.deepEqual(
      [window.next_start_at, window.next_end_at],
      ['2026-03-08T13:00:00.000Z', '2026-03-08T14:00:00.000Z'],
    );
    s.t.clock.set(Date.parse('2026-03-07T14:30:00Z'));
    const saturday = assertSuccess(
      await s.request<MaintenanceWindow>(`/v1/maintenance-windows/get?id=${window.id}`, { key: s.key }),
      200,
    );
    assert.deepEqual([saturday.active_now, saturday.next_start_at], [true, '2026-03-07T14:00:00.000Z']);
  });

  test("bad input is refused with the contract's details, and changes nothing", async (c) => {
    const s = await serve(env, c);
    const mine = await device(s, 'mine.example.com');
    const other = await s.t.createKey();
    const theirs = await device(s, 'theirs.example.com', other);
    const url = '/v1/maintenance-windows/create';
    const valid = {
      name: 'w',
      starts_at: '2026-01-02T00:00:00Z',
      ends_at: '2026-01-02T01:00:00Z',
      device_ids: [mine.id],
    };
    const cases: [unknown, [string, string][]][] = [
      [{ ...valid, name: '' }, [['name', 'invalid_value']]],
      [{ ...valid, name: 'x'.repeat(201) }, [['name', 'too_long']]],
      [{ ...valid, name: null }, [['name', 'invalid_type']]],
      [{ ...valid, ends_at: '2026-01-01T23:00:00Z' }, [['ends_at', 'invalid_value']]],
      [{ ...valid, ends_at: '2026-02-02T00:00:01Z' }, [['ends_at', 'out_of_range']]],
      [{ ...valid, starts_at: 'tomorrow' }, [['starts_at', 'invalid_value']]],
      [{ ...valid, starts_at: undefined }, [['starts_at', 'missing']]],
      [{ ...valid, device_ids: [theirs.id, mine.id, 9_007_199_254_740_991] }, [['device_ids', 'invalid_value']]],
      [{ ...valid, device_ids: 'all' }, [['device_ids', 'invalid_type']]],
      [{ ...valid, device_ids: [] }, [['device_ids', 'missing']]],
      [{ ...valid, blacklist_monitor_ids: [1] }, [['blacklist_monitor_ids', 'invalid_value']]],
      [{ ...valid, colour: 'red' }, [['colour', 'unknown_field']]],
      [
        { name: 'w', all_devices: true, repeat: { days: [], start: '9:00', duration_s: 0, time_zone: 'Mars/Olympus' } },
        [
          ['repeat.days', 'out_of_range'],
          ['repeat.start', 'invalid_value'],
          ['repeat.duration_s', 'out_of_range'],
          ['repeat.time_zone', 'invalid_value'],
        ],
      ],
      [
        {
          name: 'w',
          all_devices: true,
          repeat: { days: ['mon', 'mon'], start: '09:00', duration_s: 60, time_zone: 'UTC', every: 2 },
        },
        [
          ['repeat.days', 'invalid_value'],
          ['repeat.every', 'unknown_field'],
        ],
      ],
      [
        { ...valid, repeat: { days: ['mon'], start: '09:00', duration_s: 60, time_zone: 'UTC' } },
        [
          ['starts_at', 'not_applicable'],
          ['ends_at', 'not_applicable'],
        ],
      ],
    ];
    for (const [body, expected] of cases) assertValidation(await s.request(url, create(body, s.key)), expected);
    const foreign = await s.request(url, create({ ...valid, device_ids: [theirs.id] }, s.key));
    assert.match(foreign.body.error!.details![0]!.message, new RegExp(`\\b${theirs.id}\\b`));
    assertError(
      await s.request(url, {
        method: 'POST',
        key: s.key,
        body: '{"name":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_json',
    );
    assert.deepEqual(assertSuccess(await s.request('/v1/maintenance-windows', { key: s.key }), 200), []);

    const window = assertSuccess(await s.request<MaintenanceWindow>(url, create(valid, s.key)), 201);
    const at = `/v1/maintenance-windows/update?id=${window.id}`;
    assertValidation(await s.request(at, patch({ active_now: true, id: 3 }, s.key)), [
      ['active_now', 'read_only_field'],
      ['id', 'read_only_field'],
    ]);
    assertValidation(await s.request(at, patch({ ends_at: '2026-01-01T00:00:00Z' }, s.key)), [
      ['ends_at', 'invalid_value'],
    ]);
    assertValidation(await s.request(at, patch({ device_ids: [theirs.id] }, s.key)), [['device_ids', 'invalid_value']]);
    assertError(await s.request(at, patch({ name: 'mine now' }, other)), 404, 'maintenance_window_not_found');
    assertError(
      await s.request(`/v1/maintenance-windows/get?id=${window.id}`, { key: other }),
      404,
      'maintenance_window_not_found',
    );
    assertError(
      await s.request(`/v1/maintenance-windows/delete?id=${window.id}`, { method: 'DELETE', key: other }),
      404,
      'maintenance_window_not_found',
    );
    const reader = await s.t.createKey({ userId: s.key.key.user_id, scopes: ['read'] });
    assertError(await s.request(at, patch({ name: 'x' }, reader)), 403, 'insufficient_scope');
    assert.deepEqual(
      assertSuccess(await s.request(`/v1/maintenance-windows/get?id=${window.id}`, { key: s.key }), 200),
      window,
    );
    // Turning it weekly takes its dates away in the same change.
    const weekly = assertSuccess(
      await s.request<MaintenanceWindow>(
        at,
        patch(
          {
            starts_at: null,
            ends_at: null,
            repeat: { days: ['fri'], start: '23:30', duration_s: 7200, time_zone: 'Asia/Kolkata' },
          },
          s.key,
        ),
      ),
      200,
    );
    assert.deepEqual([weekly.starts_at, weekly.next_start_at], [null, '2026-01-02T18:00:00.000Z']);
  });
});
