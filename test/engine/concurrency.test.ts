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
    store, clock: new ManualClock(START), resolver: counting.resolver, ...options,
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
