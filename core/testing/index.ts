/**
 * `monitoring-api/testing`: the API over a memory store and a manual clock, with helpers to make
 * users and keys and to call a route without a network, any route and method included
 * (`request('/v1/devices/update?id=1', { method: 'PATCH', key, body: { is_enabled: false } })`).
 * For the host's own unit tests.
 *
 * Running the monitoring engine in a test: the engine (`monitoring-api/engine`) takes the same
 * store and clock, so hand it `t.store` and `t.clock`; what it records is then what the API shows,
 * at the times the manual clock says. Nothing probes until the test asks, and one `runOnce()`
 * checks everything due now:
 *
 *   const t = createTestApi();
 *   const engine = createMonitoringEngine({ store: t.store, clock: t.clock, ...probeOptions });
 *   const key = await t.createKey();
 *   const body = { target_type: 'domain', target_value: 'example.com' };
 *   await t.request('/v1/devices/create', { method: 'POST', key, body });
 *   await engine.runOnce();                        // the new device is due at once
 *   await t.request('/v1/devices/results?id=1', { key });
 *   t.clock.advance(60_000);                       // its interval: due again
 *   await engine.runOnce();
 *   await t.request('/v1/devices/check?id=1', { method: 'POST', key }); // 202: due now, whatever its interval
 *   await engine.runOnce();                        // checked at once; a second request within 60 s is 429
 *
 * Blacklist monitors are asked through DNS: point the engine's `dnsServers` at a DNS server the
 * test runs on loopback, or inject a `resolver` (`resolve4`, and `resolvePtr` for `rdns`). A
 * monitor's `zones` are held to the API's `dnsblZones` and `dnsblDomainZones` options: give the
 * API the zones the engine asks.
 *
 * Probes must reach only what the test serves on loopback (see the engine's options for the
 * lookup, the DNS servers and `allowPrivateTargets`).
 *
 * Channels (docs/notifications.md) are made and changed through the API as any record; their
 * answers show each secret masked, and `t.store.getChannel` the config whole. `POST /channels/test`,
 * and an `email` channel at all, need the `channelSender` option, as `POST /webhooks/test` needs
 * `webhookSender`: give the engine's, or a `ChannelSender` of the test's own whose `email` says
 * whether mail can be sent and whose `test` sends to a server the test runs on loopback. What the
 * delivery work records shows in `GET /channels/deliveries`:
 *
 *   const t = createTestApi({ channelSender, allowPrivateTargets: true });
 *   const body = { name: 'ops', type: 'slack', config: { webhook_url: 'http://127.0.0.1:8081/hook' } };
 *   const created = await t.request('/v1/channels/create', { method: 'POST', key, body });
 *   await t.request('/v1/channels/test?id=1', { method: 'POST', key }); // channelSender.test, once
 *
 * Reports (docs/contract.md §6.12) read the memory store's status timeline, incidents, listing
 * periods and rollups, which begin at the clock's `start`: give a `start` before anything the
 * test records. A pause, a resume and a maintenance window change a device's status at the
 * clock's time, so availability can be tested without an engine:
 *
 *   await t.request('/v1/devices/update?id=1', { method: 'PATCH', key, body: { is_enabled: false } });
 *   t.clock.advance(1_800_000);
 *   await t.request('/v1/devices/availability?id=1', { key }); // paused_s: 1800
 *
 * An incident is acknowledged at the clock's time, as the key that asks: `acknowledged_at` and
 * `acknowledged_by` show in `GET /incidents`, and the memory store's notification queue stops its
 * reminders and escalations as the SQL stores' do (an engine given `t.store` sends what is left):
 *
 *   await t.request('/v1/incidents/acknowledge?id=1', { method: 'POST', key });
 *
 * The response-time series includes hours not rolled up yet, so it needs no rollup either; a test
 * of what outlives the raw results (`reportRetentionHours` against `resultRetentionHours`) calls
 * `t.rollUp()` first, or runs the engine, which rolls each hour up a few minutes after it ends.
 */
import type { CreateApiKeyInput, CreatedApiKey } from '../admin/key-admin.ts';
import { ManualClock } from '../clock.ts';
import { createMonitoringApi, type MonitoringApi } from '../create-monitoring-api.ts';
import { MemoryStore } from '../memory/memory-store.ts';
import type { MonitoringApiOptions } from '../options.ts';
import type { User } from '../records/index.ts';
import type { ErrorDetail } from '../http/api-error.ts';
import type { Store } from '../store/store.ts';

export interface TestApiOptions extends Partial<MonitoringApiOptions> {
  /** Where the manual clock starts. Default 2026-01-01T00:00:00.000Z. */
  start?: string | Date;
}

export interface TestRequestInit {
  method?: string;
  /** A token, or a key made by `createKey`; sent as `Authorization: Bearer <token>`. */
  key?: string | CreatedApiKey;
  /** An object is sent as JSON with `Content-Type: application/json`; a string is sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The peer address the adapter would report. Default 127.0.0.1. */
  clientAddress?: string | null;
}

/**
 * An answer's envelope, parsed. `T` is what the caller expects in `data` (`Device`, `Device[]`,
 * ...): it is the caller's claim, not checked, so a test still asserts what matters.
 */
export interface TestBody<T = unknown> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string; details?: ErrorDetail[]; existing_id?: number };
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** The envelope; for an answer that is not JSON (a status page, its feed or badge), only `success`. */
  body: TestBody<T>;
  /** The body as text (a request that sends `Accept-Encoding` reads a compressed body here as it came). */
  text: string;
}

export interface TestApi {
  api: MonitoringApi;
  /** The store the API uses (the one given in the options, else a new `MemoryStore`): pass it to the engine. */
  store: Store;
  /** The API's clock, moved only by the test: pass it to the engine so both read the same time. */
  clock: ManualClock;
  createUser(name?: string): Promise<User>;
  /** A key for `userId`, or for a new user when none is given; read+write unless told otherwise. */
  createKey(input?: Partial<CreateApiKeyInput>): Promise<CreatedApiKey>;
  /** Calls the API in process: `request<Device>('/v1/devices/create', { method: 'POST', key, body })`. */
  request<T = unknown>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>;
  /**
   * Pings as a job would (docs/heartbeats.md): `ping(heartbeat.ping_url)` or `ping('/ping/<token>/start')`,
   * without a key; POST when a body is given, else GET. The answer's text as it is (`OK`).
   */
  ping(url: string, init?: Omit<TestRequestInit, 'key'>): Promise<Omit<TestResponse, 'body'>>;
  /**
   * Rolls up every hour of check results that ended by the clock's now and is not rolled up yet,
   * as running engines do a few minutes after each hour ends (docs/engine.md, "Reports"); says how
   * many hours it rolled. Nothing to do on a store without report upkeep.
   */
  rollUp(): Promise<number>;
  close(): Promise<void>;
}

/** Hours `rollUp` asks the store for per call. */
const ROLLUP_BATCH = 24;

export function createTestApi(options: TestApiOptions = {}): TestApi {
  const { start, ...apiOptions } = options;
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock(start);
  const store = options.store ?? new MemoryStore({ clock });
  const api = createMonitoringApi({ ...apiOptions, store, clock });

  async function request<T = unknown>(path: string, init: TestRequestInit = {}): Promise<TestResponse<T>> {
    const headers = new Headers(init.headers);
    if (init.key !== undefined) {
      headers.set('authorization', `Bearer ${typeof init.key === 'string' ? init.key : init.key.token}`);
    }
    let body: string | undefined;
    if (typeof init.body === 'string') body = init.body;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const url = new URL(path, 'http://monitoring.test').href;
    const response = await api.fetch(new Request(url, { method: init.method ?? 'GET', headers, body }), {
      clientAddress: init.clientAddress === undefined ? '127.0.0.1' : init.clientAddress,
    });
    const text = await response.text();
    // A public status page's answer (HTML, Atom, SVG, or a 304) is no envelope: its text is all there is.
    const json = response.headers.get('content-type')?.startsWith('application/json') ?? false;
    const envelope = json ? (JSON.parse(text) as TestBody<T>) : { success: response.ok };
    return { status: response.status, headers: response.headers, body: envelope, text };
  }

  return {
    api,
    store,
    clock,
    createUser: (name) => api.keys.createUser({ name: name ?? null }),
    async createKey(input = {}) {
      const userId = input.userId ?? (await api.keys.createUser()).id;
      return api.keys.createApiKey({ ...input, userId });
    },
    request,
    async ping(url, init = {}) {
      const body = init.body === undefined ? undefined : String(init.body);
      const request = new Request(new URL(url, 'http://monitoring.test').href, {
        method: init.method ?? (body === undefined ? 'GET' : 'POST'),
        headers: new Headers(init.headers),
        body,
      });
      const response = await api.fetch(request, {
        clientAddress: init.clientAddress === undefined ? '127.0.0.1' : init.clientAddress,
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    },
    async rollUp() {
      let total = 0;
      for (;;) {
        const rolled = (await store.rollUpResults?.(new Date(clock.now()).toISOString(), ROLLUP_BATCH)) ?? 0;
        total += rolled;
        if (rolled < ROLLUP_BATCH) return total;
      }
    },
    close: () => api.close(),
  };
}
