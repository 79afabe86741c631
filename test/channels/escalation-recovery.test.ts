/**
 * An escalating channel's recovery (docs/notifications.md, "Reminders, escalation and
 * acknowledgement"): it hears the recovery whenever it heard, may have heard (an attempt that may
 * have reached the service: a 5xx, no answer in time), or is being told, the escalation, and
 * nothing of an incident whose escalation could not have reached it. Real engines on every
 * store, a device checked against an SSH server on 127.0.0.1 that goes down and up, Slack and
 * PagerDuty fakes (Slack holding its answer while a second worker runs), and an injected clock.
 * PostgreSQL is skipped when unreachable, except under CI=true.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock, type Store } from '../../core/index.ts';
import type { MonitoringEngine } from '../../engine/index.ts';
import type { FakeService } from '../support/fakes/fake-service.ts';
import { channelRecord, newDevice } from '../support/records.ts';
import { freePort } from '../support/ports.ts';
import { availableStores } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';
import { loopbackEngine, openChannelScene, type ChannelScene } from './support.ts';

const START = '2026-08-01T00:00:00.000Z';
const MINUTE = 60_000;
const ROUTING_KEY = 'R0uTiNgKeyPagerDutySecretValue32';

/** The text of each Slack message, oldest first. */
const texts = (slack: FakeService) => slack.accepted.map((r) => (JSON.parse(r.body) as { text: string }).text);
/** The `event_action` of each PagerDuty event, oldest first. */
const actions = (pagerduty: FakeService) =>
  pagerduty.accepted.map((r) => (JSON.parse(r.body) as { event_action: string }).event_action);

for (const factory of await availableStores()) {
  describe(`an escalating channel's recovery (${factory.name})`, { skip: factory.skip ?? false }, () => {
    let clock: ManualClock;
    let scene: ChannelScene;
    let store: Store;
    let userId: number;
    let ssh: ChannelScene['ssh'];
    let slack: FakeService;
    let pagerduty: FakeService;
    /** Two workers sharing the store and the clock. */
    let engines: MonitoringEngine[];

    beforeEach(async () => {
      clock = new ManualClock(START);
      scene = await openChannelScene(factory, clock);
      ({ store, userId, ssh, slack, pagerduty } = scene);
      const worker = () =>
        loopbackEngine({
          store,
          clock,
          // No jitter: each check falls due one interval after the last.
          random: () => 0,
          channels: { pagerdutyEventsUrl: `${pagerduty.url('events.pagerduty.com')}/v2/enqueue` },
        });
      engines = [worker(), worker()];
    });
    afterEach(async () => {
      await Promise.all(engines.map((engine) => engine.stop()));
      await scene.close();
    });

    const escalating = (type: 'slack' | 'pagerduty') =>
      store.createChannel(
        userId,
        channelRecord(
          type,
          type === 'slack'
            ? { webhook_url: `${slack.url('hooks.slack.com')}/services/T000/B000/XXXXXXXX` }
            : { routing_key: ROUTING_KEY, severity: 'error' },
          { events: ['device.down', 'device.up'], escalate_after_s: 600, created_at: START },
        ),
      );
    /** One worker whose PagerDuty events URL takes no connection. */
    const refusedPagerDuty = (port: number) =>
      loopbackEngine({
        store,
        clock,
        random: () => 0,
        channels: { pagerdutyEventsUrl: `http://events.pagerduty.com:${port}/v2/enqueue` },
      });
    /** Checked every 20 s: a worker sees the recovery while the channel's lease (30 s) is held. */
    const device = async () => {
      const created = await store.createDevice(
        userId,
        newDevice({ target_value: 'web1.example.com', port: ssh.port, check_interval_s: 20, created_at: START }),
      );
      assert.ok('created' in created);
    };
    /** Moves the clock to `minutes` after START and runs the first worker once. */
    const runAt = async (minutes: number) => {
      clock.set(Date.parse(START) + minutes * MINUTE);
      await engines[0]!.runOnce();
    };
    const resolved = async () => {
      const found = await store.listIncidents(userId, { from: START, to: '2026-08-03T00:00:00.000Z', limit: 5 });
      assert.equal(found?.length, 1);
      return found![0]!.resolved_at !== null;
    };
    /** What the channel was sent, oldest first: Slack's texts or PagerDuty's actions. */
    const heard = (type: 'slack' | 'pagerduty') => (type === 'slack' ? texts(slack) : actions(pagerduty));
    /** The channel heard the recovery after `before` (PagerDuty's actions) and nothing else. */
    const heardRecoveryAlone = (type: 'slack' | 'pagerduty', before: string[] = []) => {
      if (type === 'pagerduty') return assert.deepEqual(heard(type), [...before, 'resolve']);
      assert.equal(heard(type).length, 1, `the recovery alone: ${heard(type).join(' | ')}`);
      assert.match(heard(type)[0]!, /up again/);
    };
    /** Acknowledges the one incident, at the clock's time. */
    const acknowledge = async () => {
      const found = await store.listIncidents(userId, { from: START, to: '2026-08-03T00:00:00.000Z', limit: 5 });
      const at = new Date(clock.now()).toISOString();
      assert.equal((await store.acknowledgeIncident(userId, found![0]!.id, 7, at))?.acknowledged, true);
    };

    /**
     * The escalation falls due (10 min) and the first worker sends it to `service`, which holds its
     * answer: resolves once it does, the worker's run still going.
     */
    const escalationOnItsWay = async (service: FakeService) => {
      const held = service.hold();
      clock.set(Date.parse(START) + 10 * MINUTE);
      const run = engines[0]!.runOnce();
      await waitFor('the escalation to reach the service', () => held.waiting() === 1);
      return { held, run };
    };

    it('an escalation on its way when the device recovers is followed by the recovery', async () => {
      await escalating('slack');
      await device();
      await runAt(0);
      const { held, run: escalatingRun } = await escalationOnItsWay(slack);
      ssh.up = true;
      clock.set(Date.parse(START) + 10 * MINUTE + 20_000);
      // The second worker sees the recovery and fans it out while the escalation waits on Slack.
      await engines[1]!.runOnce();
      assert.equal(await resolved(), true, 'the incident closed');
      assert.equal(slack.accepted.length, 1, 'the channel is leased while its escalation is sent');
      held.release();
      await escalatingRun;
      await runAt(12);
      await runAt(20);
      assert.equal(slack.accepted.length, 2, `the escalation and the recovery: ${texts(slack).join(' | ')}`);
      assert.match(texts(slack)[0]!, /unacknowledged for 10 min/);
      assert.match(texts(slack)[1]!, /up again/);
    });

    it('an escalation on its way when the device recovers, then given up, is not followed by the recovery', async () => {
      const channel = await escalating('slack');
      await device();
      await runAt(0);
      // A 400 is a permanent failure of the message: it is given up at once.
      slack.script({ status: 400, body: 'invalid_payload' });
      const { held, run: escalatingRun } = await escalationOnItsWay(slack);
      ssh.up = true;
      clock.set(Date.parse(START) + 10 * MINUTE + 20_000);
      await engines[1]!.runOnce();
      assert.equal(await resolved(), true, 'the incident closed');
      held.release();
      await escalatingRun;
      await runAt(12);
      await runAt(20);
      assert.deepEqual(texts(slack), [], 'the channel heard neither');
      const attempts = await store.listChannelAttempts(userId, channel.id, { limit: 5 });
      assert.deepEqual(
        attempts?.map((a) => [a.event_types, a.error]),
        [[['device.down'], 'http_400']],
        'one attempt, the escalation given up',
      );
    });

    it('pagerduty: an incident acknowledged while its escalation is on its way is acknowledged to PagerDuty after it', async () => {
      await escalating('pagerduty');
      await device();
      await runAt(0);
      const { held, run: escalatingRun } = await escalationOnItsWay(pagerduty);
      await acknowledge();
      held.release();
      await escalatingRun;
      await runAt(11);
      await runAt(12);
      assert.deepEqual(actions(pagerduty), ['trigger', 'acknowledge']);
    });

    for (const type of ['slack', 'pagerduty'] as const) {
      it(`${type}: an escalation due but not sent when the device recovers is dropped with the recovery`, async () => {
        const channel = await escalating(type);
        await device();
        await runAt(0);
        ssh.up = true;
        // The recovery is seen and fanned out at the moment the escalation falls due, before it is sent.
        await runAt(10);
        assert.equal(await resolved(), true, 'the incident closed');
        await runAt(11);
        await runAt(30);
        assert.deepEqual(heard(type), [], 'neither the down nor the recovery');
        assert.deepEqual(await store.listChannelAttempts(userId, channel.id, { limit: 5 }), []);
      });

      it(`${type}: an escalation tried, then dropped as its incident closed, is followed by the recovery`, async () => {
        const channel = await escalating(type);
        await device();
        await runAt(0);
        // A 503 may come after the service took the request in: the channel may have heard the down.
        (type === 'slack' ? slack : pagerduty).script({ status: 503, headers: { 'retry-after': '3600' } });
        await runAt(10);
        assert.deepEqual(heard(type), [], 'the escalation failed, to be tried again in an hour');
        ssh.up = true;
        await runAt(10.5);
        assert.equal(await resolved(), true, 'the incident closed');
        await runAt(70);
        await runAt(71);
        heardRecoveryAlone(type);
        const attempts = await store.listChannelAttempts(userId, channel.id, { limit: 5 });
        assert.deepEqual(
          attempts?.map((a) => a.event_types).reverse(),
          [['device.down'], ['device.up']],
          'the escalation tried once, then the recovery',
        );
      });

      it(`${type}: an escalation tried, then dropped as its incident was acknowledged, is followed by the recovery`, async () => {
        await escalating(type);
        await device();
        await runAt(0);
        (type === 'slack' ? slack : pagerduty).script({ status: 503, headers: { 'retry-after': '3600' } });
        await runAt(10);
        assert.deepEqual(heard(type), [], 'the escalation failed, to be tried again in an hour');
        await acknowledge();
        // The escalation is dropped at its retry, the incident being acknowledged; then the device recovers.
        await runAt(70);
        assert.deepEqual(
          heard(type),
          type === 'pagerduty' ? ['acknowledge'] : [],
          'an acknowledged incident is not escalated (PagerDuty acknowledges the alert it may have)',
        );
        ssh.up = true;
        await runAt(71);
        await runAt(72);
        assert.equal(await resolved(), true, 'the incident closed');
        // PagerDuty is told of the acknowledgement too: the alert may have been triggered.
        heardRecoveryAlone(type, ['acknowledge']);
      });

      it(`${type}: an escalation whose attempts never reached the service, then dropped, is not followed by the recovery`, async () => {
        // The service's address takes no connection: each attempt is refused before a request is sent.
        const closed = await freePort();
        const channel = await store.createChannel(
          userId,
          channelRecord(
            type,
            type === 'slack'
              ? { webhook_url: `http://hooks.slack.com:${closed}/services/T000/B000/XXXXXXXX` }
              : { routing_key: ROUTING_KEY, severity: 'error' },
            { events: ['device.down', 'device.up'], escalate_after_s: 600, created_at: START },
          ),
        );
        if (type === 'pagerduty') {
          await Promise.all(engines.map((engine) => engine.stop()));
          engines = [refusedPagerDuty(closed)];
        }
        await device();
        await runAt(0);
        await runAt(10);
        ssh.up = true;
        await runAt(10.5);
        assert.equal(await resolved(), true, 'the incident closed');
        await runAt(12);
        await runAt(30);
        const attempts = await store.listChannelAttempts(userId, channel.id, { limit: 5 });
        assert.ok(attempts !== undefined && attempts.length >= 1, 'the escalation was tried');
        assert.ok(
          attempts.every((a) => a.error === 'ECONNREFUSED' && a.event_types.join() === 'device.down'),
          `only the escalation, refused: ${JSON.stringify(attempts.map((a) => [a.event_types, a.error]))}`,
        );
      });

      it(`${type}: an escalation given up after an attempt that may have reached the service is followed by the recovery`, async () => {
        const channel = await escalating(type);
        await device();
        await runAt(0);
        // A 503 first (the service may have taken it in), then a refusal: the message is given up.
        (type === 'slack' ? slack : pagerduty).script({ status: 503 }, { status: 400, body: 'invalid_payload' });
        await runAt(10);
        await runAt(10.25);
        const given = await store.listChannelAttempts(userId, channel.id, { limit: 5 });
        assert.deepEqual(given?.map((a) => a.error).reverse(), ['http_503', 'http_400'], 'tried, then given up');
        ssh.up = true;
        await runAt(10.5);
        assert.equal(await resolved(), true, 'the incident closed');
        await runAt(11);
        await runAt(12);
        heardRecoveryAlone(type);
      });

      it(`${type}: an incident that recovers before its escalation is due is not told`, async () => {
        await escalating(type);
        await device();
        await runAt(0);
        ssh.up = true;
        await runAt(5);
        assert.equal(await resolved(), true, 'the incident closed');
        await runAt(10);
        await runAt(30);
        assert.deepEqual(heard(type), []);
      });

      it(`${type}: an escalation delivered is followed by the recovery`, async () => {
        await escalating(type);
        await device();
        await runAt(0);
        await runAt(10);
        assert.equal(heard(type).length, 1, 'the escalation');
        ssh.up = true;
        await runAt(11);
        await runAt(12);
        assert.equal(heard(type).length, 2, `the escalation and the recovery: ${heard(type).join(' | ')}`);
        if (type === 'pagerduty') assert.deepEqual(heard(type), ['trigger', 'resolve']);
        else assert.match(heard(type)[1]!, /up again/);
      });
    }
  });
}
