/**
 * Many PATCHes of one record at once, on every store, each through a real node:http server in
 * front of the API (docs/contract.md §6.9, "Concurrent changes"): every one answers 200 with its
 * own values, and the record ends up as exactly one request's set of fields, never a mix. For a
 * device, a worker claims, checks and records the same device all the while.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { BlacklistMonitor, Device, MaintenanceWindow, Webhook } from '../../core/index.ts';
import type { TestApi, TestBody, TestResponse } from '../../core/testing/index.ts';
import { createNodeHandler } from '../../adapters/node/index.ts';
import { createMonitoringEngine, type EngineRunSummary } from '../../engine/index.ts';
import { assertSuccess, eachStore, type Env } from '../api/helpers.ts';

const AT_ONCE = 50;

interface Served {
  t: TestApi;
  key: CreatedApiKey;
  send<T>(method: string, path: string, body?: unknown): Promise<TestResponse<T>>;
}

async function serve(env: Env, context: TestContext): Promise<Served> {
  const { t, key } = await env.setup({ allowPrivateTargets: true });
  const server = createServer(createNodeHandler(t.api));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  context.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  async function send<T>(method: string, path: string, body?: unknown): Promise<TestResponse<T>> {
    const headers = new Headers({ authorization: `Bearer ${key.token}` });
    if (body !== undefined) headers.set('content-type', 'application/json');
    const response = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as TestBody<T>, text };
  }
  return { t, key, send };
}

/** The fields a record has of `set`, as its answer shows them. */
function fieldsOf(record: object, set: Record<string, unknown>): Record<string, unknown> {
  const values = record as Record<string, unknown>;
  return Object.fromEntries(Object.keys(set).map((name) => [name, values[name]]));
}

/**
 * Sends `AT_ONCE` PATCHes of one record at once, the i-th with `setOf(i)`, and checks that each
 * answers 200 with its own set, and that the record as read afterwards holds exactly one of them.
 */
async function patchAtOnce<T extends object>(
  s: Served,
  path: string,
  id: number,
  setOf: (i: number) => Record<string, unknown>,
  which: (record: T) => number,
  sent: () => void = () => {},
): Promise<T> {
  const asked = Array.from({ length: AT_ONCE }, (_, i) => s.send<T>('PATCH', `${path}/update?id=${id}`, setOf(i)));
  sent();
  const answers = await Promise.all(asked);
  const failed = answers.filter((answer) => answer.status !== 200);
  assert.equal(failed.length, 0, `${failed.length} of ${AT_ONCE} PATCHes failed, the first: ${failed[0]?.text}`);
  answers.forEach((answer, i) => {
    assert.deepEqual(fieldsOf(answer.body.data as T, setOf(i)), setOf(i), `PATCH ${i} answers its own fields`);
  });
  const stored = assertSuccess(await s.send<T>('GET', `${path}/get?id=${id}`), 200);
  const i = which(stored);
  assert.ok(Number.isSafeInteger(i) && i >= 0 && i < AT_ONCE, `one request's set: ${JSON.stringify(stored)}`);
  assert.deepEqual(fieldsOf(stored, setOf(i)), setOf(i), `request ${i}'s set, whole: ${JSON.stringify(stored)}`);
  return stored;
}

/** A loopback HTTP target that holds every request until `release()`, then answers each at once. */
async function heldTarget(context: TestContext) {
  const held: ServerResponse[] = [];
  let released = false;
  let arrived!: () => void;
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((_request, response) => {
    if (released) response.end();
    else {
      held.push(response);
      arrived();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  context.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    port: (server.address() as AddressInfo).port,
    /** Resolves when the first request is held. */
    first,
    release() {
      released = true;
      for (const response of held.splice(0)) response.end();
    },
  };
}

eachStore('fifty concurrent PATCHes of one record', (env) => {
  test('a device, while a worker claims, checks and records it: each 200, the record one set whole', async (c) => {
    const s = await serve(env, c);
    // Every set changes what is checked (a restart), and half of them pause the device.
    const setOf = (i: number) => ({
      target_type: 'domain',
      target_value: `set-${i}.probe-fixture.net`,
      service_type: 'web',
      scheme: 'http',
      // Nothing listens on these loopback ports: each check fails at once, refused.
      port: 1000 + i,
      location: `set ${i}`,
      expect_status: 200 + i,
      check_interval_s: 60 + i,
      is_enabled: i % 2 === 0,
    });
    // The device starts out checked at a target that holds the worker's first check until the
    // PATCHes are on their way: its result is then written while they are.
    const target = await heldTarget(c);
    const created = { ...setOf(AT_ONCE), port: target.port, is_enabled: true };
    const device = assertSuccess(await s.send<Device>('POST', '/devices/create', created), 201);
    const engine = createMonitoringEngine({
      store: env.store,
      clock: s.t.clock,
      allowPrivateTargets: true,
      lookup: async () => ['127.0.0.1'],
      writeDelayMs: 0,
      failuresBeforeDown: 1,
      probeTimeoutMs: 30_000,
      connectTimeoutMs: 30_000,
    });
    let done = false;
    const runs: EngineRunSummary[] = [];
    const worker = (async () => {
      while (!done) {
        runs.push(await engine.runOnce());
        // Between cycles the server's sockets get their turn, whatever the store.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    let stored: Device;
    try {
      await target.first;
      for (let round = 0; round < 2; round++) {
        const sent = round === 0 ? () => target.release() : undefined;
        stored = await patchAtOnce<Device>(s, '/devices', device.id, setOf, (d) => Number(d.location?.slice(4)), sent);
        assert.equal(stored.status === 'paused', !stored.is_enabled, `paused exactly when disabled: ${stored.status}`);
      }
    } finally {
      target.release();
      done = true;
      await worker;
    }
    // The held check was claimed, and written or fenced (a PATCH's restart took its lease away),
    // never lost to a write the store refused (a deadlock, say).
    assert.deepEqual([runs[0]!.claimed, runs[0]!.written + runs[0]!.fenced], [1, 1]);
    assert.equal(
      runs.reduce((sum, run) => sum + run.failed, 0),
      0,
      'no check of the worker was lost',
    );
    // The worker's own writes leave the request's fields alone.
    await engine.runOnce();
    const after = assertSuccess(await s.send<Device>('GET', `/devices/get?id=${device.id}`), 200);
    const i = Number(stored!.location!.slice('set '.length));
    assert.deepEqual(fieldsOf(after, setOf(i)), setOf(i));
  });

  test('a blacklist monitor: each 200, the record one set whole', async (c) => {
    const s = await serve(env, c);
    const setOf = (i: number) => ({
      target_type: 'domain',
      target_value: `set-${i}.example.net`,
      check_interval_s: 300 + i,
      count_policy_listings: i % 3 === 0,
      is_enabled: i % 2 === 0,
    });
    const monitor = assertSuccess(await s.send<BlacklistMonitor>('POST', '/blacklist-monitors/create', setOf(0)), 201);
    for (let round = 0; round < 2; round++) {
      await patchAtOnce<BlacklistMonitor>(s, '/blacklist-monitors', monitor.id, setOf, (m) => m.check_interval_s - 300);
    }
  });

  test('a webhook: each 200, the record one set whole', async (c) => {
    const s = await serve(env, c);
    const events = ['device.down', 'device.up', 'device.paused', 'device.resumed'];
    const setOf = (i: number) => ({
      url: `http://set-${i}.example.com/hook`,
      events: events.filter((_, n) => ((i >> n) & 1) === 1 || n === 0),
      is_enabled: i % 2 === 0,
    });
    const webhook = assertSuccess(await s.send<Webhook>('POST', '/webhooks/create', setOf(0)), 201);
    for (let round = 0; round < 2; round++) {
      await patchAtOnce<Webhook>(s, '/webhooks', webhook.id, setOf, (w) => Number(/set-(\d+)\./.exec(w.url)?.[1]));
    }
  });

  test('a maintenance window: each 200, the record one set whole', async (c) => {
    const s = await serve(env, c);
    const devices: number[] = [];
    for (let n = 0; n < 3; n++) {
      const body = { target_type: 'domain', target_value: `covered-${n}.example.com` };
      devices.push(assertSuccess(await s.send<Device>('POST', '/devices/create', body), 201).id);
    }
    const setOf = (i: number) => ({
      name: `set ${i}`,
      starts_at: new Date(Date.UTC(2026, 1, 1, 0, i)).toISOString(),
      ends_at: new Date(Date.UTC(2026, 1, 2, 0, i)).toISOString(),
      device_ids: devices.filter((_, n) => ((i >> n) & 1) === 1),
      all_blacklist_monitors: i % 2 === 0,
    });
    const window = assertSuccess(await s.send<MaintenanceWindow>('POST', '/maintenance-windows/create', setOf(0)), 201);
    for (let round = 0; round < 2; round++) {
      await patchAtOnce<MaintenanceWindow>(s, '/maintenance-windows', window.id, setOf, (w) => Number(w.name.slice(4)));
    }
  });

  test('a PATCH whose record changed since its instance last saw it is judged again: a duplicate is 409, no change is 200', async (c) => {
    const s = await serve(env, c);
    const other = env.api({ clock: s.t.clock });
    const a = assertSuccess(
      await s.send<Device>('POST', '/devices/create', { target_type: 'domain', target_value: 'a.example.com' }),
      201,
    );
    const b = assertSuccess(
      await s.send<Device>('POST', '/devices/create', { target_type: 'domain', target_value: 'b.example.com' }),
      201,
    );
    // Changed through another instance: this one's last answer for b is out of date.
    const moved = { method: 'PATCH', key: s.key, body: { location: 'moved' } };
    assertSuccess(await other.request(`/v1/devices/update?id=${b.id}`, moved), 200);
    const duplicate = await s.send('PATCH', `/devices/update?id=${b.id}`, { target_value: 'a.example.com' });
    assert.equal(duplicate.status, 409, duplicate.text);
    assert.deepEqual(duplicate.body.error, { ...duplicate.body.error, code: 'duplicate_device', existing_id: a.id });
    const kept = assertSuccess(await s.send<Device>('GET', `/devices/get?id=${b.id}`), 200);
    assert.deepEqual([kept.target_value, kept.location], ['b.example.com', 'moved']);

    // The other instance makes the change this one is about to ask for: it finds nothing to do.
    const again = { method: 'PATCH', key: s.key, body: { location: 'asked' } };
    const asked = assertSuccess(await other.request<Device>(`/v1/devices/update?id=${a.id}`, again), 200);
    const same = assertSuccess(await s.send<Device>('PATCH', `/devices/update?id=${a.id}`, { location: 'asked' }), 200);
    assert.deepEqual(same, asked);
  });
});
