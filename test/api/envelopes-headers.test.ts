/** docs/contract.md §3: envelopes, Content-Type, X-Request-Id, rate-limit headers, WWW-Authenticate, timestamps. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestResponse } from '../../core/testing/index.ts';
import { generateToken, type BlacklistMonitor, type Device, type Me } from '../../core/internal.ts';
import {
  assertError,
  assertSuccess,
  auth,
  deviceBody,
  eachStore,
  ISO_MS,
  JSON_TYPE,
  raw,
  START,
  UUID,
  VALIDATION_ONLY,
} from './helpers.ts';

/** The rate-limit fields of docs/contract.md §8 for a key policy q/w, after `used` requests, `t` seconds to reset. */
function assertKeyRateHeaders(res: TestResponse, q: number, w: number, remaining: number, t: number): void {
  assert.equal(res.headers.get('ratelimit-policy'), `"key";q=${q};w=${w}`);
  assert.equal(res.headers.get('ratelimit'), `"key";r=${remaining};t=${t}`);
  assert.equal(res.headers.get('ratelimit-limit'), String(q));
  assert.equal(res.headers.get('ratelimit-remaining'), String(remaining));
  assert.equal(res.headers.get('ratelimit-reset'), String(t));
}

// Validation, formats and routing: decided before any record is stored (see VALIDATION_ONLY).
eachStore(
  'envelopes and headers',
  (env) => {
    test('a success envelope is exactly {success: true, data}', async () => {
      const { t, key } = await env.setup();
      const res = await t.request('/v1/me', { key });
      assertSuccess(res, 200);
      const list = await t.request('/v1/devices', { key });
      assert.deepEqual(JSON.parse(list.text), { success: true, data: [] });
      const monitors = await t.request('/v1/blacklist-monitors', { key });
      assert.deepEqual(JSON.parse(monitors.text), { success: true, data: [] });
    });

    test('an error envelope is exactly {success: false, error: {code, message}} without details', async () => {
      const { t, key } = await env.setup();
      const cases: [TestResponse, number, string][] = [
        [await t.request('/v1/me'), 401, 'missing_api_key'],
        [await t.request('/v1/me', { key: generateToken() }), 401, 'invalid_api_key'],
        [await t.request('/v1/nope', { key }), 404, 'unknown_route'],
        [await t.request('/v1/me', { method: 'POST', key }), 405, 'method_not_allowed'],
        [await t.request('/v1/devices/delete?id=x', { method: 'DELETE', key }), 400, 'invalid_id'],
        [await t.request('/v1/devices/delete?id=12345', { method: 'DELETE', key }), 404, 'device_not_found'],
        [
          await t.request('/v1/devices/create', {
            method: 'POST',
            key,
            body: 'x',
            headers: { 'content-type': 'text/plain' },
          }),
          400,
          'invalid_content_type',
        ],
        [
          await t.request('/v1/devices/create', {
            method: 'POST',
            key,
            body: '{',
            headers: { 'content-type': 'application/json' },
          }),
          400,
          'invalid_json',
        ],
      ];
      for (const [res, status, code] of cases) {
        const error = assertError(res, status, code);
        assert.deepEqual(Object.keys(error).sort(), ['code', 'message'], `${code}: ${res.text}`);
      }
    });

    test('validation_failed carries details: one {field, code, message} per problem', async () => {
      const { t, key } = await env.setup();
      const res = await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', port: 0 },
      });
      const error = assertError(res, 400, 'validation_failed');
      assert.deepEqual(Object.keys(error).sort(), ['code', 'details', 'message']);
      const fields = error.details!.map((d) => `${d.field}:${d.code}`).sort();
      assert.deepEqual(fields, ['port:out_of_range', 'target_value:missing']);
    });

    test('a 409 carries existing_id and no details', async () => {
      const { t, key } = await env.setup();
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
        201,
      );
      const res = await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody() });
      const error = assertError(res, 409, 'duplicate_device');
      assert.deepEqual(Object.keys(error).sort(), ['code', 'existing_id', 'message']);
      assert.equal(error.existing_id, device.id);
    });

    test('Content-Type is exactly application/json; charset=utf-8 on every answer', async () => {
      const { t, key } = await env.setup();
      const big = JSON.stringify({ location: 'x'.repeat(17_000) });
      const answers: TestResponse[] = [
        await t.request('/v1/me', { key }),
        await t.request('/v1/devices', { key }),
        await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
        await t.request('/v1/me'),
        await t.request('/v1/me', { key: 'mapi_x' }),
        await t.request('/v1/nope', { key }),
        await t.request('/nope'),
        await t.request('/', { key }),
        await t.request('/v1/devices', { method: 'PATCH', key }),
        await raw(t, '/v1/devices/create', {
          method: 'POST',
          body: big,
          headers: { ...auth(key), 'content-type': 'application/json' },
        }),
        await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
        await t.request('/v1/devices/create', { method: 'POST', key, body: { port: 'x' } }),
      ];
      const statuses = answers.map((a) => a.status);
      assert.deepEqual(statuses, [200, 200, 201, 401, 401, 404, 404, 404, 405, 413, 409, 400]);
      for (const res of answers) assert.equal(res.headers.get('content-type'), JSON_TYPE, `${res.status} ${res.text}`);
    });

    test("X-Request-Id: the caller's own when it is 1-64 of [A-Za-z0-9._-]", async () => {
      const { t, key } = await env.setup();
      for (const id of ['a', 'abc-123_X.y', 'Z'.repeat(64), '0', '...', '-_-', 'req.2026-01-01_42']) {
        for (const res of [
          await t.request('/v1/me', { key, headers: { 'x-request-id': id } }),
          await t.request('/v1/me', { headers: { 'x-request-id': id } }),
          await t.request('/elsewhere', { headers: { 'x-request-id': id } }),
        ]) {
          assert.equal(res.headers.get('x-request-id'), id);
        }
      }
    });

    test('X-Request-Id: a new UUID for an id that is too long, empty or has other characters', async () => {
      const { t, key } = await env.setup();
      const bad = [
        'Z'.repeat(65),
        'a b',
        'a/b',
        'a:b',
        'é',
        'a;b',
        'a,b',
        '<script>',
        'a\tb',
        '{x}',
        'a+b',
        'a=b',
        '%41',
        '',
      ];
      const seen = new Set<string>();
      for (const id of bad) {
        for (const res of [
          await t.request('/v1/me', { key, headers: { 'x-request-id': id } }),
          await t.request('/v1/nope', { headers: { 'x-request-id': id } }),
        ]) {
          const answered = res.headers.get('x-request-id');
          assert.ok(answered !== null && UUID.test(answered), `${JSON.stringify(id)} answered ${answered}`);
          assert.ok(!seen.has(answered), 'each request gets its own UUID');
          seen.add(answered);
        }
      }
      const none = await t.request('/v1/me', { key });
      assert.match(none.headers.get('x-request-id') ?? '', UUID);
    });

    test('X-Request-Id is on 401, 404 outside the base path, 405, 413 and 429 too', async () => {
      const t = env.api();
      const key = await t.createKey({ rateLimit: { limit: 1, windowSeconds: 60 } });
      const other = await t.createKey();
      const big = 'x'.repeat(20_000);
      const answers = [
        await t.request('/v1/me', { headers: { 'x-request-id': 'r1' } }),
        await t.request('/x', { headers: { 'x-request-id': 'r1' } }),
        await t.request('/v1/me', { method: 'PUT', key: other, headers: { 'x-request-id': 'r1' } }),
        await raw(t, '/v1/devices/create', {
          method: 'POST',
          body: big,
          headers: { ...auth(other), 'content-type': 'application/json', 'x-request-id': 'r1' },
        }),
        await t.request('/v1/me', { key, headers: { 'x-request-id': 'r1' } }),
        await t.request('/v1/me', { key, headers: { 'x-request-id': 'r1' } }),
      ];
      assert.deepEqual(
        answers.map((a) => a.status),
        [401, 404, 405, 413, 200, 429],
      );
      for (const res of answers) assert.equal(res.headers.get('x-request-id'), 'r1');
    });

    test('401 answers carry WWW-Authenticate: Bearer realm="monitoring"; others do not need it', async () => {
      const { t, key } = await env.setup();
      for (const res of [
        await t.request('/v1/me'),
        await t.request('/v1/me', { key: generateToken() }),
        await raw(t, '/v1/devices', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }),
        await raw(t, '/v1/devices', { headers: { authorization: '' } }),
      ]) {
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="monitoring"');
      }
      const ok = await t.request('/v1/me', { key });
      assert.equal(ok.headers.get('www-authenticate'), null);
    });

    test('authenticated answers carry the rate-limit headers in their exact syntax', async () => {
      const { t, key } = await env.setup();
      assertKeyRateHeaders(await t.request('/v1/me', { key }), 120, 60, 119, 60);
      t.clock.advance(10_000);
      assertKeyRateHeaders(await t.request('/v1/devices', { key }), 120, 60, 118, 50);
      t.clock.advance(500);
      // 49.5 s left: whole seconds, never 0 while the window is open.
      const res = await t.request('/v1/blacklist-monitors', { key });
      const reset = Number(res.headers.get('ratelimit-reset'));
      assert.ok(reset === 49 || reset === 50, `reset after 10.5 s of 60: ${reset}`);
      assertKeyRateHeaders(res, 120, 60, 117, reset);
    });

    test('authenticated error answers (400, 403, 404, 405, 409, 413) carry the rate-limit headers too', async () => {
      const t = env.api();
      const key = await t.createKey();
      const reader = await t.createKey({ scopes: ['read'], userId: key.key.user_id });
      await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody() });
      const big = 'x'.repeat(20_000);
      const answers: [TestResponse, number, number][] = [
        [await t.request('/v1/devices/create', { method: 'POST', key, body: { x: 1 } }), 400, 118],
        [await t.request('/v1/devices/create', { method: 'POST', key: reader, body: deviceBody() }), 403, 119],
        [await t.request('/v1/nope', { key }), 404, 117],
        [await t.request('/v1/devices/delete?id=987654', { method: 'DELETE', key }), 404, 116],
        [await t.request('/v1/me', { method: 'DELETE', key }), 405, 115],
        [await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody() }), 409, 114],
        [
          await raw(t, '/v1/devices/create', {
            method: 'POST',
            body: big,
            headers: { ...auth(key), 'content-type': 'application/json' },
          }),
          413,
          113,
        ],
      ];
      for (const [res, status, remaining] of answers) {
        assert.equal(res.status, status, res.text);
        assertKeyRateHeaders(res, 120, 60, remaining, 60);
      }
    });

    test('a 429 carries Retry-After equal to t, and r=0', async () => {
      const t = env.api();
      const key = await t.createKey({ rateLimit: { limit: 2, windowSeconds: 30 } });
      assertKeyRateHeaders(await t.request('/v1/me', { key }), 2, 30, 1, 30);
      t.clock.advance(3_000);
      assertKeyRateHeaders(await t.request('/v1/me', { key }), 2, 30, 0, 27);
      t.clock.advance(4_000);
      const res = await t.request('/v1/me', { key });
      assertError(res, 429, 'rate_limit_exceeded');
      assertKeyRateHeaders(res, 2, 30, 0, 23);
      assert.equal(res.headers.get('retry-after'), '23');
      const ok = await t.request('/v1/me', { key: await t.createKey() });
      assert.equal(ok.headers.get('retry-after'), null, 'Retry-After belongs to 429 answers');
    });

    test('timestamps are ISO 8601 UTC with milliseconds from the injected clock', async () => {
      const { t, key } = await env.setup();
      const first = assertSuccess(
        await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
        201,
      );
      assert.equal(first.created_at, START);
      t.clock.advance(1_234);
      const second = assertSuccess(
        await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'ip', target_value: '8.8.8.8' },
        }),
        201,
      );
      assert.equal(second.created_at, '2026-01-01T00:00:01.234Z');
      t.clock.set('2027-06-30T23:59:59.007Z');
      const third = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: 'example.org' }),
        }),
        201,
      );
      assert.equal(third.created_at, '2027-06-30T23:59:59.007Z');
      const listed = assertSuccess(await t.request('/v1/devices', { key }), 200) as { created_at: string }[];
      assert.deepEqual(
        listed.map((d) => d.created_at),
        [START, '2027-06-30T23:59:59.007Z'],
      );
      for (const d of listed) assert.match(d.created_at, ISO_MS);
      const monitors = assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200) as {
        created_at: string;
      }[];
      assert.deepEqual(
        monitors.map((m) => m.created_at),
        ['2026-01-01T00:00:01.234Z'],
      );
    });

    test('identifiers are positive integers', async () => {
      const { t, key } = await env.setup();
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
        201,
      );
      const monitor = assertSuccess(
        await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com' },
        }),
        201,
      );
      const me = assertSuccess(await t.request<Me>('/v1/me', { key }), 200);
      for (const id of [device.id, monitor.id, me.user_id, me.key_id]) {
        assert.equal(typeof id, 'number');
        assert.ok(Number.isSafeInteger(id) && id > 0, `id ${id}`);
      }
    });
  },
  VALIDATION_ONLY,
);
