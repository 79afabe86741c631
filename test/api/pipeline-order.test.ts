/**
 * docs/contract.md §2: the order in which a request is judged. Each test sets up a request that fails
 * two steps at once and checks that the earlier step answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateToken, type Device, type Me } from '../../core/internal.ts';
import { assertError, assertSuccess, auth, deviceBody, eachStore, raw, VALIDATION_ONLY } from './helpers.ts';

// The order of the pipeline's steps: decided before any record is stored (see VALIDATION_ONLY).
eachStore(
  'pipeline order',
  (env) => {
    test('step 1 before step 4: an unknown route or a wrong method without a key is 401, not 404/405', async () => {
      const { t } = await env.setup();
      assertError(await t.request('/v1/nope'), 401, 'missing_api_key');
      assertError(await t.request('/v1/devices/nope'), 401, 'missing_api_key');
      assertError(await t.request('/v1/devices', { method: 'PUT' }), 401, 'missing_api_key');
      assertError(await t.request('/v1/nope', { key: generateToken() }), 401, 'invalid_api_key');
      assertError(await t.request('/v1/me', { method: 'DELETE', key: generateToken() }), 401, 'invalid_api_key');
    });

    test('step 1 before step 6: a bad body without a valid key is 401', async () => {
      const { t } = await env.setup();
      assertError(
        await t.request('/v1/devices/create', {
          method: 'POST',
          body: 'not json',
          headers: { 'content-type': 'text/plain' },
        }),
        401,
        'missing_api_key',
      );
      assertError(
        await t.request('/v1/devices/create', { method: 'POST', key: generateToken(), body: { nope: 1 } }),
        401,
        'invalid_api_key',
      );
    });

    test('step 2 before step 3: ip_not_allowed before the rate limit, and a refused IP does not spend the quota', async () => {
      const t = env.api();
      const user = await t.createUser();
      const key = await t.createKey({
        userId: user.id,
        allowedIps: ['198.51.100.7'],
        rateLimit: { limit: 2, windowSeconds: 60 },
      });
      for (let i = 0; i < 5; i++) {
        assertError(await t.request('/v1/me', { key, clientAddress: '198.51.100.8' }), 403, 'ip_not_allowed');
      }
      const first = assertSuccess(await t.request<Me>('/v1/me', { key, clientAddress: '198.51.100.7' }), 200);
      assert.equal(first.key_id, key.key.id);
      assertSuccess(await t.request('/v1/me', { key, clientAddress: '198.51.100.7' }), 200);
      assertError(await t.request('/v1/me', { key, clientAddress: '198.51.100.7' }), 429, 'rate_limit_exceeded');
      // Quota spent: a refused address still gets ip_not_allowed, not 429.
      assertError(await t.request('/v1/me', { key, clientAddress: '198.51.100.8' }), 403, 'ip_not_allowed');
    });

    test('step 1 before step 2: an invalid key from a disallowed IP is 401', async () => {
      const t = env.api();
      const user = await t.createUser();
      await t.createKey({ userId: user.id, allowedIps: ['198.51.100.7'] });
      assertError(
        await t.request('/v1/me', { key: generateToken(), clientAddress: '198.51.100.8' }),
        401,
        'invalid_api_key',
      );
    });

    test('step 3 before step 4: an exhausted key gets 429 on an unknown route and a wrong method', async () => {
      const t = env.api();
      const key = await t.createKey({ rateLimit: { limit: 1, windowSeconds: 60 } });
      assertSuccess(await t.request('/v1/me', { key }), 200);
      assertError(await t.request('/v1/nope', { key }), 429, 'rate_limit_exceeded');
      assertError(await t.request('/v1/devices', { method: 'PUT', key }), 429, 'rate_limit_exceeded');
      assertError(
        await t.request('/v1/devices/create', { method: 'POST', key, body: { bad: true } }),
        429,
        'rate_limit_exceeded',
      );
    });

    test('step 4 before step 5: a wrong method with a read-only key is 405, not 403', async () => {
      const t = env.api();
      const reader = await t.createKey({ scopes: ['read'] });
      const writer = await t.createKey({ scopes: ['write'] });
      for (const [method, path, key] of [
        ['POST', '/v1/devices', reader],
        ['DELETE', '/v1/devices', reader],
        ['GET', '/v1/devices/create', writer],
        ['PUT', '/v1/devices/create', reader],
        ['GET', '/v1/devices/delete', reader],
        ['POST', '/v1/blacklist-monitors', reader],
        ['GET', '/v1/blacklist-monitors/delete?id=1', writer],
      ] as const) {
        const res = await t.request(path, { method, key });
        assertError(res, 405, 'method_not_allowed');
        assert.ok(res.headers.get('allow') !== null);
      }
    });

    test('step 4 before step 5: an unknown route with a key lacking the scope is 404, not 403', async () => {
      const t = env.api();
      const reader = await t.createKey({ scopes: ['read'] });
      assertError(
        await t.request('/v1/devices/remove?id=1', { method: 'DELETE', key: reader }),
        404,
        'unknown_devices_route',
      );
      assertError(
        await t.request('/v1/blacklist-monitors/new', { method: 'POST', key: reader, body: {} }),
        404,
        'unknown_blacklist_monitors_route',
      );
    });

    test('step 5 before step 6: a missing scope is 403 whatever is wrong with the input', async () => {
      const t = env.api();
      const reader = await t.createKey({ scopes: ['read'] });
      const writer = await t.createKey({ scopes: ['write'] });
      // Invalid fields, wrong content type, broken JSON, oversized body, invalid ids, bad list params.
      assertError(
        await t.request('/v1/devices/create', { method: 'POST', key: reader, body: { nope: 1 } }),
        403,
        'insufficient_scope',
      );
      assertError(
        await t.request('/v1/devices/create', {
          method: 'POST',
          key: reader,
          body: '{"x":',
          headers: { 'content-type': 'application/json' },
        }),
        403,
        'insufficient_scope',
      );
      assertError(
        await t.request('/v1/devices/create', {
          method: 'POST',
          key: reader,
          body: 'hello',
          headers: { 'content-type': 'text/plain' },
        }),
        403,
        'insufficient_scope',
      );
      const big = JSON.stringify({ location: 'x'.repeat(20_000) });
      assertError(
        await raw(t, '/v1/devices/create', {
          method: 'POST',
          body: big,
          headers: { ...auth(reader), 'content-type': 'application/json', 'content-length': String(big.length) },
        }),
        403,
        'insufficient_scope',
      );
      assertError(
        await t.request('/v1/blacklist-monitors/create', { method: 'POST', key: reader, body: [] }),
        403,
        'insufficient_scope',
      );
      assertError(
        await t.request('/v1/devices/delete?id=abc', { method: 'DELETE', key: reader }),
        403,
        'insufficient_scope',
      );
      assertError(
        await t.request('/v1/blacklist-monitors/delete', { method: 'DELETE', key: reader }),
        403,
        'insufficient_scope',
      );
      assertError(await t.request('/v1/devices?limit=abc', { key: writer }), 403, 'insufficient_scope');
      assertError(await t.request('/v1/blacklist-monitors?foo=1', { key: writer }), 403, 'insufficient_scope');
    });

    test('step 6 before step 7: invalid input is 400 even when the record would be a duplicate or missing', async () => {
      const { t, key } = await env.setup();
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
        201,
      );
      // Same device plus a typo'd field: the typo is reported, not the duplicate.
      assertError(
        await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ expected_status: 200 }) }),
        400,
        'validation_failed',
      );
      assertError(await t.request('/v1/devices/delete?id=0', { method: 'DELETE', key }), 400, 'invalid_id');
      assertSuccess(await t.request(`/v1/devices/delete?id=${device.id}`, { method: 'DELETE', key }), 200);
    });

    test('failed authentications are throttled per client IP: past 30 the IP gets 429, even with a valid key', async () => {
      const { t, key } = await env.setup();
      const ip = '203.0.113.10';
      for (let i = 1; i <= 30; i++) {
        assertError(await t.request('/v1/me', { key: generateToken(), clientAddress: ip }), 401, 'invalid_api_key');
      }
      const blocked = await t.request('/v1/me', { key, clientAddress: ip });
      assertError(blocked, 429, 'rate_limit_exceeded');
      const retry = blocked.headers.get('retry-after');
      assert.ok(retry !== null && /^[1-9][0-9]*$/.test(retry), `Retry-After on the throttled 429: ${retry}`);
      assert.ok(Number(retry) <= 60);
      assertError(await t.request('/v1/me', { key: generateToken(), clientAddress: ip }), 429, 'rate_limit_exceeded');
      // No key at all tries none: step 1 answers the missing header before any key is judged.
      assertError(await t.request('/v1/me', { clientAddress: ip }), 401, 'missing_api_key');
      // Other addresses are unaffected.
      assertSuccess(await t.request('/v1/me', { key, clientAddress: '203.0.113.11' }), 200);
      assertError(
        await t.request('/v1/me', { key: generateToken(), clientAddress: '203.0.113.11' }),
        401,
        'invalid_api_key',
      );
      // A minute later the address may try again.
      t.clock.advance(61_000);
      assertSuccess(await t.request('/v1/me', { key, clientAddress: ip }), 200);
    });

    test('the throttled 429 carries Retry-After equal to the t of its RateLimit field', async () => {
      const { t, key } = await env.setup();
      for (let i = 0; i < 30; i++) await t.request('/v1/me', { key: generateToken(), clientAddress: '203.0.113.40' });
      t.clock.advance(12_000);
      const res = await t.request('/v1/me', { key, clientAddress: '203.0.113.40' });
      assertError(res, 429, 'rate_limit_exceeded');
      const retry = res.headers.get('retry-after');
      assert.equal(retry, '48');
      const field = res.headers.get('ratelimit');
      if (field !== null) assert.match(field, /;t=48$/);
    });

    test('concurrent failed attempts cannot get past the throttle: 60 at once from one IP, at most 30 are judged', async () => {
      const { t, key } = await env.setup();
      const ip = '203.0.113.50';
      const answers = await Promise.all(
        Array.from({ length: 60 }, () => t.request('/v1/me', { key: generateToken(), clientAddress: ip })),
      );
      const judged = answers.filter((a) => a.status === 401).length;
      const throttled = answers.filter((a) => a.status === 429).length;
      assert.equal(judged + throttled, 60);
      assert.ok(
        judged <= 30,
        `${judged} of 60 concurrent invalid keys were looked up and answered 401; the limit is 30 a minute`,
      );
      assertError(await t.request('/v1/me', { key, clientAddress: ip }), 429, 'rate_limit_exceeded');
    });

    test('revoked and expired keys count as failed attempts', async () => {
      const t = env.api();
      const revoked = await t.createKey();
      await t.api.keys.revokeApiKey(revoked.key.id);
      const expired = await t.createKey({ expiresAt: '2025-01-01T00:00:00.000Z' });
      const valid = await t.createKey();
      const ip = '203.0.113.60';
      for (let i = 0; i < 15; i++) {
        assertError(await t.request('/v1/me', { key: revoked, clientAddress: ip }), 401, 'invalid_api_key');
        assertError(await t.request('/v1/me', { key: expired, clientAddress: ip }), 401, 'invalid_api_key');
      }
      assertError(await t.request('/v1/me', { key: valid, clientAddress: ip }), 429, 'rate_limit_exceeded');
    });

    test('the failed-auth limit is configurable (authFailureLimit)', async () => {
      const { t, key } = await env.setup({ authFailureLimit: { limit: 3, windowSeconds: 10 } });
      for (let i = 0; i < 3; i++)
        assertError(
          await t.request('/v1/me', { key: generateToken(), clientAddress: '203.0.113.70' }),
          401,
          'invalid_api_key',
        );
      const res = await t.request('/v1/me', { key, clientAddress: '203.0.113.70' });
      assertError(res, 429, 'rate_limit_exceeded');
      assert.equal(res.headers.get('retry-after'), '10');
      t.clock.advance(10_000);
      assertSuccess(await t.request('/v1/me', { key, clientAddress: '203.0.113.70' }), 200);
    });

    test('the failed-auth throttle also counts malformed Authorization headers and wrong prefixes', async () => {
      const { t, key } = await env.setup();
      const ip = '203.0.113.20';
      const forms = ['Basic dXNlcjpwYXNz', 'Bearer', 'Token abc', 'Bearer xapi_abc', 'Bearer a b'];
      for (let i = 0; i < 30; i++) {
        const res = await raw(t, '/v1/me', { headers: { authorization: forms[i % forms.length]! } }, ip);
        assertError(res, 401, 'invalid_api_key');
      }
      assertError(await t.request('/v1/me', { key, clientAddress: ip }), 429, 'rate_limit_exceeded');
    });

    test('the failed-auth throttle counts an IPv6 client by its /64', async () => {
      const { t, key } = await env.setup();
      for (let i = 1; i <= 30; i++) {
        // Every attempt from a different address of the same /64.
        assertError(
          await t.request('/v1/me', { key: generateToken(), clientAddress: `2001:db8:1:2::${i.toString(16)}` }),
          401,
          'invalid_api_key',
        );
      }
      assertError(
        await t.request('/v1/me', { key, clientAddress: '2001:db8:1:2:ffff:ffff:ffff:ffff' }),
        429,
        'rate_limit_exceeded',
      );
      assertError(
        await t.request('/v1/me', { key, clientAddress: '2001:DB8:1:2:0:0:0:99' }),
        429,
        'rate_limit_exceeded',
      );
      // The neighbouring /64 is another subscriber.
      assertSuccess(await t.request('/v1/me', { key, clientAddress: '2001:db8:1:3::1' }), 200);
    });

    test('the failed-auth throttle counts ::ffff:1.2.3.4 as 1.2.3.4', async () => {
      const { t, key } = await env.setup();
      for (let i = 1; i <= 15; i++) {
        assertError(
          await t.request('/v1/me', { key: generateToken(), clientAddress: '1.2.3.4' }),
          401,
          'invalid_api_key',
        );
        assertError(
          await t.request('/v1/me', { key: generateToken(), clientAddress: '::ffff:1.2.3.4' }),
          401,
          'invalid_api_key',
        );
      }
      assertError(await t.request('/v1/me', { key, clientAddress: '1.2.3.4' }), 429, 'rate_limit_exceeded');
      assertError(await t.request('/v1/me', { key, clientAddress: '::ffff:1.2.3.4' }), 429, 'rate_limit_exceeded');
      // Not every IPv4 client in one bucket: 1.2.3.5 is somebody else.
      assertSuccess(await t.request('/v1/me', { key, clientAddress: '::ffff:1.2.3.5' }), 200);
      assertSuccess(await t.request('/v1/me', { key, clientAddress: '1.2.3.5' }), 200);
    });

    test('successful requests do not count as failed attempts', async () => {
      const { t, key } = await env.setup({ rateLimit: { limit: 1000, windowSeconds: 60 } });
      for (let i = 0; i < 40; i++)
        assertSuccess(await t.request('/v1/me', { key, clientAddress: '203.0.113.30' }), 200);
      for (let i = 0; i < 29; i++)
        assertError(
          await t.request('/v1/me', { key: generateToken(), clientAddress: '203.0.113.30' }),
          401,
          'invalid_api_key',
        );
      assertSuccess(await t.request('/v1/me', { key, clientAddress: '203.0.113.30' }), 200);
    });

    test('the failed-auth throttle uses the client IP behind a trusted proxy, not the proxy', async () => {
      const { t, key } = await env.setup({ trustProxy: ['10.0.0.1'] });
      for (let i = 0; i < 30; i++) {
        assertError(
          await t.request('/v1/me', {
            key: generateToken(),
            clientAddress: '10.0.0.1',
            headers: { 'x-forwarded-for': '198.51.100.50' },
          }),
          401,
          'invalid_api_key',
        );
      }
      assertError(
        await t.request('/v1/me', { key, clientAddress: '10.0.0.1', headers: { 'x-forwarded-for': '198.51.100.50' } }),
        429,
        'rate_limit_exceeded',
      );
      // Another client behind the same proxy is not locked out.
      assertSuccess(
        await t.request('/v1/me', { key, clientAddress: '10.0.0.1', headers: { 'x-forwarded-for': '198.51.100.51' } }),
        200,
      );
    });
  },
  VALIDATION_ONLY,
);
