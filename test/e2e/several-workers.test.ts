/**
 * docs/engine.md §3, §5 and §6 with several workers: engines on separate stores of one database
 * race for the same due devices and the same outbox. Every status change makes exactly one event
 * (also when a lease runs out under a slow check and a second worker takes the device over), and
 * every event reaches every endpoint exactly once, counted by `webhook-id` at the receivers.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import type { Device } from '../../core/index.ts';
import type { EngineRunSummary, MonitoringEngine } from '../../engine/index.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { closedAfterEach, createWebDevice, type Receiver, STORES, verifySigned } from './harness.ts';
import { openWorkerStores, type WorkerStores } from './worker-stores.ts';
import { waitFor } from '../support/wait-for.ts';

const WORKERS = 3;
const DEVICES = 6;
const INTERVAL_S = 60;
const RETRY_DELAY_S = 30;
/** Longer than any interval here in manual time, and far longer than any check in real time. */
const LEASE_MS = 120_000;

for (const factory of STORES) {
  suiteOrSkip(`several workers on one database (${factory.name})`, factory.skip, { concurrency: 1 }, () => {
    let shared: WorkerStores | undefined;
    /** Lets held answers go: also after a failed assertion, so no check outlives its test. */
    let release = () => {};
    before(async () => {
      shared = await openWorkerStores(factory.name, WORKERS);
    });
    afterEach(() => release());
    const open = closedAfterEach();
    after(async () => {
      await shared?.cleanup();
    });

    it('each status change is one event, delivered once to each endpoint', async () => {
      const { stores } = shared!;
      const w = await open.world(stores[0]!, '2026-04-01T00:00:00.000Z');
      const target = await open.target();
      const endpoints = [await w.subscribe(), await w.subscribe()];
      const engines: MonitoringEngine[] = stores.map((store, i) =>
        w.engine({
          store,
          workerId: `worker-${i + 1}`,
          retryDelayS: RETRY_DELAY_S,
          leaseMs: LEASE_MS,
          batchSize: 2,
          concurrency: DEVICES,
        }),
      );
      const ids: number[] = [];
      for (let i = 0; i < DEVICES; i++) {
        const device = await createWebDevice(w, `web${i}.probe-fixture.net`, target.port, INTERVAL_S);
        ids.push(device.id);
      }
      const statuses = async () => (await w.call<Device[]>('/devices')).map((d) => d.status);
      const total = (summaries: EngineRunSummary[], field: keyof EngineRunSummary) =>
        summaries.reduce((n, s) => n + s[field], 0);
      const race = () => Promise.all(engines.map((engine) => engine.runOnce()));

      // Small batches, so the workers take turns at the due devices.
      let summaries = await race();
      assert.equal(total(summaries, 'claimed'), DEVICES, 'each due device is claimed by one worker');
      assert.equal(total(summaries, 'written'), DEVICES);
      assert.equal(target.requests, DEVICES, 'and checked once');
      assert.deepEqual(await statuses(), Array(DEVICES).fill('up'));

      target.health = 'error';
      w.clock.advance(INTERVAL_S * 1000 * 1.1);
      summaries = await race();
      assert.equal(total(summaries, 'written'), DEVICES);
      assert.deepEqual(await statuses(), Array(DEVICES).fill('validating'));
      w.clock.advance(RETRY_DELAY_S * 1000);
      summaries = await race();
      assert.equal(total(summaries, 'written'), DEVICES);
      assert.deepEqual(await statuses(), Array(DEVICES).fill('down'));
      assert.equal(target.requests, 3 * DEVICES);

      // A slow check outlives its lease: worker 1's checks hang until worker 2 has taken every
      // device over; both then finish, and only the holder of the newer lease may write.
      target.health = 'ok';
      const released = new Promise<void>((resolve) => (release = resolve));
      target.gate = () => released;
      w.clock.advance(INTERVAL_S * 1000 * 1.1);
      const slow = engines[0]!.runOnce();
      await waitFor('worker 1 checks every device', () => target!.requests === 4 * DEVICES, 5);
      w.clock.advance(LEASE_MS);
      const takeover = engines[1]!.runOnce();
      await waitFor('worker 2 checks them again', () => target!.requests === 5 * DEVICES, 5);
      release();
      const [first, second] = await Promise.all([slow, takeover]);
      assert.deepEqual(
        [first.claimed, first.written, first.fenced, first.failed],
        [DEVICES, 0, DEVICES, 0],
        'the lost lease writes nothing',
      );
      assert.deepEqual([second.claimed, second.written, second.fenced, second.failed], [DEVICES, DEVICES, 0, 0]);
      assert.deepEqual(await statuses(), Array(DEVICES).fill('up'));
      // Whichever dispatcher ran first, all of them together deliver what is left.
      await race();

      if (shared!.eventCounts !== undefined) {
        assert.deepEqual(
          await shared!.eventCounts(),
          { 'device.down': DEVICES, 'device.up': DEVICES },
          'one event per change in the outbox',
        );
      }
      for (const { receiver, webhook } of endpoints) {
        const events = receiver.received.map((r) => verifySigned(webhook.secret, r));
        assert.equal(events.length, 2 * DEVICES, 'every event once, no duplicate attempt');
        assert.equal(new Set(events.map((e) => e.id)).size, 2 * DEVICES);
        for (const id of ids) {
          assert.deepEqual(
            events.filter((e) => e.data.id === id).map((e) => e.type),
            ['device.down', 'device.up'],
            `device ${id}, in order`,
          );
        }
      }
      assert.deepEqual(
        receivedIds(endpoints[0]!.receiver),
        receivedIds(endpoints[1]!.receiver),
        'the same events at both endpoints',
      );
    });
  });
}

function receivedIds(receiver: Receiver): string[] {
  return receiver.received.map((r) => String(r.headers['webhook-id'])).toSorted();
}
