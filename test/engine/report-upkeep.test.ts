/**
 * docs/engine.md, "Reports": the engine asks the store to roll up finished hours a grace after
 * they end (the lease, the write delay and a minute), every minute while it runs and on every
 * `runOnce()`, and deletes report rows past `reportRetentionHours` in the retention sweep. The
 * store's side of it is tested with the stores; here the store records what it is asked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, MemoryStore, type ClaimRequest } from '../../core/index.ts';
import { createMonitoringEngine, type MonitoringEngineOptions } from '../../engine/index.ts';
import { keepingLogger } from '../support/engine-fixtures.ts';

const START = '2026-05-01T10:30:00.000Z';
const T0 = Date.parse(START);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** What the store was asked, and what it answers (`rolled`, `deleted`: the next calls' answers, in order; then 0). */
interface Calls {
  rollups: { before: string; maxHours: number }[];
  deletions: { before: string; limit: number }[];
  rolled: (number | Error)[];
  deleted: number[];
  claims: number;
}

/** A memory store that keeps what the engine asks of its report upkeep in `calls`, and counts claims. */
function upkeepStore(calls: Calls): MemoryStore {
  const store = new MemoryStore();
  const claim = store.claimDueBlacklistMonitors.bind(store);
  return Object.assign(store, {
    async rollUpResults(before: string, maxHours: number): Promise<number> {
      calls.rollups.push({ before, maxHours });
      const answer = calls.rolled.shift() ?? 0;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async deleteReportsBefore(before: string, limit: number): Promise<number> {
      calls.deletions.push({ before, limit });
      return calls.deleted.shift() ?? 0;
    },
    claimDueBlacklistMonitors(request: ClaimRequest) {
      calls.claims++;
      return claim(request);
    },
  });
}

function setUp(options: Partial<MonitoringEngineOptions> = {}) {
  const calls: Calls = { rollups: [], deletions: [], rolled: [], deleted: [], claims: 0 };
  const clock = new ManualClock(START);
  const logger = keepingLogger();
  const engine = createMonitoringEngine({
    store: upkeepStore(calls),
    clock,
    logger,
    dnsblZones: ['zen.spamhaus.org'],
    ...options,
  });
  return { calls, clock, logger, engine };
}

/** Lets the running engine go round its loop until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('report upkeep', () => {
  it('runOnce() rolls up the hours that ended a lease, a write delay and a minute ago', async () => {
    const { calls, engine } = setUp({ leaseMs: 120_000, writeDelayMs: 50 });
    await engine.runOnce();
    assert.deepEqual(calls.rollups, [{ before: new Date(T0 - 120_000 - 50 - MINUTE).toISOString(), maxHours: 24 }]);
  });

  it('the grace follows the lease: a longer lease rolls hours later', async () => {
    const { calls, engine } = setUp({ leaseMs: 10 * MINUTE, writeDelayMs: 0 });
    await engine.runOnce();
    assert.equal(calls.rollups[0]!.before, new Date(T0 - 11 * MINUTE).toISOString());
  });

  it('a backlog is rolled a day per call until the calls has none left', async () => {
    const { calls, engine } = setUp();
    calls.rolled = [24, 24, 5];
    await engine.runOnce();
    assert.equal(calls.rollups.length, 3);
    assert.ok(calls.rollups.every((call) => call.before === calls.rollups[0]!.before));
  });

  it('the retention sweep deletes report rows older than reportRetentionHours, in batches', async () => {
    const { calls, engine } = setUp({ reportRetentionHours: 48, retentionBatchSize: 10 });
    calls.deleted = [10, 10, 3];
    await engine.runOnce();
    const before = new Date(T0 - 48 * HOUR).toISOString();
    assert.deepEqual(calls.deletions, [
      { before, limit: 10 },
      { before, limit: 10 },
      { before, limit: 10 },
    ]);
  });

  it('by default report rows are kept 400 days', async () => {
    const { calls, engine } = setUp();
    await engine.runOnce();
    assert.equal(calls.deletions[0]!.before, new Date(T0 - 400 * 24 * HOUR).toISOString());
  });

  it('a running engine asks every minute by its clock, not on every turn of its loop', async () => {
    const { calls, clock, engine } = setUp({ pollIntervalMs: 1 });
    engine.start();
    try {
      await until(() => calls.rollups.length === 1);
      clock.advance(MINUTE - 1);
      const claims = calls.claims;
      await until(() => calls.claims >= claims + 5);
      assert.equal(calls.rollups.length, 1, 'not again within the minute');
      clock.advance(1);
      await until(() => calls.rollups.length === 2);
      assert.equal(calls.rollups[1]!.before, new Date(T0 + MINUTE - 120_000 - 50 - MINUTE).toISOString());
    } finally {
      await engine.stop();
    }
  });

  it('a failing rollup is logged once per streak, and its recovery once', async () => {
    const { calls, logger, engine } = setUp();
    calls.rolled = [new Error('database away'), new Error('database away'), 0];
    await engine.runOnce();
    await engine.runOnce();
    await engine.runOnce();
    const lines = logger.lines.filter((line) => /rolling up/.test(line.message));
    assert.deepEqual(
      lines.map((line) => line.level),
      ['error', 'info'],
    );
  });
});
