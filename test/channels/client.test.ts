/** The typed client's channels, against the API in process (the testing kit's api.fetch). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createMonitoringClient, isApiError, type ChannelInput } from '../../client/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import type { channelSchema } from '../../core/validation/channel-input.ts';
import { loopbackSender, SECRETS, showsSecret } from './support.ts';

// Compile time (npm run typecheck): the client's channel input names exactly the fields the
// server's schema accepts.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const channelFields: Same<keyof ChannelInput, keyof typeof channelSchema.entries> = true;
void channelFields;

it('creates, lists, pages, gets, changes, tests and deletes channels, their secrets masked', async () => {
  const sender = loopbackSender(false, () => '2026-01-01T00:00:00.000Z');
  const t = createTestApi({ channelSender: sender });
  const key = await t.createKey();
  const api = createMonitoringClient({
    baseUrl: 'http://monitoring.test/v1',
    token: key.token,
    fetch: (input, init) => t.api.fetch(new Request(input, init), { clientAddress: '127.0.0.1' }),
  });
  try {
    const pager = await api.channels.create({
      name: 'Pager',
      type: 'pagerduty',
      config: { routing_key: SECRETS.pagerduty },
      escalate_after_s: 600,
    });
    assert.deepEqual(pager.config, { routing_key: `…${SECRETS.pagerduty.slice(-4)}`, severity: 'critical' });
    const room = await api.channels.create({
      name: 'Room',
      type: 'telegram',
      config: { bot_token: SECRETS.telegram, chat_id: 42 },
    });
    const page = await api.channels.list({ limit: 1 });
    assert.deepEqual([page.data.map((c) => c.id), page.next], [[pager.id], { limit: 1, afterId: pager.id }]);
    const all = [];
    for await (const channel of api.channels.all({ pageSize: 1 })) all.push(channel.name);
    assert.deepEqual(all, ['Pager', 'Room']);
    const changed = await api.channels.update(pager.id, { config: { severity: 'info' }, name: 'Pager (quiet)' });
    assert.deepEqual([changed.name, changed.config], ['Pager (quiet)', { ...pager.config, severity: 'info' }]);
    assert.deepEqual(await api.channels.get(room.id), room);
    assert.equal(showsSecret(JSON.stringify([pager, room, changed])), undefined);
    const tested = await api.channels.test(room.id);
    assert.deepEqual([tested.delivered, tested.error], [false, 'unsupported']);
    assert.deepEqual(
      sender.handed.map((c) => c.config),
      [{ bot_token: SECRETS.telegram, chat_id: '42' }],
    );
    await t.store.recordChannelAttempt(pager.id, {
      kind: 'events',
      event_ids: [1],
      event_types: ['device.down'],
      attempt: 1,
      attempted_at: '2026-01-01T00:01:00.000Z',
      http_status: 202,
      error: null,
      duration_ms: 9,
    });
    const deliveries = await api.channels.deliveries(pager.id);
    assert.deepEqual([deliveries.data.map((a) => a.event_ids), deliveries.next], [[[1]], null]);
    const every = [];
    for await (const attempt of api.channels.allDeliveries(pager.id, { pageSize: 1 })) every.push(attempt.kind);
    assert.deepEqual(every, ['events']);
    await assert.rejects(
      api.channels.create({ name: 'Mail', type: 'email', config: { to: ['a@example.com'] } }),
      (e) => isApiError(e, 'email_unavailable') && e.status === 400,
    );
    await assert.rejects(
      api.channels.create({ name: '', type: 'slack', config: { webhook_url: 'nope' } }),
      (e) => isApiError(e, 'validation_failed') && e.details.map((d) => d.field).join() === 'name,config.webhook_url',
    );
    assert.deepEqual(await api.channels.delete(pager.id), { id: pager.id, deleted: true });
    await assert.rejects(api.channels.get(pager.id), (e) => isApiError(e, 'channel_not_found'));
    // Devices and monitors take name and channel_ids.
    const device = await api.devices.create({
      target_type: 'domain',
      target_value: 'example.com',
      name: 'Shop',
      channel_ids: [room.id],
    });
    assert.deepEqual([device.name, device.channel_ids], ['Shop', [room.id]]);
    // Heartbeats too, and channels take their events.
    const beat = await api.heartbeats.create({ name: 'Backup', period_s: 3600, channel_ids: [room.id] });
    assert.deepEqual([beat.name, beat.channel_ids], ['Backup', [room.id]]);
    const quiet = await api.heartbeats.update(beat.id, { channel_ids: [] });
    assert.deepEqual(quiet.channel_ids, []);
    const told = await api.channels.update(room.id, { events: ['heartbeat.down', 'heartbeat.up'] });
    assert.deepEqual(told.events, ['heartbeat.down', 'heartbeat.up']);
  } finally {
    await t.close();
  }
});
