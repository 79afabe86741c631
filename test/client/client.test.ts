/**
 * The typed client against the real standalone server (`monitoring-api serve` over SQLite, keys
 * from the CLI's own commands): every method, typed errors, pagination past one page, and the 429 retry.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createMonitoringClient,
  isApiError,
  MonitoringApiError,
  type BlacklistMonitor,
  type Device,
  type DeviceInput,
  type LocationSummary,
  type MonitoringClient,
  type MonitoringClientOptions,
} from '../../client/index.ts';
import { openKyselyStore } from '../../stores/kysely/index.ts';
import { startServer, type StandaloneServer } from './standalone-server.ts';

interface Sent {
  method: string;
  url: string;
  status: number;
  at: number;
}

/** The global fetch, with a log of what went over the wire. */
function loggingFetch(log: Sent[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    log.push({ method: init?.method ?? 'GET', url: String(input), status: response.status, at: Date.now() });
    return response;
  };
}

/** Array.fromAsync, which Node 20 lacks. */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function expectApiError(promise: Promise<unknown>, status: number, code: string): Promise<MonitoringApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof MonitoringApiError, `expected a MonitoringApiError, got ${String(error)}`);
    assert.equal(error.status, status, `${error.code}: ${error.message}`);
    assert.equal(error.code, code);
    assert.ok(error.message.length > 0);
    return error;
  }
  assert.fail(`expected ${status} ${code}, but the call succeeded`);
}

const WEB: DeviceInput = {
  target_type: 'domain',
  target_value: 'Example.COM',
  scheme: 'https',
  check_public_tls: 1,
  check_public_http: 0,
  expect_status: 204,
  location: 'rack 4',
  is_enabled: true,
};

// One server for both groups below: a process start saved.
let server: StandaloneServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

describe('client against the standalone server', { concurrency: 1 }, () => {
  const clients: { client: MonitoringClient; log: Sent[] }[] = [];
  const client = (token: string, extra: Partial<MonitoringClientOptions> = {}) => {
    const log: Sent[] = [];
    const made = createMonitoringClient({ baseUrl: server.baseUrl, token, fetch: loggingFetch(log), ...extra });
    clients.push({ client: made, log });
    return { api: made, log };
  };

  // Keys come from the CLI's commands (run in this process, see standalone-server.ts): made up front.
  // Tests that assert on whole lists get a user of their own; the others share the bootstrap user.
  let bootstrapUser: number;
  let reader: { token: string; userId: number };
  /** A user for the devices and blacklist-monitor round trips (they assert whole lists). */
  let recordsKey: string;
  /** A user for pagination (it asserts exactly 25 devices). */
  let pagesKey: string;

  before(async () => {
    bootstrapUser = (await createMonitoringClient({ baseUrl: server.baseUrl, token: server.bootstrapToken }).me())
      .user_id;
    const [readKey, records, pages] = await Promise.all([
      server.createKey({ userId: bootstrapUser, scopes: 'read' }),
      server.createKey(),
      server.createKey(),
    ]);
    reader = readKey;
    [recordsKey, pagesKey] = [records.token, pages.token];
  });

  test('me() with the bootstrap key and with a CLI-made key', async () => {
    const me = await client(server.bootstrapToken).api.me();
    assert.deepEqual(me.scopes.sort(), ['read', 'write']);
    assert.ok(Number.isInteger(me.user_id) && Number.isInteger(me.key_id));
    const mine = await client(reader.token).api.me();
    assert.equal(mine.user_id, reader.userId);
    assert.notEqual(mine.key_id, me.key_id);
    assert.deepEqual(mine.scopes, ['read']);
  });

  test('locations(): the locations of the workers that sent a heartbeat, by name', async () => {
    const { api } = client(reader.token);
    assert.deepEqual(await api.locations(), []);
    // A worker's heartbeat, written as a worker on the same database writes it.
    const opened = await openKyselyStore(server.database);
    try {
      await opened.store.recordHeartbeat({
        worker_id: 'w1',
        location: 'eu-west',
        version: '1.0.0',
        started_at: new Date().toISOString(),
      });
    } finally {
      await opened.store.close();
    }
    const locations: LocationSummary[] = await api.locations();
    assert.deepEqual(
      locations.map((l) => [l.name, l.live_workers]),
      [['eu-west', 1]],
    );
    await expectApiError(client('mapi_not-a-real-key').api.locations(), 401, 'invalid_api_key');
  });

  test('devices: create (typed, normalised, defaults filled), list, delete, then 404', async () => {
    const { api } = client(recordsKey);
    const device: Device = await api.devices.create(WEB);
    assert.equal(device.target_value, 'example.com');
    assert.equal(device.port, 443);
    assert.equal(device.check_public_tls, true);
    assert.equal(device.check_public_http, false);
    assert.equal(device.expect_status, 204);
    const ssh = await api.devices.create({ target_type: 'ip', target_value: '8.8.8.8', service_type: 'ssh' });
    assert.equal(ssh.port, 22);
    assert.equal(ssh.scheme, null);
    const page = await api.devices.list();
    assert.deepEqual(
      page.data.map((d) => d.id),
      [device.id, ssh.id],
    );
    assert.equal(page.next, null);
    assert.deepEqual(await api.devices.delete(device.id), { id: device.id, deleted: true });
    await expectApiError(api.devices.delete(device.id), 404, 'device_not_found');
    assert.deepEqual(
      (await api.devices.list()).data.map((d) => d.id),
      [ssh.id],
    );
  });

  test('blacklist monitors: create, list, delete, then 404', async () => {
    const { api } = client(recordsKey);
    const monitor: BlacklistMonitor = await api.blacklistMonitors.create({
      target_type: 'ip',
      target_value: '1.1.1.1',
      is_enabled: 0,
    });
    assert.equal(monitor.is_enabled, false);
    assert.equal(monitor.last_status, null);
    assert.deepEqual(monitor.listed_on, []);
    assert.deepEqual((await api.blacklistMonitors.list()).data, [monitor]);
    assert.deepEqual(await api.blacklistMonitors.delete(monitor.id), { id: monitor.id, deleted: true });
    await expectApiError(api.blacklistMonitors.delete(monitor.id), 404, 'blacklist_monitor_not_found');
  });

  test('check(id): 202 with the record; again within a minute a typed check_too_soon with retryAfterSeconds; paused is record_paused', async () => {
    const { api } = client(recordsKey);
    const monitor = await api.blacklistMonitors.create({
      target_type: 'ip',
      target_value: '1.0.0.1',
      zones: ['zen.spamhaus.org'],
      count_policy_listings: 1,
    });
    assert.deepEqual(
      [monitor.zones, monitor.count_policy_listings, monitor.listings, monitor.rdns],
      [['zen.spamhaus.org'], true, [], null],
    );
    const asked: BlacklistMonitor = await api.blacklistMonitors.check(monitor.id);
    assert.equal(asked.id, monitor.id);
    const tooSoon = await expectApiError(api.blacklistMonitors.check(monitor.id), 429, 'check_too_soon');
    assert.ok(
      tooSoon.retryAfterSeconds !== undefined && tooSoon.retryAfterSeconds > 0 && tooSoon.retryAfterSeconds <= 60,
    );
    const device = await api.devices.create({
      target_type: 'ip',
      target_value: '1.0.0.2',
      service_type: 'ssh',
      is_enabled: false,
    });
    await expectApiError(api.devices.check(device.id), 409, 'record_paused');
    await api.blacklistMonitors.delete(monitor.id);
    await api.devices.delete(device.id);
  });

  test('get and update on every resource, and maintenance windows, through the typed client', async () => {
    const { api } = client(recordsKey);
    const device = await api.devices.create({ target_type: 'domain', target_value: 'typed-update.example.com' });
    assert.deepEqual(await api.devices.get(device.id), device);
    const moved = await api.devices.update(device.id, { scheme: 'http', location: 'rack 9' });
    assert.deepEqual([moved.port, moved.location, moved.status], [80, 'rack 9', 'pending']);
    const paused = await api.devices.update(device.id, { is_enabled: false });
    assert.equal(paused.status, 'paused');
    await expectApiError(api.devices.update(device.id, { status: 'up' } as never), 400, 'validation_failed');
    const monitor = await api.blacklistMonitors.create({ target_type: 'ip', target_value: '9.9.9.9' });
    assert.equal((await api.blacklistMonitors.update(monitor.id, { check_interval_s: 900 })).check_interval_s, 900);
    const hook = await api.webhooks.create({ url: 'https://hooks.example.com/typed' });
    const rotated = await api.webhooks.update(hook.id, { rotate_secret: true });
    assert.ok('secret' in rotated && rotated.secret !== hook.secret);
    assert.equal('secret' in (await api.webhooks.get(hook.id)), false);
    const window = await api.maintenanceWindows.create({
      name: 'Typed',
      repeat: { days: ['mon'], start: '03:00', duration_s: 3600, time_zone: 'Europe/Paris' },
      device_ids: [device.id],
    });
    assert.equal(window.active_now, false);
    assert.deepEqual((await api.maintenanceWindows.update(window.id, { name: 'Renamed' })).name, 'Renamed');
    assert.deepEqual(
      (await api.maintenanceWindows.list()).data.map((w) => w.id),
      [window.id],
    );
    await expectApiError(api.maintenanceWindows.create({ name: 'x', device_ids: [999_999] }), 400, 'validation_failed');
    assert.deepEqual(await api.maintenanceWindows.delete(window.id), { id: window.id, deleted: true });
    await expectApiError(api.maintenanceWindows.get(window.id), 404, 'maintenance_window_not_found');
    for (const id of [device.id]) await api.devices.delete(id);
    await api.blacklistMonitors.delete(monitor.id);
    await api.webhooks.delete(hook.id);
  });

  test('a duplicate is a typed 409 carrying existingId and the request id', async () => {
    const { api } = client(server.bootstrapToken);
    const first = await api.devices.create(WEB);
    const error = await expectApiError(
      api.devices.create({ ...WEB, target_value: 'example.com.' }, { requestId: 'dup-check-1' }),
      409,
      'duplicate_device',
    );
    assert.equal(error.existingId, first.id);
    assert.equal(error.requestId, 'dup-check-1');
    assert.ok(isApiError(error, 'duplicate_device'));
    const monitor = await api.blacklistMonitors.create({ target_type: 'domain', target_value: 'example.org' });
    const again = await expectApiError(
      api.blacklistMonitors.create({ target_type: 'domain', target_value: 'EXAMPLE.org' }),
      409,
      'duplicate_blacklist_monitor',
    );
    assert.equal(again.existingId, monitor.id);
  });

  test('a 400 carries every detail; 401 and 403 are typed too', async () => {
    const { api } = client(server.bootstrapToken);
    const bad = {
      target_type: 'domain',
      target_value: 'example.net',
      port: 70000,
      is_enabled: 2,
      expected_status: 200,
    } as unknown as DeviceInput;
    const error = await expectApiError(api.devices.create(bad), 400, 'validation_failed');
    assert.deepEqual(error.details.map((d) => [d.field, d.code]).sort(), [
      ['expected_status', 'unknown_field'],
      ['is_enabled', 'invalid_value'],
      ['port', 'out_of_range'],
    ]);
    assert.equal(error.existingId, undefined);
    await expectApiError(api.devices.delete(0), 400, 'invalid_id');
    await expectApiError(api.devices.list({ limit: 0 }), 400, 'validation_failed');
    await expectApiError(client('mapi_not-a-real-key').api.me(), 401, 'invalid_api_key');
    await expectApiError(client(reader.token).api.devices.create(WEB), 403, 'insufficient_scope');
  });

  test('list() gives one page and the next cursor; all() walks 25 records in pages of 10', async () => {
    const { api, log } = client(pagesKey);
    const ids: number[] = [];
    for (let i = 0; i < 25; i++)
      ids.push(
        (await api.devices.create({ target_type: 'domain', target_value: `host${i}.example.com`, service_type: 'ssh' }))
          .id,
      );

    const first = await api.devices.list({ limit: 10 });
    assert.deepEqual(
      first.data.map((d) => d.id),
      ids.slice(0, 10),
    );
    assert.deepEqual(first.next, { limit: 10, afterId: ids[9] });
    const second = await api.devices.list(first.next!);
    assert.deepEqual(
      second.data.map((d) => d.id),
      ids.slice(10, 20),
    );
    const third = await api.devices.list(second.next!);
    assert.deepEqual(
      third.data.map((d) => d.id),
      ids.slice(20),
    );
    assert.equal(third.next, null);

    log.length = 0;
    const seen: number[] = [];
    for await (const device of api.devices.all({ pageSize: 10 })) seen.push(device.id);
    assert.deepEqual(seen, ids);
    assert.equal(log.length, 3, 'three pages: 10, 10 and 5');
    assert.deepEqual(
      log.map((s) => new URL(s.url).search),
      ['?limit=10&after_id=0', `?limit=10&after_id=${ids[9]}`, `?limit=10&after_id=${ids[19]}`],
    );

    // The default page size still reaches everything; an iterator stopped early stops fetching.
    assert.equal((await collect(api.devices.all())).length, 25);
    log.length = 0;
    for await (const device of api.devices.all({ pageSize: 5 })) if (device.id === ids[2]) break;
    assert.equal(log.length, 1);
  });

  test('a network failure is a typed error and is never retried, even with retry on', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const log: Sent[] = [];
    let attempts = 0;
    const api = createMonitoringClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      token: 'mapi_x',
      retry: { retries: 5 },
      fetch: (input, init) => {
        attempts++;
        return loggingFetch(log)(input, init);
      },
    });
    await expectApiError(api.devices.create(WEB), 0, 'network_error');
    assert.equal(attempts, 1);
  });

  test('an aborted call is a typed error', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectApiError(client(server.bootstrapToken).api.me({ signal: controller.signal }), 0, 'aborted');
  });
});

// The tests run side by side, each with keys of its own: a key's window opens with its first
// request (fixed windows per key), so a new key starts with its whole quota and no test waits
// for another's window to end.
// The limit is the key's own (keys create --rate-limit), which the server enforces as it does its
// default (serve --rate-limit, test/cli/serve.test.ts). Its window is long enough for a fourth
// request in a row to land in it on a slow machine, and short enough for a retry to wait it out.
describe('client retry of 429 with keys limited to 3 requests in 3 seconds', { concurrency: true }, () => {
  /** A key of a new user, not used yet: its first request opens its first window. */
  const freshKey = async (): Promise<string> => (await server.createKey({ rateLimit: '3/3' })).token;

  test('without opt-in a 429 is thrown at once, with retryAfterSeconds', async () => {
    const log: Sent[] = [];
    const api = createMonitoringClient({ baseUrl: server.baseUrl, token: await freshKey(), fetch: loggingFetch(log) });
    for (let i = 0; i < 3; i++) await api.me();
    const error = await expectApiError(api.me(), 429, 'rate_limit_exceeded');
    assert.ok(error.retryAfterSeconds !== undefined && error.retryAfterSeconds >= 0 && error.retryAfterSeconds <= 3);
    assert.equal(log.length, 4, 'one request per call: nothing was retried');
  });

  test('with retry, a burst succeeds: each 429 is retried after Retry-After, and creates are not duplicated', async () => {
    const log: Sent[] = [];
    const api = createMonitoringClient({
      baseUrl: server.baseUrl,
      token: await freshKey(),
      fetch: loggingFetch(log),
      retry: { retries: 5 },
    });
    const created: Device[] = [];
    for (let i = 0; i < 7; i++)
      created.push(
        await api.devices.create({ target_type: 'domain', target_value: `burst${i}.example.com`, service_type: 'ssh' }),
      );
    assert.equal(new Set(created.map((d) => d.id)).size, 7);
    const refused = log.filter((s) => s.status === 429);
    assert.ok(refused.length >= 1, 'the burst hit the limit');
    for (const r of refused) {
      const next = log[log.indexOf(r) + 1]!;
      assert.equal(next.url, r.url, 'the same request was sent again');
      // Retry-After is whole seconds until the window resets, at least 1: the retry waits for it.
      assert.ok(next.at - r.at >= 900, `retried after ${next.at - r.at} ms`);
    }
    const all = await collect(api.devices.all());
    assert.equal(all.length, 7, 'no duplicate was created by a retry');
  });

  test('a Retry-After longer than maxDelayMs is thrown, not waited for; retries run out', async () => {
    const log: Sent[] = [];
    const [first, second] = await Promise.all([freshKey(), freshKey()]);
    const impatient = createMonitoringClient({
      baseUrl: server.baseUrl,
      token: first,
      fetch: loggingFetch(log),
      retry: { retries: 3, maxDelayMs: 0 },
    });
    for (let i = 0; i < 3; i++) await impatient.me();
    await expectApiError(impatient.me(), 429, 'rate_limit_exceeded');
    assert.equal(log.length, 4);

    const once = createMonitoringClient({
      baseUrl: server.baseUrl,
      token: second,
      retry: { retries: 1 },
      fetch: loggingFetch(log),
    });
    // Three calls in parallel use the quota; more in parallel exceed it, and with a single retry
    // some may still fail if the new window fills again before them.
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => once.me()));
    const failed = results.filter((r) => r.status === 'rejected');
    for (const r of failed) assert.ok(isApiError((r as PromiseRejectedResult).reason, 'rate_limit_exceeded'));
    assert.ok(failed.length > 0, 'with one retry, 12 calls at 3 a window cannot all succeed');
  });
});
