/**
 * docs/status-pages.md, "Public routes", "The page" and "Caching and conditional requests": the answers without a key,
 * their headers, ETags and compression, the one 404 for every page nobody may see, a page served
 * at its own hostname, and every bad request answered with the contract's errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createTestApi } from '../api/helpers.ts';
import { assertError } from '../api/helpers.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { newDevice, newMonitor, newPage, publicGet } from './support.ts';

async function setup() {
  const t = createTestApi();
  const key = await t.createKey();
  const device = await newDevice(t, key);
  const monitor = await newMonitor(t, key);
  const components = [
    { name: 'Website', device_id: device },
    { name: 'Mail', blacklist_monitor_id: monitor },
  ];
  return { t, key, device, components };
}

/** Calls `api.fetch` with a hand-made Request: any URL, so any host. */
async function fetchRaw(t: TestApi, url: string, init: RequestInit = {}) {
  const res = await t.api.fetch(new Request(url, init), { clientAddress: '127.0.0.1' });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

test('the page, its summary, feed and badge: no key, their types, cache and safety headers', async () => {
  const { t, key, components } = await setup();
  const page = await newPage(t, key, { components });
  const forms: [string, string][] = [
    ['', 'text/html; charset=utf-8'],
    ['/summary.json', 'application/json; charset=utf-8'],
    ['/feed.atom', 'application/atom+xml; charset=utf-8'],
    ['/badge.svg', 'image/svg+xml; charset=utf-8'],
  ];
  for (const [suffix, type] of forms) {
    const res = await publicGet(t, `/status/${page.slug}${suffix}`);
    assert.equal(res.status, 200, `${suffix}: ${res.text.slice(0, 200)}`);
    assert.equal(res.headers.get('content-type'), type);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=30');
    assert.match(res.headers.get('etag') ?? '', /^W\/"[0-9a-f]{32}"$/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(res.headers.get('x-request-id'));
    assert.equal(res.headers.get('set-cookie'), null);
    assert.equal(res.headers.get('ratelimit'), null, 'no key, no quota');
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  }
  const html = await publicGet(t, `/status/${page.slug}`);
  const policy = html.headers.get('content-security-policy')!;
  assert.match(policy, /script-src 'none'/);
  assert.match(policy, /style-src 'sha256-[A-Za-z0-9+/]+=*'/);
  assert.equal(html.headers.get('vary'), 'Accept-Encoding');
  assert.equal(html.headers.get('access-control-allow-origin'), null);
  assert.equal(
    (await publicGet(t, `/status/${page.slug}/summary.json`)).headers.get('access-control-allow-origin'),
    '*',
  );
  // One trailing slash is ignored, as on the API's routes.
  assert.equal((await publicGet(t, `/status/${page.slug}/`)).text, html.text);
  assert.equal(t.api.owns(`/status/${page.slug}`), true);
  assert.equal(t.api.owns('/summary.json'), false, 'only a page’s own hostname serves it there');
  await t.close();
});

test('If-None-Match with the ETag is 304 until what the page shows changes', async () => {
  const { t, key, components } = await setup();
  const page = await newPage(t, key, { components });
  const first = await publicGet(t, `/status/${page.slug}`);
  const etag = first.headers.get('etag')!;
  const again = await publicGet(t, `/status/${page.slug}`, { 'if-none-match': `"other", ${etag}` });
  assert.equal(again.status, 304);
  assert.equal(again.text, '');
  assert.equal(again.headers.get('etag'), etag);
  assert.equal(again.headers.get('cache-control'), 'public, max-age=30');
  assert.equal(again.headers.get('vary'), 'Accept-Encoding');
  // A 304 carries what guides a cache's update, not what describes the body it has none of
  // (RFC 9110 §15.4.5): the browser keeps the 200's CSP and the rest.
  for (const field of ['content-security-policy', 'x-content-type-options', 'referrer-policy', 'content-type'])
    assert.equal(again.headers.get(field), null, field);
  // A script of another site that asks with the ETag itself still reads the answer.
  const summary = await publicGet(t, `/status/${page.slug}/summary.json`);
  const summaryAgain = await publicGet(t, `/status/${page.slug}/summary.json`, {
    'if-none-match': summary.headers.get('etag')!,
  });
  assert.equal(summaryAgain.status, 304);
  assert.equal(summaryAgain.headers.get('access-control-allow-origin'), '*');
  // Compressed, the same content has the same (weak) ETag.
  const gzip = await publicGet(t, `/status/${page.slug}`, { 'accept-encoding': 'gzip', 'if-none-match': etag });
  assert.equal(gzip.status, 304);
  await t.request(`/v1/status-pages/update?id=${page.id}`, { method: 'PATCH', key, body: { title: 'Acme 2' } });
  const changed = await publicGet(t, `/status/${page.slug}`, { 'if-none-match': etag });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
  // A day turning over changes what the bars show.
  const today = changed.headers.get('etag')!;
  t.clock.advance(86_400_000);
  assert.notEqual((await publicGet(t, `/status/${page.slug}`)).headers.get('etag'), today);
  await t.close();
});

test('compressed with Brotli or gzip when the client accepts it, the same text once decoded', async () => {
  const { t, key, components } = await setup();
  const page = await newPage(t, key, { components });
  const url = `http://monitoring.test/status/${page.slug}`;
  const plain = await fetchRaw(t, url);
  assert.equal(plain.headers.get('content-encoding'), null);
  const br = await fetchRaw(t, url, { headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
  assert.equal(br.headers.get('content-encoding'), 'br');
  assert.deepEqual(new Uint8Array(brotliDecompressSync(br.bytes)), plain.bytes);
  const gzip = await fetchRaw(t, url, { headers: { 'accept-encoding': 'gzip;q=1, br;q=0' } });
  assert.equal(gzip.headers.get('content-encoding'), 'gzip');
  assert.deepEqual(new Uint8Array(gunzipSync(gzip.bytes)), plain.bytes);
  assert.ok(gzip.bytes.byteLength < plain.bytes.byteLength / 3);
  const none = await fetchRaw(t, url, { headers: { 'accept-encoding': 'identity, *;q=0' } });
  assert.equal(none.headers.get('content-encoding'), null);
  await t.close();
});

test('an unknown slug, a page not public and a deleted page are one and the same 404', async () => {
  const { t, key, components } = await setup();
  const hidden = await newPage(t, key, { components, is_public: false });
  const deleted = await newPage(t, key, { components });
  await t.request(`/v1/status-pages/delete?id=${deleted.id}`, { method: 'DELETE', key });
  const answers = [];
  for (const slug of ['no-such-page', hidden.slug, deleted.slug, 'NOT_A_SLUG', 'x']) {
    for (const suffix of ['', '/summary.json', '/feed.atom', '/badge.svg']) {
      const res = await t.request(`/status/${slug}${suffix}`);
      assertError(res, 404, 'status_page_not_found');
      answers.push(res.text);
    }
  }
  assert.equal(new Set(answers).size, 1, 'every one answered alike');
  await t.close();
});

test('a page at its own hostname: /, /summary.json, /feed.atom, /badge.svg; any other host is not a page', async () => {
  const { t, key, components } = await setup();
  const page = await newPage(t, key, { components, hostname: 'status.acme.example.org' });
  for (const path of ['/', '/summary.json', '/feed.atom', '/badge.svg']) {
    const byHost = await fetchRaw(t, `http://Status.Acme.Example.ORG.:8080${path}`);
    assert.equal(byHost.status, 200, path);
    const bySlug = await fetchRaw(t, `http://monitoring.test/status/${page.slug}${path === '/' ? '' : path}`);
    const text = new TextDecoder().decode(byHost.bytes);
    if (path === '/summary.json')
      assert.deepEqual(JSON.parse(text), JSON.parse(new TextDecoder().decode(bySlug.bytes)));
    if (path === '/') assert.match(text, /href="\/feed\.atom"/);
  }
  // The node adapter hands the core an origin-form URL: the Host field names the page.
  const viaHeader = await t.api.handle(
    { method: 'GET', url: '/', headers: new Headers({ host: 'status.acme.example.org' }), body: null },
    { clientAddress: '127.0.0.1' },
  );
  assert.equal(viaHeader.status, 200);
  for (const url of ['http://other.example.org/', 'http://monitoring.test/summary.json']) {
    const res = await fetchRaw(t, url);
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(new TextDecoder().decode(res.bytes)).error.code, 'unknown_route');
  }
  // Not public: its hostname is no page's either.
  await t.request(`/v1/status-pages/update?id=${page.id}`, { method: 'PATCH', key, body: { is_public: false } });
  assert.equal((await fetchRaw(t, 'http://status.acme.example.org/')).status, 404);
  // Another method at a hostname's path is the API's to answer.
  assert.equal((await fetchRaw(t, 'http://status.acme.example.org/', { method: 'POST' })).status, 404);
  await t.close();
});

test('bad requests: the contract’s errors', async () => {
  const { t, key, components } = await setup();
  const page = await newPage(t, key, { components, history_days: 30 });
  const base = `/status/${page.slug}`;
  const post = await t.request(base, { method: 'POST', body: {} });
  assertError(post, 405, 'method_not_allowed');
  assert.equal(post.headers.get('allow'), 'GET');
  assertError(await t.request(`${base}/summary.json`, { method: 'DELETE' }), 405, 'method_not_allowed');
  const stray = await t.request(`${base}?utm_source=x`);
  assert.deepEqual(
    assertError(stray, 400, 'validation_failed').details?.map((d) => [d.field, d.code]),
    [['utm_source', 'unknown_field']],
  );
  const badges: [string, [string, string][]][] = [
    ['component=2', [['component', 'out_of_range']]],
    ['component=-1', [['component', 'invalid_value']]],
    ['uptime=31d', [['uptime', 'out_of_range']]],
    ['uptime=0d', [['uptime', 'out_of_range']]],
    ['uptime=30', [['uptime', 'invalid_value']]],
    ['uptime=7d&uptime=7d', [['uptime', 'invalid_value']]],
    ['size=big', [['size', 'unknown_field']]],
  ];
  for (const [query, expected] of badges) {
    const res = await t.request(`${base}/badge.svg?${query}`);
    assert.deepEqual(
      assertError(res, 400, 'validation_failed').details?.map((d) => [d.field, d.code]),
      expected,
      query,
    );
  }
  assert.equal((await publicGet(t, `${base}/badge.svg?component=1&uptime=30d`)).status, 200);
  for (const path of [`${base}/nope`, `${base}/summary.json/x`, '/status', '/status/', `/status/a%2Fb`]) {
    assertError(await t.request(path), 404, 'unknown_route');
  }
  await t.close();
});
