/**
 * Channels' messages sent by a real engine (docs/notifications.md, "Delivery"): devices checked by
 * the engine's own probes against an SSH server on 127.0.0.1 that goes down and up, a Slack fake
 * and a real SMTP server receiving what falls due, grouped per channel; a 404 disabling the
 * channel with a `channel.disabled` event a webhook receives; a 429 retried after its Retry-After.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock, MemoryStore, type ChannelConfig, type ChannelType, type EventType } from '../../core/index.ts';
import type { MonitoringEngine } from '../../engine/index.ts';
import { addDevice } from '../support/engine-fixtures.ts';
import type { FakeService } from '../support/fakes/fake-service.ts';
import { startFakePagerDuty } from '../support/fakes/pagerduty.ts';
import { startFakeSlack } from '../support/fakes/slack.ts';
import { startSmtp, type SmtpFake } from '../support/fakes/smtp.ts';
import { channelRecord, newWebhook } from '../support/records.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';
import { loopbackEngine, startSwitchableSsh } from './support.ts';

const START = '2026-08-01T00:00:00.000Z';

describe('channels served by the engine', () => {
  let clock: ManualClock;
  let store: MemoryStore;
  let userId: number;
  let ssh: Awaited<ReturnType<typeof startSwitchableSsh>>;
  let slack: FakeService;
  let smtp: SmtpFake;
  let hooks: Receiver;
  let pagerduty: FakeService;
  let engine: MonitoringEngine;

  beforeEach(async () => {
    clock = new ManualClock(START);
    store = new MemoryStore({ clock });
    userId = (await store.createUser({ name: null, created_at: START })).id;
    [ssh, slack, smtp, hooks, pagerduty] = await Promise.all([
      startSwitchableSsh(),
      startFakeSlack(),
      startSmtp(),
      startReceiver(),
      startFakePagerDuty(),
    ]);
    engine = loopbackEngine({
      store,
      clock,
      channels: {
        smtpUrl: `smtp://mailer:s3cret@smtp.example.net:${smtp.port}`,
        smtpFrom: 'monitoring@example.com',
        pagerdutyEventsUrl: `${pagerduty.url('events.pagerduty.com')}/v2/enqueue`,
      },
    });
  });
  afterEach(async () => {
    await engine.stop();
    await Promise.all([ssh.close(), slack.close(), smtp.close(), hooks.close(), pagerduty.close()]);
  });

  const channel = (type: ChannelType, config: ChannelConfig, events: EventType[]) =>
    store.createChannel(userId, channelRecord(type, config, { events, created_at: START }));
  const slackConfig = () => ({ webhook_url: `${slack.url('hooks.slack.com')}/services/T000/B000/XXXXXXXX` });
  const devices = async (count: number) => {
    for (let i = 1; i <= count; i++) await addDevice(store, userId, `d${i}.example.com`, START, { port: ssh.port });
  };

  it('200 devices down together, then up: at most two messages per channel, Slack and email alike', async () => {
    const chat = await channel('slack', slackConfig(), ['device.down', 'device.up']);
    const mail = await channel('email', { to: ['ops@example.org'] }, ['device.down', 'device.up']);
    await devices(200);
    await engine.runOnce();
    assert.equal(slack.accepted.length, 1, 'one Slack message for 200 downs');
    assert.match(slack.accepted[0]!.body, /200/);
    assert.equal(smtp.received.length, 1, 'one mail');
    assert.deepEqual(smtp.received[0]!.to, ['ops@example.org']);
    ssh.up = true;
    // Past every device's next check, jitter included.
    clock.advance(300_000);
    await engine.runOnce();
    assert.equal(slack.accepted.length, 2, 'one more for 200 recoveries');
    assert.equal(smtp.received.length, 2);
    assert.deepEqual(slack.refused, []);
    for (const id of [chat.id, mail.id]) {
      const attempts = await store.listChannelAttempts(userId, id, { limit: 10 });
      assert.deepEqual(
        attempts?.map((a) => [a.event_ids.length, a.event_types, a.error]),
        [
          [200, ['device.up'], null],
          [200, ['device.down'], null],
        ],
      );
    }
  });

  it('a 404 from Slack disables the channel, and its channel.disabled event reaches a webhook in the same run', async () => {
    const chat = await channel('slack', slackConfig(), ['device.down']);
    await store.createWebhook(
      userId,
      newWebhook(`http://127.0.0.1:${hooks.port}/hook`, { events: ['channel.disabled'], created_at: START }),
    );
    await devices(1);
    slack.script({ status: 404, headers: { 'content-type': 'text/plain' }, body: 'no_service' });
    await engine.runOnce();
    const after = await store.getChannel(userId, chat.id);
    assert.equal(after?.is_enabled, false);
    assert.equal(after?.disabled_reason, 'http_404');
    assert.equal(hooks.received.length, 1);
    const event = JSON.parse(hooks.received[0]!.body) as { type: string; data: { id: number; status: string } };
    assert.equal(event.type, 'channel.disabled');
    assert.equal(event.data.id, chat.id);
    assert.equal(event.data.status, 'disabled');
    assert.doesNotMatch(hooks.received[0]!.body, /XXXXXXXX/, 'the secret URL is masked');
    ssh.up = true;
    clock.advance(61_000);
    await engine.runOnce();
    assert.equal(slack.accepted.length, 0, 'nothing further is sent to a disabled channel');
  });

  it('a 429 with Retry-After is retried after it, not before', async () => {
    const chat = await channel('slack', slackConfig(), ['device.down']);
    await devices(1);
    slack.script({
      status: 429,
      headers: { 'content-type': 'text/plain', 'retry-after': '120' },
      body: 'rate_limited',
    });
    await engine.runOnce();
    assert.equal((await store.getChannel(userId, chat.id))?.last_delivery_error, 'http_429');
    clock.advance(60_000);
    await engine.runOnce();
    assert.equal(slack.accepted.length, 0, 'past the 10 s backoff but within Retry-After: nothing sent');
    clock.advance(61_000);
    await engine.runOnce();
    assert.equal(slack.accepted.length, 1);
    const attempts = await store.listChannelAttempts(userId, chat.id, { limit: 10 });
    assert.deepEqual(
      attempts?.map((a) => [a.attempt, a.http_status, a.error]),
      [
        [2, 200, null],
        [1, 429, 'http_429'],
      ],
    );
  });

  it("PagerDuty: a device's down triggers and its recovery resolves the same alert, its incident's dedup_key", async () => {
    await channel('pagerduty', { routing_key: 'R0uTiNgKeyPagerDutySecretValue32', severity: 'error' }, [
      'device.down',
      'device.up',
    ]);
    await devices(1);
    await engine.runOnce();
    ssh.up = true;
    clock.advance(300_000);
    await engine.runOnce();
    assert.deepEqual(pagerduty.refused, []);
    const sent = pagerduty.accepted.map((r) => JSON.parse(r.body) as { event_action: string; dedup_key: string });
    assert.deepEqual(
      sent.map((e) => e.event_action),
      ['trigger', 'resolve'],
    );
    const [incident] =
      (await store.listIncidents(userId, { from: START, to: '2026-08-02T00:00:00.000Z', limit: 5 })) ?? [];
    assert.ok(incident !== undefined && incident.resolved_at !== null, 'the incident closed');
    assert.ok(sent[0]!.dedup_key.includes(String(incident.id)), sent[0]!.dedup_key);
    assert.equal(sent[1]!.dedup_key, sent[0]!.dedup_key);
  });
});
