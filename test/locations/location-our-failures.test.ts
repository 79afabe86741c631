/**
 * docs/engine.md, "Checking a device from several locations": a check that failed on the worker's
 * side (engine/our-failures.ts) on the quorum path. The worker's policy refusing the target is
 * `refused_by_policy` and a check cut short as its lease runs out is `worker_overloaded`, as for a
 * device of one location; neither counts as the target's failure, and the record's `locations`
 * keep showing the location's last real result. Engines of three locations on one manual clock,
 * through the API, on the SQL stores (the memory store keeps no schedule per location).
 */
import assert from 'node:assert/strict';
import { afterEach, it } from 'node:test';
import type { DeviceProbeResult } from '../../core/index.ts';
import { closedAfterEach, createWebDevice, eachStore, verifySigned } from '../e2e/harness.ts';

const LOCATIONS = ['eu', 'us', 'ap'] as const;
const START = '2026-05-04T10:00:00.000Z';
const INTERVAL_S = 60;
const RETRY_S = 30;

eachStore('our own failures on the quorum path', (opened, name) => {
  /** Lets held answers go before the target closes, also after a failed assertion. */
  let release: (() => void) | undefined;
  afterEach(() => release?.());
  const open = closedAfterEach();
  const skip = name === 'memory' ? 'the memory store keeps no schedule per location' : false;

  async function located() {
    const w = await open.world(opened().store, START);
    const target = await open.target();
    const { receiver, webhook } = await w.subscribe();
    const engines = LOCATIONS.map((location) =>
      w.engine({ location, workerId: `w-${location}`, retryDelayS: RETRY_S }),
    );
    const { id } = await createWebDevice(w, 'located.probe-fixture.net', target.port, INTERVAL_S, {
      check_locations: LOCATIONS,
    });
    for (const engine of engines) await engine.runOnce();
    const up = await w.device(id);
    assert.equal(up.status, 'up');
    const events = () => receiver.received.map((request) => verifySigned(webhook.secret, request).type);
    return { w, id, up, engines, events, target };
  }

  it("a refusal by the worker's policy is ours: no down, and ap shows its last real result", { skip }, async () => {
    const { w, id, up, engines, events, target: t } = await located();
    const [eu, us] = engines;
    // ap's worker now refuses loopback targets, which the API accepted.
    const ap = w.engine({ location: 'ap', workerId: 'w-ap-strict', retryDelayS: RETRY_S, allowPrivateTargets: false });
    w.clock.advance(INTERVAL_S * 1000);
    t.health = 'error';
    await eu!.runOnce();
    t.health = 'ok';
    await ap.runOnce();
    const afterOurs = await w.device(id);
    assert.equal(afterOurs.status, 'validating', "ap's refusal is not the target's failure");
    assert.deepEqual(afterOurs.locations?.ap, up.locations?.ap, "ap's last real result, as it was");
    assert.equal(afterOurs.locations?.ap?.status, 'up');
    const [latest] = await w.call<DeviceProbeResult[]>(`/devices/results?id=${id}&limit=1`);
    assert.deepEqual([latest?.check_location, latest?.ok, latest?.error], ['ap', false, 'refused_by_policy']);
    // Another location's write shows ap the same way.
    await us!.runOnce();
    assert.deepEqual((await w.device(id)).locations?.ap, up.locations?.ap);
    // eu's re-check fails again: one location of three, never down.
    w.clock.advance(RETRY_S * 1000);
    t.health = 'error';
    await eu!.runOnce();
    t.health = 'ok';
    await ap.runOnce();
    await us!.runOnce();
    const d = await w.device(id);
    assert.notEqual(d.status, 'down');
    assert.deepEqual(events(), []);
  });

  it(
    'a check cut short as its lease runs out is worker_overloaded: written, not counted, due after the retry delay',
    { skip },
    async () => {
      const { w, id, up, target: t } = await located();
      // The target holds ap's request until the test lets it go; ap's lease is short.
      let letGo!: () => void;
      const held = new Promise<void>((resolve) => (letGo = resolve));
      release = letGo;
      t.gate = () => held;
      const ap = w.engine({ location: 'ap', workerId: 'w-ap-busy', retryDelayS: RETRY_S, leaseMs: 300 });
      w.clock.advance(INTERVAL_S * 1000);
      const run = await ap.runOnce();
      assert.deepEqual([run.written, run.failed], [1, 0], 'written as a check, not lost');
      release();
      t.gate = async () => {};
      const d = await w.device(id);
      assert.equal(d.status, 'up');
      assert.deepEqual(d.locations?.ap, up.locations?.ap);
      const [latest] = await w.call<DeviceProbeResult[]>(`/devices/results?id=${id}&limit=1`);
      assert.deepEqual([latest?.check_location, latest?.error], ['ap', 'worker_overloaded']);
      // Due again after the retry delay, not the interval.
      w.clock.advance(RETRY_S * 1000 - 1);
      assert.equal((await ap.runOnce()).claimed, 0);
      w.clock.advance(1);
      assert.equal((await ap.runOnce()).written, 1);
      assert.equal((await w.device(id)).locations?.ap?.last_checked_at, new Date(w.clock.now()).toISOString());
    },
  );
});
