/**
 * The NotificationStore contract (core/store/notification-store.ts), on the memory store, SQLite
 * and PostgreSQL alike: fan-out of outbox events to the channels that serve them, claims of a
 * channel with its due notifications, the grouping window, fenced writes, retries, disabling
 * with its `channel.disabled` event, and an incident's escalation and reminders with their drops.
 * PostgreSQL is skipped when unreachable, except under CI=true.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelMessageOutcome, Store } from '../../core/index.ts';
import { availableStores, type OpenedStore } from '../support/stores.ts';
import { newChannel } from '../stores/channels-contract.ts';
import { emitterFor, T0, type Emit } from '../webhooks/support.ts';

const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const SLACK = { webhook_url: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX' };

function claimAt(store: Store, seconds: number, options: { max?: number; owner?: string } = {}) {
  return store.claimChannelMessages({
    owner: options.owner ?? 'w1',
    now: at(seconds),
    limit: 10,
    leaseUntil: at(seconds + 60),
    maxNotifications: options.max ?? 500,
    oneAtATime: ['pagerduty'],
  });
}

function outcome(
  ids: number[],
  seconds: number,
  overrides: Partial<ChannelMessageOutcome> = {},
): ChannelMessageOutcome {
  return {
    notification_ids: ids,
    state: 'delivered',
    attempted_at: at(seconds),
    next_attempt_at: null,
    next_message_at: at(seconds + 10),
    attempt: 1,
    http_status: 200,
    error: null,
    duration_ms: 5,
    disabled_reason: null,
    ...overrides,
  };
}

for (const factory of await availableStores()) {
  describe(`NotificationStore (${factory.name})`, { skip: factory.skip ?? false, concurrency: 1 }, () => {
    let opened: OpenedStore;
    let store: Store;
    let emit: Emit;
    before(async () => {
      opened = await factory.open();
      store = opened.store;
      const emitted = emitterFor(factory.name, opened);
      // The SQL emitter writes its own event ids; PostgreSQL's sequence is moved past them, so the
      // store's own `channel.disabled` events get ids of their own.
      emit = async (...args) => {
        const id = await emitted(...args);
        if (factory.name === 'postgres')
          await opened.execute!(`select setval(pg_get_serial_sequence('events', 'id'), (select max(id) from events))`);
        return id;
      };
    });
    after(() => opened.cleanup());

    const user = async () => (await store.createUser({ name: null, created_at: T0 })).id;
    const slack = (userId: number, overrides: Parameters<typeof newChannel>[0] = {}) =>
      store.createChannel(
        userId,
        newChannel({
          type: 'slack',
          config: SLACK,
          events: ['blacklist.listed', 'channel.disabled'],
          created_at: T0,
          ...overrides,
        }),
      );
    const drain = async () => {
      while ((await store.fanOutNotifications(at(0), 100)) > 0);
    };

    it('fans an event out to the enabled default channels subscribed to it that existed then, once', async () => {
      const [alice, bob] = [await user(), await user()];
      const served = await slack(alice);
      await slack(alice, { is_default: false });
      await slack(alice, { is_enabled: false });
      await slack(alice, { events: ['device.down'] });
      await slack(alice, { created_at: '2100-01-01T00:00:00.000Z' });
      await slack(bob);
      const eventId = await emit(alice, 'blacklist.listed', at(1));
      await drain();
      assert.equal(await store.fanOutNotifications(at(0), 100), 0, 'each event is fanned out once');
      const claimed = await claimAt(store, 2);
      assert.deepEqual(
        claimed.map((c) => [c.channel.id, c.notifications.map((n) => [n.event.id, n.event.type, n.attempts])]),
        [[served.id, [[eventId, 'blacklist.listed', 0]]]],
      );
      assert.deepEqual(claimed[0]!.channel.config, SLACK, 'the config whole, to send with');
      assert.equal(
        await store.recordChannelMessage(claimed[0]!.lease, outcome([claimed[0]!.notifications[0]!.id], 3)),
        true,
      );
    });

    it('leases a channel with all its due notifications, holds it, and keeps its grouping window', async () => {
      const alice = await user();
      const channel = await slack(alice);
      const events = [await emit(alice, 'blacklist.listed', at(1)), await emit(alice, 'blacklist.listed', at(1))];
      await drain();
      const [first] = await claimAt(store, 5, { max: 1 });
      assert.ok(first);
      assert.deepEqual(
        first.notifications.map((n) => n.event.id),
        [events[0]],
        'at most max, oldest first',
      );
      assert.deepEqual(await claimAt(store, 6, { owner: 'w2' }), [], 'a leased channel is not claimed again');
      assert.equal(await store.recordChannelMessage({ ...first.lease, token: 'not-mine' }, outcome([], 7)), false);
      assert.equal(await store.recordChannelMessage(first.lease, outcome([first.notifications[0]!.id], 7)), true);
      assert.equal(await store.recordChannelMessage(first.lease, outcome([first.notifications[0]!.id], 7)), false);
      assert.deepEqual(await claimAt(store, 16), [], 'nothing before the window ends');
      const [second] = await claimAt(store, 17);
      assert.deepEqual(
        second?.notifications.map((n) => n.event.id),
        [events[1]],
      );
      assert.equal(await store.recordChannelMessage(second.lease, outcome([second.notifications[0]!.id], 18)), true);
      const attempts = await store.listChannelAttempts(alice, channel.id, { limit: 10 });
      assert.deepEqual(
        attempts?.map((a) => [a.event_ids, a.event_types, a.error]),
        [
          [[events[1]], ['blacklist.listed'], null],
          [[events[0]], ['blacklist.listed'], null],
        ],
      );
    });

    it('retries at next_attempt_at, counting attempts, and a lease that ran out is claimed again', async () => {
      const alice = await user();
      const channel = await slack(alice);
      await emit(alice, 'blacklist.listed', at(1));
      await drain();
      const [first] = await claimAt(store, 2);
      assert.ok(first);
      assert.deepEqual(await claimAt(store, 61), [], 'the lease holds until it runs out');
      const [again] = await claimAt(store, 62, { owner: 'w2' });
      assert.ok(again, 'an expired lease is claimed again');
      const ids = again.notifications.map((n) => n.id);
      const retry = outcome(ids, 63, {
        state: 'pending',
        next_attempt_at: at(120),
        next_message_at: null,
        http_status: 429,
        error: 'http_429',
      });
      assert.equal(await store.recordChannelMessage(first.lease, retry), false, 'the old lease is fenced');
      assert.equal(await store.recordChannelMessage(again.lease, retry), true);
      assert.deepEqual(await claimAt(store, 119), []);
      const [third] = await claimAt(store, 120);
      assert.deepEqual(
        third?.notifications.map((n) => n.attempts),
        [1],
      );
      const got = await store.getChannel(alice, channel.id);
      assert.equal(got?.last_delivery_status, 'failing');
      assert.equal(got?.last_delivery_error, 'http_429');
      assert.equal(got?.failing_since, at(63));
      assert.equal(await store.recordChannelMessage(third.lease, outcome(ids, 121, { attempt: 2 })), true);
    });

    it('queues an opening event as its escalation and reminders, each due on time; a drop is fenced by the lease', async () => {
      const alice = await user();
      const channel = await slack(alice, { events: ['device.down'], escalate_after_s: 60, remind_every_s: 300 });
      await emit(alice, 'device.down', at(1));
      await drain();
      // Other tests' channels may still have notifications due: only this channel's are looked at.
      const claim = async (seconds: number) =>
        (await claimAt(store, seconds)).filter((c) => c.channel.id === channel.id);
      assert.deepEqual(await claim(60), [], 'the escalation is due 60 s after the incident opened');
      const [escalation] = await claim(61);
      assert.deepEqual(
        escalation?.notifications.map((n) => [n.reason, n.event.type]),
        [['escalation', 'device.down']],
      );
      const eventId = escalation.notifications[0]!.event.id;
      assert.equal(
        await store.recordChannelMessage(escalation.lease, outcome([escalation.notifications[0]!.id], 62)),
        true,
      );
      assert.deepEqual(await claim(360), [], 'the first reminder is due 300 s after the escalation');
      // Sent 750 s late: the next falls on the first period boundary after it, not three at once.
      const [late] = await claim(1111);
      assert.deepEqual(
        late?.notifications.map((n) => [n.reason, n.event.id]),
        [['reminder', eventId]],
      );
      const lateIds = late.notifications.map((n) => n.id);
      assert.equal(await store.dropChannelNotifications({ ...late.lease, token: 'not-mine' }, lateIds, true), false);
      assert.equal(await store.recordChannelMessage(late.lease, outcome(lateIds, 1112)), true);
      assert.deepEqual(await claim(1260), []);
      const [next] = await claim(1261);
      assert.deepEqual(
        next?.notifications.map((n) => n.reason),
        ['reminder'],
      );
      assert.equal(
        await store.dropChannelNotifications(
          next.lease,
          next.notifications.map((n) => n.id),
          true,
        ),
        true,
      );
      assert.deepEqual(await claim(9999), [], 'a dropped reminder ends the chain');
      const attempts = await store.listChannelAttempts(alice, channel.id, { limit: 10 });
      assert.deepEqual(
        attempts?.map((a) => [a.kind, a.event_ids]),
        [
          ['reminder', [eventId]],
          ['events', [eventId]],
        ],
      );
    });

    it('disabling writes is_enabled false, disabled_reason and a channel.disabled event other channels hear of', async () => {
      const alice = await user();
      const gone = await slack(alice, { name: 'gone' });
      const other = await slack(alice, { name: 'other', is_default: false });
      await emit(alice, 'blacklist.listed', at(1));
      await drain();
      const [claimed] = await claimAt(store, 2);
      assert.equal(claimed?.channel.id, gone.id);
      const ids = claimed.notifications.map((n) => n.id);
      const disabled = outcome(ids, 3, {
        state: 'disabled',
        http_status: 404,
        error: 'http_404',
        disabled_reason: 'http_404',
      });
      assert.equal(await store.recordChannelMessage(claimed.lease, disabled), true);
      const after = await store.getChannel(alice, gone.id);
      assert.equal(after?.is_enabled, false);
      assert.equal(after?.disabled_reason, 'http_404');
      await drain();
      const heard = await claimAt(store, 20);
      assert.deepEqual(
        heard.map((c) => [c.channel.id, c.notifications.map((n) => n.event.type)]),
        [[other.id, ['channel.disabled']]],
        'the disabled channel gets nothing more; the other hears of it',
      );
      const data = heard[0]!.notifications[0]!.event.data as { id: number; config: { webhook_url: string } };
      assert.equal(data.id, gone.id);
      assert.notEqual(data.config.webhook_url, SLACK.webhook_url, 'the secret URL is masked in the event');
    });
  });
}
