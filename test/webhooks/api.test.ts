/**
 * The webhooks resource through the testing kit (`api.fetch`), on every store: the conventions
 * devices and monitors follow (docs/contract.md §6 and §6.4) plus the secret.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EVENT_TYPES, type CreatedWebhook, type Webhook } from '../../core/index.ts';
import type { TestResponse } from '../../core/testing/index.ts';
import { assertSuccess, eachStore } from '../api/helpers.ts';

const CREATE = '/v1/webhooks/create';
const WEBHOOK_FIELDS = [
  'id',
  'url',
  'events',
  'is_enabled',
  'created_at',
  'last_delivery_at',
  'last_delivery_status',
  'last_delivery_error',
  'failing_since',
];

function errorOf(res: TestResponse, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error?.code, code, res.text);
  return res.body.error!;
}

function details(res: TestResponse): [string, string][] {
  return (errorOf(res, 400, 'validation_failed').details ?? []).map((d) => [d.field, d.code]);
}

eachStore('webhooks API', (env) => {
  it('creates with defaults; the create answer alone carries the secret', async () => {
    const { t, key } = await env.setup();
    const created = assertSuccess(
      await t.request<CreatedWebhook>(CREATE, {
        method: 'POST',
        key,
        body: { url: 'https://Hooks.Example.com:443/in?x=1' },
      }),
      201,
    );
    assert.deepEqual(Object.keys(created).sort(), [...WEBHOOK_FIELDS, 'secret'].sort());
    assert.equal(created.url, 'https://hooks.example.com/in?x=1');
    assert.deepEqual(created.events, [...EVENT_TYPES]);
    assert.equal(created.is_enabled, true);
    assert.equal(created.created_at, '2026-01-01T00:00:00.000Z');
    assert.deepEqual([created.last_delivery_at, created.last_delivery_status], [null, null]);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(created.secret.slice(6), 'base64').length, 32);
    const listed = assertSuccess(await t.request<Webhook[]>('/v1/webhooks', { key }), 200);
    assert.deepEqual(
      listed,
      [{ ...created, secret: undefined }].map(({ secret: _s, ...w }) => w),
    );
    assert.ok(!(await t.request('/v1/webhooks', { key })).text.includes('whsec_'), 'lists never show a secret');
    const second = assertSuccess(
      await t.request<CreatedWebhook>(CREATE, { method: 'POST', key, body: { url: 'http://other.example.com/' } }),
      201,
    );
    assert.notEqual(second.secret, created.secret);
  });

  it('takes events as a subset, kept in one order, and is_enabled as a flag', async () => {
    const { t, key } = await env.setup();
    const created = assertSuccess(
      await t.request<CreatedWebhook>(CREATE, {
        method: 'POST',
        key,
        body: { url: 'https://hooks.example.com/', events: ['blacklist.listed', 'device.down'], is_enabled: 0 },
      }),
      201,
    );
    assert.deepEqual([created.events, created.is_enabled], [['device.down', 'blacklist.listed'], false]);
  });

  it('refuses invalid fields, listing every problem', async () => {
    const { t, key } = await env.setup();
    const post = (body: unknown) => t.request(CREATE, { method: 'POST', key, body });
    assert.deepEqual(details(await post({})), [['url', 'missing']]);
    assert.deepEqual(
      details(await post({ url: 'ftp://hooks.example.com/', events: [], is_enabled: 2, extra: 1 })).sort(),
      [
        ['events', 'invalid_value'],
        ['extra', 'unknown_field'],
        ['is_enabled', 'invalid_value'],
        ['url', 'invalid_value'],
      ],
    );
    for (const url of [
      'not a url',
      'https://user:pw@hooks.example.com/',
      'https://hooks.example.com/#frag',
      'https://intranet/',
    ]) {
      assert.deepEqual(details(await post({ url })), [['url', 'invalid_value']], url);
    }
    assert.deepEqual(details(await post({ url: `https://hooks.example.com/${'a'.repeat(2030)}` })), [
      ['url', 'too_long'],
    ]);
    assert.deepEqual(details(await post({ url: 42 })), [['url', 'invalid_type']]);
    assert.deepEqual(details(await post({ url: 'https://hooks.example.com/', events: 'device.down' })), [
      ['events', 'invalid_type'],
    ]);
    assert.deepEqual(
      details(await post({ url: 'https://hooks.example.com/', events: ['device.down', 'device.down'] })),
      [['events', 'invalid_value']],
    );
    assert.deepEqual(details(await post({ url: 'https://hooks.example.com/', events: ['device.exploded'] })), [
      ['events', 'invalid_value'],
    ]);
  });

  it('refuses hosts outside the target policy (forbidden_target) unless private targets are allowed', async () => {
    const { t, key } = await env.setup();
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://0x7f.1/',
      'http://[::1]/',
      'https://localhost/',
      'https://db.internal/',
      'http://10.1.2.3/',
      'http://[::ffff:192.168.0.1]/',
    ]) {
      assert.deepEqual(
        details(await t.request(CREATE, { method: 'POST', key, body: { url } })),
        [['url', 'forbidden_target']],
        url,
      );
    }
    const open = env.api({ allowPrivateTargets: true });
    const openKey = await open.createKey();
    const created = assertSuccess(
      await open.request<Webhook>(CREATE, {
        method: 'POST',
        key: openKey,
        body: { url: 'http://127.0.0.1:8080/hook' },
      }),
      201,
    );
    assert.equal(created.url, 'http://127.0.0.1:8080/hook');
  });

  it('409 duplicate_webhook with existing_id for the same user and url, in its stored form', async () => {
    const { t, key } = await env.setup();
    const created = assertSuccess(
      await t.request<Webhook>(CREATE, { method: 'POST', key, body: { url: 'https://hooks.example.com/a' } }),
      201,
    );
    const again = await t.request(CREATE, {
      method: 'POST',
      key,
      body: { url: 'HTTPS://HOOKS.example.com:443/a', events: ['device.up'] },
    });
    assert.deepEqual(errorOf(again, 409, 'duplicate_webhook').existing_id, created.id);
    const other = await t.createKey();
    assertSuccess(
      await t.request(CREATE, { method: 'POST', key: other, body: { url: 'https://hooks.example.com/a' } }),
      201,
    );
  });

  it("deletes only the owner's webhook; 404 webhook_not_found otherwise; invalid_id", async () => {
    const { t, key } = await env.setup();
    const created = assertSuccess(
      await t.request<Webhook>(CREATE, { method: 'POST', key, body: { url: 'https://hooks.example.com/d' } }),
      201,
    );
    const other = await t.createKey();
    errorOf(
      await t.request(`/v1/webhooks/delete?id=${created.id}`, { method: 'DELETE', key: other }),
      404,
      'webhook_not_found',
    );
    assert.deepEqual(
      assertSuccess(await t.request(`/v1/webhooks/delete?id=${created.id}`, { method: 'DELETE', key }), 200),
      { id: created.id, deleted: true },
    );
    errorOf(
      await t.request(`/v1/webhooks/delete?id=${created.id}`, { method: 'DELETE', key }),
      404,
      'webhook_not_found',
    );
    errorOf(await t.request('/v1/webhooks/delete?id=abc', { method: 'DELETE', key }), 400, 'invalid_id');
  });

  it("lists only the caller's webhooks, paginated with Link", async () => {
    const { t, key } = await env.setup();
    const other = await t.createKey();
    await t.request(CREATE, { method: 'POST', key: other, body: { url: 'https://theirs.example.com/' } });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        assertSuccess(
          await t.request<Webhook>(CREATE, { method: 'POST', key, body: { url: `https://h${i}.example.com/` } }),
          201,
        ).id,
      );
    const page = await t.request<Webhook[]>('/v1/webhooks?limit=2', { key });
    assert.deepEqual(
      assertSuccess(page, 200).map((w) => w.id),
      ids.slice(0, 2),
    );
    assert.equal(page.headers.get('link'), `</v1/webhooks?limit=2&after_id=${ids[1]}>; rel="next"`);
    const last = await t.request<Webhook[]>(`/v1/webhooks?limit=2&after_id=${ids[1]}`, { key });
    assert.deepEqual([assertSuccess(last, 200).map((w) => w.id), last.headers.get('link')], [[ids[2]], null]);
    assert.deepEqual(details(await t.request('/v1/webhooks?limit=0&cursor=1', { key })).sort(), [
      ['cursor', 'unknown_field'],
      ['limit', 'out_of_range'],
    ]);
  });

  it('GET /webhooks/deliveries: [] before any attempt, to the owner only (read scope); invalid ids and parameters refused', async () => {
    const { t, key } = await env.setup();
    const created = assertSuccess(
      await t.request<Webhook>(CREATE, { method: 'POST', key, body: { url: 'https://hooks.example.com/l' } }),
      201,
    );
    assert.deepEqual([created.last_delivery_error, created.failing_since], [null, null]);
    const reader = await t.createKey({ scopes: ['read'], userId: key.key.user_id });
    const answer = await t.request(`/v1/webhooks/deliveries?id=${created.id}`, { key: reader });
    assert.deepEqual(assertSuccess(answer, 200), []);
    assert.equal(answer.headers.get('link'), null);
    errorOf(
      await t.request(`/v1/webhooks/deliveries?id=${created.id}`, { key: await t.createKey() }),
      404,
      'webhook_not_found',
    );
    errorOf(await t.request('/v1/webhooks/deliveries?id=0', { key }), 400, 'invalid_id');
    assert.deepEqual(
      details(await t.request(`/v1/webhooks/deliveries?id=${created.id}&limit=1001&after_id=1`, { key })).sort(),
      [
        ['after_id', 'unknown_field'],
        ['limit', 'out_of_range'],
      ],
    );
  });

  it('scopes, methods and unknown routes', async () => {
    const { t } = await env.setup();
    const reader = await t.createKey({ scopes: ['read'] });
    assertSuccess(await t.request('/v1/webhooks', { key: reader }), 200);
    errorOf(
      await t.request(CREATE, { method: 'POST', key: reader, body: { url: 'https://hooks.example.com/' } }),
      403,
      'insufficient_scope',
    );
    errorOf(await t.request('/v1/webhooks/delete?id=1', { method: 'DELETE', key: reader }), 403, 'insufficient_scope');
    const writer = await t.createKey({ scopes: ['write'] });
    errorOf(await t.request('/v1/webhooks', { key: writer }), 403, 'insufficient_scope');
    const wrong = await t.request(CREATE, { key: writer });
    errorOf(wrong, 405, 'method_not_allowed');
    assert.equal(wrong.headers.get('allow'), 'POST');
    const update = await t.request('/v1/webhooks/update', { key: writer });
    errorOf(update, 405, 'method_not_allowed');
    assert.equal(update.headers.get('allow'), 'PATCH');
    errorOf(await t.request('/v1/webhooks/rename', { key: writer }), 404, 'unknown_webhooks_route');
  });
});
