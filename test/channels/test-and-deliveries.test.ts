/**
 * POST /channels/test and GET /channels/deliveries (docs/notifications.md, "Testing a channel" and
 * "Deliveries"), and which servers may have email channels (`email_unavailable`).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Channel, ChannelAttempt, WebhookTestResult } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { assertError, assertSuccess, assertValidation, eachStore, START } from '../api/helpers.ts';
import { channelBody, configField, loopbackSender, SECRETS, showsSecret, startEndpoint } from './support.ts';

async function create(t: TestApi, key: CreatedApiKey, body: Record<string, unknown>): Promise<Channel> {
  return assertSuccess(await t.request<Channel>('/v1/channels/create', { method: 'POST', key, body }), 201);
}

eachStore('channels API: test and deliveries', (env) => {
  it('sends a test message through the channel sender, handed the whole config, and answers the outcome', async (test) => {
    let status = 204;
    const endpoint = await startEndpoint(() => status);
    test.after(() => endpoint.close());
    const sender = loopbackSender(true, () => START);
    const { t, key } = await env.setup({ channelSender: sender, allowPrivateTargets: true });
    const channel = await create(t, key, channelBody('slack', { config: { webhook_url: endpoint.url } }));
    const ok = await t.request<WebhookTestResult>(`/v1/channels/test?id=${channel.id}`, { method: 'POST', key });
    const result = assertSuccess(ok, 200);
    assert.deepEqual(
      { ...result, duration_ms: 0 },
      {
        delivered: true,
        http_status: 204,
        error: null,
        duration_ms: 0,
        attempted_at: START,
      },
    );
    assert.deepEqual(
      endpoint.bodies.map((b) => JSON.parse(b) as unknown),
      [{ text: 'Test message from monitoring: slack alerts' }],
    );
    assert.deepEqual(sender.handed, [
      { id: channel.id, name: 'slack alerts', type: 'slack', config: { webhook_url: endpoint.url } },
    ]);
    assert.equal(showsSecret(ok.text), undefined);
    status = 410;
    const gone = assertSuccess(
      await t.request<WebhookTestResult>(`/v1/channels/test?id=${channel.id}`, { method: 'POST', key }),
      200,
    );
    assert.deepEqual([gone.delivered, gone.http_status, gone.error], [false, 410, 'http_410']);
    // A test stores nothing: no attempt, and the channel's delivery fields stay as they were.
    assert.deepEqual(assertSuccess(await t.request(`/v1/channels/deliveries?id=${channel.id}`, { key }), 200), []);
    assert.deepEqual(assertSuccess(await t.request(`/v1/channels/get?id=${channel.id}`, { key }), 200), channel);
  });

  it('test: invalid or foreign id, no sender (503 channel_test_unavailable), email on a server without mail', async () => {
    const withoutSender = await env.setup();
    const slack = await create(withoutSender.t, withoutSender.key, channelBody('slack'));
    assertError(
      await withoutSender.t.request(`/v1/channels/test?id=${slack.id}`, { method: 'POST', key: withoutSender.key }),
      503,
      'channel_test_unavailable',
    );
    // The id is judged first, then whose channel it is.
    assertError(
      await withoutSender.t.request('/v1/channels/test?id=x', { method: 'POST', key: withoutSender.key }),
      400,
      'invalid_id',
    );
    assertError(
      await withoutSender.t.request(`/v1/channels/test?id=${slack.id}`, {
        method: 'POST',
        key: await withoutSender.t.createKey(),
      }),
      404,
      'channel_not_found',
    );
    assertValidation(
      await withoutSender.t.request(`/v1/channels/test?id=${slack.id}&verbose=1`, {
        method: 'POST',
        key: withoutSender.key,
      }),
      [['verbose', 'unknown_field']],
    );

    // An email channel made where mail could be sent, tested where it cannot.
    const mail = loopbackSender(true, () => START);
    const { t, key } = await env.setup({ channelSender: mail });
    const email = await create(t, key, channelBody('email'));
    const noMail = env.api({ channelSender: loopbackSender(false, () => START) });
    assertError(
      await noMail.request(`/v1/channels/test?id=${email.id}`, { method: 'POST', key }),
      400,
      'email_unavailable',
    );
  });

  it('an email channel is refused (400 email_unavailable) by a server that cannot send mail, and nothing is stored', async () => {
    for (const options of [{}, { channelSender: loopbackSender(false, () => START) }]) {
      const { t, key } = await env.setup(options);
      assertError(
        await t.request('/v1/channels/create', { method: 'POST', key, body: channelBody('email') }),
        400,
        'email_unavailable',
      );
      // A bad email body is judged first: every problem listed.
      assertValidation(
        await t.request('/v1/channels/create', {
          method: 'POST',
          key,
          body: channelBody('email', { config: { to: [] } }),
        }),
        [['config.to', 'invalid_value']],
      );
      const slack = await create(t, key, channelBody('slack'));
      assertError(
        await t.request(`/v1/channels/update?id=${slack.id}`, {
          method: 'PATCH',
          key,
          body: { type: 'email', config: { to: ['a@example.com'] } },
        }),
        400,
        'email_unavailable',
      );
      assert.deepEqual(
        (await t.store.listChannels(key.key.user_id, { afterId: 0, limit: 10 })).map((c) => c.type),
        ['slack'],
      );
    }
    // An email channel made while mail could be sent may still be changed (disabled, say) without it.
    const { t, key } = await env.setup({ channelSender: loopbackSender(true, () => START) });
    const email = await create(t, key, channelBody('email'));
    const noMail = env.api();
    const off = assertSuccess(
      await noMail.request<Channel>(`/v1/channels/update?id=${email.id}`, {
        method: 'PATCH',
        key,
        body: { is_enabled: false },
      }),
      200,
    );
    assert.equal(off.is_enabled, false);
  });

  it("deliveries: a channel's attempts newest first, paged with Link, to its owner only", async () => {
    const { t, key } = await env.setup();
    const channel = await create(t, key, channelBody('pagerduty'));
    const reader = await t.createKey({ scopes: ['read'], userId: key.key.user_id });
    assert.deepEqual(
      assertSuccess(await t.request(`/v1/channels/deliveries?id=${channel.id}`, { key: reader }), 200),
      [],
    );
    const attempt = (n: number, error: string | null) => ({
      kind: 'events' as const,
      event_ids: [n, n + 1],
      event_types: ['device.down' as const],
      attempt: 1,
      attempted_at: `2026-01-01T00:0${n}:00.000Z`,
      http_status: error === null ? 202 : 429,
      error,
      duration_ms: 40 + n,
    });
    for (let n = 1; n <= 3; n++)
      assert.equal(await t.store.recordChannelAttempt(channel.id, attempt(n, n === 3 ? 'http_429' : null)), true);
    const first = await t.request<ChannelAttempt[]>(`/v1/channels/deliveries?id=${channel.id}&limit=2`, {
      key: reader,
    });
    const page = assertSuccess(first, 200);
    assert.deepEqual(
      page.map(({ id: _id, ...rest }) => rest),
      [attempt(3, 'http_429'), attempt(2, null)],
    );
    assert.equal(
      first.headers.get('link'),
      `</v1/channels/deliveries?id=${channel.id}&limit=2&before_id=${page[1]!.id}>; rel="next"`,
    );
    const rest = await t.request<ChannelAttempt[]>(
      `/v1/channels/deliveries?id=${channel.id}&limit=2&before_id=${page[1]!.id}`,
      { key: reader },
    );
    assert.deepEqual([assertSuccess(rest, 200).map((a) => a.event_ids), rest.headers.get('link')], [[[1, 2]], null]);
    // The channel shows how the last attempt went.
    const shown = assertSuccess(await t.request<Channel>(`/v1/channels/get?id=${channel.id}`, { key }), 200);
    assert.deepEqual(
      [shown.last_delivery_at, shown.last_delivery_status, shown.last_delivery_error, shown.failing_since],
      ['2026-01-01T00:03:00.000Z', 'failing', 'http_429', '2026-01-01T00:03:00.000Z'],
    );
    assert.equal(showsSecret(JSON.stringify(shown)), undefined);
    assert.equal(configField(shown, 'routing_key'), `…${SECRETS.pagerduty.slice(-4)}`);
    assertError(
      await t.request(`/v1/channels/deliveries?id=${channel.id}`, { key: await t.createKey() }),
      404,
      'channel_not_found',
    );
    assertError(await t.request('/v1/channels/deliveries?id=0', { key }), 400, 'invalid_id');
    assertValidation(await t.request(`/v1/channels/deliveries?id=${channel.id}&limit=1001&after_id=1`, { key }), [
      ['limit', 'out_of_range'],
      ['after_id', 'unknown_field'],
    ]);
    // A channel's attempts go with it.
    assertSuccess(await t.request(`/v1/channels/delete?id=${channel.id}`, { method: 'DELETE', key }), 200);
    assertError(await t.request(`/v1/channels/deliveries?id=${channel.id}`, { key }), 404, 'channel_not_found');
    assert.equal(await t.store.recordChannelAttempt(channel.id, attempt(4, null)), false);
  });
});
