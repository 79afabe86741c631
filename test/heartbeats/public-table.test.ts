/**
 * docs/contract.md §1, "Public routes": the pings and the status pages share one table outside
 * the base path. Each keeps its own answers (the pings' text, the pages' JSON errors), `owns`
 * covers both, and the request log shows the route's pattern, never a ping's token.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Heartbeat, RequestLogEntry } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { assertError } from '../api/helpers.ts';
import { newDevice, newPage } from '../status-pages/support.ts';

test('pings and status pages answer from one table, each by its own rules, logged by pattern', async () => {
  const logged: RequestLogEntry[] = [];
  const t = createTestApi({ logger: { request: (entry) => logged.push(entry) } });
  const key = await t.createKey();
  const hb = (await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body: { period_s: 60 } })).body
    .data!;
  const path = new URL(hb.ping_url!).pathname;
  const token = path.split('/')[2]!;
  const page = await newPage(t, key, { components: [{ name: 'D', device_id: await newDevice(t, key) }] });

  for (const owned of [path, '/ping', `/status/${page.slug}`, `/status/${page.slug}/summary.json`]) {
    assert.equal(t.api.owns(owned), true, owned);
  }
  for (const other of ['/pings', '/statuses/x', '/summary.json']) assert.equal(t.api.owns(other), false, other);

  logged.length = 0;
  assert.deepEqual([(await t.ping(path)).status, (await t.ping(`${path}/start`)).text], [200, 'OK']);
  const refused = await t.ping(`${path}/start/now`);
  assert.deepEqual([refused.status, refused.text], [404, 'not found']);
  const put = await t.ping(path, { method: 'PUT' });
  assert.deepEqual([put.status, put.text, put.headers.get('allow')], [405, 'method not allowed', 'GET, HEAD, POST']);
  assert.equal((await t.request(`/status/${page.slug}`)).status, 200);
  assertError(await t.request(`/status/${page.slug}`, { method: 'POST', body: {} }), 405, 'method_not_allowed');
  assertError(await t.request('/status/no-such-page'), 404, 'status_page_not_found');

  assert.deepEqual(
    logged.map((entry) => [entry.method, entry.path, entry.status]),
    [
      ['GET', '/ping/:token/:signal?', 200],
      ['GET', '/ping/:token/:signal?', 200],
      ['GET', '/ping', 404],
      ['PUT', '/ping/:token/:signal?', 405],
      ['GET', '/status/:slug', 200],
      ['POST', '/status/:slug', 405],
      ['GET', '/status/:slug', 404],
    ],
  );
  assert.equal(
    logged.some((entry) => entry.path.includes(token)),
    false,
    'no logged path holds the token',
  );
  await t.close();
});
