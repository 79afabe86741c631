/**
 * docs/engine.md, "Changing a record", through a running engine against local targets: a PATCH of
 * what is checked fences the check in flight (never written, never announced) and the next check
 * runs on the new settings; a PATCH of the location alone does not; pause and resume through the
 * API are announced to a webhook, verified with the `standardwebhooks` package.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BlacklistMonitor, Device } from '../../core/index.ts';
import { waitFor } from '../support/wait-for.ts';
import { closedAfterEach, createWebDevice, eachStore, verifyNow, type World } from './harness.ts';
import type { TargetServer } from './target-server.ts';

const INTERVAL_S = 30;

eachStore('changing records the engine checks', (opened) => {
  const open = closedAfterEach();

  const webDevice = (w: World, name: string, port: number): Promise<Device> =>
    createWebDevice(w, name, port, INTERVAL_S);

  /** Holds the next request at `target` until the returned release is called; resolves once it arrived. */
  async function holdNext(target: TargetServer): Promise<() => void> {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    target.gate = () => held;
    return release;
  }

  it('a PATCH of the port while a check is in flight fences it: nothing of it is written or announced', async () => {
    const w = await open.world(opened().store, Math.floor(Date.now() / 1000) * 1000);
    const old = await open.target();
    const next = await open.target();
    const { receiver } = await w.subscribe(['device.down', 'device.up']);
    const engine = w.engine({ failuresBeforeDown: 1 });
    const device = await webDevice(w, 'moved.probe-fixture.net', old.port);
    assert.equal((await engine.runOnce()).written, 1);
    assert.equal((await w.device(device.id)).status, 'up');

    // The old target now fails; its check is held there while the device moves to the new one.
    old.health = 'error';
    const release = await holdNext(old);
    w.clock.advance(INTERVAL_S * 1000);
    const before = old.requests;
    const running = engine.runOnce();
    await waitFor('the check reaches the old target', () => old.requests === before + 1);
    const moved = await w.call<Device>(`/devices/update?id=${device.id}`, {
      method: 'PATCH',
      body: { port: next.port },
    });
    assert.deepEqual([moved.port, moved.status], [next.port, 'pending']);
    release();
    const summary = await running;
    assert.deepEqual([summary.claimed, summary.written, summary.fenced], [1, 0, 1], 'the change took the lease away');
    assert.equal((await w.device(device.id)).status, 'pending', 'the failure under the old port was not recorded');
    assert.equal(
      (await w.call<unknown[]>(`/devices/results?id=${device.id}`)).length,
      1,
      'only the first check has a result',
    );

    // Due at once, on the new port.
    assert.equal((await engine.runOnce()).written, 1);
    assert.equal(next.requests, 1);
    assert.equal((await w.device(device.id)).status, 'up');
    await engine.runOnce();
    assert.equal(receiver.received.length, 0, 'no device.down for the fenced check, no device.up after it');
  });

  it('a PATCH of the location alone while a check is in flight keeps it: both are written', async () => {
    const w = await open.world(opened().store, Math.floor(Date.now() / 1000) * 1000);
    const target = await open.target();
    const engine = w.engine();
    const device = await webDevice(w, 'noted.probe-fixture.net', target.port);
    const release = await holdNext(target);
    const running = engine.runOnce();
    await waitFor('the check reaches the target', () => target.requests === 1);
    const noted = await w.call<Device>(`/devices/update?id=${device.id}`, {
      method: 'PATCH',
      body: { location: 'rack 7' },
    });
    assert.equal(noted.status, 'pending');
    release();
    assert.equal((await running).written, 1);
    const after = await w.device(device.id);
    assert.deepEqual([after.location, after.status], ['rack 7', 'up'], 'the change and the check are both kept');
  });

  it('pause and resume through the API are announced (verified with standardwebhooks); a paused device is not checked', async () => {
    const w = await open.world(opened().store, Math.floor(Date.now() / 1000) * 1000);
    const target = await open.target();
    const { receiver, webhook } = await w.subscribe();
    const engine = w.engine();
    const device = await webDevice(w, 'paused.probe-fixture.net', target.port);
    await engine.runOnce();
    assert.equal((await w.device(device.id)).status, 'up');

    const paused = await w.call<Device>(`/devices/update?id=${device.id}`, {
      method: 'PATCH',
      body: { is_enabled: false },
    });
    assert.deepEqual([paused.status, paused.is_enabled], ['paused', false]);
    await engine.runOnce();
    await waitFor('device.paused delivered', () => receiver.received.length === 1);
    const pausedEvent = verifyNow(webhook.secret, receiver.received[0]!);
    assert.equal(pausedEvent.type, 'device.paused');
    assert.deepEqual(
      [pausedEvent.data.id, pausedEvent.data.previous_status, pausedEvent.data.status],
      [device.id, 'up', 'paused'],
    );
    assert.deepEqual(pausedEvent.data, { ...paused, previous_status: 'up', status: 'paused' });

    const requests = target.requests;
    w.clock.advance(INTERVAL_S * 3000);
    assert.equal((await engine.runOnce()).claimed, 0, 'a paused device is never claimed');
    assert.equal(target.requests, requests);
    // Pausing again changes nothing and announces nothing.
    await w.call<Device>(`/devices/update?id=${device.id}`, { method: 'PATCH', body: { is_enabled: false } });

    const resumed = await w.call<Device>(`/devices/update?id=${device.id}`, {
      method: 'PATCH',
      body: { is_enabled: true },
    });
    assert.equal(resumed.status, 'pending');
    assert.equal((await engine.runOnce()).written, 1, 'due at once');
    await waitFor('device.resumed delivered', () => receiver.received.length === 2);
    const resumedEvent = verifyNow(webhook.secret, receiver.received[1]!);
    assert.equal(resumedEvent.type, 'device.resumed');
    assert.deepEqual([resumedEvent.data.previous_status, resumedEvent.data.status], ['paused', 'pending']);
    assert.equal((await w.device(device.id)).status, 'up');
    assert.equal(receiver.received.length, 2, 'no other event');
  });

  it('a blacklist monitor paused and resumed through the API is announced as paused and active', async () => {
    const w = await open.world(opened().store, Math.floor(Date.now() / 1000) * 1000);
    const { receiver, webhook } = await w.subscribe(['blacklist_monitor.paused', 'blacklist_monitor.resumed']);
    // No zones: the engine checks nothing, but it delivers.
    const engine = w.engine({ dnsblZones: [], dnsblDomainZones: [] });
    const monitor = await w.call<BlacklistMonitor>(
      '/blacklist-monitors/create',
      {
        method: 'POST',
        body: { target_type: 'domain', target_value: 'watched.probe-fixture.net' },
      },
      201,
    );
    await w.call(`/blacklist-monitors/update?id=${monitor.id}`, { method: 'PATCH', body: { is_enabled: 0 } });
    await w.call(`/blacklist-monitors/update?id=${monitor.id}`, { method: 'PATCH', body: { is_enabled: 1 } });
    await engine.runOnce();
    await waitFor('both events delivered', () => receiver.received.length === 2);
    const events = receiver.received.map((request) => verifyNow(webhook.secret, request));
    assert.deepEqual(
      events.map((e) => [e.type, e.data.previous_status, e.data.status, e.data.id]),
      [
        ['blacklist_monitor.paused', 'active', 'paused', monitor.id],
        ['blacklist_monitor.resumed', 'paused', 'active', monitor.id],
      ],
    );
  });
});
