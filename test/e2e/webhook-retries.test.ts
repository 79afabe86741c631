/**
 * docs/engine.md §6 through the engine: a failed delivery is retried about 30 s later by the
 * engine's clock with the same `webhook-id`, delivered once, and a later event to the same
 * endpoint waits behind it; a webhook whose host resolves to a private address when the engine
 * (without allowPrivateTargets) delivers is refused and shown as failing by `GET /webhooks`.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BlacklistMonitor, WebhookAttempt } from '../../core/index.ts';
import type { DnsblResolver } from '../../engine/index.ts';
import { closedAfterEach, eachStore, verifySigned, type World } from './harness.ts';

const ZONE = 'zone.e2e-dnsbl.net';
const START = '2026-05-01T00:00:00.000Z';
/** The first retry of docs/engine.md §6 ("about 30 s"). */
const FIRST_RETRY_MS = 30_000;

/** Lists every target: each new monitor's first check is a listing, one event apiece. */
const listsEverything: DnsblResolver = { resolve4: async () => ['127.0.0.2'] };

eachStore('webhook retries and refusals through the engine', (opened) => {
  const open = closedAfterEach();

  async function listedMonitor(w: World, target: string): Promise<BlacklistMonitor> {
    const type = /^[0-9.]+$/.test(target) ? 'ip' : 'domain';
    return w.call<BlacklistMonitor>(
      '/blacklist-monitors/create',
      { method: 'POST', body: { target_type: type, target_value: target } },
      201,
    );
  }

  it('500 then 200: retried after 30 s with the same webhook-id, delivered once, the later event waiting behind it', async () => {
    const w = await open.world(opened().store, START);
    const { receiver, webhook } = await w.subscribe();
    let failing = true;
    receiver.answer = () => (failing ? 500 : 200);
    const engine = w.engine({ resolver: listsEverything, dnsblZones: [ZONE] });
    const first = await listedMonitor(w, '192.0.2.1');
    const second = await listedMonitor(w, '192.0.2.2');

    // Both listings are events of one run; the first attempt fails, the second event waits.
    await engine.runOnce();
    const ids = () => receiver.received.map((r) => String(r.headers['webhook-id']));
    assert.equal(receiver.received.length, 1);
    const firstId = ids()[0]!;
    assert.equal(verifySigned(webhook.secret, receiver.received[0]!).data.id, first.id, 'the older event goes first');
    let [hook] = await w.webhooks();
    assert.deepEqual([hook?.last_delivery_status, hook?.last_delivery_at], ['failing', START]);
    assert.deepEqual([hook?.last_delivery_error, hook?.failing_since], ['http_500', START]);

    failing = false;
    w.clock.advance(FIRST_RETRY_MS - 1);
    assert.equal((await engine.runOnce()).claimed, 0);
    assert.equal(receiver.received.length, 1, 'no retry before 30 s, and the later event still waits');

    w.clock.advance(1);
    await engine.runOnce();
    const events = receiver.received.map((r) => verifySigned(webhook.secret, r));
    assert.deepEqual(ids().slice(0, 2), [firstId, firstId], 'the retry carries the same webhook-id');
    assert.deepEqual(
      events.map((e) => e.data.id),
      [first.id, first.id, second.id],
      'then the later event, in order',
    );
    assert.equal(events[0]!.timestamp, events[1]!.timestamp, 'the event time is the same on every attempt');
    assert.notEqual(
      receiver.received[0]!.headers['webhook-timestamp'],
      receiver.received[1]!.headers['webhook-timestamp'],
      'each attempt is signed for its own time',
    );
    [hook] = await w.webhooks();
    assert.deepEqual(
      [hook?.last_delivery_status, hook?.last_delivery_at],
      ['delivered', new Date(w.clock.now()).toISOString()],
    );
    assert.deepEqual([hook?.last_delivery_error, hook?.failing_since], [null, null]);
    // Every attempt, newest first, with its event, number, status and error.
    const attempts = await w.call<WebhookAttempt[]>(`/webhooks/deliveries?id=${webhook.id}`);
    assert.deepEqual(
      attempts.map((a) => [a.event_id, a.event_type, a.attempt, a.http_status, a.error]),
      [
        [Number(ids()[2]), 'blacklist.listed', 1, 200, null],
        [Number(firstId), 'blacklist.listed', 2, 200, null],
        [Number(firstId), 'blacklist.listed', 1, 500, 'http_500'],
      ],
    );
    assert.ok(attempts.every((a) => typeof a.duration_ms === 'number' && a.duration_ms >= 0));
    assert.equal(attempts[2]!.attempted_at, START);
    const page = await w.call<WebhookAttempt[]>(
      `/webhooks/deliveries?id=${webhook.id}&limit=1&before_id=${attempts[0]!.id}`,
    );
    assert.deepEqual(
      page.map((a) => a.id),
      [attempts[1]!.id],
    );

    // Delivered events are not sent again, however long the engine runs.
    w.clock.advance(48 * 3600_000);
    await engine.runOnce();
    assert.equal(receiver.received.length, 3);
    assert.deepEqual(new Set(ids()), new Set([firstId, ids()[2]]));
  });

  it('a webhook host resolving to a private address at delivery time is refused and shown as failing', async () => {
    // The API judges the name (it is public-looking); the engine judges the address it resolves to.
    const w = await open.world(opened().store, START, { allowPrivateTargets: false });
    const { receiver } = await w.subscribe();
    const engine = w.engine({ resolver: listsEverything, dnsblDomainZones: [ZONE], allowPrivateTargets: false });
    // A public-looking domain: the API without allowPrivateTargets takes it.
    const monitor = await listedMonitor(w, 'mail.e2e-monitored.net');
    await engine.runOnce();
    assert.equal((await w.monitor(monitor.id)).last_status, 'listed', 'the event happened');
    // The name resolves to the receiver itself on loopback: without the policy it would arrive.
    assert.equal(receiver.received.length, 0, 'nothing was sent to the private address');
    const [hook] = await w.webhooks();
    assert.deepEqual([hook?.last_delivery_status, hook?.last_delivery_at], ['failing', START]);
    // Retried like any failure (DNS may change), and refused again.
    w.clock.advance(FIRST_RETRY_MS);
    await engine.runOnce();
    assert.equal(receiver.received.length, 0);
    assert.equal(
      (await w.webhooks())[0]?.last_delivery_at,
      new Date(w.clock.now()).toISOString(),
      'a second attempt was made',
    );
  });
});
