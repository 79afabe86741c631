/**
 * The channel routes' answers for responses.test.ts: every route of /channels, its success and
 * each error it documents, through the `call` of that file (which checks each answer against the
 * document and counts it toward the coverage).
 */
import assert from 'node:assert/strict';
import type { Channel, ChannelSender } from '../../core/index.ts';
import type { TestApi, TestApiOptions, TestRequestInit, TestResponse } from '../../core/testing/index.ts';

type Call = <T = unknown>(
  t: TestApi,
  path: string,
  init?: TestRequestInit,
  status?: number,
) => Promise<TestResponse<T>>;

const SLACK = {
  name: 'ops',
  type: 'slack',
  config: { webhook_url: 'https://hooks.slack.com/services/T0/B0/abcd1234' },
};
const TELEGRAM = {
  name: 'on call',
  type: 'telegram',
  config: { bot_token: '123456789:AAEhBOweik6ad9r_abcdefghijkl', chat_id: 42 },
  remind_every_s: 3600,
};

export async function channelResponses(call: Call, open: (options?: TestApiOptions) => TestApi): Promise<void> {
  const sender: ChannelSender = {
    email: false,
    test: async (channel) => ({
      delivered: channel.type === 'slack',
      http_status: channel.type === 'slack' ? 200 : null,
      error: channel.type === 'slack' ? null : 'ECONNREFUSED',
      duration_ms: 3,
      attempted_at: '2026-01-01T00:00:02.000Z',
    }),
  };
  const t = open({ bodyLimit: 1024, channelSender: sender });
  const key = await t.createKey();
  const base = '/v1/channels';
  const a = (await call<Channel>(t, `${base}/create`, { method: 'POST', key, body: SLACK }, 201)).body.data!;
  const b = (await call<Channel>(t, `${base}/create`, { method: 'POST', key, body: TELEGRAM }, 201)).body.data!;
  const pagerduty = { name: 'pd', type: 'pagerduty', config: { routing_key: 'A'.repeat(32) } };
  const ntfy = { name: 'n', type: 'ntfy', config: { server_url: 'https://ntfy.sh', topic: 't', token: 'tk_x1234' } };
  const discord = { name: 'd', type: 'discord', config: { webhook_url: 'https://discord.com/api/webhooks/1/x' } };
  const teams = { name: 'tm', type: 'teams', config: { webhook_url: 'https://example.logic.azure.com/w?sig=s' } };
  for (const body of [pagerduty, ntfy, discord, teams])
    await call(t, `${base}/create`, { method: 'POST', key, body }, 201);
  // 400: bad fields, a bad config, the body's form, email on a server without mail.
  const invalid = await call(
    t,
    `${base}/create`,
    { method: 'POST', key, body: { name: '', type: 'slack', config: { webhook_url: 'x' }, extra: 1 } },
    400,
  );
  assert.ok((invalid.body.error?.details?.length ?? 0) >= 3);
  await call(
    t,
    `${base}/create`,
    { method: 'POST', key, body: { name: 'm', type: 'email', config: { to: ['a@example.com'] } } },
    400,
  );
  await call(
    t,
    `${base}/create`,
    { method: 'POST', key, body: '{', headers: { 'content-type': 'application/json' } },
    400,
  );
  await call(t, `${base}/create`, { method: 'POST', key, body: 'x', headers: { 'content-type': 'text/plain' } }, 400);
  await call(t, `${base}/create`, { method: 'POST', key, body: { ...SLACK, name: 'x'.repeat(2000) } }, 413);
  // Lists, one, changes.
  await call(t, base, { key }, 200);
  const page = await call(t, `${base}?limit=1`, { key }, 200);
  assert.match(page.headers.get('link') ?? '', /rel="next"/);
  await call(t, `${base}?limit=0`, { key }, 400);
  await call(t, `${base}/get?id=${a.id}`, { key }, 200);
  await call(t, `${base}/get?id=abc`, { key }, 400);
  await call(t, `${base}/get?id=999999`, { key }, 404);
  await call(
    t,
    `${base}/update?id=${b.id}`,
    { method: 'PATCH', key, body: { config: { chat_id: '@opsroom' }, is_default: 0 } },
    200,
  );
  await call(t, `${base}/update?id=${b.id}`, { method: 'PATCH', key, body: {} }, 200);
  await call(t, `${base}/update?id=${b.id}`, { method: 'PATCH', key, body: { id: 1, type: 'fax' } }, 400);
  await call(
    t,
    `${base}/update?id=${b.id}`,
    { method: 'PATCH', key, body: { type: 'email', config: { to: ['a@example.com'] } } },
    400,
  );
  await call(t, `${base}/update?id=abc`, { method: 'PATCH', key, body: {} }, 400);
  await call(t, `${base}/update?id=${b.id}`, { method: 'PATCH', key, body: { name: 'x'.repeat(2000) } }, 413);
  await call(t, `${base}/update?id=999999`, { method: 'PATCH', key, body: {} }, 404);
  // Test and deliveries.
  await call(t, `${base}/test?id=${a.id}`, { method: 'POST', key }, 200);
  await call(t, `${base}/test?id=${b.id}`, { method: 'POST', key }, 200);
  for (const [n, error] of [
    [1, null],
    [2, 'http_429'],
  ] as const) {
    await t.store.recordChannelAttempt(a.id, {
      kind: 'events',
      event_ids: [n],
      event_types: ['device.down'],
      attempt: n,
      attempted_at: `2026-01-01T00:0${n}:00.000Z`,
      http_status: error === null ? 200 : 429,
      error,
      duration_ms: 5,
    });
  }
  await call(t, `${base}/deliveries?id=${a.id}`, { key }, 200);
  assert.match(
    (await call(t, `${base}/deliveries?id=${a.id}&limit=1`, { key }, 200)).headers.get('link') ?? '',
    /rel="next"/,
  );
  const reader = await t.createKey({ userId: key.key.user_id, scopes: ['read'] });
  const writer = await t.createKey({ userId: key.key.user_id, scopes: ['write'] });
  const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
  for (const [method, path, needs] of [
    ['GET', `${base}/deliveries`, writer],
    ['POST', `${base}/test`, reader],
  ] as const) {
    await call(t, path, { method, key }, 400);
    await call(t, `${path}?id=${a.id}&sort=asc`, { method, key }, 400);
    await call(t, `${path}?id=9007199254740991`, { method, key }, 404);
    await call(t, `${path}?id=${a.id}`, { method, key: needs }, 403);
    await call(t, `${path}?id=${a.id}`, { method, key: elsewhere }, 403);
    await call(t, `${path}?id=${a.id}`, { method }, 401);
    await call(t, `${path}?id=${a.id}`, { method: 'PUT', key }, 405);
  }
  // Scopes, addresses and keys on the resource routes.
  await call(t, `${base}/create`, { method: 'POST', key: reader, body: SLACK }, 403);
  await call(t, `${base}/update?id=${a.id}`, { method: 'PATCH', key: reader, body: {} }, 403);
  await call(t, `${base}/delete?id=${a.id}`, { method: 'DELETE', key: reader }, 403);
  await call(t, base, { key: writer }, 403);
  await call(t, `${base}/get?id=${a.id}`, { key: writer }, 403);
  for (const [method, path] of [
    ['GET', base],
    ['POST', `${base}/create`],
    ['GET', `${base}/get?id=1`],
    ['PATCH', `${base}/update?id=1`],
    ['DELETE', `${base}/delete?id=1`],
  ] as const) {
    await call(t, path, { method, key: elsewhere }, 403);
    await call(t, path, { method }, 401);
    await call(t, path, { method, key: 'mapi_not-a-real-key' }, 401);
  }
  await call(t, `${base}/delete?id=${a.id}`, { method: 'DELETE', key }, 200);
  await call(t, `${base}/delete?id=${a.id}`, { method: 'DELETE', key }, 404);
  await call(t, `${base}/delete?id=abc`, { method: 'DELETE', key }, 400);
  // Without a sender the test route says so, after the channel was found.
  const bare = open();
  const bareKey = await bare.createKey();
  const bareChannel = await call<Channel>(bare, `${base}/create`, { method: 'POST', key: bareKey, body: SLACK }, 201);
  await call(bare, `${base}/test?id=${bareChannel.body.data!.id}`, { method: 'POST', key: bareKey }, 503);
}
