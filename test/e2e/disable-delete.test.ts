/**
 * docs/engine.md §3: disabling a record (the store's `setEnabled`, for hosts; v1 has no update
 * route) pauses it, status `paused`, and stops its checks; enabling makes it pending and due
 * again. Deleting a device through the API deletes its schedule and its results, and a check in
 * flight when it is deleted writes nothing and announces nothing.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Device } from '../../core/index.ts';
import { waitFor } from '../support/wait-for.ts';
import { closedAfterEach, createWebDevice, eachStore, type World } from './harness.ts';

const START = '2026-07-01T00:00:00.000Z';
const INTERVAL_MS = 30_000;
const FAR_FUTURE = '2100-01-01T00:00:00.000Z';

eachStore('disabling and deleting records the engine checks', (opened) => {
  const open = closedAfterEach();

  const webDevice = (w: World, name: string, port: number): Promise<Device> =>
    createWebDevice(w, name, port, INTERVAL_MS / 1000);

  it('a disabled device is paused and no longer checked; enabled again, it is pending and due at once', async () => {
    const w = await open.world(opened().store, START);
    const target = await open.target();
    const engine = w.engine();
    const device = await webDevice(w, 'paused.probe-fixture.net', target.port);
    await engine.runOnce();
    assert.equal((await w.device(device.id)).status, 'up');

    const iso = () => new Date(w.clock.now()).toISOString();
    assert.equal(await w.store.setEnabled('device', device.id, false, iso()), true);
    const paused = await w.device(device.id);
    assert.deepEqual([paused.status, paused.status_since, paused.is_enabled], ['paused', iso(), false]);

    const requests = target.requests;
    for (let i = 0; i < 3; i++) {
      w.clock.advance(INTERVAL_MS * 2);
      assert.equal((await engine.runOnce()).claimed, 0, 'a paused device is never claimed');
    }
    assert.equal(target.requests, requests, 'and never probed');
    assert.equal((await w.device(device.id)).status, 'paused');

    assert.equal(await w.store.setEnabled('device', device.id, true, iso()), true);
    assert.equal((await w.device(device.id)).status, 'pending');
    assert.equal((await engine.runOnce()).written, 1, 'due at once');
    assert.equal((await w.device(device.id)).status, 'up');
    assert.equal(target.requests, requests + 1);
  });

  it('a device deleted while its check is in flight is not written, and its change is not announced', async () => {
    const w = await open.world(opened().store, START);
    const target = await open.target();
    const { receiver } = await w.subscribe();
    const engine = w.engine({ failuresBeforeDown: 1 });
    const device = await webDevice(w, 'deleted.probe-fixture.net', target.port);
    await engine.runOnce();
    assert.equal((await w.device(device.id)).status, 'up');

    // The check that would make it down waits at the server until the device is deleted.
    target.health = 'error';
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    target.gate = () => held;
    w.clock.advance(INTERVAL_MS);
    const requests = target.requests;
    const running = engine.runOnce();
    await waitFor('the check to reach the server', () => target.requests !== requests, 5);
    assert.equal(target.requests, requests + 1, 'the check reached the server once');
    await w.call(`/devices/delete?id=${device.id}`, { method: 'DELETE' });
    release();
    const summary = await running;
    assert.deepEqual([summary.claimed, summary.written, summary.fenced], [1, 0, 1], 'the delete took the lease away');
    assert.equal(receiver.received.length, 0, 'no device.down for a device deleted before its check ended');
    assert.equal(await w.store.deleteCheckResultsBefore(FAR_FUTURE, 1000), 0, 'no result rows of a deleted device');
  });

  it('deleting a device through the API deletes its results, and only its', async () => {
    const w = await open.world(opened().store, START);
    const target = await open.target();
    const engine = w.engine();
    const gone = await webDevice(w, 'gone.probe-fixture.net', target.port);
    const kept = await webDevice(w, 'kept.probe-fixture.net', target.port);
    for (let i = 0; i < 3; i++) {
      if (i > 0) w.clock.advance(INTERVAL_MS * 1.1);
      assert.equal((await engine.runOnce()).written, 2);
    }
    assert.equal((await w.call<unknown[]>(`/devices/results?id=${gone.id}`)).length, 3);

    await w.call(`/devices/delete?id=${gone.id}`, { method: 'DELETE' });
    const answer = await w.raw(`/devices/results?id=${gone.id}`);
    assert.deepEqual([answer.status, answer.body.error?.code], [404, 'device_not_found']);
    // Pruning everything shows what the store still holds: the kept device's three results only.
    // (Nothing else lives in this store: each test deletes its records when it ends.)
    assert.equal(
      await w.store.deleteCheckResultsBefore(FAR_FUTURE, 1000),
      3,
      'the deleted device left no results behind',
    );
    assert.deepEqual(await w.call<unknown[]>(`/devices/results?id=${kept.id}`), []);

    // Its schedule went with it: the engine finds nothing of it to check.
    w.clock.advance(INTERVAL_MS * 1.1);
    const requests = target.requests;
    assert.equal((await engine.runOnce()).claimed, 1, 'only the kept device is due');
    assert.equal(target.requests, requests + 1);
  });
});
