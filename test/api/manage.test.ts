/**
 * docs/contract.md §6.9: GET .../get and PATCH .../update of devices,
 * blacklist monitors and webhooks, on every store, each request through a real node:http server
 * (the node adapter) in front of the API.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { test, type TestContext } from 'node:test';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import {
  EVENT_TYPES,
  type BlacklistMonitor,
  type CreatedWebhook,
  type Device,
  type Webhook,
} from '../../core/index.ts';
import type { TestApi, TestBody, TestRequestInit, TestResponse } from '../../core/testing/index.ts';
import { createNodeHandler } from '../../adapters/node/index.ts';
import { assertError, assertSuccess, assertValidation, eachStore, START, type Env } from './helpers.ts';

interface Served {
  t: TestApi;
  key: CreatedApiKey;
  /** As TestApi.request, but over HTTP to the server on 127.0.0.1. */
  request<T = unknown>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>;
}

async function serve(env: Env, context: TestContext): Promise<Served> {
  const { t, key } = await env.setup({ allowPrivateTargets: false });
  const server: Server = createServer(createNodeHandler(t.api));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  context.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  async function request<T = unknown>(path: string, init: TestRequestInit = {}): Promise<TestResponse<T>> {
    const headers = new Headers(init.headers);
    const token = init.key === undefined ? undefined : typeof init.key === 'string' ? init.key : init.key.token;
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    let body: string | undefined;
    if (typeof init.body === 'string') body = init.body;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: init.method ?? 'GET', headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as TestBody<T>, text };
  }
  return { t, key, request };
}

const patch = (body: unknown, key: CreatedApiKey): TestRequestInit => ({ method: 'PATCH', key, body });

async function createDevice(s: Served, body: Record<string, unknown>, key = s.key): Promise<Device> {
  return assertSuccess(
    await s.request<Device>('/v1/devices/create', { method: 'POST', key, body: { target_type: 'domain', ...body } }),
    201,
  );
}

async function getDevice(s: Served, id: number, key = s.key): Promise<Device> {
  return assertSuccess(await s.request<Device>(`/v1/devices/get?id=${id}`, { key }), 200);
}

eachStore('manage devices', (env) => {
  test("GET /devices/get: the record as listed; another user's id and an unknown id are the same 404", async (c) => {
    const s = await serve(env, c);
    const device = await createDevice(s, { target_value: 'get.example.com' });
    assert.deepEqual(await getDevice(s, device.id), device);
    const reader = await s.t.createKey({ userId: s.key.key.user_id, scopes: ['read'] });
    assert.deepEqual(await getDevice(s, device.id, reader), device);
    const other = await s.t.createKey();
    const foreign = assertError(
      await s.request(`/v1/devices/get?id=${device.id}`, { key: other }),
      404,
      'device_not_found',
    );
    const missing = assertError(
      await s.request('/v1/devices/get?id=9007199254740991', { key: other }),
      404,
      'device_not_found',
    );
    assert.deepEqual(foreign, missing);
    assertError(await s.request('/v1/devices/get?id=abc', { key: s.key }), 400, 'invalid_id');
    assertError(await s.request('/v1/devices/get', { key: s.key }), 400, 'invalid_id');
    assertError(
      await s.request(`/v1/devices/get?id=${device.id}`, { method: 'POST', key: s.key }),
      405,
      'method_not_allowed',
    );
  });

  test('PATCH /devices/update: the fields given change, the rest stay; the answer is the record as changed', async (c) => {
    const s = await serve(env, c);
    const device = await createDevice(s, { target_value: 'patch.example.com', location: 'rack 1', expect_status: 204 });
    const changed = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ location: 'rack 2' }, s.key)),
      200,
    );
    assert.deepEqual(changed, { ...device, location: 'rack 2' });
    assert.deepEqual(await getDevice(s, device.id), changed);
    // {} changes nothing.
    assert.deepEqual(
      assertSuccess(await s.request(`/v1/devices/update?id=${device.id}`, patch({}, s.key)), 200),
      changed,
    );
    // null gives an optional field its default back.
    const cleared = assertSuccess(
      await s.request<Device>(
        `/v1/devices/update?id=${device.id}`,
        patch({ location: null, expect_status: null }, s.key),
      ),
      200,
    );
    assert.equal(cleared.location, null);
    assert.equal(cleared.expect_status, 200);
    // The target is normalised as on create.
    const moved = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ target_value: 'NEW.Example.COM.' }, s.key)),
      200,
    );
    assert.equal(moved.target_value, 'new.example.com');
    assert.equal(moved.status, 'pending');
  });

  test('PATCH: defaults derived from a changed field follow it; explicit values stay; leaving web clears the web fields', async (c) => {
    const s = await serve(env, c);
    const device = await createDevice(s, { target_value: 'derive.example.com', host_header: 'www.example.com' });
    const http = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ scheme: 'http' }, s.key)),
      200,
    );
    assert.deepEqual(
      [
        http.port,
        http.origin_scheme,
        http.origin_port,
        http.check_public_http,
        http.check_public_https,
        http.check_public_tls,
      ],
      [80, 'http', 80, true, false, false],
    );
    const explicit = await createDevice(s, { target_value: 'explicit.example.com', port: 8443 });
    const kept = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${explicit.id}`, patch({ scheme: 'http' }, s.key)),
      200,
    );
    assert.equal(kept.port, 8443);
    const ssh = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ service_type: 'ssh' }, s.key)),
      200,
    );
    assert.deepEqual(
      [
        ssh.service_type,
        ssh.scheme,
        ssh.port,
        ssh.host_header,
        ssh.origin_scheme,
        ssh.origin_port,
        ssh.expect_status,
        ssh.check_public_http,
      ],
      ['ssh', null, 22, null, null, null, null, false],
    );
    // A web-only field given with a non-web service is the create's error, and nothing changes.
    assertValidation(
      await s.request(`/v1/devices/update?id=${device.id}`, patch({ service_type: 'smtp', expect_status: 204 }, s.key)),
      [['expect_status', 'not_applicable']],
    );
    assert.deepEqual(await getDevice(s, device.id), ssh);
  });

  test("PATCH: bad input is the create's 400, every problem listed, and nothing changes", async (c) => {
    const s = await serve(env, c);
    const device = await createDevice(s, { target_value: 'bad.example.com' });
    const url = `/v1/devices/update?id=${device.id}`;
    const cases: [unknown, [string, string][]][] = [
      [{ status: 'up' }, [['status', 'read_only_field']]],
      [
        { id: 5, created_at: START, last_results: {} },
        [
          ['id', 'read_only_field'],
          ['created_at', 'read_only_field'],
          ['last_results', 'read_only_field'],
        ],
      ],
      [{ expected_status: 200 }, [['expected_status', 'unknown_field']]],
      [{ target_type: null }, [['target_type', 'invalid_type']]],
      [{ target_value: null }, [['target_value', 'invalid_type']]],
      [{ port: '443' }, [['port', 'invalid_type']]],
      [
        { port: 0, expect_status: 600 },
        [
          ['port', 'out_of_range'],
          ['expect_status', 'out_of_range'],
        ],
      ],
      [{ is_enabled: 2 }, [['is_enabled', 'invalid_value']]],
      [{ location: 'x'.repeat(256) }, [['location', 'too_long']]],
      [{ target_value: '127.0.0.1' }, [['target_value', 'invalid_value']]],
      [{ target_type: 'ip', target_value: '10.0.0.1' }, [['target_value', 'forbidden_target']]],
      [{ proxy_enabled: true }, [['origin_host', 'missing']]],
      [{ service_type: 'tcp' }, [['port', 'missing']]],
      [
        { check_interval_s: 10, status: 'down' },
        [
          ['check_interval_s', 'out_of_range'],
          ['status', 'read_only_field'],
        ],
      ],
    ];
    for (const [body, expected] of cases) assertValidation(await s.request(url, patch(body, s.key)), expected);
    const json = { 'content-type': 'application/json' };
    assertError(await s.request(url, { ...patch('{"location": ', s.key), headers: json }), 400, 'invalid_json');
    assertError(await s.request(url, { ...patch('[]', s.key), headers: json }), 400, 'invalid_json');
    assertError(await s.request(url, { ...patch('null', s.key), headers: json }), 400, 'invalid_json');
    assertError(
      await s.request(url, {
        method: 'PATCH',
        key: s.key,
        body: 'location=x',
        headers: { 'content-type': 'text/plain' },
      }),
      400,
      'invalid_content_type',
    );
    assertError(await s.request(`/v1/devices/update?id=${device.id}x`, patch({}, s.key)), 400, 'invalid_id');
    assert.deepEqual(await getDevice(s, device.id), device);
  });

  test("PATCH: another user's id is 404 and unchanged; a read key gets 403", async (c) => {
    const s = await serve(env, c);
    const device = await createDevice(s, { target_value: 'owned.example.com' });
    const other = await s.t.createKey();
    assertError(
      await s.request(`/v1/devices/update?id=${device.id}`, patch({ location: 'mine' }, other)),
      404,
      'device_not_found',
    );
    assertError(
      await s.request('/v1/devices/update?id=9007199254740991', patch({ location: 'mine' }, s.key)),
      404,
      'device_not_found',
    );
    const reader = await s.t.createKey({ userId: s.key.key.user_id, scopes: ['read'] });
    assertError(
      await s.request(`/v1/devices/update?id=${device.id}`, patch({ location: 'mine' }, reader)),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(await getDevice(s, device.id), device);
  });

  test('PATCH: a change making the device equal to another is 409 with existing_id; nothing changes', async (c) => {
    const s = await serve(env, c);
    const a = await createDevice(s, { target_value: 'a.example.com' });
    const b = await createDevice(s, { target_value: 'b.example.com', location: 'b' });
    const res = await s.request(
      `/v1/devices/update?id=${b.id}`,
      patch({ target_value: 'a.example.com', location: 'moved' }, s.key),
    );
    const error = assertError(res, 409, 'duplicate_device');
    assert.equal(error.existing_id, a.id);
    assert.deepEqual(await getDevice(s, b.id), b);
    // Another port is another device: allowed.
    assertSuccess(
      await s.request(`/v1/devices/update?id=${b.id}`, patch({ target_value: 'a.example.com', port: 8443 }, s.key)),
      200,
    );
  });

  test('PATCH: concurrent changes of one device never leave a mix of two of them', async (c) => {
    const s = await serve(env, c);
    const device = await createDevice(s, { target_value: 'race.example.com' });
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          s.request<Device>(
            `/v1/devices/update?id=${device.id}`,
            patch({ location: `l${round}-${i}`, expect_status: 200 + i, port: 1000 + i }, s.key),
          ),
        ),
      );
      for (const answer of answers) assertSuccess(answer, 200);
      const final = await getDevice(s, device.id);
      const i = Number(final.location!.split('-')[1]);
      assert.equal(final.location, `l${round}-${i}`);
      assert.deepEqual(
        [final.expect_status, final.port],
        [200 + i, 1000 + i],
        `one request's fields whole: ${JSON.stringify(final)}`,
      );
    }
  });

  test('PATCH: a change made through another instance meanwhile is kept, and the body judged against it', async (c) => {
    const s = await serve(env, c);
    const other = env.api({ clock: s.t.clock });
    const device = await createDevice(s, { target_value: 'shared.example.com' });
    // Another instance on the same store changes the port, then the service.
    assertSuccess(await other.request(`/v1/devices/update?id=${device.id}`, patch({ port: 8443 }, s.key)), 200);
    const changed = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ location: 'kept' }, s.key)),
      200,
    );
    assert.deepEqual([changed.port, changed.location], [8443, 'kept']);
    assertSuccess(
      await other.request(`/v1/devices/update?id=${device.id}`, patch({ service_type: 'ssh' }, s.key)),
      200,
    );
    assertValidation(await s.request(`/v1/devices/update?id=${device.id}`, patch({ expect_status: 204 }, s.key)), [
      ['expect_status', 'not_applicable'],
    ]);
    // Deleted through the other instance: 404 here.
    assertSuccess(await other.request(`/v1/devices/delete?id=${device.id}`, { method: 'DELETE', key: s.key }), 200);
    assertError(
      await s.request(`/v1/devices/update?id=${device.id}`, patch({ location: 'gone' }, s.key)),
      404,
      'device_not_found',
    );
  });

  test('PATCH: is_enabled pauses (paused) and resumes (pending); a change of what is checked restarts from pending', async (c) => {
    const s = await serve(env, c);
    const device = await createDevice(s, { target_value: 'pause.example.com' });
    s.t.clock.advance(5_000);
    const paused = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ is_enabled: false }, s.key)),
      200,
    );
    assert.deepEqual(
      [paused.is_enabled, paused.status, paused.status_since],
      [false, 'paused', '2026-01-01T00:00:05.000Z'],
    );
    // Changing a paused device's target leaves it paused.
    const still = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ port: 8080 }, s.key)),
      200,
    );
    assert.equal(still.status, 'paused');
    s.t.clock.advance(5_000);
    const resumed = assertSuccess(
      await s.request<Device>(`/v1/devices/update?id=${device.id}`, patch({ is_enabled: 1 }, s.key)),
      200,
    );
    assert.deepEqual(
      [resumed.is_enabled, resumed.status, resumed.status_since],
      [true, 'pending', '2026-01-01T00:00:10.000Z'],
    );
  });
});

eachStore('manage blacklist monitors', (env) => {
  test('GET and PATCH /blacklist-monitors: change, 404, 403, read-only, duplicate', async (c) => {
    const s = await serve(env, c);
    const create = async (value: string) =>
      assertSuccess(
        await s.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
          method: 'POST',
          key: s.key,
          body: { target_type: 'domain', target_value: value },
        }),
        201,
      );
    const a = await create('a.example.net');
    const b = await create('b.example.net');
    assert.deepEqual(assertSuccess(await s.request(`/v1/blacklist-monitors/get?id=${a.id}`, { key: s.key }), 200), a);
    const changed = assertSuccess(
      await s.request<BlacklistMonitor>(
        `/v1/blacklist-monitors/update?id=${a.id}`,
        patch({ check_interval_s: 600, target_type: 'ip', target_value: '8.8.8.8' }, s.key),
      ),
      200,
    );
    assert.deepEqual(changed, { ...a, check_interval_s: 600, target_type: 'ip', target_value: '8.8.8.8' });
    assertValidation(
      await s.request(
        `/v1/blacklist-monitors/update?id=${a.id}`,
        patch({ listed_on: [], last_status: 'clean', check_interval_s: 60 }, s.key),
      ),
      [
        ['listed_on', 'read_only_field'],
        ['last_status', 'read_only_field'],
        ['check_interval_s', 'out_of_range'],
      ],
    );
    const duplicate = assertError(
      await s.request(
        `/v1/blacklist-monitors/update?id=${b.id}`,
        patch({ target_type: 'ip', target_value: '8.8.8.8' }, s.key),
      ),
      409,
      'duplicate_blacklist_monitor',
    );
    assert.equal(duplicate.existing_id, a.id);
    const other = await s.t.createKey();
    assertError(
      await s.request(`/v1/blacklist-monitors/get?id=${a.id}`, { key: other }),
      404,
      'blacklist_monitor_not_found',
    );
    assertError(
      await s.request(`/v1/blacklist-monitors/update?id=${a.id}`, patch({ is_enabled: false }, other)),
      404,
      'blacklist_monitor_not_found',
    );
    const reader = await s.t.createKey({ userId: s.key.key.user_id, scopes: ['read'] });
    assertError(
      await s.request(`/v1/blacklist-monitors/update?id=${a.id}`, patch({ is_enabled: false }, reader)),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(assertSuccess(await s.request(`/v1/blacklist-monitors/get?id=${b.id}`, { key: s.key }), 200), b);
    const paused = assertSuccess(
      await s.request<BlacklistMonitor>(
        `/v1/blacklist-monitors/update?id=${b.id}`,
        patch({ is_enabled: false }, s.key),
      ),
      200,
    );
    assert.equal(paused.is_enabled, false);
  });
});

eachStore('manage webhooks', (env) => {
  test('GET and PATCH /webhooks: url, events, is_enabled; rotate_secret answers a new secret once; never otherwise', async (c) => {
    const s = await serve(env, c);
    const create = async (url: string) =>
      assertSuccess(
        await s.request<CreatedWebhook>('/v1/webhooks/create', { method: 'POST', key: s.key, body: { url } }),
        201,
      );
    const a = await create('https://hooks.example.com/a');
    const b = await create('https://hooks.example.com/b');
    const { secret, ...shown } = a;
    assert.deepEqual(assertSuccess(await s.request(`/v1/webhooks/get?id=${a.id}`, { key: s.key }), 200), shown);
    const changed = assertSuccess(
      await s.request<Webhook>(
        `/v1/webhooks/update?id=${a.id}`,
        patch({ url: 'https://HOOKS.example.com/c', events: ['device.up', 'device.down'] }, s.key),
      ),
      200,
    );
    assert.deepEqual(changed, { ...shown, url: 'https://hooks.example.com/c', events: ['device.down', 'device.up'] });
    assert.equal('secret' in changed, false);
    const rotated = assertSuccess(
      await s.request<CreatedWebhook>(`/v1/webhooks/update?id=${a.id}`, patch({ rotate_secret: true }, s.key)),
      200,
    );
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, secret);
    assert.equal(
      'secret' in assertSuccess(await s.request<Webhook>(`/v1/webhooks/get?id=${a.id}`, { key: s.key }), 200),
      false,
    );
    const all = assertSuccess(
      await s.request<Webhook>(`/v1/webhooks/update?id=${a.id}`, patch({ events: null, is_enabled: false }, s.key)),
      200,
    );
    assert.deepEqual(all.events, [...EVENT_TYPES]);
    assert.equal(all.is_enabled, false);
    assertValidation(
      await s.request(
        `/v1/webhooks/update?id=${a.id}`,
        patch({ secret: 'whsec_x', last_delivery_at: null, rotate_secret: 'yes', events: [] }, s.key),
      ),
      [
        ['secret', 'read_only_field'],
        ['last_delivery_at', 'read_only_field'],
        ['rotate_secret', 'invalid_type'],
        ['events', 'invalid_value'],
      ],
    );
    assertValidation(await s.request(`/v1/webhooks/update?id=${a.id}`, patch({ url: 'http://127.0.0.1/x' }, s.key)), [
      ['url', 'forbidden_target'],
    ]);
    const duplicate = assertError(
      await s.request(`/v1/webhooks/update?id=${b.id}`, patch({ url: 'https://hooks.example.com/c' }, s.key)),
      409,
      'duplicate_webhook',
    );
    assert.equal(duplicate.existing_id, a.id);
    const other = await s.t.createKey();
    assertError(
      await s.request(`/v1/webhooks/update?id=${a.id}`, patch({ is_enabled: true }, other)),
      404,
      'webhook_not_found',
    );
    const reader = await s.t.createKey({ userId: s.key.key.user_id, scopes: ['read'] });
    assertError(
      await s.request(`/v1/webhooks/update?id=${a.id}`, patch({ is_enabled: true }, reader)),
      403,
      'insufficient_scope',
    );
  });
});
