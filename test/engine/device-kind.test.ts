/**
 * Devices plug into the scheduler through one entry, the `deviceCheck` option (default the
 * engine's probes): claimed, checked with the engine's context and recorded.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock, type DeviceCheckOutcome } from '../../core/index.ts';
import { checkDevice, createMonitoringEngine, ProbeFailure, type DeviceCheckContext } from '../../engine/index.ts';
import { freePort } from '../support/ports.ts';
import { addDevice, WatchedStore } from '../support/engine-fixtures.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

const START = '2026-08-01T00:00:00.000Z';
const none = { resolve4: async () => [] };

it("by default, devices are checked by the engine's own probes, through the guarded connector", async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  await addDevice(store, user.id, 'a.example.com', START);
  // The name answers loopback, which the target policy refuses: the probe fails without connecting.
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: none,
    lookup: async () => ['127.0.0.1'],
  });
  assert.equal((await engine.runOnce()).written, 1);
  const [device] = await store.listDevices(user.id, { afterId: 0, limit: 10 });
  // Refused by the worker's own policy: the worker's failure, so the device stays as it was.
  assert.equal(device?.status, 'pending');
  assert.equal(device?.last_results.service?.error, 'refused_by_policy');
});

it("with one, each due device is checked with the engine's settings and its outcome recorded", async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  const id = await addDevice(store, user.id, 'a.example.com', START);
  const seen: DeviceCheckContext[] = [];
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: none,
    probeTimeoutMs: 4_000,
    retryDelayS: 45,
    failuresBeforeDown: 3,
    tlsWarnDays: 7,
    lookup: async () => ['127.0.0.1'],
    async deviceCheck(claimed, context): Promise<DeviceCheckOutcome> {
      seen.push(context);
      // The connector handed over is the guarded one: loopback is refused without allowPrivateTargets.
      const refused = await context.connector
        .connect({ host: 'a.example.com', port: 22, timeoutMs: 100 })
        .catch((e: unknown) => e);
      assert.ok(refused instanceof ProbeFailure && refused.code === 'forbidden_address');
      return {
        checked_at: START,
        previous_status: claimed.record.status,
        status: 'up',
        consecutive_failures: 0,
        results: [
          { checked_at: START, probe: 'service', ok: true, response_ms: 3, error: null, banner: 'SSH-2.0-test' },
        ],
        next_check_at: new Date(Date.parse(START) + 60_000).toISOString(),
        events: [],
      };
    },
  });
  assert.deepEqual(await engine.runOnce(), { claimed: 1, written: 1, fenced: 0, failed: 0, pruned: 0 });
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0]!.options, {
    probeTimeoutMs: 4_000,
    connectTimeoutMs: 4_000,
    retryDelayS: 45,
    failuresBeforeDown: 3,
    tlsWarnDays: 7,
  });
  assert.equal(seen[0]!.signal.aborted, false);
  const [device] = await store.listDevices(user.id, { afterId: 0, limit: 10 });
  assert.equal(device!.id, id);
  assert.equal(device!.status, 'up');
  assert.equal(device!.last_results.service?.banner, 'SSH-2.0-test');
});

it('a device check that throws is logged and counted, not written', async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  await addDevice(store, user.id, 'a.example.com', START);
  const errors: string[] = [];
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: none,
    logger: { error: (message) => void errors.push(message) },
    deviceCheck: () => Promise.reject(new Error('bug')),
  });
  assert.deepEqual(await engine.runOnce(), { claimed: 1, written: 0, fenced: 0, failed: 1, pruned: 0 });
  assert.deepEqual(errors, ['checking a device failed unexpectedly']);
});

it('a device check that throws before returning its promise is logged and counted like one that rejects', async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  await addDevice(store, user.id, 'a.example.com', START);
  await addDevice(store, user.id, 'b.example.com', START);
  const errors: string[] = [];
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: none,
    logger: { error: (message) => void errors.push(message) },
    deviceCheck: () => {
      throw new Error('bug');
    },
  });
  assert.deepEqual(await engine.runOnce(), { claimed: 2, written: 0, fenced: 0, failed: 2, pruned: 0 });
  // One line for the two: the same failure repeated is logged once (engine/bounded-logger.ts).
  assert.deepEqual(errors, ['checking a device failed unexpectedly']);
});

it("the engine's `random` draws the devices' jitter too, as it does the blacklist monitors'", async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  await addDevice(store, user.id, 'a.example.com', START);
  const clock = new ManualClock(START);
  // Nothing listens on the port, and down at once: a down device's next check is its interval
  // (60 s) with jitter, here the lowest (-10 %).
  const engine = createMonitoringEngine({
    store,
    clock,
    resolver: none,
    lookup: async () => ['127.0.0.1'],
    failuresBeforeDown: 1,
    random: () => 0,
    allowPrivateTargets: true,
    deviceCheck: async (claimed, context) => {
      const device = { ...claimed.record, port: await freePort() };
      return checkDevice({ ...claimed, record: device }, context);
    },
  });
  assert.equal((await engine.runOnce()).written, 1);
  const [device] = await store.listDevices(user.id, { afterId: 0, limit: 10 });
  assert.equal(device?.status, 'down');
  clock.advance(54_000 - 1);
  assert.equal((await engine.runOnce()).claimed, 0);
  clock.advance(1);
  assert.equal((await engine.runOnce()).claimed, 1, 'due at exactly 90 % of the interval');
});

it(
  'a claimed device that waited for a slot has its lease counted from the claim, not from its start',
  { timeout: HANG_GUARD_MS },
  async () => {
    const store = new WatchedStore();
    const user = await store.createUser({ name: null, created_at: START });
    await addDevice(store, user.id, 'a.example.com', START);
    await addDevice(store, user.id, 'b.example.com', START);
    const clock = new ManualClock(START);
    const leaseMs = 60_000;
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const signals: AbortSignal[] = [];
    const engine = createMonitoringEngine({
      store,
      clock,
      resolver: none,
      concurrency: 1,
      leaseMs,
      async deviceCheck(_claimed, context): Promise<DeviceCheckOutcome> {
        signals.push(context.signal);
        if (signals.length === 1) {
          await firstHeld;
        } else {
          // The second waited for the first's slot past 90 % of the lease: it has no time left.
          await new Promise((resolve) =>
            context.signal.aborted ? resolve(undefined) : context.signal.addEventListener('abort', resolve),
          );
        }
        context.signal.throwIfAborted();
        throw new Error('not reached: the first is held until its lease is nearly gone');
      },
    });
    const run = engine.runOnce();
    while (signals.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // Both were claimed at once (one slot, and one claimed ahead); the first holds the slot while
    // the lease runs down to 5 % of it.
    clock.advance(leaseMs * 0.95);
    releaseFirst();
    // The lease's abort timer does not hold the process open (AbortSignal.timeout's never does).
    const keepAlive = setInterval(() => undefined, 1_000);
    const summary = await run.finally(() => clearInterval(keepAlive));
    assert.equal(signals.length, 2);
    assert.equal(signals[1]!.aborted, true);
    assert.deepEqual(summary, { claimed: 2, written: 0, fenced: 0, failed: 2, pruned: 0 });
  },
);
