/** docs/contract.md §7 (keys, scopes, allow-list, client IP) and §2 steps 1, 2 and 5. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  generateToken,
  KeyAdminError,
  TOKEN_PREFIX,
  type BlacklistMonitor,
  type Device,
  type Me,
} from '../../core/internal.ts';
import type { TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { assertError, assertSuccess, deviceBody, eachStore, raw, START } from './helpers.ts';

async function meWith(t: TestApi, authorization: string | null, clientAddress = '127.0.0.1') {
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  return raw<Me>(t, '/v1/me', { headers }, clientAddress);
}

async function canRead(t: TestApi, key: CreatedApiKey, clientAddress: string, headers: Record<string, string> = {}) {
  return t.request('/v1/devices', { key, clientAddress, headers });
}

eachStore('keys and scopes', (env) => {
  test('a read-only key can GET but not POST or DELETE', async () => {
    const t = env.api();
    const writer = await t.createKey();
    const reader = await t.createKey({ userId: writer.key.user_id, scopes: ['read'] });
    const device = assertSuccess(
      await t.request<Device>('/v1/devices/create', { method: 'POST', key: writer, body: deviceBody() }),
      201,
    );
    const monitor = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key: writer,
        body: deviceBody(),
      }),
      201,
    );
    assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key: reader }), 200), [device]);
    assert.deepEqual(assertSuccess(await t.request('/v1/blacklist-monitors', { key: reader }), 200), [monitor]);
    assertSuccess(await t.request('/v1/me', { key: reader }), 200);
    const refused = await t.request('/v1/devices/create', {
      method: 'POST',
      key: reader,
      body: deviceBody({ target_value: 'x.example.com' }),
    });
    assertError(refused, 403, 'insufficient_scope');
    // RFC 6750 §3.1: the challenge names the error and the scope the operation needs.
    assert.equal(
      refused.headers.get('www-authenticate'),
      'Bearer realm="monitoring", error="insufficient_scope", scope="write"',
    );
    assertError(
      await t.request('/v1/blacklist-monitors/create', {
        method: 'POST',
        key: reader,
        body: deviceBody({ target_value: 'x.example.com' }),
      }),
      403,
      'insufficient_scope',
    );
    assertError(
      await t.request(`/v1/devices/delete?id=${device.id}`, { method: 'DELETE', key: reader }),
      403,
      'insufficient_scope',
    );
    assertError(
      await t.request(`/v1/blacklist-monitors/delete?id=${monitor.id}`, { method: 'DELETE', key: reader }),
      403,
      'insufficient_scope',
    );
    // Nothing changed.
    assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key: reader }), 200), [device]);
    assert.deepEqual(assertSuccess(await t.request('/v1/blacklist-monitors', { key: reader }), 200), [monitor]);
  });

  test('a write-only key cannot GET the lists but can GET /me, create and delete', async () => {
    const t = env.api();
    const writer = await t.createKey({ scopes: ['write'] });
    const refused = await t.request('/v1/devices', { key: writer });
    assertError(refused, 403, 'insufficient_scope');
    assert.equal(
      refused.headers.get('www-authenticate'),
      'Bearer realm="monitoring", error="insufficient_scope", scope="read"',
    );
    assertError(await t.request('/v1/blacklist-monitors', { key: writer }), 403, 'insufficient_scope');
    assertError(await t.request('/v1/devices?limit=1', { key: writer }), 403, 'insufficient_scope');
    const me = assertSuccess(await t.request<Me>('/v1/me', { key: writer }), 200);
    assert.deepEqual(me.scopes, ['write']);
    const device = assertSuccess(
      await t.request<Device>('/v1/devices/create', { method: 'POST', key: writer, body: deviceBody() }),
      201,
    );
    const monitor = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key: writer,
        body: deviceBody(),
      }),
      201,
    );
    assertSuccess(await t.request(`/v1/devices/delete?id=${device.id}`, { method: 'DELETE', key: writer }), 200);
    assertSuccess(
      await t.request(`/v1/blacklist-monitors/delete?id=${monitor.id}`, { method: 'DELETE', key: writer }),
      200,
    );
  });

  test('/me: user_id, key_id and scopes of the calling key', async () => {
    const t = env.api();
    const user = await t.createUser('someone');
    const both = await t.createKey({ userId: user.id });
    const reader = await t.createKey({ userId: user.id, scopes: ['read'] });
    const reversed = await t.createKey({ userId: user.id, scopes: ['write', 'read'] });
    for (const [key, scopes] of [
      [both, ['read', 'write']],
      [reader, ['read']],
      [reversed, ['read', 'write']],
    ] as const) {
      const me = assertSuccess(await t.request<Me>('/v1/me', { key }), 200);
      assert.equal(me.user_id, user.id);
      assert.equal(me.key_id, key.key.id);
      assert.deepEqual(me.scopes, scopes);
      assert.equal(typeof me.user_id, 'number');
      assert.equal(typeof me.key_id, 'number');
      assert.ok(!Array.isArray(me));
    }
    assert.notEqual(both.key.id, reader.key.id);
    // Any timestamp it adds is ISO 8601 UTC with milliseconds (docs/contract.md §3).
    const expiring = await t.createKey({ userId: user.id, expiresAt: '2026-06-01T00:00:00Z' });
    const me = assertSuccess(await t.request<Me>('/v1/me', { key: expiring }), 200);
    if ('expires_at' in me) assert.equal(me.expires_at, '2026-06-01T00:00:00.000Z');
  });

  test('/me and every other answer never show a token or its hash', async () => {
    const { t, key } = await env.setup();
    const hash = createHash('sha256').update(key.token).digest('hex');
    for (const res of [
      await t.request('/v1/me', { key }),
      await t.request('/v1/devices', { key }),
      await t.request('/v1/me', { key: 'mapi_x' }),
    ]) {
      assert.ok(!res.text.includes(key.token), 'token leaked');
      assert.ok(!res.text.includes(hash), 'token hash leaked');
      assert.ok(!res.text.includes('token_hash'));
      for (const [, value] of res.headers) assert.ok(!value.includes(key.token) && !value.includes(hash));
    }
  });

  test('tokens: a recognisable prefix, at least 128 random bits, only the SHA-256 stored', async () => {
    const t = env.api();
    const a = await t.createKey();
    const b = await t.createKey();
    for (const { token } of [a, b]) {
      assert.ok(token.startsWith(TOKEN_PREFIX), token);
      const secret = token.slice(TOKEN_PREFIX.length);
      // base64url or hex: at least 128 bits either way.
      assert.ok(secret.length >= 22, `secret part too short: ${secret.length}`);
      assert.match(secret, /^[A-Za-z0-9_-]+$/);
    }
    assert.notEqual(a.token, b.token);
    const stored = await env.store.findApiKeyByHash(createHash('sha256').update(a.token).digest('hex'));
    assert.ok(stored !== undefined, 'the key is found by the SHA-256 hex of its token');
    assert.equal(stored.id, a.key.id);
    assert.equal(await env.store.findApiKeyByHash(a.token), undefined, 'the token itself is not what is stored');
    const listed = await t.api.keys.listApiKeys(a.key.user_id);
    assert.ok(!JSON.stringify(listed).includes(a.token));
  });

  test('a key has id, user_id, name, scopes, allowed IPs, created_at, expires_at, revoked_at, last_used_at', async () => {
    const t = env.api();
    const user = await t.createUser();
    const created = await t.createKey({
      userId: user.id,
      name: 'ci',
      scopes: ['read'],
      allowedIps: ['198.51.100.0/24'],
      expiresAt: '2026-06-01T00:00:00Z',
    });
    const [key] = await t.api.keys.listApiKeys(user.id);
    assert.ok(key !== undefined);
    for (const field of [
      'id',
      'user_id',
      'name',
      'scopes',
      'allowed_ips',
      'created_at',
      'expires_at',
      'revoked_at',
      'last_used_at',
    ]) {
      assert.ok(field in key, `key field ${field}`);
    }
    assert.equal(key.id, created.key.id);
    assert.equal(key.user_id, user.id);
    assert.equal(key.name, 'ci');
    assert.deepEqual(key.scopes, ['read']);
    assert.deepEqual(key.allowed_ips, ['198.51.100.0/24']);
    assert.equal(key.created_at, START);
    assert.equal(key.expires_at, '2026-06-01T00:00:00.000Z');
    assert.equal(key.revoked_at, null);
    assert.equal(key.last_used_at, null);
    // Using it sets last_used_at (written off the request path; close() flushes).
    t.clock.advance(5_000);
    assertSuccess(await t.request('/v1/me', { key: created, clientAddress: '198.51.100.1' }), 200);
    await t.api.close();
    const [used] = await t.api.keys.listApiKeys(user.id);
    assert.equal(used?.last_used_at, '2026-01-01T00:00:05.000Z');
  });

  test('scopes are a non-empty subset of read and write', async () => {
    const t = env.api();
    const user = await t.createUser();
    await assert.rejects(t.api.keys.createApiKey({ userId: user.id, scopes: [] }), KeyAdminError);
    await assert.rejects(t.api.keys.createApiKey({ userId: user.id, scopes: ['admin' as 'read'] }), KeyAdminError);
    await assert.rejects(t.api.keys.createApiKey({ userId: user.id, allowedIps: ['not-an-ip'] }), KeyAdminError);
    await assert.rejects(t.api.keys.createApiKey({ userId: user.id, allowedIps: ['10.0.0.0/33'] }), KeyAdminError);
  });

  test('a key revoked through api.keys.revokeApiKey is invalid_api_key on the very next request', async () => {
    const { t, key } = await env.setup();
    assertSuccess(await t.request('/v1/me', { key }), 200);
    assertSuccess(await t.request('/v1/devices', { key }), 200);
    assert.equal(await t.api.keys.revokeApiKey(key.key.id), true);
    assertError(await t.request('/v1/me', { key }), 401, 'invalid_api_key');
    assertError(await t.request('/v1/devices', { key }), 401, 'invalid_api_key');
    assert.equal(await t.api.keys.revokeApiKey(key.key.id), false, 'revoking twice reports nothing to revoke');
    const [listed] = await t.api.keys.listApiKeys(key.key.user_id);
    assert.equal(listed?.revoked_at, START);
    // The user's other keys keep working.
    const sibling = await t.createKey({ userId: key.key.user_id });
    assertSuccess(await t.request('/v1/me', { key: sibling }), 200);
  });

  test('a key revoked elsewhere is refused at the latest once the key cache time (5 s) has passed', async () => {
    const { t, key } = await env.setup();
    assertSuccess(await t.request('/v1/me', { key }), 200);
    await env.api().api.keys.revokeApiKey(key.key.id);
    t.clock.advance(5_000);
    assertError(await t.request('/v1/me', { key }), 401, 'invalid_api_key');
  });

  test('a key revoked elsewhere is refused with keyCacheTtlMs: 0', async () => {
    const { t, key } = await env.setup({ keyCacheTtlMs: 0 });
    assertSuccess(await t.request('/v1/me', { key }), 200);
    await env.api().api.keys.revokeApiKey(key.key.id);
    assertError(await t.request('/v1/me', { key }), 401, 'invalid_api_key');
  });

  test('an expired key is invalid_api_key once the clock passes expires_at', async () => {
    const t = env.api();
    const key = await t.createKey({ expiresAt: new Date(Date.parse(START) + 3_600_000) });
    assertSuccess(await t.request('/v1/me', { key }), 200);
    t.clock.advance(3_599_999);
    assertSuccess(await t.request('/v1/me', { key }), 200);
    t.clock.advance(2);
    assertError(await t.request('/v1/me', { key }), 401, 'invalid_api_key');
    assertError(await t.request('/v1/devices', { key }), 401, 'invalid_api_key');
    // A key created already expired never works.
    const stale = await t.createKey({ expiresAt: '2025-12-31T23:59:59.999Z' });
    assertError(await t.request('/v1/me', { key: stale }), 401, 'invalid_api_key');
  });

  test('Authorization absent or empty: 401 missing_api_key', async () => {
    const { t } = await env.setup();
    assertError(await meWith(t, null), 401, 'missing_api_key');
    assertError(await meWith(t, ''), 401, 'missing_api_key');
    assertError(await meWith(t, '   '), 401, 'missing_api_key');
  });

  test('Authorization not of the form Bearer <token>, or an unknown token: 401 invalid_api_key', async () => {
    const { t, key } = await env.setup();
    const token = key.token;
    const secret = token.slice(TOKEN_PREFIX.length);
    const forms = [
      'Basic x',
      `Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
      'Bearer',
      'Bearer  ',
      'Bearer ',
      `Token ${token}`,
      token,
      `Bearer: ${token}`,
      `Bearer=${token}`,
      `Bearer${token}`,
      `Bearer ${token} extra`,
      `Bearer ${token},`,
      `Bearer "${token}"`,
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      `Bearer xapi_${secret}`,
      `Bearer ${TOKEN_PREFIX.toUpperCase()}${secret}`,
      `Bearer ${secret}`,
      `Bearer ${generateToken()}`,
      `Bearer ${token} ${token}`,
      `Bearer ${token}, Bearer ${token}`,
      `Bearer <${token}>`,
      `Bearer ${token.replace(/.$/, '\u00e9')}`,
      `Digest ${token}`,
      'Bearer null',
      'Bearer undefined',
    ];
    for (const form of forms) assertError(await meWith(t, form), 401, 'invalid_api_key');
  });

  test('the Bearer scheme is case-insensitive and one or more spaces may follow it', async () => {
    const { t, key } = await env.setup();
    for (const form of [
      `bearer ${key.token}`,
      `BEARER ${key.token}`,
      `BeArEr ${key.token}`,
      `Bearer  ${key.token}`,
      `Bearer ${key.token} `,
      `  Bearer ${key.token}`,
    ]) {
      const me = assertSuccess(await meWith(t, form), 200);
      assert.equal(me.key_id, key.key.id, form);
    }
  });

  test('the allow-list: IPv4 addresses and CIDR blocks', async () => {
    const t = env.api();
    const key = await t.createKey({ allowedIps: ['198.51.100.7', '203.0.113.0/24'] });
    for (const ip of [
      '198.51.100.7',
      '203.0.113.0',
      '203.0.113.255',
      '203.0.113.77',
      '::ffff:198.51.100.7',
      '::ffff:203.0.113.9',
      '::FFFF:cb00:7101',
    ]) {
      assertSuccess(await canRead(t, key, ip), 200);
    }
    for (const ip of [
      '198.51.100.8',
      '198.51.100.6',
      '203.0.112.255',
      '203.0.114.0',
      '127.0.0.1',
      '::1',
      '::ffff:198.51.100.8',
      '2001:db8::1',
      '::c633:6407',
    ]) {
      assertError(await canRead(t, key, ip), 403, 'ip_not_allowed');
    }
  });

  test('the allow-list: IPv6 addresses and CIDR blocks, in any spelling', async () => {
    const t = env.api();
    const key = await t.createKey({ allowedIps: ['2001:db8::5', '2a01:4f8::/32', '2001:DB8:AAAA:0000::/64'] });
    for (const ip of [
      '2001:db8::5',
      '2001:0db8:0:0:0:0:0:5',
      '2001:DB8::5',
      '2a01:4f8::1',
      '2a01:4f8:ffff:ffff:ffff:ffff:ffff:ffff',
      '2001:db8:aaaa::1',
      '2001:db8:aaaa:0:ffff::1',
    ]) {
      assertSuccess(await canRead(t, key, ip), 200);
    }
    for (const ip of ['2001:db8::6', '2a01:4f9::1', '2001:db8:aaaa:1::1', '198.51.100.7', '::1', '::ffff:2001:db8']) {
      assertError(await canRead(t, key, ip), 403, 'ip_not_allowed');
    }
  });

  test('the allow-list: v4 and v6 together; an unknown client address is refused', async () => {
    const t = env.api();
    const key = await t.createKey({ allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    assertSuccess(await canRead(t, key, '10.20.30.40'), 200);
    assertSuccess(await canRead(t, key, '::ffff:10.20.30.40'), 200);
    assertSuccess(await canRead(t, key, '2001:db8:1::1'), 200);
    assertError(await t.request('/v1/devices', { key, clientAddress: null }), 403, 'ip_not_allowed');
    // An empty allow-list means any address, even an unknown one.
    const open = await t.createKey();
    assertSuccess(await t.request('/v1/devices', { key: open, clientAddress: null }), 200);
    assertSuccess(await canRead(t, open, '2a00:1450::1'), 200);
    assertSuccess(await canRead(t, open, '192.0.2.1'), 200);
  });

  test('the allow-list applies to /me and to every method', async () => {
    const t = env.api();
    const key = await t.createKey({ allowedIps: ['198.51.100.7'] });
    const ip = '198.51.100.8';
    assertError(await t.request('/v1/me', { key, clientAddress: ip }), 403, 'ip_not_allowed');
    assertError(
      await t.request('/v1/devices/create', { method: 'POST', key, clientAddress: ip, body: deviceBody() }),
      403,
      'ip_not_allowed',
    );
    assertError(
      await t.request('/v1/devices/delete?id=1', { method: 'DELETE', key, clientAddress: ip }),
      403,
      'ip_not_allowed',
    );
    assertError(await t.request('/v1/nope', { key, clientAddress: ip }), 403, 'ip_not_allowed');
    assertError(await t.request('/v1/me', { method: 'POST', key, clientAddress: ip }), 403, 'ip_not_allowed');
  });

  test('forwarding headers are ignored by default', async () => {
    const t = env.api();
    const key = await t.createKey({ allowedIps: ['198.51.100.7'] });
    const forwarding: Record<string, string>[] = [
      { 'x-forwarded-for': '198.51.100.7' },
      { forwarded: 'for=198.51.100.7' },
      { 'x-real-ip': '198.51.100.7' },
    ];
    for (const headers of forwarding) {
      assertError(await canRead(t, key, '10.0.0.1', headers), 403, 'ip_not_allowed');
      assertError(await canRead(t, key, '127.0.0.1', headers), 403, 'ip_not_allowed');
    }
  });

  test('trustProxy: X-Forwarded-For is believed only from a trusted peer', async () => {
    const t = env.api({ trustProxy: ['10.0.0.1', '2001:db8:ffff::/48'] });
    const key = await t.createKey({ allowedIps: ['198.51.100.7'] });
    const xff = { 'x-forwarded-for': '198.51.100.7' };
    assertSuccess(await canRead(t, key, '10.0.0.1', xff), 200);
    assertSuccess(await canRead(t, key, '::ffff:10.0.0.1', xff), 200);
    assertSuccess(await canRead(t, key, '2001:db8:ffff::9', xff), 200);
    assertError(await canRead(t, key, '10.0.0.2', xff), 403, 'ip_not_allowed');
    assertError(await canRead(t, key, '198.51.100.8', xff), 403, 'ip_not_allowed');
    assertError(await canRead(t, key, '2001:db8:fffe::9', xff), 403, 'ip_not_allowed');
    // The trusted proxy itself is not the client when it forwards someone.
    assertError(await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '198.51.100.8' }), 403, 'ip_not_allowed');
  });

  test('trustProxy: the chain is walked from the right, stopping at the first untrusted hop', async () => {
    const t = env.api({ trustProxy: ['10.0.0.0/8'] });
    const key = await t.createKey({ allowedIps: ['198.51.100.7'] });
    // client -> 10.1.1.1 -> 10.0.0.1 (peer)
    assertSuccess(await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7, 10.1.1.1' }), 200);
    assertSuccess(await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7,10.1.1.1,10.2.2.2' }), 200);
    // A spoofed entry on the left is not the client: the first untrusted hop from the right is.
    assertSuccess(await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '1.2.3.4, 198.51.100.7' }), 200);
    assertSuccess(await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '1.2.3.4, 198.51.100.7, 10.9.9.9' }), 200);
    assertError(
      await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' }),
      403,
      'ip_not_allowed',
    );
    assertError(
      await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7, 203.0.113.9, 10.1.1.1' }),
      403,
      'ip_not_allowed',
    );
  });

  test('trustProxy: the Forwarded header (RFC 7239) is believed too', async () => {
    const t = env.api({ trustProxy: ['10.0.0.1'] });
    const v4 = await t.createKey({ allowedIps: ['198.51.100.7'] });
    const v6 = await t.createKey({ allowedIps: ['2001:db8::7'] });
    assertSuccess(await canRead(t, v4, '10.0.0.1', { forwarded: 'for=198.51.100.7' }), 200);
    assertSuccess(await canRead(t, v4, '10.0.0.1', { forwarded: 'for=198.51.100.7;proto=https;by=10.0.0.1' }), 200);
    assertSuccess(await canRead(t, v4, '10.0.0.1', { forwarded: 'for="198.51.100.7:4711"' }), 200);
    assertSuccess(await canRead(t, v4, '10.0.0.1', { forwarded: 'for=1.2.3.4, for=198.51.100.7' }), 200);
    assertSuccess(await canRead(t, v6, '10.0.0.1', { forwarded: 'for="[2001:db8::7]:4711"' }), 200);
    assertSuccess(await canRead(t, v6, '10.0.0.1', { forwarded: 'For="[2001:DB8:0::7]"' }), 200);
    assertError(
      await canRead(t, v4, '10.0.0.1', { forwarded: 'for=198.51.100.7, for=203.0.113.9' }),
      403,
      'ip_not_allowed',
    );
    assertError(await canRead(t, v4, '10.0.0.2', { forwarded: 'for=198.51.100.7' }), 403, 'ip_not_allowed');
  });

  test('trustProxy: a trusted peer without forwarding headers is itself the client', async () => {
    const t = env.api({ trustProxy: ['10.0.0.1'] });
    const key = await t.createKey({ allowedIps: ['10.0.0.1'] });
    assertSuccess(await canRead(t, key, '10.0.0.1'), 200);
    assertError(await canRead(t, key, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7' }), 403, 'ip_not_allowed');
  });
});
