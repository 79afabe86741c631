/**
 * PagerDuty through the fake Events API v2: one event per item, an incident's trigger, acknowledge
 * and resolve under one dedup_key, and each event held to the API's fields and limits.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Notification } from '../../core/internal.ts';
import type { ChannelDelivery } from '../../engine/channels/channel-delivery.ts';
import { createChannelSender } from '../../engine/index.ts';
import type { FakeService } from '../support/fakes/fake-service.ts';
import { startFakePagerDuty } from '../support/fakes/pagerduty.ts';
import { PUBLIC_URL } from './kind-scenarios.ts';
import {
  downItem,
  heartbeatDownItem,
  heartbeatUpItem,
  HOSTILE_NAME,
  incident,
  LOOPBACK,
  notification,
  reminderItem,
  T125,
  T5,
  testDelivery,
  twoHundredDown,
  upItem,
} from './message-fixtures.ts';

const ROUTING_KEY = 'R0123456789abcdef0123456789abcde';

interface PagerDutyEvent {
  routing_key: string;
  event_action: string;
  dedup_key: string;
  payload?: { summary: string; source: string; severity: string; custom_details: { why: string[] } };
  links?: { href: string }[];
}

describe('pagerduty events', () => {
  let fake: FakeService;
  let delivery: ChannelDelivery;
  beforeEach(async () => {
    fake = await startFakePagerDuty();
    delivery = testDelivery({
      publicUrl: PUBLIC_URL,
      pagerdutyEventsUrl: `${fake.url('events.pagerduty.example.com')}/v2/enqueue`,
    });
  });
  afterEach(() => fake.close());

  async function send(n: Notification, severity: 'critical' | 'warning' = 'critical'): Promise<PagerDutyEvent[]> {
    const attempt = await delivery.deliver({ type: 'pagerduty', config: { routing_key: ROUTING_KEY, severity } }, n);
    assert.deepEqual(attempt.verdict, { outcome: 'delivered' }, JSON.stringify(fake.refused.map((r) => r.answer)));
    assert.equal(attempt.httpStatus, 202);
    return fake.accepted.map((request) => JSON.parse(request.body) as PagerDutyEvent);
  }

  it('a down triggers an alert naming the incident, with what failed and a link', async () => {
    const [event, ...rest] = await send(notification([downItem(1, { name: 'Shop front' })]), 'warning');
    assert.equal(rest.length, 0);
    assert.deepEqual(
      [event!.routing_key, event!.event_action, event!.dedup_key],
      [ROUTING_KEY, 'trigger', 'monitoring-api/device-incident-1'],
    );
    assert.equal(event!.payload!.summary, 'Shop front is down: public_https: timeout');
    assert.deepEqual([event!.payload!.source, event!.payload!.severity], ['web1.example.com:443 (web)', 'warning']);
    assert.ok(event!.payload!.custom_details.why.includes('location eu-west: failing (timeout)'));
    assert.deepEqual(event!.links, [{ href: `${PUBLIC_URL}/devices/get?id=1`, text: 'Details' }]);
  });

  it("a heartbeat's down triggers under its incident's dedup_key, and its recovery resolves the same", async () => {
    const events = await send(
      notification([heartbeatDownItem(6, { cause: 'exit_status', exit_status: 3 }), heartbeatUpItem(8)], T5),
    );
    const [trigger, resolve] = events;
    assert.deepEqual(
      [trigger!.event_action, trigger!.dedup_key, resolve!.event_action, resolve!.dedup_key],
      ['trigger', 'monitoring-api/heartbeat-incident-6', 'resolve', 'monitoring-api/heartbeat-incident-8'],
    );
    assert.equal(
      trigger!.payload!.summary,
      'heartbeat 6 (cron 55 9 * * * Europe/Berlin) is down (the job exited with status 3): the job reported exit status 3 at 2026-02-28 09:55 UTC',
    );
    assert.equal(trigger!.payload!.source, 'heartbeat 6 (cron 55 9 * * * Europe/Berlin)');
    assert.deepEqual(trigger!.links, [{ href: `${PUBLIC_URL}/heartbeats/get?id=6`, text: 'Details' }]);
  });

  it('the recovery resolves it and an acknowledgement acknowledges it, under the same dedup_key', async () => {
    const events = await send(
      notification([{ ...downItem(1), reason: 'acknowledgement', incident: incident(1, null, T5) }, upItem(1)], T5),
    );
    assert.deepEqual(
      events.map((e) => [e.event_action, e.dedup_key]),
      [
        ['acknowledge', 'monitoring-api/device-incident-1'],
        ['resolve', 'monitoring-api/device-incident-1'],
      ],
    );
  });

  it('a reminder triggers again under the same dedup_key, which PagerDuty folds into the open alert', async () => {
    const [event] = await send(notification([reminderItem(1)], T125));
    assert.deepEqual([event!.event_action, event!.dedup_key], ['trigger', 'monitoring-api/device-incident-1']);
    assert.equal(event!.payload!.summary, 'web1.example.com:443 (web) is still down: public_https: timeout');
  });

  it('200 devices down: one event each, never grouped, each within the limits', async () => {
    const events = await send(twoHundredDown());
    assert.equal(events.length, 200);
    assert.equal(new Set(events.map((e) => e.dedup_key)).size, 200);
  });

  it('a summary past 1024 characters is cut; a hostile name is sent as the text it is', async () => {
    const [long] = await send(
      notification([downItem(1, { name: 'n'.repeat(100), target_value: `${'a'.repeat(60)}.example.com` })]),
    );
    assert.ok(long!.payload!.summary.length <= 1024);
    fake.accepted.length = 0;
    const [hostile] = await send(notification([downItem(2, { name: HOSTILE_NAME })]));
    assert.ok(hostile!.payload!.summary.startsWith(`${HOSTILE_NAME} is down`));
  });

  it('a test message opens an alert and resolves it at once', async () => {
    const sender = createChannelSender({
      lookup: LOOPBACK,
      allowPrivateTargets: true,
      pagerdutyEventsUrl: `${fake.url('events.pagerduty.example.com')}/v2/enqueue`,
    });
    const result = await sender.test({
      id: 5,
      name: 'On call',
      type: 'pagerduty',
      config: { routing_key: ROUTING_KEY, severity: 'critical' },
    });
    assert.deepEqual([result.delivered, result.http_status, result.error], [true, 202, null]);
    const events = fake.accepted.map((request) => JSON.parse(request.body) as PagerDutyEvent);
    assert.deepEqual(
      events.map((e) => e.event_action),
      ['trigger', 'resolve'],
    );
    assert.equal(events[0]!.dedup_key, events[1]!.dedup_key);
    assert.equal(events[0]!.payload!.severity, 'info');
    assert.equal(sender.email, false);
  });
});
