/**
 * docs/engine.md, "Statuses and transitions": a device's `status_since` through the API's device
 * record, on every store. A failure that is not confirmed (`up` → `validating` → `up`, silent) does
 * not restart the time the device has been up; a device that was never up, or was down, is up
 * from the check that made it so.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { closedAfterEach, createWebDevice, eachStore } from '../e2e/harness.ts';

const START = Date.parse('2026-05-04T10:00:00.000Z');
const INTERVAL_S = 60;
const RETRY_S = 30;
const stamp = (ms: number) => new Date(ms).toISOString();

eachStore('status_since of a device checked from any one location', (opened) => {
  const open = closedAfterEach();

  it('a silent validating → up keeps the time it has been up; validating shows its own start', async () => {
    const w = await open.world(opened().store, START);
    const target = await open.target();
    const engine = w.engine({ retryDelayS: RETRY_S });
    const { id } = await createWebDevice(w, 'blip.probe-fixture.net', target.port, INTERVAL_S);
    await engine.runOnce();
    assert.deepEqual([(await w.device(id)).status, (await w.device(id)).status_since], ['up', stamp(START)]);

    // A failed check, then a passing re-check: up since the first check, as before the failure.
    w.clock.advance(INTERVAL_S * 1000);
    target.health = 'error';
    await engine.runOnce();
    const validating = await w.device(id);
    assert.deepEqual([validating.status, validating.status_since], ['validating', stamp(START + INTERVAL_S * 1000)]);
    w.clock.advance(RETRY_S * 1000);
    target.health = 'ok';
    await engine.runOnce();
    const back = await w.device(id);
    assert.deepEqual([back.status, back.status_since], ['up', stamp(START)]);

    // Twice in a row: still up since the first check.
    for (let i = 0; i < 2; i++) {
      w.clock.advance(INTERVAL_S * 1000);
      target.health = 'error';
      await engine.runOnce();
      w.clock.advance(RETRY_S * 1000);
      target.health = 'ok';
      await engine.runOnce();
    }
    assert.deepEqual([(await w.device(id)).status, (await w.device(id)).status_since], ['up', stamp(START)]);

    // Down, then up again: up from the check that ended the outage.
    w.clock.advance(INTERVAL_S * 1000);
    target.health = 'error';
    await engine.runOnce();
    w.clock.advance(RETRY_S * 1000);
    await engine.runOnce();
    assert.equal((await w.device(id)).status, 'down');
    w.clock.advance(INTERVAL_S * 1000);
    target.health = 'ok';
    await engine.runOnce();
    const recovered = await w.device(id);
    assert.deepEqual([recovered.status, recovered.status_since], ['up', stamp(w.clock.now())]);
    // A blip after the recovery goes back to the recovery, not to the first up.
    const recoveredAt = recovered.status_since;
    w.clock.advance(INTERVAL_S * 1000);
    target.health = 'error';
    await engine.runOnce();
    w.clock.advance(RETRY_S * 1000);
    target.health = 'ok';
    await engine.runOnce();
    assert.deepEqual([(await w.device(id)).status, (await w.device(id)).status_since], ['up', recoveredAt]);
  });

  it('a first check that fails, then a pass: up from that pass, never before it', async () => {
    const w = await open.world(opened().store, START);
    const target = await open.target();
    target.health = 'error';
    const engine = w.engine({ retryDelayS: RETRY_S });
    const { id } = await createWebDevice(w, 'late.probe-fixture.net', target.port, INTERVAL_S);
    await engine.runOnce();
    assert.deepEqual([(await w.device(id)).status, (await w.device(id)).status_since], ['validating', stamp(START)]);
    w.clock.advance(RETRY_S * 1000);
    target.health = 'ok';
    await engine.runOnce();
    const up = await w.device(id);
    assert.deepEqual([up.status, up.status_since], ['up', stamp(START + RETRY_S * 1000)]);
  });
});
