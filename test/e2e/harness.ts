/**
 * What the end-to-end suites share: the API (through the testing kit, over a real store) and the
 * engine (through `createMonitoringEngine`) on one store and one manual clock, real loopback
 * servers as targets and webhook receivers, and signatures checked by the independent
 * `standardwebhooks` package. Names are answered by an injected lookup, so nothing here ever
 * asks a real DNS server or leaves the machine.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import type { BlacklistMonitor, CreatedWebhook, Device, EventData, Store, Webhook } from '../../core/index.ts';
import { ManualClock } from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { createTestApi, type TestApi, type TestResponse } from '../../core/testing/index.ts';
import { createMonitoringEngine, type MonitoringEngine, type MonitoringEngineOptions } from '../../engine/index.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { availableStores, type OpenedStore, type StoreFactory } from '../support/stores.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { startReceiver, type Received, type Receiver } from '../webhooks/support.ts';
import { startTargetServer, type TargetServer } from './target-server.ts';

export type { Received, Receiver };

/** Memory, SQLite and PostgreSQL; under CI=true an unreachable PostgreSQL fails the file. */
export const STORES: StoreFactory[] = await availableStores();

/** Every name a test uses resolves here: the targets and receivers all listen on loopback. */
export const loopbackLookup = async (): Promise<string[]> => ['127.0.0.1'];

/**
 * Defines `body` once per store, with one store opened for the whole suite (a fresh database of
 * its own for PostgreSQL). Tests in a suite run one after another; each cleans up its records
 * (`World.close`), so an engine in a later test never finds an earlier test's records due.
 */
export function eachStore(title: string, body: (opened: () => OpenedStore, name: StoreFactory['name']) => void): void {
  for (const factory of STORES) {
    suiteOrSkip(`${title} (${factory.name})`, factory.skip, { concurrency: 1 }, () => {
      let opened: OpenedStore | undefined;
      before(async () => {
        opened = await factory.open();
      });
      after(async () => {
        await opened?.cleanup();
      });
      body(() => {
        if (opened === undefined) throw new Error('the store is not open yet');
        return opened;
      }, factory.name);
    });
  }
}

/**
 * No write delay, and deadlines no test here waits out: every target answers or closes the
 * connection, so they only bound a check held at a gated target, or one that hangs by mistake.
 */
export const FAST_ENGINE: Partial<MonitoringEngineOptions> = {
  lookup: loopbackLookup,
  probeTimeoutMs: 30_000,
  connectTimeoutMs: 30_000,
  dnsTimeoutMs: 30_000,
  writeDelayMs: 0,
  // The middle of [0, 1): no jitter, so every next check is exactly one interval after the last.
  random: () => 0.5,
};

/** One user's view of the service: the API over a store, its key, and engines on the same store and clock. */
export interface World {
  t: TestApi;
  key: CreatedApiKey;
  clock: ManualClock;
  store: Store;
  engine(options?: Partial<MonitoringEngineOptions>): MonitoringEngine;
  /** A successful call's `data`, after checking the status and the envelope. */
  call<T>(path: string, init?: { method?: string; body?: unknown }, status?: number): Promise<T>;
  /** The whole answer, for error answers and headers. */
  raw<T>(path: string, init?: { method?: string; body?: unknown }): Promise<TestResponse<T>>;
  device(id: number): Promise<Device>;
  monitor(id: number): Promise<BlacklistMonitor>;
  webhooks(): Promise<Webhook[]>;
  /** A receiver on loopback subscribed through `POST /webhooks/create`; the secret is the create answer's. */
  subscribe(events?: string[]): Promise<{ receiver: Receiver; webhook: CreatedWebhook }>;
  /** Deletes what this user made through the API and closes the receivers. */
  close(): Promise<void>;
}

export async function openWorld(
  store: Store,
  start: number | string,
  options: { allowPrivateTargets?: boolean } = {},
): Promise<World> {
  const clock = new ManualClock(start);
  // The API lets names through the target policy without resolving them, so loopback targets
  // need the option only for IP literals; the tests use names, as a user would.
  const t = createTestApi({ store, clock, allowPrivateTargets: options.allowPrivateTargets ?? true });
  const key = await t.createKey();
  const receivers: Receiver[] = [];

  async function raw<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<TestResponse<T>> {
    return t.request<T>(`/v1${path}`, { ...init, key });
  }
  async function call<T>(path: string, init: { method?: string; body?: unknown } = {}, status = 200): Promise<T> {
    const res = await raw<T>(path, init);
    assert.equal(res.status, status, `${init.method ?? 'GET'} ${path}: ${res.text}`);
    assert.equal(res.body.success, true);
    return res.body.data as T;
  }
  async function one<T extends { id: number }>(path: string, id: number): Promise<T> {
    const found = (await call<T[]>(path)).find((r) => r.id === id);
    assert.ok(found, `record ${id} is listed by GET ${path}`);
    return found;
  }

  return {
    t,
    key,
    clock,
    store,
    call,
    raw,
    engine: (options = {}) =>
      createMonitoringEngine({ store, clock, allowPrivateTargets: true, ...FAST_ENGINE, ...options }),
    device: (id) => one<Device>('/devices', id),
    monitor: (id) => one<BlacklistMonitor>('/blacklist-monitors', id),
    webhooks: () => call<Webhook[]>('/webhooks'),
    async subscribe(events) {
      const receiver = await startReceiver();
      receivers.push(receiver);
      const webhook = await call<CreatedWebhook>(
        '/webhooks/create',
        {
          method: 'POST',
          body: {
            url: `http://hooks${receivers.length}.probe-fixture.net:${receiver.port}/hook`,
            ...(events ? { events } : {}),
          },
        },
        201,
      );
      assert.match(webhook.secret, /^whsec_/);
      return { receiver, webhook };
    },
    async close() {
      for (const path of ['/devices', '/blacklist-monitors', '/webhooks']) {
        for (const { id } of await call<{ id: number }[]>(path))
          await call(`${path}/delete?id=${id}`, { method: 'DELETE' });
      }
      for (const receiver of receivers) await receiver.close();
      await t.close();
    },
  };
}

/** What a test opens through `closedAfterEach`: each is closed when the test ends. */
export interface PerTest {
  world(store: Store, start: number | string, options?: { allowPrivateTargets?: boolean }): Promise<World>;
  target(tls?: Parameters<typeof startTargetServer>[0]): Promise<TargetServer>;
  dns(replies?: Parameters<typeof startFakeDnsServer>[0]): Promise<FakeDnsServer>;
}

/**
 * Opens worlds, targets and fake DNS servers for the tests of the suite it is called in, and
 * closes each after its test, in the order they were opened, whether the test passed or not.
 */
export function closedAfterEach(): PerTest {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const opened of open.splice(0)) await opened.close().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  });
  const kept = <T extends { close(): Promise<void> }>(opened: T): T => {
    open.push(opened);
    return opened;
  };
  return {
    world: async (store, start, options) => kept(await openWorld(store, start, options)),
    target: async (tls) => kept(await startTargetServer(tls)),
    dns: async (replies) => kept(await startFakeDnsServer(replies)),
  };
}

/**
 * A web device on plain HTTP to a local target, created through the API; `more` adds to or
 * overrides the create body.
 */
export async function createWebDevice(
  w: World,
  name: string,
  port: number,
  intervalS: number,
  more: Record<string, unknown> = {},
): Promise<Device> {
  return w.call<Device>(
    '/devices/create',
    {
      method: 'POST',
      body: {
        target_type: 'domain',
        target_value: name,
        service_type: 'web',
        scheme: 'http',
        port,
        check_interval_s: intervalS,
        ...more,
      },
    },
    201,
  );
}

/** A delivered event, as its receiver parsed it. */
export interface DeliveredEvent {
  id: string;
  type: string;
  timestamp: string;
  data: EventData & Record<string, unknown>;
}

function webhookHeaders(request: Received): Record<string, string> {
  const header = (name: string) => {
    const value = request.headers[name];
    assert.equal(typeof value, 'string', `${name} is sent once`);
    return value as string;
  };
  return {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  };
}

function parsed(id: string, payload: unknown): DeliveredEvent {
  const event = payload as Omit<DeliveredEvent, 'id'>;
  assert.deepEqual(Object.keys(event), ['type', 'timestamp', 'data'], 'the body is {type, timestamp, data}');
  return { id, ...event };
}

/**
 * Verifies a request as a receiver would, with `standardwebhooks`: signature and the 5-minute
 * replay window against the real time. Only for tests whose manual clock stays near the real time.
 */
export function verifyNow(secret: string, request: Received): DeliveredEvent {
  const headers = webhookHeaders(request);
  return parsed(headers['webhook-id']!, new Verifier(secret).verify(request.body, headers));
}

/**
 * Verifies the signature with `standardwebhooks` for the attempt's own timestamp, whatever the
 * real time: for tests whose manual clock is far from it (the replay window is the receiver's
 * business, not what they test). A wrong secret must not pass.
 */
export function verifySigned(secret: string, request: Received): DeliveredEvent {
  const headers = webhookHeaders(request);
  const at = new Date(Number(headers['webhook-timestamp']) * 1000);
  const expected = new Verifier(secret).sign(headers['webhook-id']!, at, request.body);
  assert.equal(headers['webhook-signature'], expected, 'signed with the secret of the create answer');
  return parsed(headers['webhook-id']!, JSON.parse(request.body));
}
