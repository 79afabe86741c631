/**
 * What a dispatcher remembers of failing endpoints is bounded (docs/operations.md, "A worker's
 * memory"): each outage is said once, for at most 1000 endpoints at once, and an endpoint not
 * heard failing for twice the longest retry delay is forgotten, so its next failure is said
 * again. Deliveries fail at once on the target policy (the endpoints resolve to loopback and
 * private targets are not allowed), so nothing is sent anywhere; time is a ManualClock.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { ManualClock, MemoryStore, type Store } from '../../core/index.ts';
import { createWebhookDispatcher, type WebhookDispatcherOptions } from '../../engine/webhooks/index.ts';
import { createTestConnector } from '../support/webhook-connector.ts';
import { createdWebhookId, emitterFor, type Emit } from './support.ts';
import { newWebhook } from '../support/records.ts';

const FOLLOWED = 1000;
const SAID = /^webhook (\d+): delivery failed \(forbidden_address\)/;

describe('the failing endpoints a dispatcher follows', () => {
  let store: Store;
  let emit: Emit;
  let clock: ManualClock;
  const warnings: string[] = [];

  beforeEach(() => {
    store = new MemoryStore();
    emit = emitterFor('memory', { store, cleanup: async () => {} });
    clock = new ManualClock('2026-01-01T00:00:00.000Z');
    warnings.length = 0;
  });

  function dispatcher(options: Partial<WebhookDispatcherOptions> = {}) {
    return createWebhookDispatcher({
      store,
      clock,
      // Every endpoint resolves to loopback, which this connector's policy refuses: each attempt fails at once.
      connector: createTestConnector({ lookup: async () => ['127.0.0.1'] }),
      logger: { warn: (m) => warnings.push(m), error: (m, e) => warnings.push(`${m}: ${String(e)}`) },
      concurrency: 50,
      ...options,
    });
  }

  /** A user with one webhook, which gets every event of that user. */
  async function endpoint(n: number): Promise<{ userId: number; webhookId: number }> {
    const userId = (await store.createUser({ name: null, created_at: new Date(0).toISOString() })).id;
    const webhookId = await createdWebhookId(store, userId, newWebhook(`http://hooks${n}.example.com/hook`));
    return { userId, webhookId };
  }

  /** The webhooks whose outage was said since the last call, in order. */
  function said(): number[] {
    const ids = warnings.flatMap((w) => {
      const match = SAID.exec(w);
      return match === null ? [] : [Number(match[1])];
    });
    warnings.length = 0;
    return ids;
  }

  const now = () => new Date(clock.now()).toISOString();

  it(`says each outage once, for up to ${FOLLOWED} endpoints; past that the one failing longest ago is forgotten`, async () => {
    // One retry, ten minutes on: the first endpoint's retry falls due before any other's.
    const d = dispatcher({ retryDelaysMs: [600_000] });
    const endpoints = [];
    for (let n = 0; n <= FOLLOWED; n++) endpoints.push(await endpoint(n));
    const [first, ...rest] = endpoints;
    await emit(first!.userId, 'device.down', now());
    await d.runOnce();
    assert.deepEqual(said(), [first!.webhookId]);

    // A thousand more endpoints fail after it: the thousand and first to be followed.
    clock.advance(1_000);
    for (const e of rest) await emit(e.userId, 'device.down', now());
    await d.runOnce();
    assert.equal(said().length, FOLLOWED);

    // The first endpoint's retry fails within its outage, yet it is said again: it was forgotten.
    clock.advance(600_000 - 1_000);
    await d.runOnce();
    assert.deepEqual(said(), [first!.webhookId], 'the endpoint failing longest ago was forgotten');
  });

  it('forgets an endpoint not heard failing for twice the longest retry delay', async () => {
    const delays = [60_000, 3_600_000];
    const d = dispatcher({ retryDelaysMs: delays });
    const { userId, webhookId } = await endpoint(1);
    await emit(userId, 'device.down', now());
    await d.runOnce();
    assert.deepEqual(said(), [webhookId]);
    // Its retries fail within the outage, the longest delay apart at most: said once.
    clock.advance(60_000);
    await d.runOnce();
    clock.advance(3_600_000);
    await d.runOnce();
    assert.deepEqual(said(), [], 'retries within the outage say nothing');
    // The delivery was given up; the endpoint is not heard of for twice the longest delay.
    clock.advance(2 * 3_600_000 - 1);
    await emit(userId, 'device.up', now());
    await d.runOnce();
    assert.deepEqual(said(), [], 'within twice the longest delay, still the same outage');
    clock.advance(2 * 3_600_000 + 1);
    await emit(userId, 'device.down', now());
    await d.runOnce();
    assert.deepEqual(said(), [webhookId], 'a failure after that is a new outage, said again');
  });
});
