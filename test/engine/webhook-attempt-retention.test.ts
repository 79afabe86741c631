/**
 * docs/engine.md, "Scheduling" (retention): the engine's retention sweep deletes webhook delivery
 * attempts that ended before the result retention, in batches as it deletes raw results, on the
 * memory store, SQLite and PostgreSQL; newer attempts stay, and `GET /webhooks/deliveries` lists
 * what is left newest first, its pages linked only while older attempts follow.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, type Store, type WebhookAttempt } from '../../core/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import type { DeliveryOutcome } from '../../core/store/webhook-store.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { keepingLogger } from '../support/engine-fixtures.ts';
import { availableStores, type OpenedStore } from '../support/stores.ts';
import { createdWebhookId, emitterFor } from '../webhooks/support.ts';
import { newWebhook } from '../support/records.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2030-01-10T00:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

/** Claims the endpoint's next delivery at `atMs` before now and records `state` as ending then. */
async function attempt(store: Store, atMs: number, state: 'pending' | 'delivered', next = atMs): Promise<void> {
  const [claimed] = await store.claimDeliveries({
    owner: 'w',
    now: ago(atMs),
    limit: 1,
    leaseUntil: ago(atMs - 60_000),
  });
  assert.ok(claimed !== undefined, `a delivery is due ${atMs / HOUR} hours ago`);
  const outcome: DeliveryOutcome = {
    attempted_at: ago(atMs),
    state,
    next_attempt_at: state === 'pending' ? ago(next) : null,
    response_status: state === 'delivered' ? 204 : 500,
    error: state === 'delivered' ? null : 'http_500',
    duration_ms: 5,
  };
  assert.equal(await store.recordDeliveryAttempt(claimed.lease, outcome), true);
}

for (const factory of await availableStores()) {
  describe(
    `webhook attempts expire with the result retention (${factory.name})`,
    { skip: factory.skip ?? false },
    () => {
      let opened: OpenedStore;
      let t: TestApi;
      before(async () => {
        opened = await factory.open();
        t = createTestApi({ store: opened.store, start: new Date(NOW) });
      });
      after(async () => {
        await t.close();
        await opened.cleanup();
      });

      it('deletes the attempts older than the retention, in batches; newer ones stay, listed as before', async () => {
        const store = opened.store;
        const key = await t.createKey();
        const userId = key.key.user_id;
        const hook = await createdWebhookId(store, userId, newWebhook('https://hooks.example.com/retention'));
        const emit = emitterFor(factory.name, opened);
        for (let i = 0; i < 3; i++) await emit(userId, 'device.down', ago(11 * DAY - i * 60_000));
        await store.fanOutEvents(ago(10 * DAY), 100);
        // The first event: tried 10 days ago, delivered 8 days ago. The second: tried a minute before
        // the retention's cutoff (7 days), delivered a day ago. The third: delivered an hour ago.
        await attempt(store, 10 * DAY, 'pending', 8 * DAY);
        await attempt(store, 8 * DAY, 'delivered');
        await attempt(store, 7 * DAY + 60_000, 'pending', DAY);
        await attempt(store, DAY, 'delivered');
        await attempt(store, HOUR, 'delivered');

        const list = async (query = '') => {
          const res = await t.request<WebhookAttempt[]>(`/v1/webhooks/deliveries?id=${hook}${query}`, { key });
          assert.equal(res.status, 200, res.text);
          return { attempts: res.body.data!, link: res.headers.get('link') };
        };
        const all = (await list()).attempts;
        assert.deepEqual(
          all.map((a) => [a.attempted_at, a.attempt]),
          [
            [ago(HOUR), 1],
            [ago(DAY), 2],
            [ago(7 * DAY + 60_000), 1],
            [ago(8 * DAY), 2],
            [ago(10 * DAY), 1],
          ],
        );

        const logger = keepingLogger();
        const engine = createMonitoringEngine({
          store,
          clock: new ManualClock(NOW),
          logger,
          dnsblZones: ['zen.spamhaus.org'],
          retentionBatchSize: 2,
        });
        await engine.runOnce();
        const kept = await list();
        assert.deepEqual(kept.attempts, all.slice(0, 2), 'the attempts of the last 7 days, as listed before');
        assert.ok(
          logger.lines.some((line) => line.message === 'deleted 3 webhook attempts older than 168 hours'),
          JSON.stringify(logger.lines),
        );
        assert.equal(kept.link, null, 'no page follows');
        const first = await list('&limit=1');
        assert.deepEqual(first.attempts, all.slice(0, 1));
        assert.equal(first.link, `</v1/webhooks/deliveries?id=${hook}&limit=1&before_id=${all[0]!.id}>; rel="next"`);
        const second = await list(`&limit=1&before_id=${all[0]!.id}`);
        assert.deepEqual(second.attempts, all.slice(1, 2));
        assert.equal(second.link, null, 'the expired attempts leave no page behind');

        await engine.runOnce();
        assert.deepEqual((await list()).attempts, all.slice(0, 2), 'a second sweep finds nothing more');
      });
    },
  );
}
