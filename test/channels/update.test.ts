/**
 * PATCH /channels/update (docs/notifications.md, "Changing a channel"), on every store: the
 * config merged into the stored one, secrets kept unless given, a change of type with its config
 * whole, bad input refused with nothing changed, and the answer masked as every other.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Channel } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { assertError, assertSuccess, assertValidation, eachStore, type Env } from '../api/helpers.ts';
import { channelBody, configField, loopbackSender, masked, SECRETS, showsSecret } from './support.ts';

async function setup(env: Env, email = true) {
  return env.setup({ channelSender: loopbackSender(email, () => '2026-01-01T00:00:00.000Z') });
}

async function create(t: TestApi, key: CreatedApiKey, body: Record<string, unknown>): Promise<Channel> {
  return assertSuccess(await t.request<Channel>('/v1/channels/create', { method: 'POST', key, body }), 201);
}

const patch = (t: TestApi, key: CreatedApiKey, id: number, body: unknown) =>
  t.request<Channel>(`/v1/channels/update?id=${id}`, { method: 'PATCH', key, body });

/** PATCHes and answers the changed channel, checking that the answer shows no secret. */
async function changed(t: TestApi, key: CreatedApiKey, id: number, body: unknown): Promise<Channel> {
  const res = await patch(t, key, id, body);
  assert.equal(showsSecret(res.text), undefined, `the answer shows a secret: ${res.text}`);
  return assertSuccess(res, 200);
}

eachStore('channels API: changes', (env) => {
  it('changes the settings given and keeps the config, whose secrets stay whole in the store', async () => {
    const { t, key } = await setup(env);
    const channel = await create(t, key, channelBody('telegram'));
    const after = await changed(t, key, channel.id, {
      name: 'On call',
      events: ['device.down'],
      is_default: false,
      remind_every_s: 3600,
      escalate_after_s: 600,
      send_recovery: 0,
    });
    assert.deepEqual(after, {
      ...channel,
      name: 'On call',
      events: ['device.down'],
      is_default: false,
      remind_every_s: 3600,
      escalate_after_s: 600,
      send_recovery: false,
    });
    assert.deepEqual((await t.store.getChannel(key.key.user_id, channel.id))!.config, {
      bot_token: SECRETS.telegram,
      chat_id: '-1001234567890',
    });
    // null gives an optional field its default back.
    const reset = await changed(t, key, channel.id, { events: null, remind_every_s: null, is_default: null });
    assert.deepEqual([reset.events, reset.remind_every_s, reset.is_default], [channel.events, null, true]);
    // {} changes nothing and answers the channel.
    assert.deepEqual(await changed(t, key, channel.id, {}), reset);
  });

  it("a config of the channel's type is merged: fields left out, secrets and secrets given masked are kept", async () => {
    const { t, key } = await setup(env);
    const telegram = await create(t, key, channelBody('telegram'));
    const moved = await changed(t, key, telegram.id, { config: { chat_id: '@opsroom' } });
    assert.deepEqual(moved.config, { bot_token: masked(SECRETS.telegram), chat_id: '@opsroom' });
    assert.equal(configField(await t.store.getChannel(key.key.user_id, telegram.id), 'bot_token'), SECRETS.telegram);

    const pagerduty = await create(
      t,
      key,
      channelBody('pagerduty', { config: { routing_key: SECRETS.pagerduty, severity: 'warning' } }),
    );
    const quieter = await changed(t, key, pagerduty.id, { config: { severity: 'info' } });
    assert.deepEqual(quieter.config, { routing_key: masked(SECRETS.pagerduty), severity: 'info' });
    // null gives a config field its default back.
    assert.equal(
      configField(await changed(t, key, pagerduty.id, { config: { severity: null } }), 'severity'),
      'critical',
    );
    // The config as an answer shows it, sent back whole: the masked secret keeps the stored one.
    const shown = assertSuccess(await t.request<Channel>(`/v1/channels/get?id=${pagerduty.id}`, { key }), 200);
    const echoed = await changed(t, key, pagerduty.id, {
      name: 'renamed',
      config: { ...shown.config, severity: 'error' },
    });
    assert.deepEqual(echoed.config, { routing_key: masked(SECRETS.pagerduty), severity: 'error' });
    assert.equal(
      configField(await t.store.getChannel(key.key.user_id, pagerduty.id), 'routing_key'),
      SECRETS.pagerduty,
    );
    // A new secret replaces the old.
    const rotated = 'NewRoutingKeyForPagerDuty0000xyz';
    assert.equal(
      configField(await changed(t, key, pagerduty.id, { config: { routing_key: rotated } }), 'routing_key'),
      '…0xyz',
    );
    assert.equal(configField(await t.store.getChannel(key.key.user_id, pagerduty.id), 'routing_key'), rotated);

    const ntfy = await create(t, key, channelBody('ntfy'));
    const topic = await changed(t, key, ntfy.id, { config: { topic: 'db-alerts' } });
    assert.deepEqual(topic.config, { server_url: 'https://ntfy.sh/', topic: 'db-alerts', token: masked(SECRETS.ntfy) });
    // An optional secret given as null is dropped.
    assert.equal(configField(await changed(t, key, ntfy.id, { config: { token: null } }), 'token'), null);
    assert.equal(configField(await t.store.getChannel(key.key.user_id, ntfy.id), 'token'), null);

    const slack = await create(t, key, channelBody('slack'));
    assert.deepEqual(await changed(t, key, slack.id, { config: {} }), slack, 'an empty config changes nothing');
  });

  it("a change of type takes the new type's config whole, and without one is config missing", async () => {
    const { t, key } = await setup(env);
    const slack = await create(t, key, channelBody('slack'));
    assertValidation(await patch(t, key, slack.id, { type: 'discord' }), [['config', 'missing']]);
    // The old type's fields are not carried over to the new type.
    assertValidation(await patch(t, key, slack.id, { type: 'ntfy', config: { topic: 'x' } }), [
      ['config.server_url', 'missing'],
    ]);
    const ntfy = await changed(t, key, slack.id, {
      type: 'ntfy',
      config: { server_url: 'https://ntfy.example.net', topic: 'ops' },
    });
    assert.deepEqual(
      [ntfy.type, ntfy.config],
      ['ntfy', { server_url: 'https://ntfy.example.net/', topic: 'ops', token: null }],
    );
    assert.deepEqual((await t.store.getChannel(key.key.user_id, slack.id))!.config, {
      server_url: 'https://ntfy.example.net/',
      topic: 'ops',
      token: null,
    });
    const email = await changed(t, key, slack.id, { type: 'email', config: { to: ['a@example.com'] } });
    assert.deepEqual([email.type, email.config], ['email', { to: ['a@example.com'] }]);
  });

  it('refuses bad changes, read-only fields and null for required ones, changing nothing', async () => {
    const { t, key } = await setup(env);
    const channel = await create(t, key, channelBody('discord'));
    const before = await t.store.getChannel(key.key.user_id, channel.id);
    assertValidation(
      await patch(t, key, channel.id, {
        id: 9,
        created_at: '2026-02-01T00:00:00.000Z',
        last_delivery_at: null,
        last_delivery_status: 'delivered',
        last_delivery_error: null,
        failing_since: null,
        disabled_reason: null,
        secret: 'x',
      }),
      [
        ['id', 'read_only_field'],
        ['created_at', 'read_only_field'],
        ['last_delivery_at', 'read_only_field'],
        ['last_delivery_status', 'read_only_field'],
        ['last_delivery_error', 'read_only_field'],
        ['failing_since', 'read_only_field'],
        ['disabled_reason', 'read_only_field'],
        ['secret', 'unknown_field'],
      ],
    );
    assertValidation(await patch(t, key, channel.id, { name: null, type: null, config: null }), [
      ['name', 'invalid_type'],
      ['type', 'invalid_type'],
      ['config', 'invalid_type'],
    ]);
    assertValidation(await patch(t, key, channel.id, { type: 'fax', config: {} }), [['type', 'invalid_value']]);
    assertValidation(
      await patch(t, key, channel.id, {
        name: 'x'.repeat(101),
        remind_every_s: 1,
        config: { webhook_url: 'http://localhost/x', extra: true },
      }),
      [
        ['name', 'too_long'],
        ['remind_every_s', 'out_of_range'],
        ['config.webhook_url', 'forbidden_target'],
        ['config.extra', 'unknown_field'],
      ],
    );
    assertValidation(await patch(t, key, channel.id, { config: { webhook_url: null } }), [
      ['config.webhook_url', 'invalid_type'],
    ]);
    assertValidation(await patch(t, key, channel.id, { config: [] }), [['config', 'invalid_type']]);
    assert.deepEqual(await t.store.getChannel(key.key.user_id, channel.id), before, 'nothing changed');
    assertError(await patch(t, key, channel.id, [1]), 400, 'invalid_json');
    assertError(await patch(t, key, 0, {}), 400, 'invalid_id');
    assertError(await patch(t, key, channel.id + 1000, {}), 404, 'channel_not_found');
  });

  it('enabling a channel the server disabled clears why it was disabled', async () => {
    const { t, key } = await setup(env);
    const channel = await create(t, key, channelBody('slack'));
    // The delivery work disables a channel whose webhook is gone; here the store is told directly.
    const from = (await t.store.getChannel(key.key.user_id, channel.id))!;
    const disabled = await t.store.updateChannel(key.key.user_id, channel.id, {
      from,
      to: { ...from, is_enabled: false, disabled_reason: 'http_404' },
      fields: ['is_enabled', 'disabled_reason'],
      effect: 'none',
      at: from.created_at,
      events: [],
    });
    assert.ok(disabled !== undefined && 'updated' in disabled);
    const renamed = await changed(t, key, channel.id, { name: 'still off' });
    assert.deepEqual([renamed.is_enabled, renamed.disabled_reason], [false, 'http_404']);
    const enabled = await changed(t, key, channel.id, { is_enabled: true });
    assert.deepEqual([enabled.is_enabled, enabled.disabled_reason], [true, null]);
    assert.equal((await t.store.getChannel(key.key.user_id, channel.id))!.disabled_reason, null);
  });
});
