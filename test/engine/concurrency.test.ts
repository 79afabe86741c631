/**
 * docs/engine.md, "Scheduling": checks in flight per worker and DNS lookups in flight per check
 * are bounded.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ManualClock } from '../../core/index.ts';
import { createMonitoringEngine, type DnsblResolver } from '../../engine/index.ts';
import { addMonitor, WatchedStore } from '../support/engine-fixtures.ts';

const START = '2026-06-01T00:00:00.000Z';

/** Answers every name after a few milliseconds, counting the lookups in flight by target. */
function countingResolver() {
  const inFlight = new Map<string, number>();
  let total = 0;
  let maxTotal = 0;
  let maxPerTarget = 0;
  const resolver: DnsblResolver = {
    async resolve4(name) {
      const target = name.split('.').slice(0, 4).join('.');
      inFlight.set(target, (inFlight.get(target) ?? 0) + 1);
      total++;
      maxTotal = Math.max(maxTotal, total);
      maxPerTarget = Math.max(maxPerTarget, inFlight.get(target)!);
      await delay(5);
      inFlight.set(target, inFlight.get(target)! - 1);
      total--;
      return ['127.0.0.2'];
    },
  };
  return { resolver, max: () => ({ total: maxTotal, perTarget: maxPerTarget }) };
}

async function run(monitors: number, zones: number, options: { concurrency: number; dnsQueriesPerCheck: number }) {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  for (let i = 1; i <= monitors; i++) await addMonitor(store, user.id, `192.0.2.${i}`, START);
  const counting = countingResolver();
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: counting.resolver,
    ...options,
    dnsblZones: Array.from({ length: zones }, (_, i) => `zone${i}.example.net`),
  });
  const summary = await engine.runOnce();
  return { summary, max: counting.max() };
}

it('no more checks in flight than the concurrency, and the bound is used', async () => {
  const { summary, max } = await run(20, 1, { concurrency: 3, dnsQueriesPerCheck: 6 });
  assert.equal(summary.written, 20);
  assert.equal(max.total, 3);
});

it('no more lookups in flight per check than dnsQueriesPerCheck', async () => {
  const { summary, max } = await run(4, 7, { concurrency: 10, dnsQueriesPerCheck: 2 });
  assert.equal(summary.written, 4);
  assert.equal(max.perTarget, 2);
  assert.equal(max.total, 8, 'four checks at once, two lookups each');
});

it('claims run ahead of the free slots: the slots stay full and a claim takes a batch, not one record', async () => {
  class ClaimCountingStore extends WatchedStore {
    readonly claims: number[] = [];
    override async claimDueBlacklistMonitors(...args: Parameters<WatchedStore['claimDueBlacklistMonitors']>) {
      const claimed = await super.claimDueBlacklistMonitors(...args);
      this.claims.push(claimed.length);
      return claimed;
    }
  }
  const store = new ClaimCountingStore();
  const user = await store.createUser({ name: null, created_at: START });
  const monitors = 30;
  for (let i = 1; i <= monitors; i++) await addMonitor(store, user.id, `192.0.2.${i}`, START);
  // Each lookup waits until the test answers it, so what is in flight can be counted between answers.
  const pending: Array<() => void> = [];
  const resolver: DnsblResolver = {
    resolve4: () => new Promise<string[]>((resolve) => pending.push(() => resolve([]))),
  };
  const concurrency = 8;
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver,
    concurrency,
    dnsQueriesPerCheck: 1,
    dnsblZones: ['zone.example.net'],
  });
  const run = engine.runOnce();
  const settle = async (expected: number) => {
    for (let turn = 0; turn < 50 && pending.length !== expected; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    return pending.length;
  };
  for (let answered = 0; answered < monitors; answered++) {
    // While records are left to start, a check ending hands its slot straight to the next one.
    assert.equal(
      await settle(Math.min(concurrency, monitors - answered)),
      Math.min(concurrency, monitors - answered),
      `in flight after ${answered} answers`,
    );
    pending.shift()!();
  }
  assert.deepEqual(await run, { claimed: monitors, written: monitors, fenced: 0, failed: 0, pruned: 0 });
  // A quarter of the slots (2) at a time after the first claim, never one record per freed slot.
  const [first, ...rest] = store.claims;
  assert.equal(first, concurrency + 2);
  assert.ok(
    rest.slice(0, -1).every((n) => n >= 2),
    `claims: ${store.claims}`,
  );
  assert.ok(store.claims.length <= 2 + (monitors - first!) / 2, `claims: ${store.claims}`);
});
