/**
 * Reminders, escalation and acknowledgement sent by a real engine (docs/notifications.md,
 * "Reminders, escalation and acknowledgement"), on every store: a device checked by the engine's
 * own probes against an SSH server on 127.0.0.1 that goes down and up, a Slack fake and a
 * PagerDuty fake receiving what falls due, and an injected clock moved past each due time.
 * PostgreSQL is skipped when unreachable, except under CI=true.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock, type ChannelConfig, type ChannelType, type Store } from '../../core/index.ts';
import type { MonitoringEngine } from '../../engine/index.ts';
import type { FakeService } from '../support/fakes/fake-service.ts';
import { channelRecord, newDevice } from '../support/records.ts';
import { availableStores } from '../support/stores.ts';
import { loopbackEngine, openChannelScene, type ChannelScene } from './support.ts';

const START = '2026-08-01T00:00:00.000Z';
const MINUTE = 60_000;
const ROUTING_KEY = 'R0uTiNgKeyPagerDutySecretValue32';

/** The text of each Slack message, oldest first. */
const texts = (slack: FakeService) => slack.accepted.map((r) => (JSON.parse(r.body) as { text: string }).text);

for (const factory of await availableStores()) {
  describe(`reminders, escalation and acknowledgement (${factory.name})`, { skip: factory.skip ?? false }, () => {
    let clock: ManualClock;
    let scene: ChannelScene;
    let store: Store;
    let userId: number;
    let ssh: ChannelScene['ssh'];
    let slack: FakeService;
    let pagerduty: FakeService;
    let engine: MonitoringEngine;

    beforeEach(async () => {
      clock = new ManualClock(START);
      scene = await openChannelScene(factory, clock);
      ({ store, userId, ssh, slack, pagerduty } = scene);
      engine = loopbackEngine({
        store,
        clock,
        channels: { pagerdutyEventsUrl: `${pagerduty.url('events.pagerduty.com')}/v2/enqueue` },
      });
    });
    afterEach(async () => {
      await engine.stop();
      await scene.close();
    });

    const channel = (
      type: ChannelType,
      config: ChannelConfig,
      timing: { remind_every_s?: number; escalate_after_s?: number } = {},
    ) =>
      store.createChannel(
        userId,
        channelRecord(type, config, {
          events: ['device.down', 'device.up'],
          remind_every_s: timing.remind_every_s ?? null,
          escalate_after_s: timing.escalate_after_s ?? null,
          created_at: START,
        }),
      );
    const slackChannel = (timing: { remind_every_s?: number; escalate_after_s?: number }) =>
      channel('slack', { webhook_url: `${slack.url('hooks.slack.com')}/services/T000/B000/XXXXXXXX` }, timing);
    const device = async () => {
      const created = await store.createDevice(
        userId,
        newDevice({ target_value: 'web1.example.com', port: ssh.port, created_at: START }),
      );
      assert.ok('created' in created);
    };
    /** Moves the clock to `minutes` after START and runs the engine once. */
    const runAt = async (minutes: number) => {
      clock.set(Date.parse(START) + minutes * MINUTE);
      await engine.runOnce();
    };
    const theIncident = async () => {
      const found = await store.listIncidents(userId, { from: START, to: '2026-08-03T00:00:00.000Z', limit: 5 });
      assert.equal(found?.length, 1);
      return found![0]!;
    };

    it('reminds every remind_every_s while the incident stays open, and not after its recovery', async () => {
      const chat = await slackChannel({ remind_every_s: 300 });
      await device();
      await runAt(0);
      assert.equal(slack.accepted.length, 1, 'the down at once');
      await runAt(4);
      assert.equal(slack.accepted.length, 1, 'no reminder before 5 minutes');
      await runAt(5);
      await runAt(9);
      await runAt(10);
      assert.deepEqual(
        texts(slack).map((text) => /still down/.test(text)),
        [false, true, true],
        'a reminder at 5 and at 10 minutes',
      );
      assert.match(texts(slack)[2]!, /for 10 min/);
      ssh.up = true;
      await runAt(14);
      await runAt(20);
      await runAt(40);
      const after = texts(slack).slice(3);
      assert.equal(
        after.filter((text) => /still down/.test(text)).length,
        0,
        `no reminder after: ${after.join(' | ')}`,
      );
      assert.equal(after.filter((text) => /up again/.test(text)).length, 1, 'one recovery');
      const attempts = await store.listChannelAttempts(userId, chat.id, { limit: 10 });
      assert.deepEqual(attempts?.map((a) => [a.kind, a.event_types]).reverse(), [
        ['events', ['device.down']],
        ['reminder', ['device.down']],
        ['reminder', ['device.down']],
        ['events', ['device.up']],
      ]);
    });

    it('an acknowledgement stops the reminders', async () => {
      await slackChannel({ remind_every_s: 300 });
      await device();
      await runAt(0);
      await runAt(5);
      assert.equal(slack.accepted.length, 2, 'the down and one reminder');
      const incident = await theIncident();
      const acknowledged = await store.acknowledgeIncident(userId, incident.id, 7, new Date(clock.now()).toISOString());
      assert.equal(acknowledged?.acknowledged, true);
      await runAt(10);
      await runAt(15);
      await runAt(60);
      assert.equal(slack.accepted.length, 2, `nothing after the acknowledgement: ${texts(slack).join(' | ')}`);
    });

    it('escalates only once open escalate_after_s unacknowledged, then tells the recovery', async () => {
      await slackChannel({ escalate_after_s: 600 });
      await device();
      await runAt(0);
      await runAt(9);
      assert.equal(slack.accepted.length, 0, 'nothing before 10 minutes');
      await runAt(10);
      assert.equal(slack.accepted.length, 1);
      assert.match(texts(slack)[0]!, /unacknowledged for 10 min/);
      ssh.up = true;
      await runAt(15);
      await runAt(20);
      assert.equal(slack.accepted.length, 2);
      assert.match(texts(slack)[1]!, /up again/);
    });

    it('a channel hears nothing of an incident that closed, or was acknowledged, before its escalation', async () => {
      await slackChannel({ escalate_after_s: 600 });
      await device();
      await runAt(0);
      ssh.up = true;
      await runAt(5);
      await runAt(6);
      assert.notEqual((await theIncident()).resolved_at, null, 'the incident closed');
      await runAt(10);
      await runAt(30);
      assert.deepEqual(texts(slack), [], 'neither the down nor the recovery');

      ssh.up = false;
      await runAt(35);
      await runAt(40);
      const open = (await store.listIncidents(userId, { from: START, to: '2026-08-03T00:00:00.000Z', limit: 5 }))!;
      const second = open.find((i) => i.resolved_at === null)!;
      await store.acknowledgeIncident(userId, second.id, 7, new Date(clock.now()).toISOString());
      await runAt(60);
      await runAt(90);
      assert.deepEqual(texts(slack), [], 'an acknowledged incident is not escalated');
    });

    it('PagerDuty: trigger, then acknowledge on acknowledgement, then resolve, with one dedup_key', async () => {
      await channel('pagerduty', { routing_key: ROUTING_KEY, severity: 'error' });
      await device();
      await runAt(0);
      const incident = await theIncident();
      await store.acknowledgeIncident(userId, incident.id, 7, new Date(clock.now()).toISOString());
      await runAt(1);
      ssh.up = true;
      await runAt(6);
      await runAt(7);
      assert.deepEqual(pagerduty.refused, []);
      const sent = pagerduty.accepted.map((r) => JSON.parse(r.body) as { event_action: string; dedup_key: string });
      assert.deepEqual(
        sent.map((e) => e.event_action),
        ['trigger', 'acknowledge', 'resolve'],
      );
      assert.ok(sent[0]!.dedup_key.endsWith(`-${incident.id}`), sent[0]!.dedup_key);
      assert.deepEqual(new Set(sent.map((e) => e.dedup_key)).size, 1, 'one dedup_key');
    });
  });
}
