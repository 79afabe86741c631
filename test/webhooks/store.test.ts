/**
 * The WebhookStore contract, on the memory store, SQLite and PostgreSQL alike: the resource,
 * fan-out of outbox events into deliveries, claims in event order per endpoint, leases and
 * fenced writes. PostgreSQL is skipped when unreachable, except under CI=true where it fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../core/index.ts';
import type { DeliveryOutcome } from '../../core/store/webhook-store.ts';
import { availableStores, type OpenedStore } from '../support/stores.ts';
import { createdWebhookId, emitterFor, T0, type Emit } from './support.ts';
import { newWebhook, SECRET } from '../support/records.ts';

const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const ALL = { afterId: 0, limit: 1000 };

function claimAt(store: Store, seconds: number, limit = 10, owner = 'w1') {
  return store.claimDeliveries({ owner, now: at(seconds), limit, leaseUntil: at(seconds + 60) });
}

const delivered = (seconds: number): DeliveryOutcome => ({
  attempted_at: at(seconds),
  state: 'delivered',
  next_attempt_at: null,
  response_status: 204,
  error: null,
  duration_ms: 3,
});
const retryAt = (seconds: number, next: number): DeliveryOutcome => ({
  attempted_at: at(seconds),
  state: 'pending',
  next_attempt_at: at(next),
  response_status: 500,
  error: 'http_500',
  duration_ms: 7,
});

for (const factory of await availableStores()) {
  describe(`WebhookStore (${factory.name})`, { skip: factory.skip ?? false, concurrency: 1 }, () => {
    let opened: OpenedStore;
    let store: Store;
    let emit: Emit;
    before(async () => {
      opened = await factory.open();
      store = opened.store;
      emit = emitterFor(factory.name, opened);
    });
    after(() => opened.cleanup());

    const user = async () => (await store.createUser({ name: null, created_at: T0 })).id;

    it('creates, lists without the secret, refuses duplicates with the existing id, deletes by owner only', async () => {
      const [a, b] = [await user(), await user()];
      const first = await store.createWebhook(
        a,
        newWebhook('https://hooks.example.com/a', { events: ['device.down'] }),
      );
      assert.ok('created' in first);
      assert.equal(first.created.secret.startsWith('whsec_'), true);
      assert.deepEqual(first.created.events, ['device.down']);
      assert.deepEqual(await store.createWebhook(a, newWebhook('https://hooks.example.com/a')), {
        duplicateOf: first.created.id,
      });
      const other = await store.createWebhook(b, newWebhook('https://hooks.example.com/a'));
      assert.ok('created' in other, 'the same url for another user is no duplicate');
      const listed = await store.listWebhooks(a, ALL);
      assert.deepEqual(listed, [
        {
          id: first.created.id,
          url: 'https://hooks.example.com/a',
          events: ['device.down'],
          is_enabled: true,
          created_at: T0,
          last_delivery_at: null,
          last_delivery_status: null,
          last_delivery_error: null,
          failing_since: null,
        },
      ]);
      assert.equal(await store.deleteWebhook(b, first.created.id), false);
      assert.equal(await store.deleteWebhook(a, first.created.id), true);
      assert.equal(await store.deleteWebhook(a, first.created.id), false);
      assert.deepEqual(await store.listWebhooks(a, ALL), []);
    });

    it('pages by id', async () => {
      const u = await user();
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await createdWebhookId(store, u, newWebhook(`https://h${i}.example.com/`)));
      assert.deepEqual(
        (await store.listWebhooks(u, { afterId: ids[1]!, limit: 2 })).map((w) => w.id),
        ids.slice(2, 4),
      );
    });

    it('fans each event out once, to the enabled, subscribed webhooks of its user that existed then', async () => {
      const [u, v] = [await user(), await user()];
      const all = await createdWebhookId(store, u, newWebhook('https://all.example.com/'));
      await createdWebhookId(store, u, newWebhook('https://up-only.example.com/', { events: ['device.up'] }));
      await createdWebhookId(store, u, newWebhook('https://off.example.com/', { is_enabled: false }));
      await createdWebhookId(store, u, newWebhook('https://later.example.com/', { created_at: at(100) }));
      await createdWebhookId(store, v, newWebhook('https://other-user.example.com/'));
      const event = await emit(u, 'blacklist.listed', at(10));
      assert.ok((await store.fanOutEvents(at(20), 100)) >= 1);
      assert.equal(await store.fanOutEvents(at(21), 100), 0, 'nothing is fanned out twice');
      const claimed = await claimAt(store, 20);
      assert.deepEqual(
        claimed.map((c) => [c.webhook.id, c.event.id, c.event.type, c.attempts]),
        [[all, event, 'blacklist.listed', 0]],
      );
      assert.equal(claimed[0]!.webhook.secret.startsWith('whsec_'), true);
      assert.equal(claimed[0]!.event.data.status, 'listed');
      assert.equal(await store.recordDeliveryAttempt(claimed[0]!.lease, delivered(21)), true);
    });

    it('claims only the oldest pending delivery of an endpoint, and only when it is due', async () => {
      const u = await user();
      const hook = await createdWebhookId(store, u, newWebhook('https://order.example.com/'));
      const first = await emit(u, 'blacklist.listed', at(1));
      const second = await emit(u, 'blacklist.delisted', at(2));
      await store.fanOutEvents(at(3), 100);
      const [one, ...rest] = await claimAt(store, 3);
      assert.deepEqual([one?.event.id, rest.length], [first, 0], 'the later event waits for the earlier one');
      assert.deepEqual(await claimAt(store, 4), [], 'a leased delivery is not claimed again, nor the one behind it');
      assert.equal(await store.recordDeliveryAttempt(one!.lease, retryAt(5, 35)), true);
      assert.deepEqual(await claimAt(store, 34), [], 'the retry is not due yet, and the next event still waits');
      const [again] = await claimAt(store, 35);
      assert.deepEqual([again?.event.id, again?.attempts], [first, 1]);
      assert.equal(await store.recordDeliveryAttempt(again!.lease, delivered(36)), true);
      const [next] = await claimAt(store, 36);
      assert.equal(next?.event.id, second);
      assert.equal(
        await store.recordDeliveryAttempt(next!.lease, { ...retryAt(37, 0), state: 'failed', next_attempt_at: null }),
        true,
      );
      assert.deepEqual(await claimAt(store, 10_000), [], 'a given-up delivery is never claimed again');
      const [listed] = (await store.listWebhooks(u, ALL)).filter((w) => w.id === hook);
      assert.deepEqual([listed?.last_delivery_at, listed?.last_delivery_status], [at(37), 'failing']);
      assert.deepEqual([listed?.last_delivery_error, listed?.failing_since], ['http_500', at(37)]);
    });

    it('keeps every attempt, newest first, paged below an id, to the owner only; failing_since spans a run of failures', async () => {
      const [u, stranger] = [await user(), await user()];
      const hook = await createdWebhookId(store, u, newWebhook('https://attempts.example.com/'));
      const event = await emit(u, 'device.down', at(1));
      await store.fanOutEvents(at(1), 100);
      const [first] = await claimAt(store, 1);
      assert.equal(await store.recordDeliveryAttempt(first!.lease, retryAt(2, 10)), true);
      const [second] = await claimAt(store, 10);
      assert.equal(
        await store.recordDeliveryAttempt(second!.lease, {
          ...retryAt(11, 20),
          response_status: null,
          error: 'ECONNREFUSED',
        }),
        true,
      );
      let [listed] = (await store.listWebhooks(u, ALL)).filter((w) => w.id === hook);
      assert.deepEqual(
        [listed?.last_delivery_status, listed?.last_delivery_error, listed?.failing_since],
        ['failing', 'ECONNREFUSED', at(2)],
        'failing since the first failure of the run',
      );
      const [third] = await claimAt(store, 20);
      assert.equal(await store.recordDeliveryAttempt(third!.lease, delivered(21)), true);
      [listed] = (await store.listWebhooks(u, ALL)).filter((w) => w.id === hook);
      assert.deepEqual(
        [listed?.last_delivery_status, listed?.last_delivery_error, listed?.failing_since],
        ['delivered', null, null],
      );

      const attempts = await store.listWebhookAttempts(u, hook, { limit: 10 });
      assert.deepEqual(
        attempts?.map(({ id: _id, ...rest }) => rest),
        [
          {
            event_id: event,
            event_type: 'device.down',
            attempt: 3,
            attempted_at: at(21),
            http_status: 204,
            error: null,
            duration_ms: 3,
          },
          {
            event_id: event,
            event_type: 'device.down',
            attempt: 2,
            attempted_at: at(11),
            http_status: null,
            error: 'ECONNREFUSED',
            duration_ms: 7,
          },
          {
            event_id: event,
            event_type: 'device.down',
            attempt: 1,
            attempted_at: at(2),
            http_status: 500,
            error: 'http_500',
            duration_ms: 7,
          },
        ],
      );
      const ids = attempts!.map((a) => a.id);
      assert.deepEqual(
        [...ids].sort((x, y) => y - x),
        ids,
        'newest first',
      );
      assert.deepEqual(
        (await store.listWebhookAttempts(u, hook, { limit: 1, beforeId: ids[0]! }))?.map((a) => a.id),
        [ids[1]],
      );
      assert.equal(await store.listWebhookAttempts(stranger, hook, { limit: 10 }), undefined);
      assert.equal(await store.listWebhookAttempts(u, hook + 1000, { limit: 10 }), undefined);
      assert.deepEqual(await store.webhookWithSecret(u, hook), {
        id: hook,
        url: 'https://attempts.example.com/',
        secret: SECRET,
      });
      assert.equal(await store.webhookWithSecret(stranger, hook), undefined);
    });

    it('fences writes by the lease: an expired lease, claimed again, cannot be written', async () => {
      const u = await user();
      await createdWebhookId(store, u, newWebhook('https://fence.example.com/'));
      await emit(u, 'device.down', at(1));
      await store.fanOutEvents(at(1), 100);
      const [old] = await claimAt(store, 1, 10, 'slow');
      assert.ok(old);
      const [fresh] = await claimAt(store, 62, 10, 'fast');
      assert.equal(fresh?.lease.id, old.lease.id, 'the lease ran out, so the delivery is claimable again');
      assert.equal(await store.recordDeliveryAttempt(old.lease, delivered(63)), false);
      assert.equal(await store.recordDeliveryAttempt(fresh!.lease, delivered(64)), true);
      assert.equal(await store.recordDeliveryAttempt(fresh!.lease, delivered(65)), false, 'a lease is written once');
    });

    it('never hands one delivery to two concurrent claims', async () => {
      const u = await user();
      for (let i = 0; i < 6; i++) await createdWebhookId(store, u, newWebhook(`https://race${i}.example.com/`));
      await emit(u, 'device.up', at(1));
      await Promise.all([store.fanOutEvents(at(1), 100), store.fanOutEvents(at(1), 100)]);
      const claims = await Promise.all([
        claimAt(store, 2, 4, 'a'),
        claimAt(store, 2, 4, 'b'),
        claimAt(store, 2, 4, 'c'),
      ]);
      const ids = claims.flat().map((c) => c.lease.id);
      assert.equal(ids.length, 6, 'six endpoints, one delivery each');
      assert.equal(new Set(ids).size, 6);
    });

    it('fans out in batches, and the floor passes no event that is not fanned out yet', async () => {
      const u = await user();
      const hook = await createdWebhookId(store, u, newWebhook('https://batches.example.com/'));
      const events = [
        await emit(u, 'device.down', at(1)),
        await emit(u, 'device.up', at(2)),
        await emit(u, 'device.down', at(3)),
      ];
      assert.equal(await store.fanOutEvents(at(4), 1), 1);
      // Hours later (past the floor's lag) the rest must still come out, one batch at a time.
      assert.equal(await store.fanOutEvents(at(4 + 7200), 1), 1);
      assert.equal(await store.fanOutEvents(at(4 + 3 * 7200), 5), 1);
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) {
        const [c] = (await claimAt(store, 5 + 3 * 7200)).filter((x) => x.webhook.id === hook);
        assert.ok(c, `delivery ${i + 1} of 3`);
        seen.push(c.event.id);
        assert.equal(await store.recordDeliveryAttempt(c.lease, delivered(6 + 3 * 7200)), true);
      }
      assert.deepEqual(seen, events);
    });

    if (factory.name !== 'memory') {
      it('fans out an event whose transaction committed after a later event was fanned out', async () => {
        const u = await user();
        const hook = await createdWebhookId(store, u, newWebhook('https://late.example.com/'));
        const data = `'{"status":"down","previous_status":"up"}'`;
        const insert = (id: number) =>
          opened.execute!(`insert into events (id, user_id, type, resource_kind, resource_id, created_at, data)
          values (${id}, ${u}, 'device.down', 'device', 1, '${at(1)}', ${data})`);
        await insert(5001);
        await store.fanOutEvents(at(2), 100);
        await insert(5000);
        assert.equal(await store.fanOutEvents(at(3), 100), 1);
        const ids = (await claimAt(store, 4)).filter((c) => c.webhook.id === hook).map((c) => c.event.id);
        assert.deepEqual(ids, [5000], 'and in id order: the earlier id goes first');
      });
    }

    it('deleting a webhook drops its deliveries', async () => {
      const u = await user();
      const hook = await createdWebhookId(store, u, newWebhook('https://gone.example.com/'));
      await emit(u, 'device.down', at(1));
      await store.fanOutEvents(at(1), 100);
      assert.equal(await store.deleteWebhook(u, hook), true);
      assert.deepEqual(
        (await claimAt(store, 2)).filter((c) => c.webhook.id === hook),
        [],
      );
    });
  });
}
