/**
 * Delivery end to end: the dispatcher over a memory store, POSTing through the test connector to
 * real HTTP receivers on 127.0.0.1, signatures checked by the independent `standardwebhooks`
 * package. Time is a ManualClock; no test waits for a retry in real time.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import { ManualClock, MemoryStore, type Store } from '../../core/index.ts';
import {
  createWebhookDispatcher,
  RETRY_DELAYS_MS,
  type WebhookDispatcherOptions,
} from '../../engine/webhooks/index.ts';
import type { OpenedStore } from '../support/stores.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { waitFor } from '../support/wait-for.ts';
import { contextTrusting } from '../../engine/net/trusted-context.ts';
import { FIXTURE_NAME } from '../support/probe-devices.ts';
import { startHttpsServer, TEST_CA } from '../support/probe-servers.ts';
import { createTestConnector } from '../support/webhook-connector.ts';
import { createdWebhookId, emitterFor, startReceiver, type Emit, type Receiver } from './support.ts';
import { newWebhook, SECRET } from '../support/records.ts';

const LOOPBACK = async () => ['127.0.0.1'];

describe('webhook delivery', () => {
  let store: Store;
  let emit: Emit;
  let clock: ManualClock;
  let receivers: Receiver[];
  let userId: number;
  const warnings: string[] = [];

  beforeEach(async () => {
    store = new MemoryStore();
    emit = emitterFor('memory', { store, cleanup: async () => {} } satisfies OpenedStore);
    // The real time, so that standardwebhooks' 5-minute replay window accepts the first attempts.
    clock = new ManualClock(Date.now());
    receivers = [];
    warnings.length = 0;
    userId = (await store.createUser({ name: null, created_at: new Date(0).toISOString() })).id;
  });
  afterEach(async () => {
    for (const r of receivers) await r.close();
  });

  async function endpoint(path = '/hook'): Promise<{ receiver: Receiver; id: number }> {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const id = await createdWebhookId(
      store,
      userId,
      newWebhook(`http://hooks${receivers.length}.example.com:${receiver.port}${path}`, {
        created_at: new Date(0).toISOString(),
      }),
    );
    return { receiver, id };
  }

  function dispatcher(options: Partial<WebhookDispatcherOptions> = {}) {
    return createWebhookDispatcher({
      store,
      clock,
      connector: createTestConnector({ lookup: LOOPBACK, allowPrivateTargets: true }),
      logger: { warn: (m) => warnings.push(m), error: (m, e) => warnings.push(`${m}: ${String(e)}`) },
      // No delivery here waits it out, except where a test sets its own.
      requestTimeoutMs: 30_000,
      ...options,
    });
  }

  const now = () => new Date(clock.now()).toISOString();

  it('POSTs the Standard Webhooks request, which standardwebhooks verifies', async () => {
    const { receiver, id } = await endpoint('/hook?src=monitoring');
    const eventId = await emit(userId, 'blacklist.listed', now());
    await dispatcher().runOnce();
    assert.equal(receiver.received.length, 1);
    const [request] = receiver.received;
    assert.equal(request!.path, '/hook?src=monitoring');
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.equal(request!.headers['webhook-id'], String(eventId));
    assert.equal(request!.headers['webhook-timestamp'], String(Math.floor(clock.now() / 1000)));
    const headers = {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    };
    const payload = new Verifier(SECRET).verify(request!.body, headers) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    assert.deepEqual(Object.keys(payload), ['type', 'timestamp', 'data']);
    assert.equal(payload.type, 'blacklist.listed');
    assert.equal(payload.timestamp, now());
    assert.deepEqual(
      [payload.data.previous_status, payload.data.status, payload.data.listed_on],
      ['clean', 'listed', ['zen.spamhaus.org']],
    );
    assert.throws(
      () => new Verifier(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(request!.body, headers),
      'another secret fails',
    );
    const [listed] = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
    assert.deepEqual([listed?.id, listed?.last_delivery_status, listed?.last_delivery_at], [id, 'delivered', now()]);
    await dispatcher().runOnce();
    assert.equal(receiver.received.length, 1, 'a delivered event is not sent again');
  });

  it('retries with backoff (30 s, 2 min, 10 min, 1 h, 6 h, 24 h) with the same webhook-id, then gives up', async () => {
    const { receiver } = await endpoint();
    receiver.answer = () => 503;
    const eventId = await emit(userId, 'device.down', now());
    const d = dispatcher();
    await d.runOnce();
    assert.equal(receiver.received.length, 1);
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      clock.advance(delay - 1);
      await d.runOnce();
      assert.equal(receiver.received.length, i + 1, `retry ${i + 1} is not made before ${delay} ms`);
      clock.advance(1);
      await d.runOnce();
      assert.equal(receiver.received.length, i + 2, `retry ${i + 1} is made after ${delay} ms`);
    }
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    assert.deepEqual([...ids], [String(eventId)]);
    // Each attempt is signed for its own time; the signature is what standardwebhooks computes.
    const last = receiver.received.at(-1)!;
    const expected = new Verifier(SECRET).sign(
      String(eventId),
      new Date(Number(last.headers['webhook-timestamp']) * 1000),
      last.body,
    );
    assert.equal(last.headers['webhook-signature'], expected);
    assert.equal(last.headers['webhook-timestamp'], String(Math.floor(clock.now() / 1000)));
    assert.match(warnings.join('\n'), /gave up delivering event .* after 7 attempts; last error http_503/);
    // Seven failed attempts, one outage: one line when it started, one when it was given up.
    assert.equal(warnings.filter((w) => /delivery failed \(http_503\)/.test(w)).length, 1, warnings.join('\n'));
    clock.advance(365 * 24 * 3600_000);
    await d.runOnce();
    assert.equal(receiver.received.length, 7, 'nothing after giving up');
    const [listed] = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
    assert.equal(listed?.last_delivery_status, 'failing');
  });

  it('delivers in event order per endpoint: a later event waits while an earlier one is retried', async () => {
    const { receiver } = await endpoint();
    let failFirst = true;
    receiver.answer = () => (failFirst ? 500 : 200);
    const first = await emit(userId, 'blacklist.listed', now());
    const second = await emit(userId, 'blacklist.delisted', now());
    const d = dispatcher();
    await d.runOnce();
    assert.deepEqual(
      receiver.received.map((r) => r.headers['webhook-id']),
      [String(first)],
    );
    const [listed] = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
    assert.equal(listed?.last_delivery_status, 'failing');
    failFirst = false;
    clock.advance(RETRY_DELAYS_MS[0]!);
    await d.runOnce();
    assert.deepEqual(
      receiver.received.map((r) => r.headers['webhook-id']),
      [String(first), String(first), String(second)],
    );
  });

  it('refuses a webhook host that resolves to a private address, and counts it as failing', async () => {
    const { receiver } = await endpoint();
    await emit(userId, 'device.down', now());
    // The name resolves to the receiver itself, on loopback: were the policy not applied, the
    // request would arrive (and nothing here ever reaches past this machine).
    await dispatcher({ connector: createTestConnector({ lookup: LOOPBACK }) }).runOnce();
    assert.equal(receiver.received.length, 0, 'nothing reached the endpoint');
    const [listed] = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
    assert.equal(listed?.last_delivery_status, 'failing');
  });

  it('a slow endpoint holds no other endpoint back', { timeout: HANG_GUARD_MS }, async () => {
    const slow = await endpoint();
    const fast = await endpoint();
    // The slow endpoint answers only once the fast one has had both events: were the fast one held
    // back behind it, neither would ever answer, and the test would hang into its guard. The
    // request timeout is the hang guard too, so nothing but the answers ends the round.
    slow.receiver.answer = async () => {
      await waitFor('both events to reach the fast endpoint', () => fast.receiver.received.length === 2, 5);
      return 200;
    };
    await emit(userId, 'device.down', now());
    await emit(userId, 'device.up', now());
    await dispatcher({ requestTimeoutMs: HANG_GUARD_MS, concurrency: 2 }).runOnce();
    assert.equal(fast.receiver.received.length, 2, 'both events reached the fast endpoint');
    assert.equal(slow.receiver.received.length, 2, 'and the slow one');
    const hooks = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
    assert.deepEqual(
      hooks.map((h) => h.last_delivery_status),
      ['delivered', 'delivered'],
    );
  });

  it(
    'an endpoint that never answers costs one request timeout and counts as failing',
    { timeout: HANG_GUARD_MS },
    async () => {
      const { receiver, id } = await endpoint();
      // It never answers (afterEach closes the connection): only the request timeout can end the round.
      receiver.answer = () => new Promise<number>(() => undefined);
      await emit(userId, 'device.down', now());
      await dispatcher({ requestTimeoutMs: 100 }).runOnce();
      assert.equal(receiver.received.length, 1);
      const [listed] = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
      assert.equal(listed?.last_delivery_status, 'failing');
      assert.ok(
        warnings.some((w) => w.startsWith(`webhook ${id}: delivery failed (timeout);`)),
        warnings.join('\n'),
      );
    },
  );

  it('several dispatchers deliver each event to each endpoint once', async () => {
    const endpoints = [await endpoint(), await endpoint(), await endpoint()];
    for (let i = 0; i < 4; i++) await emit(userId, i % 2 === 0 ? 'device.down' : 'device.up', now());
    await Promise.all([1, 2, 3].map((n) => dispatcher({ workerId: `w${n}` }).runOnce()));
    for (const { receiver } of endpoints) {
      assert.deepEqual(
        receiver.received.map((r) => r.headers['webhook-id']),
        ['1', '2', '3', '4'],
      );
    }
  });

  it('start() delivers until stop()', async () => {
    const { receiver } = await endpoint();
    const d = dispatcher({ pollIntervalMs: 10 });
    d.start();
    await emit(userId, 'device.down', now());
    await waitFor('the delivery', () => receiver.received.length > 0, 10);
    await d.stop();
    assert.equal(receiver.received.length, 1);
  });

  // The engine's `trustedCa` reaches deliveries as one TLS context made for the list
  // (engine/net/trusted-context.ts): an HTTPS endpoint whose certificate a private CA signed is
  // delivered to with it, and refused for its certificate without it.
  it('an HTTPS endpoint signed by a private CA: delivered with that CA trusted, refused without', async () => {
    const received: string[] = [];
    const server = await startHttpsServer('valid', (req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        res.end();
      });
    });
    try {
      const id = await createdWebhookId(
        store,
        userId,
        newWebhook(`https://${FIXTURE_NAME}:${server.port}/hook`, { created_at: new Date(0).toISOString() }),
      );
      const eventId = await emit(userId, 'blacklist.listed', now());
      await dispatcher().runOnce();
      assert.deepEqual(received, [], 'delivered to a certificate no trusted authority signed');
      const [refused] = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
      assert.equal(refused?.last_delivery_status, 'failing');
      clock.advance(RETRY_DELAYS_MS[0]!);
      await dispatcher({ tls: { secureContext: contextTrusting([TEST_CA]) } }).runOnce();
      assert.deepEqual(received, [String(eventId)]);
      const [listed] = await store.listWebhooks(userId, { afterId: 0, limit: 10 });
      assert.deepEqual([listed?.id, listed?.last_delivery_status], [id, 'delivered']);
    } finally {
      await server.close();
    }
  });
});
