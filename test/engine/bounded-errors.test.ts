/**
 * docs/operations.md, "Logs": an engine whose store is away logs each failure once, then counts
 * it, instead of a stack per round.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock } from '../../core/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { WatchedStore } from '../support/engine-fixtures.ts';
import { waitFor } from '../support/wait-for.ts';

/** A store whose database is gone: everything the engine asks of it fails the same way. */
class AwayStore extends WatchedStore {
  /** Claim rounds and delivery rounds tried so far. */
  claims = 0;
  fanOuts = 0;
  override async claimDueBlacklistMonitors(): Promise<never> {
    this.claims++;
    throw new Error('connection refused');
  }
  override async claimDueDevices(): Promise<never> {
    throw new Error('connection refused');
  }
  override async fanOutEvents(): Promise<never> {
    this.fanOuts++;
    throw new Error('connection refused');
  }
}

it('a store failure repeated every round is written once, then counted', async () => {
  const errors: string[] = [];
  const warnings: string[] = [];
  const store = new AwayStore();
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock('2026-03-01T00:00:00.000Z'),
    resolver: { resolve4: async () => [] },
    pollIntervalMs: 1,
    logger: { error: (message) => void errors.push(message), warn: (message) => void warnings.push(message) },
  });
  engine.start();
  // Several failed rounds of each kind, however long they take.
  await waitFor(
    () => `three failed rounds of each; so far ${store.claims} claims, ${store.fanOuts} deliveries`,
    () => store.claims >= 3 && store.fanOuts >= 3,
    5,
  );
  await engine.stop();
  // One line per kind of failure (claims, delivery rounds), however many rounds failed.
  assert.ok(errors.length <= 2, `errors written: ${errors.length}\n${errors.join('\n')}`);
  assert.ok(
    warnings.some((w) => /webhook dispatcher: a round failed \(\d+ more times\)/.test(w)),
    `the count: ${warnings.join('\n')}`,
  );
});
