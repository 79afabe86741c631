/** docs/engine.md, "Shape and run modes": start() loops until stop(), which finishes the checks in flight. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ManualClock } from '../../core/index.ts';
import { createMonitoringEngine, type DnsblResolver } from '../../engine/index.ts';
import { addMonitor, monitorOf, WatchedStore } from '../support/engine-fixtures.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { waitFor } from '../support/wait-for.ts';

const START = '2026-07-01T00:00:00.000Z';

it('a started engine checks new records as they come, and stop() waits for the check in flight', async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  let hold: Promise<void> | undefined;
  let asked = 0;
  const resolver: DnsblResolver = {
    async resolve4() {
      asked++;
      await hold;
      return ['127.0.0.2'];
    },
  };
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver,
    dnsblZones: ['zen.spamhaus.org'],
    pollIntervalMs: 5,
    writeDelayMs: 1,
  });
  engine.start();
  engine.start(); // a second start changes nothing
  await assert.rejects(engine.runOnce(), /while the engine is started/);

  const first = await addMonitor(store, user.id, '192.0.2.1', START);
  await waitFor('the first check', async () => (await monitorOf(store, user.id, first.id)).last_status === 'listed', 5);

  let release!: () => void;
  hold = new Promise<void>((resolve) => (release = resolve));
  const second = await addMonitor(store, user.id, '192.0.2.2', START);
  await waitFor('the second check to start', async () => asked === 2, 5);
  let stopped = false;
  const stopping = engine.stop().then(() => (stopped = true));
  await delay(20);
  assert.equal(stopped, false, 'stop() waits for the check in flight');
  release();
  await stopping;
  assert.equal((await monitorOf(store, user.id, second.id)).last_status, 'listed', 'the check in flight was written');

  const third = await addMonitor(store, user.id, '192.0.2.3', START);
  await delay(30);
  assert.equal((await monitorOf(store, user.id, third.id)).last_status, null, 'nothing is checked after stop()');
  assert.equal(asked, 2);
});

it('stop() on an idle or never started engine resolves at once', { timeout: HANG_GUARD_MS }, async () => {
  // Every loop of a started engine sleeps the poll interval between turns: as long as the test's
  // hang guard, so stop() can only resolve in time by cutting the sleeps short.
  const engine = createMonitoringEngine({
    store: new WatchedStore(),
    clock: new ManualClock(START),
    resolver: { resolve4: async () => [] },
    pollIntervalMs: HANG_GUARD_MS,
  });
  await engine.stop();
  engine.start();
  await delay(5);
  await engine.stop();
});

it('a store that cannot claim is logged once per streak, and once when it works again', async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  const original = store.claimDueBlacklistMonitors.bind(store);
  let failing = true;
  let attempts = 0;
  store.claimDueBlacklistMonitors = (claim) => {
    attempts++;
    return failing ? Promise.reject(new Error('database gone')) : original(claim);
  };
  const lines: string[] = [];
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: { resolve4: async () => [] },
    dnsblZones: ['zen.spamhaus.org'],
    pollIntervalMs: 2,
    retentionSweepMs: 3_600_000,
    logger: {
      error: (message) => void lines.push(`error: ${message}`),
      info: (message) => void lines.push(`info: ${message}`),
    },
  });
  const { id } = await addMonitor(store, user.id, '192.0.2.9', START);
  engine.start();
  await waitFor('several failed claims', async () => attempts >= 5, 5);
  failing = false;
  await waitFor(
    'the check once claims work',
    async () => (await monitorOf(store, user.id, id)).last_status !== null,
    5,
  );
  await engine.stop();
  const claimLines = lines.filter((l) => /claiming/.test(l));
  assert.deepEqual(claimLines, [
    'error: claiming due checks failed; trying again every poll interval until it works',
    'info: claiming due checks works again',
  ]);
});
