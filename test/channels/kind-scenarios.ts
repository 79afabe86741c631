/**
 * The messages every grouping chat kind must get right, run against that kind's fake service
 * (test/support/fakes/), which refuses what the real service refuses: one event, a group of 200
 * (listing 20), a recovery, a reminder, a down and its recovery together, a listing, a heartbeat
 * late or failing and back, and a name or ping body full of markup that must arrive as the text it
 * is.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChannelConfig, ChannelType, Notification } from '../../core/internal.ts';
import type { ChannelDelivery } from '../../engine/channels/channel-delivery.ts';
import type { ChannelSenderOptions } from '../../engine/channels/channel-sender.ts';
import type { FakeRequest, FakeService } from '../support/fakes/fake-service.ts';
import {
  downItem,
  event,
  heartbeatDownItem,
  heartbeatUpItem,
  HOSTILE_NAME,
  incident,
  listedMonitor,
  notification,
  reminderItem,
  T125,
  T5,
  testDelivery,
  twoHundredDown,
  upItem,
} from './message-fixtures.ts';

export const PUBLIC_URL = 'https://monitoring.example.com/v1';

export interface KindUnderTest {
  type: ChannelType;
  start(): Promise<FakeService>;
  config(fake: FakeService): ChannelConfig;
  options?(fake: FakeService): ChannelSenderOptions;
  /** The message as a person reads it: markup gone, escapes undone. */
  read(request: FakeRequest): string;
  /** What the raw request must not hold for the hostile name (markup that would work). */
  raw?(request: FakeRequest): void;
}

export function kindScenarios(kind: KindUnderTest): {
  fake: () => FakeService;
  send: (n: Notification) => Promise<string>;
} {
  let fake: FakeService;
  let delivery: ChannelDelivery;
  beforeEach(async () => {
    fake = await kind.start();
    delivery = testDelivery({ publicUrl: PUBLIC_URL, ...kind.options?.(fake) });
  });
  afterEach(async () => {
    delivery.close();
    await fake.close();
  });

  /** Delivers `n`, which the fake must take as one message, and answers the message as read. */
  async function send(n: Notification): Promise<string> {
    const attempt = await delivery.deliver({ type: kind.type, config: kind.config(fake) }, n);
    assert.deepEqual(
      attempt.verdict,
      { outcome: 'delivered' },
      `refused: ${JSON.stringify(fake.refused.map((r) => r.answer))}`,
    );
    assert.equal(fake.accepted.length, 1, 'one message');
    return kind.read(fake.accepted[0]!);
  }

  describe(`${kind.type} messages`, () => {
    it('one event: its name, what happened and why, since when, and a link', async () => {
      const text = await send(notification([downItem(1, { name: 'Shop front' })]));
      for (const part of [
        'Shop front is down',
        'public_https: timeout',
        'quorum: 2 of 3 locations',
        'location eu-west: failing (timeout)',
        'location ap-south: up',
        'since 2026-03-01 10:00 UTC',
        `${PUBLIC_URL}/devices/get?id=1`,
      ]) {
        assert.ok(text.includes(part), `"${part}" in:\n${text}`);
      }
    });

    it('a record without a name is named by its target, port and service', async () => {
      const text = await send(notification([downItem(7)]));
      assert.ok(text.includes('web7.example.com:443 (web) is down'), text);
    });

    it('200 devices down together: one message, listing 20 and "… and 180 more", within the limits', async () => {
      const text = await send(twoHundredDown());
      assert.ok(text.includes('200 devices down'), text);
      for (let i = 1; i <= 20; i += 1) assert.ok(text.includes(`web${i}.example.com:443`), `web${i} listed`);
      assert.ok(!text.includes('web21.example.com'), 'the 21st is not listed');
      assert.ok(text.includes('… and 180 more'), text);
    });

    it('a recovery says how long the incident lasted', async () => {
      const text = await send(notification([upItem(1)], T5));
      assert.ok(text.includes('web1.example.com:443 (web) is up again after 5 min down'), text);
      assert.ok(text.includes('down from 2026-03-01 10:00 UTC to 2026-03-01 10:05 UTC'), text);
    });

    it('a reminder says "still down" and for how long', async () => {
      const text = await send(notification([reminderItem(1)], T125));
      assert.ok(text.includes('web1.example.com:443 (web) is still down'), text);
      assert.ok(text.includes('for 2 h 5 min'), text);
    });

    it('a down and its recovery in one message say both', async () => {
      const text = await send(notification([downItem(1), downItem(2), upItem(1)], T5));
      assert.ok(text.includes('web1.example.com:443 (web) was down for 5 min and is up again'), text);
      assert.ok(text.includes('web2.example.com:443 (web) is down'), text);
    });

    it('a listing names the zone, what it means and where to ask for removal', async () => {
      const monitor = listedMonitor(3);
      const text = await send(
        notification([{ reason: 'event', event: event(9, 'blacklist.listed', monitor), incident: incident(4) }]),
      );
      assert.ok(text.includes('192.0.2.10 is listed on 1 of its blacklists'), text);
      assert.ok(text.includes('zen.spamhaus.org answers 127.0.0.2: Spamhaus SBL: a known spam source'), text);
      assert.ok(text.includes('https://check.spamhaus.org/listed/?searchterm=192.0.2.10'), text);
    });

    it('a late heartbeat: its name, the deadline it missed, its last ping, since when, and a link', async () => {
      const text = await send(notification([heartbeatDownItem(5, { name: 'Nightly backup' })]));
      for (const part of [
        'Nightly backup is down (no ping by its deadline)',
        'expected cron 55 9 * * * Europe/Berlin with 5 min of grace; nothing by 2026-03-01 10:00 UTC',
        'last ping at 2026-02-28 09:55 UTC',
        'since 2026-03-01 10:00 UTC',
        `${PUBLIC_URL}/heartbeats/get?id=5`,
      ]) {
        assert.ok(text.includes(part), `"${part}" in:\n${text}`);
      }
    });

    it('a failed heartbeat without a name: its id and schedule, the exit status, the body as text', async () => {
      const body = `${HOSTILE_NAME}\n${'disk full; '.repeat(90)}`.slice(0, 1000);
      const text = await send(
        notification([heartbeatDownItem(6, { cause: 'exit_status', exit_status: 3, last_ping_body: body })]),
      );
      for (const part of [
        'heartbeat 6 (cron 55 9 * * * Europe/Berlin) is down (the job exited with status 3)',
        'the job reported exit status 3 at 2026-02-28 09:55 UTC',
        `last ping's body: ${HOSTILE_NAME} disk full;`,
      ]) {
        assert.ok(text.includes(part), `"${part}" in:\n${text}`);
      }
      kind.raw?.(fake.accepted[0]!);
    });

    it('a heartbeat that runs too long, and a recovery that says how long it was down', async () => {
      const long = await send(notification([heartbeatDownItem(7, { cause: 'ran_too_long', max_runtime_s: 3600 })]));
      assert.ok(long.includes('is down (its run did not end in time)'), long);
      assert.ok(long.includes('did not end within 1 h, by 2026-03-01 10:00 UTC'), long);
      fake.accepted.length = 0;
      const up = await send(notification([heartbeatUpItem(7, { period_s: 3600, schedule: null })], T5));
      assert.ok(up.includes('heartbeat 7 (every 1 h) is up again after 5 min down'), up);
    });

    it('25 heartbeats down with 1,000-character bodies: one message within the limits, listing 20', async () => {
      const body = `<b>&amp;</b> *x* ${'ü'.repeat(1000)}`.slice(0, 1000);
      const items = Array.from({ length: 25 }, (_, i) =>
        heartbeatDownItem(i + 1, { name: `job ${i + 1}`, cause: 'failed', last_ping_body: body }),
      );
      const text = await send(notification(items));
      assert.ok(text.includes('25 heartbeats down'), text);
      assert.ok(text.includes('job 1 is down (the job reported a failure)'), text);
      assert.ok(!text.includes('job 21 '), 'the 21st is not listed');
      assert.ok(text.includes('… and 5 more'), text);
    });

    it('a name made of HTML, markdown and mentions arrives as the text it is', async () => {
      const text = await send(notification([downItem(1, { name: HOSTILE_NAME })]));
      assert.ok(text.includes(`${HOSTILE_NAME} is down`), text);
      kind.raw?.(fake.accepted[0]!);
    });
  });

  return { fake: () => fake, send };
}
