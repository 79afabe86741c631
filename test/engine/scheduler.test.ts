/**
 * docs/engine.md, "Scheduling": due times, jitter, leases, fencing, batched writes, lag logging
 * and retention, with the memory store and a manual clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../core/index.ts';
import { createMonitoringEngine, type DnsblResolver, type MonitoringEngineOptions } from '../../engine/index.ts';
import { nextCheckAt } from '../../engine/scheduler/next-check.ts';
import { addMonitor, keepingLogger, monitorOf, WatchedStore } from '../support/engine-fixtures.ts';

const START = '2026-05-01T00:00:00.000Z';
const T0 = Date.parse(START);
const HOUR = 3600_000;

/** Every name is unlisted (NXDOMAIN), answered at once: these tests are about scheduling. */
const nxdomain: DnsblResolver = {
  resolve4: () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })),
};

async function setUp(monitors: number, options: Partial<MonitoringEngineOptions> = {}) {
  const store = new WatchedStore();
  const clock = new ManualClock(START);
  const user = await store.createUser({ name: null, created_at: START });
  const ids: number[] = [];
  for (let i = 1; i <= monitors; i++) ids.push((await addMonitor(store, user.id, `192.0.2.${i}`, START)).id);
  const engine = createMonitoringEngine({
    store,
    clock,
    resolver: nxdomain,
    dnsblZones: ['zen.spamhaus.org'],
    ...options,
  });
  const claim = (atMs: number, owner = 'other-worker', leaseMs = 60_000) =>
    store.claimDueBlacklistMonitors({
      owner,
      now: new Date(atMs).toISOString(),
      limit: 1000,
      leaseUntil: new Date(atMs + leaseMs).toISOString(),
    });
  return { store, clock, user, ids, engine, claim };
}

describe('scheduling', () => {
  it('a new record is checked at once, then not again before its interval', async () => {
    const { engine, store, user, ids, clock } = await setUp(1);
    assert.equal((await engine.runOnce()).written, 1);
    assert.equal((await monitorOf(store, user.id, ids[0]!)).last_status, 'clean');
    assert.equal((await engine.runOnce()).claimed, 0);
    clock.advance(HOUR * 0.5);
    assert.equal((await engine.runOnce()).claimed, 0);
    clock.advance(HOUR * 0.61);
    assert.equal((await engine.runOnce()).claimed, 1);
  });

  it('the next check is the interval away, moved by at most 10 % either way', () => {
    assert.equal(
      nextCheckAt(T0, 3600, () => 0),
      T0 + HOUR * 0.9,
    );
    assert.equal(
      nextCheckAt(T0, 3600, () => 0.5),
      T0 + HOUR,
    );
    assert.equal(
      nextCheckAt(T0, 3600, () => 0.999_999),
      T0 + Math.round(HOUR * (1 + 0.1 * 0.999_998)),
    );
  });

  it('records created together spread out', async () => {
    const { engine, claim } = await setUp(40);
    await engine.runOnce();
    const dueBy = async (fraction: number) => (await claim(T0 + HOUR * fraction, `probe-${fraction}`, 1)).length;
    assert.equal(await dueBy(0.9 - 1e-6), 0, 'none before 90 %');
    const early = await dueBy(1);
    assert.ok(early > 5 && early < 35, `some but not all due by 100 %: ${early}`);
    // Leases of 1 ms lapse at once, so the same records can be counted again.
    assert.equal(await dueBy(1.1), 40, 'all by 110 %');
  });

  it('claims in batches and writes in batches until everything due is done', async () => {
    const { engine, store } = await setUp(25, { batchSize: 7, writeBatchSize: 10 });
    assert.deepEqual(await engine.runOnce(), { claimed: 25, written: 25, fenced: 0, failed: 0, pruned: 0 });
    assert.ok(
      store.blacklistWrites.every((n) => n <= 10),
      `writes of at most 10: ${store.blacklistWrites}`,
    );
    assert.ok(store.blacklistWrites.length <= 5, `batched, not one write per check: ${store.blacklistWrites}`);
  });

  it("a record leased by another worker waits for that lease to lapse; the lapsed worker's write is fenced", async () => {
    const { engine, claim, clock, store, user, ids } = await setUp(1, { workerId: 'w2' });
    const [held] = await claim(T0, 'w1', 120_000);
    assert.ok(held);
    assert.equal((await engine.runOnce()).claimed, 0, 'leased elsewhere');
    clock.advance(120_000);
    assert.equal((await engine.runOnce()).written, 1, 'claimable once the lease lapsed');
    const late = await store.recordBlacklistChecks([
      {
        lease: held.lease,
        outcome: {
          checked_at: new Date(clock.now()).toISOString(),
          last_status: 'listed',
          listed_on: ['x.example.org'],
          failed_zones: [],
          results: [],
          next_check_at: START,
          events: [],
          listings: [],
          rdns: null,
        },
      },
    ]);
    assert.deepEqual(late, [false], 'the first worker lost its lease');
    assert.equal((await monitorOf(store, user.id, ids[0]!)).last_status, 'clean');
  });

  it('a record disabled while its check is in flight is not written', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const askedOnce = new Promise<void>((resolve) => (asked = resolve));
    const resolver: DnsblResolver = {
      async resolve4() {
        asked();
        await held;
        return ['127.0.0.2'];
      },
    };
    const { engine, store, user, ids } = await setUp(1, { resolver });
    const run = engine.runOnce();
    await askedOnce;
    assert.equal(await store.setEnabled('blacklist_monitor', ids[0]!, false, START), true);
    release();
    assert.deepEqual(await run, { claimed: 1, written: 0, fenced: 1, failed: 0, pruned: 0 });
    const monitor = await monitorOf(store, user.id, ids[0]!);
    assert.equal(monitor.last_status, null);
    assert.equal(store.events.length, 0, 'no event for a check that was not written');
  });

  it('scheduling lag is logged per claimed batch, at debug level', async () => {
    const logger = keepingLogger();
    const { engine, clock } = await setUp(3, { logger, batchSize: 2 });
    clock.advance(90_000);
    await engine.runOnce();
    const batches = logger.lines.filter((l) => /^claimed \d+ due blacklist_monitor checks$/.test(l.message));
    assert.deepEqual(
      batches.map((l) => l.level),
      ['debug', 'debug'],
    );
    assert.deepEqual(
      batches.map((l) => l.fields?.['claimed']),
      [2, 1],
    );
    assert.deepEqual(
      batches.map((l) => l.fields?.['lag_ms_max']),
      [90_000, 90_000],
    );
    assert.equal(batches[0]!.fields?.['lag_ms_mean'], 90_000);
  });

  it('info carries one summary per minute: checks, failures and the lag p99', async () => {
    const logger = keepingLogger();
    const { engine, clock } = await setUp(3, { logger });
    clock.advance(2_000);
    await engine.runOnce();
    const summaries = () => logger.lines.filter((l) => /^checked \d+ records in/.test(l.message));
    assert.equal(summaries().length, 0, 'not before a minute has passed');
    clock.advance(60_000);
    await engine.runOnce();
    assert.equal(summaries().length, 1);
    const [line] = summaries();
    assert.equal(line!.level, 'info');
    // Three monitors checked at the first run (2 s late), none due at the second.
    assert.deepEqual(
      { ...line!.fields, worker_id: undefined },
      {
        worker_id: undefined,
        period_s: 62,
        claimed: 3,
        checks: 3,
        failed: 0,
        ours: 0,
        lost: 0,
        lag_ms_p99: 2_500,
        by_kind: {
          device: { checks: 0, failed: 0, ours: 0 },
          blacklist_monitor: { checks: 3, failed: 0, ours: 0 },
          heartbeat: { checks: 0, failed: 0, ours: 0 },
        },
      },
    );
    assert.ok(
      logger.lines.every((l) => l.level !== 'info' || !/^claimed/.test(l.message)),
      'no per-claim line at info',
    );
  });

  it('results older than the retention are deleted, in small batches', async () => {
    const { engine, store, user, ids, clock } = await setUp(5, { resultRetentionHours: 720, retentionBatchSize: 2 });
    await engine.runOnce();
    clock.advance(20 * 86_400_000);
    await engine.runOnce(); // everything due again: a second result each, 20 days younger
    clock.advance(11 * 86_400_000);
    const summary = await engine.runOnce();
    assert.equal(summary.pruned, 5, 'the five first results, over 30 days old');
    const left = await store.listCheckResults(user.id, 'blacklist_monitor', ids[0]!, { limit: 10 });
    assert.equal(left!.length, 2, 'the 11-day-old result and the new one stay');
  });

  it('a sweep deletes every result past the retention, however many batches that takes', async () => {
    // More old results than any fixed number of batches per sweep would reach: a busy installation
    // writes results faster than a capped sweep every ten minutes deletes them.
    const { engine, store, user, ids, clock } = await setUp(30, { resultRetentionHours: 720, retentionBatchSize: 1 });
    await engine.runOnce();
    clock.advance(31 * 86_400_000);
    const summary = await engine.runOnce();
    assert.equal(summary.pruned, 30, 'all thirty results over 30 days old, one per batch');
    const left = await store.listCheckResults(user.id, 'blacklist_monitor', ids[0]!, { limit: 10 });
    assert.equal(left!.length, 1, 'only the new result stays');
  });

  it('stop() does not wait for a backlog of old results to be deleted', async () => {
    const { engine, store } = await setUp(0, { retentionBatchSize: 10 });
    // A backlog of a thousand full batches.
    const BACKLOG = 1_000;
    let batches = 0;
    store.deleteCheckResultsBefore = async (_before, limit) => {
      await new Promise((resolve) => setImmediate(resolve));
      return ++batches <= BACKLOG ? limit : 0;
    };
    engine.start();
    while (batches < 3) await new Promise((resolve) => setImmediate(resolve));
    await engine.stop();
    assert.ok(batches < 10, `stop() waited for ${batches} batches`);
  });

  it('runOnce() resolves after the write under way, also one that began while a claim was still out', async () => {
    const { engine, store, user, ids } = await setUp(1, { batchSize: 1, writeDelayMs: 0 });
    const claim = store.claimDueBlacklistMonitors.bind(store);
    const record = store.recordBlacklistChecks.bind(store);
    // The first claim fills its batch, so a second is sent; it answers late, after the check has
    // ended and its (slow) write has begun: by then nothing is waiting to be written.
    let claims = 0;
    store.claimDueBlacklistMonitors = async (request) => {
      if (++claims > 1) await new Promise((resolve) => setTimeout(resolve, 30));
      return claim(request);
    };
    store.recordBlacklistChecks = async (checks) => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return record(checks);
    };
    assert.deepEqual(await engine.runOnce(), { claimed: 1, written: 1, fenced: 0, failed: 0, pruned: 0 });
    assert.equal(
      (await monitorOf(store, user.id, ids[0]!)).last_status,
      'clean',
      'written by the time runOnce() resolved',
    );
  });

  it('two writes are in flight at most: a batch goes while the last is still being written', async () => {
    const { engine, store } = await setUp(9, { writeBatchSize: 2, writeDelayMs: 0 });
    const record = store.recordBlacklistChecks.bind(store);
    let inFlight = 0;
    let most = 0;
    const held: Array<() => void> = [];
    store.recordBlacklistChecks = async (checks) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // Held until the test lets it go: the engine must go on without this write's answer.
      await new Promise<void>((resolve) => held.push(resolve));
      inFlight--;
      return record(checks);
    };
    const run = engine.runOnce();
    let released = 0;
    while (released < 5) {
      while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
      // Let the engine hand over everything it can before an answer comes.
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      held.shift()!();
      released++;
    }
    assert.deepEqual(await run, { claimed: 9, written: 9, fenced: 0, failed: 0, pruned: 0 });
    assert.equal(most, 2);
  });

  it('a failing store write is logged and the records are checked again once their leases lapse', async () => {
    const logger = keepingLogger();
    const { engine, store, clock } = await setUp(2, { logger, leaseMs: 60_000 });
    const original = store.recordBlacklistChecks.bind(store);
    store.recordBlacklistChecks = () => Promise.reject(new Error('database gone'));
    assert.deepEqual(await engine.runOnce(), { claimed: 2, written: 0, fenced: 0, failed: 2, pruned: 0 });
    assert.ok(
      logger.lines.some((l) => l.level === 'error' && /writing blacklist_monitor checks failed/.test(l.message)),
    );
    store.recordBlacklistChecks = original;
    assert.equal((await engine.runOnce()).claimed, 0, 'still leased');
    clock.advance(60_000);
    assert.equal((await engine.runOnce()).written, 2);
  });
});
