/**
 * The channels resource (docs/notifications.md) through the testing kit, on every store: create,
 * list, get and delete, each type's config, secrets write-only and masked, bad input refused with
 * nothing stored, and each user's channels their own.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHANNEL_TYPES, type Channel } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { assertError, assertSuccess, assertValidation, eachStore, START, type Env } from '../api/helpers.ts';
import { channelBody, loopbackSender, masked, SECRETS, showsSecret } from './support.ts';

const CREATE = '/v1/channels/create';
const CHANNEL_FIELDS = [
  'id',
  'name',
  'type',
  'config',
  'events',
  'is_default',
  'remind_every_s',
  'escalate_after_s',
  'send_recovery',
  'is_enabled',
  'created_at',
  'last_delivery_at',
  'last_delivery_status',
  'last_delivery_error',
  'failing_since',
  'disabled_reason',
];

/** An API whose server can send mail, so that email channels may be made too. */
async function setup(env: Env): Promise<{ t: TestApi; key: CreatedApiKey }> {
  const sender = loopbackSender(true, () => START);
  return env.setup({ channelSender: sender });
}

async function create(t: TestApi, key: CreatedApiKey, body: Record<string, unknown>): Promise<Channel> {
  return assertSuccess(await t.request<Channel>(CREATE, { method: 'POST', key, body }), 201);
}

/** Every channel of the key's user, as the store holds them (secrets whole). */
async function stored(t: TestApi, key: CreatedApiKey): Promise<Channel[]> {
  return t.store.listChannels(key.key.user_id, { afterId: 0, limit: 1000 });
}

eachStore('channels API', (env) => {
  it('creates a channel of each type with its defaults, its secrets masked in every answer', async () => {
    const { t, key } = await setup(env);
    const answers: string[] = [];
    for (const type of CHANNEL_TYPES) {
      const res = await t.request<Channel>(CREATE, { method: 'POST', key, body: channelBody(type) });
      answers.push(res.text);
      const created = assertSuccess(res, 201);
      assert.deepEqual(Object.keys(created), CHANNEL_FIELDS);
      assert.deepEqual(
        { ...created, id: 0, config: null },
        {
          id: 0,
          name: `${type} alerts`,
          type,
          config: null,
          events: [
            'device.down',
            'device.up',
            'device.tls_expiring',
            'blacklist.listed',
            'blacklist.delisted',
            'heartbeat.down',
            'heartbeat.up',
            'channel.disabled',
          ],
          is_default: true,
          remind_every_s: null,
          escalate_after_s: null,
          send_recovery: true,
          is_enabled: true,
          created_at: START,
          last_delivery_at: null,
          last_delivery_status: null,
          last_delivery_error: null,
          failing_since: null,
          disabled_reason: null,
        },
      );
    }
    const [email, slack, discord, teams, telegram, pagerduty, ntfy] = await stored(t, key);
    const shown = assertSuccess(await t.request<Channel[]>('/v1/channels', { key }), 200);
    answers.push(JSON.stringify(shown));
    assert.deepEqual(
      shown.map((c) => c.config),
      [
        { to: ['ops@example.com', 'oncall@example.org'] },
        { webhook_url: masked(SECRETS.slack) },
        { webhook_url: masked(SECRETS.discord) },
        { webhook_url: masked(SECRETS.teams) },
        { bot_token: masked(SECRETS.telegram), chat_id: '-1001234567890' },
        { routing_key: masked(SECRETS.pagerduty), severity: 'critical' },
        { server_url: 'https://ntfy.sh/', topic: 'ops-alerts', token: masked(SECRETS.ntfy) },
      ],
    );
    // The store keeps each config whole: sending needs it.
    assert.deepEqual(
      [slack, discord, teams, telegram, pagerduty, ntfy].map((c) => Object.values(c!.config)[0]),
      [SECRETS.slack, SECRETS.discord, SECRETS.teams, SECRETS.telegram, SECRETS.pagerduty, 'https://ntfy.sh/'],
    );
    assert.equal((ntfy!.config as { token: string }).token, SECRETS.ntfy);
    assert.equal(email!.type, 'email');
    for (const channel of shown) {
      const one = await t.request<Channel>(`/v1/channels/get?id=${channel.id}`, { key });
      assert.deepEqual(assertSuccess(one, 200), channel, 'get answers the channel as the list shows it');
      answers.push(one.text);
    }
    const page = await t.request<Channel[]>('/v1/channels?limit=2', { key });
    assert.equal(page.headers.get('link'), `</v1/channels?limit=2&after_id=${shown[1]!.id}>; rel="next"`);
    answers.push(page.text);
    for (const text of answers) assert.equal(showsSecret(text), undefined, `an answer shows a secret: ${text}`);
  });

  it('takes its settings, events in one order, flags as int/bool', async () => {
    const { t, key } = await setup(env);
    const created = await create(
      t,
      key,
      channelBody('slack', {
        events: ['channel.disabled', 'heartbeat.up', 'device.down', 'device.maintenance_started', 'heartbeat.down'],
        is_default: 0,
        remind_every_s: 300,
        escalate_after_s: 86400,
        send_recovery: false,
        is_enabled: 1,
      }),
    );
    assert.deepEqual(
      [created.events, created.is_default, created.remind_every_s, created.escalate_after_s],
      [
        ['device.down', 'device.maintenance_started', 'heartbeat.down', 'heartbeat.up', 'channel.disabled'],
        false,
        300,
        86400,
      ],
    );
    assert.deepEqual([created.send_recovery, created.is_enabled], [false, true]);
    const nulls = await create(t, key, channelBody('ntfy', { remind_every_s: null, escalate_after_s: null }));
    assert.deepEqual([nulls.remind_every_s, nulls.escalate_after_s], [null, null]);
    const upper = await create(t, key, channelBody('discord', { remind_every_s: 604800, escalate_after_s: 60 }));
    assert.deepEqual([upper.remind_every_s, upper.escalate_after_s], [604800, 60]);
  });

  it('refuses bad fields, one detail per problem, and stores nothing', async () => {
    const { t, key } = await setup(env);
    const post = (body: unknown) => t.request(CREATE, { method: 'POST', key, body });
    assertValidation(await post({}), [
      ['name', 'missing'],
      ['type', 'missing'],
      ['config', 'missing'],
    ]);
    assertValidation(await post(channelBody('slack', { type: 'carrier-pigeon' })), [['type', 'invalid_value']]);
    assertValidation(await post({ ...channelBody('slack'), config: 'https://hooks.slack.com/x' }), [
      ['config', 'invalid_type'],
    ]);
    assertValidation(await post({ ...channelBody('slack'), config: [SECRETS.slack] }), [['config', 'invalid_type']]);
    assertValidation(
      await post(
        channelBody('slack', {
          name: '',
          events: [],
          is_default: 2,
          remind_every_s: 299,
          escalate_after_s: 86401,
          send_recovery: 'yes',
          is_enabled: null,
          colour: 'red',
        }),
      ),
      [
        ['name', 'invalid_value'],
        ['events', 'invalid_value'],
        ['is_default', 'invalid_value'],
        ['remind_every_s', 'out_of_range'],
        ['escalate_after_s', 'out_of_range'],
        ['send_recovery', 'invalid_type'],
        ['colour', 'unknown_field'],
      ],
    );
    assertValidation(await post(channelBody('slack', { name: 'x'.repeat(101) })), [['name', 'too_long']]);
    assertValidation(await post(channelBody('slack', { name: 'a\u0007b' })), [['name', 'invalid_value']]);
    assertValidation(await post(channelBody('slack', { events: ['device.down', 'device.down'] })), [
      ['events', 'invalid_value'],
    ]);
    assertValidation(await post(channelBody('slack', { events: ['device.exploded'] })), [['events', 'invalid_value']]);
    assertValidation(await post(channelBody('slack', { remind_every_s: 604801, escalate_after_s: 59 })), [
      ['remind_every_s', 'out_of_range'],
      ['escalate_after_s', 'out_of_range'],
    ]);
    assertValidation(await post(channelBody('slack', { remind_every_s: 600.5 })), [['remind_every_s', 'invalid_type']]);
    // Read-only fields are the server's: a create may not give them.
    assertValidation(await post(channelBody('slack', { id: 7, created_at: START, disabled_reason: 'x' })), [
      ['id', 'unknown_field'],
      ['created_at', 'unknown_field'],
      ['disabled_reason', 'unknown_field'],
    ]);
    assert.deepEqual(await stored(t, key), [], 'nothing was stored');
  });

  it("refuses each type's bad config, naming each problem config.<field>, and stores nothing", async () => {
    const { t, key } = await setup(env);
    const post = (type: string, config: unknown) =>
      t.request(CREATE, { method: 'POST', key, body: { name: 'n', type, config } });
    const cases: [string, unknown, [string, string][]][] = [
      ['email', {}, [['config.to', 'missing']]],
      ['email', { to: [] }, [['config.to', 'invalid_value']]],
      ['email', { to: ['not an address'] }, [['config.to', 'invalid_value']]],
      ['email', { to: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`) }, [['config.to', 'invalid_value']]],
      ['email', { to: 'ops@example.com' }, [['config.to', 'invalid_type']]],
      ['slack', {}, [['config.webhook_url', 'missing']]],
      ['slack', { webhook_url: 'ftp://hooks.slack.com/x' }, [['config.webhook_url', 'invalid_value']]],
      [
        'slack',
        { webhook_url: 'not a url', extra: 1 },
        [
          ['config.webhook_url', 'invalid_value'],
          ['config.extra', 'unknown_field'],
        ],
      ],
      ['discord', { webhook_url: 'http://127.0.0.1/hook' }, [['config.webhook_url', 'forbidden_target']]],
      ['teams', { webhook_url: `https://example.net/${'a'.repeat(2048)}` }, [['config.webhook_url', 'too_long']]],
      [
        'telegram',
        { bot_token: 'nope', chat_id: 'x' },
        [
          ['config.bot_token', 'invalid_value'],
          ['config.chat_id', 'invalid_value'],
        ],
      ],
      ['telegram', { chat_id: 5 }, [['config.bot_token', 'missing']]],
      ['pagerduty', { routing_key: 'short' }, [['config.routing_key', 'invalid_value']]],
      ['pagerduty', { routing_key: SECRETS.pagerduty, severity: 'loud' }, [['config.severity', 'invalid_value']]],
      ['ntfy', { server_url: 'https://ntfy.sh', topic: 'bad topic!' }, [['config.topic', 'invalid_value']]],
      [
        'ntfy',
        { topic: 'ok', token: 7 },
        [
          ['config.server_url', 'missing'],
          ['config.token', 'invalid_type'],
        ],
      ],
    ];
    for (const [type, config, expected] of cases) {
      const res = await post(type, config);
      assertValidation(res, expected);
      assert.equal(res.body.error!.details!.length, expected.length, `one detail per problem: ${res.text}`);
      assert.equal(showsSecret(res.text), undefined);
    }
    // A config problem and a field's are listed together.
    assertValidation(await post('pagerduty', { routing_key: 'x' }), [['config.routing_key', 'invalid_value']]);
    assertValidation(
      await t.request(CREATE, {
        method: 'POST',
        key,
        body: { name: '', type: 'slack', config: { webhook_url: 'gopher://x' } },
      }),
      [
        ['name', 'invalid_value'],
        ['config.webhook_url', 'invalid_value'],
      ],
    );
    assert.deepEqual(await stored(t, key), [], 'nothing was stored');
  });

  it('a private URL in a config is refused unless the server allows private targets', async () => {
    const open = env.api({ allowPrivateTargets: true });
    const key = await open.createKey();
    const created = await create(
      open,
      key,
      channelBody('ntfy', { config: { server_url: 'http://10.0.0.7:8080', topic: 'lab' } }),
    );
    assert.deepEqual(created.config, { server_url: 'http://10.0.0.7:8080/', topic: 'lab', token: null });
  });

  it("each user sees, gets and deletes their own channels only: another's id is 404 channel_not_found", async () => {
    const { t, key } = await setup(env);
    const other = await t.createKey();
    const mine = await create(t, key, channelBody('slack'));
    const theirs = await create(t, other, channelBody('discord'));
    assert.deepEqual(
      assertSuccess(await t.request<Channel[]>('/v1/channels', { key }), 200).map((c) => c.id),
      [mine.id],
    );
    assertError(await t.request(`/v1/channels/get?id=${theirs.id}`, { key }), 404, 'channel_not_found');
    assertError(
      await t.request(`/v1/channels/delete?id=${theirs.id}`, { method: 'DELETE', key }),
      404,
      'channel_not_found',
    );
    assertError(
      await t.request(`/v1/channels/update?id=${theirs.id}`, { method: 'PATCH', key, body: { name: 'mine now' } }),
      404,
      'channel_not_found',
    );
    assert.equal(
      (await t.store.getChannel(other.key.user_id, theirs.id))?.name,
      'discord alerts',
      'theirs is untouched',
    );
    assert.deepEqual(
      assertSuccess(await t.request(`/v1/channels/delete?id=${mine.id}`, { method: 'DELETE', key }), 200),
      { id: mine.id, deleted: true },
    );
    assertError(
      await t.request(`/v1/channels/delete?id=${mine.id}`, { method: 'DELETE', key }),
      404,
      'channel_not_found',
    );
    assertError(await t.request(`/v1/channels/get?id=${mine.id}`, { key }), 404, 'channel_not_found');
    assertError(await t.request('/v1/channels/get?id=abc', { key }), 400, 'invalid_id');
    assertError(await t.request('/v1/channels/delete', { method: 'DELETE', key }), 400, 'invalid_id');
  });

  it('scopes, methods, unknown routes and bad list parameters', async () => {
    const { t } = await setup(env);
    const reader = await t.createKey({ scopes: ['read'] });
    assertSuccess(await t.request('/v1/channels', { key: reader }), 200);
    assertError(
      await t.request(CREATE, { method: 'POST', key: reader, body: channelBody('slack') }),
      403,
      'insufficient_scope',
    );
    assertError(await t.request('/v1/channels/test?id=1', { method: 'POST', key: reader }), 403, 'insufficient_scope');
    const writer = await t.createKey({ scopes: ['write'] });
    assertError(await t.request('/v1/channels', { key: writer }), 403, 'insufficient_scope');
    assertError(await t.request('/v1/channels/deliveries?id=1', { key: writer }), 403, 'insufficient_scope');
    const wrong = await t.request('/v1/channels/update?id=1', { method: 'POST', key: writer });
    assertError(wrong, 405, 'method_not_allowed');
    assert.equal(wrong.headers.get('allow'), 'PATCH');
    assertError(await t.request('/v1/channels/rename', { key: writer }), 404, 'unknown_channels_route');
    assertValidation(await t.request('/v1/channels?limit=0&cursor=1', { key: reader }), [
      ['limit', 'out_of_range'],
      ['cursor', 'unknown_field'],
    ]);
    assertError(
      await t.request(`${CREATE}?x=1`, { method: 'POST', key: writer, body: channelBody('slack') }),
      400,
      'validation_failed',
    );
  });
});
