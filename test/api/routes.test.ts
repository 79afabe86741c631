/** docs/contract.md §1 (mounting and paths) and §2 step 4 (routes, 404 and 405). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlacklistMonitor, Device, Me } from '../../core/index.ts';
import { assertError, assertSuccess, eachStore, VALIDATION_ONLY } from './helpers.ts';

const ROUTES: readonly { path: string; method: string; allow: string }[] = [
  { path: '/me', method: 'GET', allow: 'GET' },
  { path: '/devices', method: 'GET', allow: 'GET' },
  { path: '/devices/create', method: 'POST', allow: 'POST' },
  { path: '/devices/delete', method: 'DELETE', allow: 'DELETE' },
  { path: '/devices/results', method: 'GET', allow: 'GET' },
  { path: '/blacklist-monitors', method: 'GET', allow: 'GET' },
  { path: '/blacklist-monitors/create', method: 'POST', allow: 'POST' },
  { path: '/blacklist-monitors/delete', method: 'DELETE', allow: 'DELETE' },
  { path: '/blacklist-monitors/results', method: 'GET', allow: 'GET' },
];

/** The Allow header as a set of methods (RFC 9110: a comma-separated list). */
function allowOf(header: string | null): string[] {
  assert.ok(header !== null, 'a 405 carries Allow');
  return header
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '')
    .sort();
}

// Validation, formats and routing: decided before any record is stored (see VALIDATION_ONLY).
eachStore(
  'routes',
  (env) => {
    test('every route of docs/contract.md §1 answers its own method', async () => {
      const { t, key } = await env.setup();
      assertSuccess(await t.request('/v1/me', { key }), 200);
      assertSuccess(await t.request('/v1/devices', { key }), 200);
      assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200);
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com' },
        }),
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
      assertSuccess(await t.request(`/v1/devices/delete?id=${device.id}`, { method: 'DELETE', key }), 200);
      assertSuccess(await t.request(`/v1/blacklist-monitors/delete?id=${monitor.id}`, { method: 'DELETE', key }), 200);
    });

    test('unknown paths under a resource are unknown_<resource>_route', async () => {
      const { t, key } = await env.setup();
      const cases: [string, string, string][] = [
        ['GET', '/v1/devices/foo', 'unknown_devices_route'],
        ['GET', '/v1/devices/create/x', 'unknown_devices_route'],
        ['DELETE', '/v1/devices/delete/1', 'unknown_devices_route'],
        ['GET', '/v1/devices/1', 'unknown_devices_route'],
        ['POST', '/v1/devices/Create', 'unknown_devices_route'],
        ['GET', '/v1/blacklist-monitors/foo', 'unknown_blacklist_monitors_route'],
        ['POST', '/v1/blacklist-monitors/create/x', 'unknown_blacklist_monitors_route'],
        ['GET', '/v1/me/foo', 'unknown_me_route'],
        ['GET', '/v1/me/keys', 'unknown_me_route'],
      ];
      for (const [method, path, code] of cases) {
        assertError(await t.request(path, { method, key }), 404, code);
      }
    });

    test('a first segment that is not [a-z][a-z0-9-]{0,31} or names no resource is unknown_route', async () => {
      const { t, key } = await env.setup();
      const paths = [
        '/v1/Devices',
        '/v1/DEVICES',
        '/v1/ME',
        '/v1/Me',
        '/v1/foo',
        '/v1/foo/bar',
        '/v1/users',
        '/v1/keys',
        '/v1/devices-x',
        '/v1/device',
        '/v1/blacklist_monitors',
        '/v1/blacklist-monitor',
        '/v1/1devices',
        '/v1/-devices',
        `/v1/${'a'.repeat(33)}`,
        `/v1/${'a'.repeat(32)}`,
        '/v1//devices',
        '/v1/me.json',
        '/v1/devices.json',
      ];
      for (const path of paths) {
        assertError(await t.request(path, { key }), 404, 'unknown_route');
      }
    });

    test('the base path itself (with or without its slash) is unknown_route, after authentication', async () => {
      const { t, key } = await env.setup();
      assertError(await t.request('/v1', { key }), 404, 'unknown_route');
      assertError(await t.request('/v1/', { key }), 404, 'unknown_route');
      // Inside the base path authentication comes first (docs/contract.md §2 step 1 before step 4).
      assertError(await t.request('/v1'), 401, 'missing_api_key');
      assertError(await t.request('/v1/'), 401, 'missing_api_key');
    });

    test('paths are case-sensitive', async () => {
      const { t, key } = await env.setup();
      assertError(await t.request('/v1/Me', { key }), 404, 'unknown_route');
      assertError(await t.request('/V1/me', { key }), 404, 'unknown_route');
    });

    test('one trailing slash is ignored', async () => {
      const { t, key } = await env.setup();
      assertSuccess(await t.request('/v1/me/', { key }), 200);
      assertSuccess(await t.request('/v1/devices/', { key }), 200);
      assertSuccess(await t.request('/v1/blacklist-monitors/', { key }), 200);
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create/', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com' },
        }),
        201,
      );
      assertSuccess(await t.request(`/v1/devices/delete/?id=${device.id}`, { method: 'DELETE', key }), 200);
      const monitor = assertSuccess(
        await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create/', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com' },
        }),
        201,
      );
      assertSuccess(await t.request(`/v1/blacklist-monitors/delete/?id=${monitor.id}`, { method: 'DELETE', key }), 200);
      // A trailing slash keeps 405 a 405.
      const res = await t.request('/v1/me/', { method: 'POST', key });
      assertError(res, 405, 'method_not_allowed');
      assert.deepEqual(allowOf(res.headers.get('allow')), ['GET']);
    });

    test('two trailing slashes are not ignored', async () => {
      const { t, key } = await env.setup();
      assertError(await t.request('/v1/me//', { key }), 404, 'unknown_me_route');
      assertError(await t.request('/v1/devices//', { key }), 404, 'unknown_devices_route');
      assertError(await t.request('/v1/blacklist-monitors//', { key }), 404, 'unknown_blacklist_monitors_route');
      assertError(
        await t.request('/v1/devices/create//', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com' },
        }),
        404,
        'unknown_devices_route',
      );
    });

    test('a known path with another method is 405 method_not_allowed with the exact Allow header', async () => {
      const { t, key } = await env.setup();
      for (const route of ROUTES) {
        for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH']) {
          if (method === route.method) continue;
          const res = await t.request(`/v1${route.path}`, { method, key });
          assertError(res, 405, 'method_not_allowed');
          assert.deepEqual(allowOf(res.headers.get('allow')), [route.allow], `${method} ${route.path}`);
        }
      }
    });

    test('a request outside the base path is 404 unknown_route, with or without a key', async () => {
      const { t, key } = await env.setup();
      const paths = [
        '/',
        '/v2/devices',
        '/v10/me',
        '/v1devices',
        '/v1me',
        '/api/v1/me',
        '/devices',
        '/me',
        '/favicon.ico',
      ];
      for (const path of paths) {
        assertError(await t.request(path, { key }), 404, 'unknown_route');
        assertError(await t.request(path), 404, 'unknown_route');
        assertError(await t.request(path, { method: 'POST', key: 'mapi_nonsense' }), 404, 'unknown_route');
      }
      assert.equal(t.api.owns('/v1'), true);
      assert.equal(t.api.owns('/v1/devices'), true);
      assert.equal(t.api.owns('/v10/devices'), false);
      assert.equal(t.api.owns('/v1devices'), false);
    });

    test('a custom basePath /api/monitoring/v1 mounts every route there and nothing at /v1', async () => {
      const t = env.api({ basePath: '/api/monitoring/v1' });
      const key = await t.createKey();
      const base = '/api/monitoring/v1';
      const me = assertSuccess(await t.request<Me>(`${base}/me`, { key }), 200);
      assert.equal(me.key_id, key.key.id);
      assertSuccess(await t.request(`${base}/devices`, { key }), 200);
      assertSuccess(await t.request(`${base}/blacklist-monitors/`, { key }), 200);
      const device = assertSuccess(
        await t.request<Device>(`${base}/devices/create`, {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com' },
        }),
        201,
      );
      assertSuccess(await t.request(`${base}/devices/delete?id=${device.id}`, { method: 'DELETE', key }), 200);
      assertError(await t.request(`${base}/devices/foo`, { key }), 404, 'unknown_devices_route');
      assertError(await t.request(`${base}/foo`, { key }), 404, 'unknown_route');
      assertError(await t.request(base, { key }), 404, 'unknown_route');
      assertError(await t.request(`${base}/me`), 401, 'missing_api_key');
      const res = await t.request(`${base}/devices`, { method: 'POST', key });
      assertError(res, 405, 'method_not_allowed');
      assert.deepEqual(allowOf(res.headers.get('allow')), ['GET']);
      for (const path of [
        '/v1/me',
        '/v1/devices',
        '/api/monitoring/me',
        '/api/monitoring/v10/me',
        '/api/monitoring/v1me',
        '/',
      ]) {
        assertError(await t.request(path, { key }), 404, 'unknown_route');
        assertError(await t.request(path), 404, 'unknown_route');
      }
      assert.equal(t.api.basePath, base);
      // Paging links must point inside the custom base path.
      await t.request(`${base}/devices/create`, {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'a.example.com' },
      });
      await t.request(`${base}/devices/create`, {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'b.example.com' },
      });
      const page = await t.request(`${base}/devices?limit=1`, { key });
      assertSuccess(page, 200);
      const link = page.headers.get('link');
      assert.ok(link !== null, 'a Link header when more follow');
      const target = /^<([^>]+)>;\s*rel="next"$/.exec(link);
      assert.ok(target, `Link syntax: ${link}`);
      const next = new URL(target[1]!, `http://monitoring.test${base}/devices?limit=1`);
      assert.equal(next.pathname, `${base}/devices`);
    });

    test('a base path given with a trailing slash is the same mount', async () => {
      const t = env.api({ basePath: '/api/monitoring/v1/' });
      const key = await t.createKey();
      assertSuccess(await t.request('/api/monitoring/v1/me', { key }), 200);
    });
  },
  VALIDATION_ONLY,
);
