/**
 * Real answers against the document: a representative set of requests through the testing kit
 * (every operation, its success and every error status it documents, and requests that match no
 * operation), each checked for status, body schema and headers. Afterwards, coverage: every
 * documented (operation, status) pair and every documented error code was seen at least once, so
 * a response added to the document without a test, or a code nobody produces, shows up here.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createApiServer } from '../../cli/server/http-server.ts';
import { ROUTES } from '../../core/internal.ts';
import { after, describe, test } from 'node:test';
import {
  MemoryStore,
  MissingTableError,
  type CheckRequestResult,
  type ComponentIds,
  type MonitoredKind,
  type PageRequest,
  type ResultsPage,
} from '../../core/index.ts';
import type {
  BlacklistMonitor,
  Channel,
  ChannelAttempt,
  CheckResult,
  CreatedWebhook,
  Device,
  NewBlacklistMonitor,
  NewChannel,
  NewDevice,
  NewMaintenanceWindow,
  NewHeartbeat,
  StoredHeartbeat,
  HeartbeatPing,
  NewWebhook,
  StoredMaintenanceWindow,
  Webhook,
  WebhookAttempt,
} from '../../core/records/index.ts';
import { emitterFor } from '../webhooks/support.ts';
import { newDevice, newMonitor, newWebhook } from '../support/records.ts';
import type {
  HeartbeatTimelineState as TimelineState,
  IncidentQuery,
  ReportRange,
  ResponseTimeQuery,
  StatusTotals,
  WebhookEndpoint,
} from '../../core/index.ts';
import {
  dnsbl,
  dnsblFailure,
  http,
  mustRecord,
  recordBlacklistCheck,
  recordDeviceCheck,
  service,
  tls,
} from '../api/checks.ts';
import type { CreateResult } from '../../core/store/store.ts';
import { createOpenApiDocument, type OpenApiDocument, type ResponseObject } from '../../core/openapi/index.ts';
import {
  createTestApi,
  type TestApi,
  type TestApiOptions,
  type TestRequestInit,
  type TestResponse,
} from '../../core/testing/index.ts';
import { channelResponses } from './channel-responses.ts';
import { conformanceFor, headerRecord, type Exchange } from './conformance.ts';

/** A memory store whose resource operations (and, on demand, key lookups) fail like a broken database. */
class FailingStore extends MemoryStore {
  failure: Error | null = null;
  failKeys = false;
  private fail(): void {
    if (this.failure !== null) throw this.failure;
  }
  override async listLocations() {
    this.fail();
    return super.listLocations();
  }
  override async deviceStatusTotals(userId: number, deviceId: number, range: ReportRange) {
    this.fail();
    return super.deviceStatusTotals(userId, deviceId, range);
  }
  override async listResponseTimes(userId: number, deviceId: number, query: ResponseTimeQuery) {
    this.fail();
    return super.listResponseTimes(userId, deviceId, query);
  }
  override async closedSeriesDays(userId: number, deviceId: number) {
    this.fail();
    return super.closedSeriesDays(userId, deviceId);
  }
  override async listIncidents(userId: number, query: IncidentQuery) {
    this.fail();
    return super.listIncidents(userId, query);
  }
  override async listListingPeriods(userId: number, monitorId: number, range: ReportRange) {
    this.fail();
    return super.listListingPeriods(userId, monitorId, range);
  }
  override async acknowledgeIncident(userId: number, incidentId: number, keyId: number, at: string) {
    this.fail();
    return super.acknowledgeIncident(userId, incidentId, keyId, at);
  }
  override async findApiKeyByHash(tokenHash: string) {
    if (this.failKeys) this.fail();
    return super.findApiKeyByHash(tokenHash);
  }
  override async createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    this.fail();
    return super.createDevice(userId, device);
  }
  override async listDevices(userId: number, page: PageRequest): Promise<Device[]> {
    this.fail();
    return super.listDevices(userId, page);
  }
  override async deleteDevice(userId: number, id: number): Promise<boolean> {
    this.fail();
    return super.deleteDevice(userId, id);
  }
  override async createBlacklistMonitor(
    userId: number,
    monitor: NewBlacklistMonitor,
  ): Promise<CreateResult<BlacklistMonitor>> {
    this.fail();
    return super.createBlacklistMonitor(userId, monitor);
  }
  override async listBlacklistMonitors(userId: number, page: PageRequest): Promise<BlacklistMonitor[]> {
    this.fail();
    return super.listBlacklistMonitors(userId, page);
  }
  override async deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    this.fail();
    return super.deleteBlacklistMonitor(userId, id);
  }
  override async requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: string,
    minGapMs: number,
  ): Promise<CheckRequestResult> {
    this.fail();
    return super.requestCheck(userId, kind, id, at, minGapMs);
  }
  override async listCheckResults(
    userId: number,
    kind: MonitoredKind,
    id: number,
    page: ResultsPage,
  ): Promise<CheckResult[] | undefined> {
    this.fail();
    return super.listCheckResults(userId, kind, id, page);
  }
  override async createWebhook(userId: number, webhook: NewWebhook): Promise<CreateResult<CreatedWebhook>> {
    this.fail();
    return super.createWebhook(userId, webhook);
  }
  override async listWebhooks(userId: number, page: PageRequest): Promise<Webhook[]> {
    this.fail();
    return super.listWebhooks(userId, page);
  }
  override async deleteWebhook(userId: number, id: number): Promise<boolean> {
    this.fail();
    return super.deleteWebhook(userId, id);
  }
  override async listWebhookAttempts(
    userId: number,
    id: number,
    page: ResultsPage,
  ): Promise<WebhookAttempt[] | undefined> {
    this.fail();
    return super.listWebhookAttempts(userId, id, page);
  }
  override async webhookWithSecret(userId: number, id: number): Promise<WebhookEndpoint | undefined> {
    this.fail();
    return super.webhookWithSecret(userId, id);
  }
  override async getDevice(userId: number, id: number): Promise<Device | undefined> {
    this.fail();
    return super.getDevice(userId, id);
  }
  override async getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined> {
    this.fail();
    return super.getBlacklistMonitor(userId, id);
  }
  override async getWebhook(userId: number, id: number): Promise<Webhook | undefined> {
    this.fail();
    return super.getWebhook(userId, id);
  }
  override async listMaintenanceWindows(userId: number, page: PageRequest): Promise<StoredMaintenanceWindow[]> {
    this.fail();
    return super.listMaintenanceWindows(userId, page);
  }
  override async createMaintenanceWindow(
    userId: number,
    window: NewMaintenanceWindow,
  ): Promise<StoredMaintenanceWindow> {
    this.fail();
    return super.createMaintenanceWindow(userId, window);
  }
  override async getMaintenanceWindow(userId: number, id: number): Promise<StoredMaintenanceWindow | undefined> {
    this.fail();
    return super.getMaintenanceWindow(userId, id);
  }
  override async deleteMaintenanceWindow(userId: number, id: number): Promise<boolean> {
    this.fail();
    return super.deleteMaintenanceWindow(userId, id);
  }
  override async listStatusPages(userId: number, page: PageRequest) {
    this.fail();
    return super.listStatusPages(userId, page);
  }
  override async getStatusPage(userId: number, id: number) {
    this.fail();
    return super.getStatusPage(userId, id);
  }
  override async componentRecords(userId: number, ids: ComponentIds) {
    this.fail();
    return super.componentRecords(userId, ids);
  }
  override async deleteStatusPage(userId: number, id: number) {
    this.fail();
    return super.deleteStatusPage(userId, id);
  }
  override async listNotices(userId: number, statusPageId: number, page: PageRequest) {
    this.fail();
    return super.listNotices(userId, statusPageId, page);
  }
  override async getNotice(userId: number, id: number) {
    this.fail();
    return super.getNotice(userId, id);
  }
  override async deleteNotice(userId: number, id: number) {
    this.fail();
    return super.deleteNotice(userId, id);
  }
  override async listHeartbeats(userId: number, page: PageRequest): Promise<StoredHeartbeat[]> {
    this.fail();
    return super.listHeartbeats(userId, page);
  }
  override async createHeartbeat(userId: number, heartbeat: NewHeartbeat): Promise<StoredHeartbeat> {
    this.fail();
    return super.createHeartbeat(userId, heartbeat);
  }
  override async getHeartbeat(userId: number, id: number): Promise<StoredHeartbeat | undefined> {
    this.fail();
    return super.getHeartbeat(userId, id);
  }
  override async deleteHeartbeat(userId: number, id: number): Promise<boolean> {
    this.fail();
    return super.deleteHeartbeat(userId, id);
  }
  override async listHeartbeatPings(
    userId: number,
    id: number,
    page: ResultsPage,
  ): Promise<HeartbeatPing[] | undefined> {
    this.fail();
    return super.listHeartbeatPings(userId, id, page);
  }
  override async heartbeatStatusTotals(
    userId: number,
    id: number,
    range: ReportRange,
  ): Promise<StatusTotals<TimelineState> | undefined> {
    this.fail();
    return super.heartbeatStatusTotals(userId, id, range);
  }
  override async createChannel(userId: number, channel: NewChannel): Promise<Channel> {
    this.fail();
    return super.createChannel(userId, channel);
  }
  override async listChannels(userId: number, page: PageRequest): Promise<Channel[]> {
    this.fail();
    return super.listChannels(userId, page);
  }
  override async getChannel(userId: number, id: number): Promise<Channel | undefined> {
    this.fail();
    return super.getChannel(userId, id);
  }
  override async deleteChannel(userId: number, id: number): Promise<boolean> {
    this.fail();
    return super.deleteChannel(userId, id);
  }
  override async listChannelAttempts(
    userId: number,
    id: number,
    page: ResultsPage,
  ): Promise<ChannelAttempt[] | undefined> {
    this.fail();
    return super.listChannelAttempts(userId, id, page);
  }
}

interface Seen {
  operation: string;
  status: number;
  code: string | undefined;
}

const documents = new Map<string, OpenApiDocument>();
const seen: Seen[] = [];
const apis: TestApi[] = [];

function documentFor(basePath: string): OpenApiDocument {
  let document = documents.get(basePath);
  if (document === undefined) documents.set(basePath, (document = createOpenApiDocument({ basePath })));
  return document;
}

function open(options: TestApiOptions = {}): TestApi {
  const t = createTestApi(options);
  apis.push(t);
  return t;
}

after(async () => {
  for (const t of apis) await t.close();
});

/** Sends a request through the kit and asserts that the answer conforms to the document. */
async function call<T = unknown>(
  t: TestApi,
  path: string,
  init: TestRequestInit = {},
  expectedStatus?: number,
): Promise<TestResponse<T>> {
  const res = await t.request<T>(path, init);
  if (expectedStatus !== undefined)
    assert.equal(res.status, expectedStatus, `${init.method ?? 'GET'} ${path}: ${res.text.slice(0, 300)}`);
  const url = new URL(path, 'http://monitoring.test');
  const exchange: Exchange = {
    method: init.method ?? 'GET',
    pathname: url.pathname,
    basePath: t.api.basePath,
    status: res.status,
    headers: headerRecord(res.headers),
    body: res.body,
  };
  const conformance = conformanceFor(t.api.basePath);
  assert.deepEqual(conformance.check(exchange), []);
  const { operation } = conformance.resolve(exchange.method, exchange.pathname, exchange.basePath, exchange.status);
  seen.push({ operation, status: res.status, code: res.body.error?.code });
  return res;
}

const WEB_DEVICE = {
  target_type: 'domain',
  target_value: 'Example.COM.',
  service_type: 'web',
  scheme: 'https',
  port: 8443,
  host_header: 'www.example.com',
  proxy_enabled: 1,
  origin_host: '93.184.216.34',
  origin_scheme: 'http',
  origin_port: 8080,
  check_public_http: 0,
  check_public_https: true,
  check_public_tls: true,
  check_origin_http: 1,
  check_origin_tls: false,
  expect_status: 204,
  location: 'rack 4',
  is_enabled: 0,
};

/** Each status page operation, as the 401, 403, 429 and 500 tests ask it. */
const STATUS_PAGE_ROUTES: [string, string, unknown][] = [
  ['GET', '/v1/status-pages', undefined],
  ['POST', '/v1/status-pages/create', { slug: 'sp-x', title: 'T', components: [{ name: 'D', device_id: 1 }] }],
  ['GET', '/v1/status-pages/get?id=1', undefined],
  ['PATCH', '/v1/status-pages/update?id=1', {}],
  ['DELETE', '/v1/status-pages/delete?id=1', undefined],
  ['GET', '/v1/status-pages/notices?status_page_id=1', undefined],
  [
    'POST',
    '/v1/status-pages/notices/create',
    { status_page_id: 1, title: 'N', impact: 'none', status: 'identified', message: 'M' },
  ],
  ['GET', '/v1/status-pages/notices/get?id=1', undefined],
  ['PATCH', '/v1/status-pages/notices/update?id=1', {}],
  ['DELETE', '/v1/status-pages/notices/delete?id=1', undefined],
];

describe('answers conform to the OpenAPI document', { concurrency: 1 }, () => {
  for (const resource of [
    {
      path: 'devices',
      body: WEB_DEVICE,
      other: { target_type: 'ip', target_value: '2001:4860:4860::8888', service_type: 'ssh', location: null },
    },
    {
      path: 'blacklist-monitors',
      body: { target_type: 'domain', target_value: 'example.org', is_enabled: 1 },
      other: { target_type: 'ip', target_value: '8.8.8.8' },
    },
    {
      path: 'webhooks',
      body: { url: 'https://hooks.example.com/a', events: ['device.down'], is_enabled: 1 },
      other: { url: 'https://hooks.example.com/b' },
    },
  ]) {
    test(`/${resource.path}: create, list (whole, paged, streamed), delete and their errors`, async () => {
      const t = open({ bodyLimit: 1024 });
      const key = await t.createKey();
      const base = `/v1/${resource.path}`;
      const created = await call<Device | BlacklistMonitor>(
        t,
        `${base}/create`,
        { method: 'POST', key, body: resource.body },
        201,
      );
      await call(t, `${base}/create`, { method: 'POST', key, body: resource.other }, 201);
      const duplicate = await call(t, `${base}/create`, { method: 'POST', key, body: resource.body }, 409);
      assert.equal(duplicate.body.error?.existing_id, created.body.data!.id);
      // 400: every class of body problem.
      const invalid = await call(
        t,
        `${base}/create`,
        {
          method: 'POST',
          key,
          body: { target_type: 'url', target_value: 'x'.repeat(300), is_enabled: 2, extra: true },
        },
        400,
      );
      assert.ok((invalid.body.error?.details?.length ?? 0) >= 3);
      await call(
        t,
        `${base}/create`,
        { method: 'POST', key, body: { target_type: 'ip', target_value: '10.0.0.1' } },
        400,
      );
      await call(
        t,
        `${base}/create`,
        { method: 'POST', key, body: '{"target_type":', headers: { 'content-type': 'application/json' } },
        400,
      );
      await call(
        t,
        `${base}/create`,
        {
          method: 'POST',
          key,
          body: 'target_type=ip',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
        400,
      );
      await call(t, `${base}/create?x=1`, { method: 'POST', key, body: resource.other }, 400);
      await call(
        t,
        `${base}/create`,
        {
          method: 'POST',
          key,
          body: { location: 'x'.repeat(2000), target_type: 'domain', target_value: 'example.net' },
        },
        413,
      );

      await call(t, base, { key }, 200);
      await call(t, `${base}/`, { key }, 200);
      const page = await call(t, `${base}?limit=1`, { key }, 200);
      assert.match(page.headers.get('link') ?? '', /rel="next"/);
      const last = await call(t, `${base}?limit=1&after_id=${created.body.data!.id}`, { key }, 200);
      assert.equal(last.headers.get('link'), null);
      await call(t, `${base}?limit=0`, { key }, 400);
      await call(t, `${base}?limit=5&limit=6&sort=id`, { key }, 400);

      await call(t, `${base}/delete?id=${created.body.data!.id}`, { method: 'DELETE', key }, 200);
      await call(t, `${base}/delete?id=${created.body.data!.id}`, { method: 'DELETE', key }, 404);
      await call(t, `${base}/delete?id=abc`, { method: 'DELETE', key }, 400);
      await call(t, `${base}/delete`, { method: 'DELETE', key }, 400);
      await call(t, `${base}/delete?id=1&force=1`, { method: 'DELETE', key }, 400);

      // 403 insufficient_scope (read key writing, write key reading) and ip_not_allowed.
      const reader = await t.createKey({ scopes: ['read'] });
      const writer = await t.createKey({ scopes: ['write'] });
      const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
      await call(t, `${base}/create`, { method: 'POST', key: reader, body: resource.other }, 403);
      await call(t, `${base}/delete?id=1`, { method: 'DELETE', key: reader }, 403);
      await call(t, base, { key: writer }, 403);
      for (const [method, path] of [
        ['GET', base],
        ['POST', `${base}/create`],
        ['DELETE', `${base}/delete?id=1`],
      ] as const) {
        await call(t, path, { method, key: elsewhere }, 403);
        await call(t, path, { method }, 401);
        await call(t, path, { method, key: 'mapi_not-a-real-key' }, 401);
      }
    });

    test(`/${resource.path}: a list longer than one stream batch is streamed and still conforms`, async () => {
      const t = open();
      const key = await t.createKey();
      for (let i = 0; i < 520; i++) {
        if (resource.path === 'devices') {
          await t.store.createDevice(
            key.key.user_id,
            newDevice({
              target_value: `host${i}.example.com`,
              check_interval_s: 300,
              status: 'down',
              status_since: '2026-01-01T00:03:00.000Z',
              last_checked_at: '2026-01-01T00:05:00.000Z',
              last_results: { service: service('2026-01-01T00:05:00.000Z', null) },
            }),
          );
        } else if (resource.path === 'webhooks') {
          await t.store.createWebhook(
            key.key.user_id,
            newWebhook(`https://hooks${i}.example.com/`, {
              events: ['device.down', 'device.up'],
              last_delivery_at: '2026-01-01T00:05:00.000Z',
              last_delivery_status: 'failing',
              last_delivery_error: 'http_503',
              failing_since: '2026-01-01T00:04:00.000Z',
              secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2U=',
            }),
          );
        } else {
          await t.store.createBlacklistMonitor(
            key.key.user_id,
            newMonitor({
              target_value: `host${i}.example.com`,
              last_status: 'listed',
              last_checked_at: '2026-01-01T00:05:00.000Z',
              listed_on: ['zen.spamhaus.org'],
              failed_zones: ['bl.spamcop.net'],
              listings: [
                {
                  zone: 'zen.spamhaus.org',
                  answer: '127.0.0.2',
                  meaning: 'SBL',
                  policy: false,
                  delist_url: 'https://check.spamhaus.org/',
                  since: '2026-01-01T00:05:00.000Z',
                },
              ],
            }),
          );
        }
      }
      const all = await call<(Device | BlacklistMonitor)[]>(t, `/v1/${resource.path}`, { key }, 200);
      assert.equal(all.body.data!.length, 520);
    });
  }

  test('/devices/results and /blacklist-monitors/results: every shape of result, paging and their errors', async () => {
    const t = open();
    const key = await t.createKey();
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const device = await call<Device>(
      t,
      '/v1/devices/create',
      {
        method: 'POST',
        key,
        body: {
          target_type: 'domain',
          target_value: 'example.com',
          check_origin_http: 1,
          check_origin_tls: 1,
          origin_host: 'origin.example.net',
        },
      },
      201,
    );
    const id = device.body.data!.id;
    await mustRecord(
      recordDeviceCheck(t.store, id, {
        checked_at: at(1),
        status: 'up',
        results: [http(at(1), 200), http(at(1), 301, 'origin_http'), tls(at(1), 60), tls(at(1), -1, 'origin_tls')],
      }),
    );
    const ssh = await call<Device>(
      t,
      '/v1/devices/create',
      { method: 'POST', key, body: { target_type: 'ip', target_value: '8.8.8.8', service_type: 'ssh' } },
      201,
    );
    await mustRecord(
      recordDeviceCheck(t.store, ssh.body.data!.id, {
        checked_at: at(2),
        status: 'validating',
        results: [service(at(2), null)],
        consecutive_failures: 1,
      }),
    );
    await mustRecord(
      recordDeviceCheck(t.store, ssh.body.data!.id, {
        checked_at: at(3),
        status: 'up',
        results: [service(at(3), 'SSH-2.0-x')],
      }),
    );
    // The records with their engine fields filled in, whole and paged.
    const devices = await call<Device[]>(t, '/v1/devices', { key }, 200);
    assert.equal(Object.keys(devices.body.data![0]!.last_results).length, 4);
    const results = await call<CheckResult[]>(t, `/v1/devices/results?id=${id}`, { key }, 200);
    assert.equal(results.body.data!.length, 4);
    assert.match(
      (await call(t, `/v1/devices/results?id=${id}&limit=1`, { key }, 200)).headers.get('link') ?? '',
      /rel="next"/,
    );
    await call(
      t,
      `/v1/devices/results?id=${ssh.body.data!.id}&limit=1&before_id=${results.body.data![0]!.id}`,
      { key },
      200,
    );

    const monitor = await call<BlacklistMonitor>(
      t,
      '/v1/blacklist-monitors/create',
      { method: 'POST', key, body: { target_type: 'ip', target_value: '8.8.8.8' } },
      201,
    );
    const mid = monitor.body.data!.id;
    await mustRecord(
      recordBlacklistCheck(t.store, mid, {
        checked_at: at(4),
        last_status: 'listed',
        listed_on: ['zen.spamhaus.org'],
        failed_zones: ['bl.spamcop.net'],
        results: [
          dnsbl(at(4), 'zen.spamhaus.org', true, '127.0.0.2,127.0.0.4'),
          dnsbl(at(4), 'psbl.surriel.com', false),
          dnsblFailure(at(4), 'bl.spamcop.net'),
        ],
      }),
    );
    await call(t, '/v1/blacklist-monitors', { key }, 200);
    await call(t, `/v1/blacklist-monitors/results?id=${mid}`, { key }, 200);
    await call(t, `/v1/blacklist-monitors/results?id=${mid}&limit=2`, { key }, 200);

    const reader = await t.createKey({ userId: key.key.user_id, scopes: ['read'] });
    const writer = await t.createKey({ userId: key.key.user_id, scopes: ['write'] });
    const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
    for (const [path, recordId] of [
      ['/v1/devices/results', id],
      ['/v1/blacklist-monitors/results', mid],
    ] as const) {
      await call(t, `${path}?id=${recordId}`, { key: reader }, 200);
      await call(t, path, { key }, 400);
      await call(t, `${path}?id=${recordId}&limit=1001&sort=asc`, { key }, 400);
      await call(t, `${path}?id=9007199254740991`, { key }, 404);
      await call(t, `${path}?id=${recordId}`, { key: writer }, 403);
      await call(t, `${path}?id=${recordId}`, { key: elsewhere }, 403);
      await call(t, `${path}?id=${recordId}`, {}, 401);
      await call(t, `${path}?id=${recordId}`, { method: 'POST', key }, 405);
    }
  });

  test('/devices/check and /blacklist-monitors/check: 202, too soon, paused, and their errors', async () => {
    const t = open();
    const key = await t.createKey();
    const device = await call<Device>(
      t,
      '/v1/devices/create',
      { method: 'POST', key, body: { target_type: 'ip', target_value: '8.8.8.8', service_type: 'ssh' } },
      201,
    );
    const paused = await call<Device>(
      t,
      '/v1/devices/create',
      {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '8.8.4.4', service_type: 'ssh', is_enabled: false },
      },
      201,
    );
    const monitor = await call<BlacklistMonitor>(
      t,
      '/v1/blacklist-monitors/create',
      { method: 'POST', key, body: { target_type: 'ip', target_value: '8.8.8.8' } },
      201,
    );
    const pausedMonitor = await call<BlacklistMonitor>(
      t,
      '/v1/blacklist-monitors/create',
      { method: 'POST', key, body: { target_type: 'ip', target_value: '8.8.4.4', is_enabled: 0 } },
      201,
    );
    const reader = await t.createKey({ userId: key.key.user_id, scopes: ['read'] });
    for (const [path, id, pausedId] of [
      ['/v1/devices/check', device.body.data!.id, paused.body.data!.id],
      ['/v1/blacklist-monitors/check', monitor.body.data!.id, pausedMonitor.body.data!.id],
    ] as const) {
      await call(t, `${path}?id=${id}`, { method: 'POST', key }, 202);
      const tooSoon = await call(t, `${path}?id=${id}`, { method: 'POST', key }, 429);
      assert.equal(tooSoon.headers.get('retry-after'), '60');
      await call(t, `${path}?id=${pausedId}`, { method: 'POST', key }, 409);
      await call(t, path, { method: 'POST', key }, 400);
      await call(t, `${path}?id=${id}&now=1`, { method: 'POST', key }, 400);
      await call(t, `${path}?id=9007199254740991`, { method: 'POST', key }, 404);
      await call(t, `${path}?id=${id}`, { method: 'POST', key: reader }, 403);
      await call(t, `${path}?id=${id}`, { method: 'POST' }, 401);
      await call(t, `${path}?id=${id}`, { key }, 405);
    }
  });

  test('/webhooks/deliveries and /webhooks/test: attempts, a test outcome, and their errors', async () => {
    const sent: number[] = [];
    const t = open({
      webhookSender: async (webhook) => {
        sent.push(webhook.id);
        return {
          delivered: false,
          http_status: 500,
          error: 'http_500',
          duration_ms: 12,
          attempted_at: '2026-01-01T00:00:01.000Z',
        };
      },
    });
    const key = await t.createKey();
    const hook = await call<CreatedWebhook>(
      t,
      '/v1/webhooks/create',
      { method: 'POST', key, body: { url: 'https://hooks.example.com/t' } },
      201,
    );
    const id = hook.body.data!.id;
    // Two attempts, so that a page of one has a Link.
    await emitterFor('memory', { store: t.store, cleanup: async () => {} })(
      key.key.user_id,
      'device.down',
      '2027-01-01T00:00:00.000Z',
    );
    await t.store.fanOutEvents('2027-01-01T00:00:00.000Z', 10);
    for (const second of [1, 2]) {
      const now = `2027-01-01T00:00:0${second}.000Z`;
      const [claimed] = await t.store.claimDeliveries({
        owner: 'o',
        now,
        limit: 1,
        leaseUntil: '2027-01-01T00:01:00.000Z',
      });
      await t.store.recordDeliveryAttempt(claimed!.lease, {
        attempted_at: now,
        state: 'pending',
        next_attempt_at: now,
        response_status: null,
        error: 'ECONNREFUSED',
        duration_ms: 1,
      });
    }
    const attempts = await call<WebhookAttempt[]>(t, `/v1/webhooks/deliveries?id=${id}`, { key }, 200);
    assert.equal(attempts.body.data!.length, 2);
    assert.match(
      (await call(t, `/v1/webhooks/deliveries?id=${id}&limit=1`, { key }, 200)).headers.get('link') ?? '',
      /rel="next"/,
    );
    const tested = await call(t, `/v1/webhooks/test?id=${id}`, { method: 'POST', key }, 200);
    assert.deepEqual(tested.body.data, {
      delivered: false,
      http_status: 500,
      error: 'http_500',
      duration_ms: 12,
      attempted_at: '2026-01-01T00:00:01.000Z',
    });
    assert.deepEqual(sent, [id]);

    const reader = await t.createKey({ userId: key.key.user_id, scopes: ['read'] });
    const writer = await t.createKey({ userId: key.key.user_id, scopes: ['write'] });
    const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
    for (const [method, path, needs] of [
      ['GET', '/v1/webhooks/deliveries', writer],
      ['POST', '/v1/webhooks/test', reader],
    ] as const) {
      await call(t, path, { method, key }, 400);
      await call(t, `${path}?id=${id}&sort=asc`, { method, key }, 400);
      await call(t, `${path}?id=9007199254740991`, { method, key }, 404);
      await call(t, `${path}?id=${id}`, { method, key: needs }, 403);
      await call(t, `${path}?id=${id}`, { method, key: elsewhere }, 403);
      await call(t, `${path}?id=${id}`, { method }, 401);
      await call(t, `${path}?id=${id}`, { method: 'PUT', key }, 405);
    }
    // Without a sender the route says so, after the webhook was found.
    const bare = open();
    const bareKey = await bare.createKey();
    const bareHook = await call<CreatedWebhook>(
      bare,
      '/v1/webhooks/create',
      { method: 'POST', key: bareKey, body: { url: 'https://hooks.example.com/u' } },
      201,
    );
    await call(bare, `/v1/webhooks/test?id=${bareHook.body.data!.id}`, { method: 'POST', key: bareKey }, 503);
  });

  for (const resource of [
    {
      path: 'devices',
      body: { target_type: 'domain', target_value: 'a.example.com' },
      other: { target_type: 'domain', target_value: 'b.example.com' },
      change: { location: 'rack 1' },
    },
    {
      path: 'blacklist-monitors',
      body: { target_type: 'domain', target_value: 'a.example.org' },
      other: { target_type: 'domain', target_value: 'b.example.org' },
      change: { is_enabled: false },
    },
    {
      path: 'webhooks',
      body: { url: 'https://hooks.example.com/a' },
      other: { url: 'https://hooks.example.com/b' },
      change: { rotate_secret: true },
    },
    {
      path: 'maintenance-windows',
      body: { name: 'a', starts_at: '2026-01-02T00:00:00Z', ends_at: '2026-01-02T02:00:00Z', all_devices: true },
      other: {
        name: 'b',
        repeat: { days: ['mon'], start: '22:00', duration_s: 3600, time_zone: 'Europe/Berlin' },
        all_devices: 1,
      },
      change: {
        name: 'c',
        starts_at: null,
        ends_at: null,
        repeat: { days: ['sun'], start: '01:30', duration_s: 600, time_zone: 'UTC' },
      },
    },
    {
      path: 'heartbeats',
      body: { period_s: 3600, name: 'a' },
      other: { schedule: '0 3 * * *', time_zone: 'Europe/Berlin' },
      change: { rotate_token: true, grace_s: 600 },
    },
  ]) {
    test(`/${resource.path}: get and update, and their errors`, async () => {
      const t = open({ bodyLimit: 1024 });
      const key = await t.createKey();
      const base = `/v1/${resource.path}`;
      const a = (await call<{ id: number }>(t, `${base}/create`, { method: 'POST', key, body: resource.body }, 201))
        .body.data!.id;
      const b = (await call<{ id: number }>(t, `${base}/create`, { method: 'POST', key, body: resource.other }, 201))
        .body.data!.id;
      await call(t, `${base}/get?id=${a}`, { key }, 200);
      await call(t, `${base}/get?id=${a}&x=1`, { key }, 400);
      await call(t, `${base}/get?id=abc`, { key }, 400);
      await call(t, `${base}/get?id=999999`, { key }, 404);
      await call(t, `${base}/update?id=${a}`, { method: 'PATCH', key, body: resource.change }, 200);
      await call(t, `${base}/update?id=${a}`, { method: 'PATCH', key, body: {} }, 200);
      await call(t, `${base}/update?id=${a}`, { method: 'PATCH', key, body: { id: 1, nonsense: true } }, 400);
      await call(t, `${base}/update?id=abc`, { method: 'PATCH', key, body: {} }, 400);
      await call(
        t,
        `${base}/update?id=${a}`,
        { method: 'PATCH', key, body: '{"name":', headers: { 'content-type': 'application/json' } },
        400,
      );
      await call(
        t,
        `${base}/update?id=${a}`,
        { method: 'PATCH', key, body: 'x=1', headers: { 'content-type': 'text/plain' } },
        400,
      );
      await call(t, `${base}/update?id=${a}`, { method: 'PATCH', key, body: { name: 'x'.repeat(2000) } }, 413);
      await call(t, `${base}/update?id=999999`, { method: 'PATCH', key, body: {} }, 404);
      if (resource.path !== 'maintenance-windows' && resource.path !== 'heartbeats') {
        const duplicate = await call(t, `${base}/update?id=${b}`, { method: 'PATCH', key, body: resource.body }, 409);
        assert.equal(duplicate.body.error?.existing_id, a);
      }
      const reader = await t.createKey({ scopes: ['read'] });
      const writer = await t.createKey({ scopes: ['write'] });
      const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
      await call(t, `${base}/update?id=${a}`, { method: 'PATCH', key: reader, body: {} }, 403);
      await call(t, `${base}/get?id=${a}`, { key: writer }, 403);
      for (const [method, path] of [
        ['GET', `${base}/get?id=1`],
        ['PATCH', `${base}/update?id=1`],
      ] as const) {
        await call(t, path, { method, key: elsewhere }, 403);
        await call(t, path, { method }, 401);
        await call(t, path, { method, key: 'mapi_not-a-real-key' }, 401);
      }
      if (resource.path === 'maintenance-windows' || resource.path === 'heartbeats') {
        await call(t, base, { key }, 200);
        await call(t, `${base}?limit=0`, { key }, 400);
        await call(t, `${base}/create`, { method: 'POST', key, body: { name: '', device_ids: [999] } }, 400);
        await call(
          t,
          `${base}/create`,
          { method: 'POST', key, body: '{', headers: { 'content-type': 'application/json' } },
          400,
        );
        await call(t, `${base}/create`, { method: 'POST', key, body: { name: 'x'.repeat(2000) } }, 413);
        await call(t, `${base}/delete?id=${b}`, { method: 'DELETE', key }, 200);
        await call(t, `${base}/delete?id=${b}`, { method: 'DELETE', key }, 404);
        await call(t, `${base}/delete?id=abc`, { method: 'DELETE', key }, 400);
        await call(t, `${base}/create`, { method: 'POST', key: reader, body: resource.body }, 403);
        await call(t, `${base}/delete?id=1`, { method: 'DELETE', key: reader }, 403);
        await call(t, base, { key: writer }, 403);
        for (const [method, path] of [
          ['GET', base],
          ['POST', `${base}/create`],
          ['DELETE', `${base}/delete?id=1`],
        ] as const) {
          await call(t, path, { method, key: elsewhere }, 403);
          await call(t, path, { method }, 401);
          await call(t, path, { method, key: 'mapi_not-a-real-key' }, 401);
        }
      }
    });
  }

  test('/status-pages and their notices: every operation, its success and each error it documents', async () => {
    const t = open({ bodyLimit: 2048 });
    const key = await t.createKey();
    const device = (
      await call<Device>(
        t,
        '/v1/devices/create',
        { method: 'POST', key, body: { target_type: 'domain', target_value: 'sp.example.com' } },
        201,
      )
    ).body.data!.id;
    const page = (slug: string) => ({ slug, title: 'T', components: [{ name: 'D', device_id: device }] });
    const a = (
      await call<{ id: number }>(t, '/v1/status-pages/create', { method: 'POST', key, body: page('sp-a') }, 201)
    ).body.data!.id;
    const b = (
      await call<{ id: number }>(
        t,
        '/v1/status-pages/create',
        { method: 'POST', key, body: { ...page('sp-b'), hostname: 'status.example.net' } },
        201,
      )
    ).body.data!.id;
    await call(t, '/v1/status-pages/create', { method: 'POST', key, body: page('sp-a') }, 409);
    await call(
      t,
      '/v1/status-pages/create',
      { method: 'POST', key, body: { ...page('sp-c'), hostname: 'status.example.net' } },
      409,
    );
    await call(
      t,
      '/v1/status-pages/create',
      { method: 'POST', key, body: { ...page('SP'), components: [{ device_id: device, blacklist_monitor_id: 1 }] } },
      400,
    );
    await call(
      t,
      '/v1/status-pages/create',
      { method: 'POST', key, body: '{', headers: { 'content-type': 'application/json' } },
      400,
    );
    await call(
      t,
      '/v1/status-pages/create',
      { method: 'POST', key, body: 'x', headers: { 'content-type': 'text/plain' } },
      400,
    );
    await call(t, '/v1/status-pages/create', { method: 'POST', key, body: { title: 'x'.repeat(3000) } }, 413);
    await call(t, '/v1/status-pages', { key }, 200);
    await call(t, '/v1/status-pages?limit=1', { key }, 200);
    await call(t, '/v1/status-pages?limit=0', { key }, 400);
    await call(t, `/v1/status-pages/get?id=${a}`, { key }, 200);
    await call(t, '/v1/status-pages/get?id=x', { key }, 400);
    await call(t, '/v1/status-pages/get?id=999999', { key }, 404);
    await call(
      t,
      `/v1/status-pages/update?id=${a}`,
      { method: 'PATCH', key, body: { title: 'U', description: 'a\nb' } },
      200,
    );
    await call(t, `/v1/status-pages/update?id=${a}`, { method: 'PATCH', key, body: { slug: 'sp-b' } }, 409);
    await call(t, `/v1/status-pages/update?id=${a}`, { method: 'PATCH', key, body: { id: 3 } }, 400);
    await call(t, '/v1/status-pages/update?id=999999', { method: 'PATCH', key, body: {} }, 404);
    await call(t, `/v1/status-pages/update?id=${a}`, { method: 'PATCH', key, body: { title: 'x'.repeat(3000) } }, 413);
    const notice = {
      status_page_id: a,
      title: 'N',
      impact: 'minor',
      status: 'investigating',
      message: 'M',
      component_indexes: [0],
    };
    const n = (
      await call<{ id: number }>(t, '/v1/status-pages/notices/create', { method: 'POST', key, body: notice }, 201)
    ).body.data!.id;
    await call(t, '/v1/status-pages/notices/create', { method: 'POST', key, body: { ...notice, impact: 'x' } }, 400);
    await call(t, '/v1/status-pages/notices/create', { method: 'POST', key, body: { message: 'x'.repeat(3000) } }, 413);
    await call(t, `/v1/status-pages/notices?status_page_id=${a}`, { key }, 200);
    await call(t, `/v1/status-pages/notices?status_page_id=${a}&limit=1`, { key }, 200);
    await call(t, '/v1/status-pages/notices', { key }, 400);
    await call(t, '/v1/status-pages/notices?status_page_id=999999', { key }, 404);
    await call(t, `/v1/status-pages/notices/get?id=${n}`, { key }, 200);
    await call(t, '/v1/status-pages/notices/get?id=0', { key }, 400);
    await call(t, '/v1/status-pages/notices/get?id=999999', { key }, 404);
    await call(
      t,
      `/v1/status-pages/notices/update?id=${n}`,
      { method: 'PATCH', key, body: { status: 'resolved', message: 'Done.' } },
      200,
    );
    await call(
      t,
      `/v1/status-pages/notices/update?id=${n}`,
      { method: 'PATCH', key, body: { status: 'resolved' } },
      400,
    );
    await call(t, '/v1/status-pages/notices/update?id=999999', { method: 'PATCH', key, body: {} }, 404);
    await call(
      t,
      `/v1/status-pages/notices/update?id=${n}`,
      { method: 'PATCH', key, body: { message: 'x'.repeat(3000) } },
      413,
    );
    await call(t, `/v1/status-pages/notices/delete?id=${n}`, { method: 'DELETE', key }, 200);
    await call(t, `/v1/status-pages/notices/delete?id=${n}`, { method: 'DELETE', key }, 404);
    await call(t, '/v1/status-pages/notices/delete?id=x', { method: 'DELETE', key }, 400);
    await call(t, `/v1/status-pages/delete?id=${b}`, { method: 'DELETE', key }, 200);
    await call(t, `/v1/status-pages/delete?id=${b}`, { method: 'DELETE', key }, 404);
    await call(t, '/v1/status-pages/delete?id=x', { method: 'DELETE', key }, 400);
    const reader = await t.createKey({ scopes: ['read'] });
    const writer = await t.createKey({ scopes: ['write'] });
    const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
    for (const [method, path] of STATUS_PAGE_ROUTES) {
      await call(t, path, { method, key: method === 'GET' ? writer : reader }, 403);
      await call(t, path, { method, key: elsewhere }, 403);
      await call(t, path, { method }, 401);
    }
  });

  test('/heartbeats/results and /heartbeats/availability: success and the failures of one record', async () => {
    const t = open();
    const key = await t.createKey();
    const id = (
      await call<{ id: number }>(t, '/v1/heartbeats/create', { method: 'POST', key, body: { period_s: 60 } }, 201)
    ).body.data!.id;
    const reader = await t.createKey({ scopes: ['write'] });
    const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
    for (const path of ['/v1/heartbeats/results', '/v1/heartbeats/availability']) {
      await call(t, `${path}?id=${id}`, { key }, 200);
      await call(t, `${path}?id=999999`, { key }, 404);
      await call(t, `${path}?id=${id}`, {}, 401);
      await call(t, `${path}?id=${id}`, { key: reader }, 403);
      await call(t, `${path}?id=${id}`, { key: elsewhere }, 403);
    }
    await call(t, '/v1/incidents?heartbeat_id=999999', { key }, 404);
  });

  test('/channels: every route, its success and its errors', () => channelResponses(call, open));

  test('/me: success, a stray parameter, and every failure before the route', async () => {
    const t = open();
    const key = await t.createKey({ scopes: ['read'] });
    await call(t, '/v1/me', { key }, 200);
    await call(
      t,
      '/v1/me',
      { key: await t.createKey({ scopes: ['write'], expiresAt: '2027-01-01T00:00:00.000Z' }) },
      200,
    );
    await call(t, '/v1/me?verbose=1', { key }, 400);
    await call(t, '/v1/me', {}, 401);
    await call(t, '/v1/me', { headers: { authorization: 'Basic abc' } }, 401);
    await call(t, '/v1/me', { key: await t.createKey({ allowedIps: ['2001:db8::/32'] }) }, 403);
  });

  test('/locations: success, a stray parameter, and every failure before the route', async () => {
    const t = open();
    const key = await t.createKey({ scopes: ['read'] });
    await call(t, '/v1/locations', { key }, 200);
    await t.store.recordHeartbeat!({
      worker_id: 'w1',
      location: 'eu-west',
      version: '1.0.0',
      started_at: '2026-01-01T00:00:00.000Z',
    });
    await call(t, '/v1/locations', { key }, 200);
    await call(t, '/v1/locations?name=eu-west', { key }, 400);
    await call(t, '/v1/locations', {}, 401);
    await call(t, '/v1/locations', { key: await t.createKey({ scopes: ['write'] }) }, 403);
    await call(t, '/v1/locations', { key: await t.createKey({ allowedIps: ['2001:db8::/32'] }) }, 403);
    await call(t, '/v1/locations/eu-west', { key }, 404);
    await call(t, '/v1/locations', { method: 'POST', key }, 405);
  });

  test('the report routes: availability, response times, incidents (paged), listings, and their errors', async () => {
    // The store's report tables start at the clock's start: every check is recorded after it.
    const start = Date.UTC(2026, 0, 1);
    const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();
    const t = open({ start: new Date(start) });
    const key = await t.createKey();
    const device = await call<Device>(
      t,
      '/v1/devices/create',
      { method: 'POST', key, body: { target_type: 'domain', target_value: 'example.com' } },
      201,
    );
    const id = device.body.data!.id;
    const checkAt = (minutes: number, status: 'up' | 'down') =>
      mustRecord(
        recordDeviceCheck(t.store, id, {
          checked_at: at(minutes),
          status,
          results: [status === 'up' ? tls(at(minutes), 60) : tls(at(minutes), -1)],
        }),
      );
    await checkAt(1, 'up');
    await checkAt(10, 'down');
    await checkAt(20, 'up');
    await checkAt(30, 'down');
    await checkAt(90, 'up');
    await checkAt(100, 'down');
    const monitor = await call<BlacklistMonitor>(
      t,
      '/v1/blacklist-monitors/create',
      { method: 'POST', key, body: { target_type: 'ip', target_value: '8.8.8.8' } },
      201,
    );
    const mid = monitor.body.data!.id;
    const listing = { zone: 'zen.spamhaus.org', answer: '127.0.0.2', meaning: null, policy: false, delist_url: null };
    await mustRecord(
      recordBlacklistCheck(t.store, mid, {
        checked_at: at(5),
        last_status: 'listed',
        listed_on: ['zen.spamhaus.org'],
        listings: [{ ...listing, since: at(5) }],
      }),
    );
    t.clock.set(start + 3 * 3_600_000);

    await call(t, `/v1/devices/availability?id=${id}`, { key }, 200);
    await call(t, `/v1/devices/availability?id=${id}&from=${encodeURIComponent(at(200))}`, { key }, 400);
    await call(t, `/v1/devices/response-times?id=${id}&from=${encodeURIComponent(at(0))}`, { key }, 200);
    await call(t, `/v1/devices/response-times?id=${id}&bucket=day&time_zone=Asia%2FKolkata`, { key }, 200);
    await call(t, `/v1/devices/response-times?id=${id}&bucket=week`, { key }, 400);
    const page = await call(t, `/v1/incidents?device_id=${id}&limit=1`, { key }, 200);
    assert.match(page.headers.get('link') ?? '', /rel="next"/);
    await call(t, '/v1/incidents', { key }, 200);
    await call(t, '/v1/incidents?limit=0', { key }, 400);
    await call(t, `/v1/blacklist-monitors/listings?id=${mid}`, { key }, 200);
    const [newest] = (page.body as { data: { id: number }[] }).data;
    const acknowledge = `/v1/incidents/acknowledge?id=${newest!.id}`;
    await call(t, acknowledge, { method: 'POST', key }, 200);
    await call(t, '/v1/incidents/acknowledge', { method: 'POST', key }, 400);
    await call(t, '/v1/incidents/acknowledge?id=9007199254740991', { method: 'POST', key }, 404);

    const reader = await t.createKey({ userId: key.key.user_id, scopes: ['read'] });
    const writer = await t.createKey({ userId: key.key.user_id, scopes: ['write'] });
    const elsewhere = await t.createKey({ allowedIps: ['203.0.113.0/24'] });
    for (const [path, query, missing] of [
      ['/v1/devices/availability', `id=${id}`, 'id=9007199254740991'],
      ['/v1/devices/response-times', `id=${id}`, 'id=9007199254740991'],
      ['/v1/incidents', `device_id=${id}`, 'device_id=9007199254740991'],
      ['/v1/blacklist-monitors/listings', `id=${mid}`, 'id=9007199254740991'],
    ] as const) {
      await call(t, `${path}?${query}`, { key: reader }, 200);
      if (path !== '/v1/incidents') await call(t, path, { key }, 400);
      await call(t, `${path}?${missing}`, { key }, 404);
      await call(t, `${path}?${query}`, { key: writer }, 403);
      await call(t, `${path}?${query}`, { key: elsewhere }, 403);
      await call(t, `${path}?${query}`, {}, 401);
      await call(t, `${path}?${query}`, { method: 'DELETE', key }, 405);
    }
    await call(t, acknowledge, { method: 'POST', key: reader }, 403);
    await call(t, acknowledge, { method: 'POST', key: elsewhere }, 403);
    await call(t, acknowledge, { method: 'POST' }, 401);
  });

  test('429: the key quota and the failed-authentication throttle, on every operation', async () => {
    const t = open({ rateLimit: { limit: 1, windowSeconds: 30 }, authFailureLimit: { limit: 1, windowSeconds: 60 } });
    const requests: [string, string][] = [
      ['GET', '/v1/me'],
      ['GET', '/v1/devices'],
      ['POST', '/v1/devices/create'],
      ['DELETE', '/v1/devices/delete?id=1'],
      ['GET', '/v1/blacklist-monitors'],
      ['POST', '/v1/blacklist-monitors/create'],
      ['DELETE', '/v1/blacklist-monitors/delete?id=1'],
      ['GET', '/v1/devices/results?id=1'],
      ['GET', '/v1/blacklist-monitors/results?id=1'],
      ['GET', '/v1/nowhere'],
      ['POST', '/v1/devices/check?id=1'],
      ['POST', '/v1/blacklist-monitors/check?id=1'],
      ['GET', '/v1/webhooks'],
      ['POST', '/v1/webhooks/create'],
      ['DELETE', '/v1/webhooks/delete?id=1'],
      ['GET', '/v1/locations'],
      ['GET', '/v1/webhooks/deliveries?id=1'],
      ['POST', '/v1/webhooks/test?id=1'],
      ...['devices', 'blacklist-monitors', 'webhooks', 'maintenance-windows'].flatMap((r): [string, string][] => [
        ['GET', `/v1/${r}/get?id=1`],
        ['PATCH', `/v1/${r}/update?id=1`],
      ]),
      ['GET', '/v1/maintenance-windows'],
      ['POST', '/v1/maintenance-windows/create'],
      ['DELETE', '/v1/maintenance-windows/delete?id=1'],
      ['GET', '/v1/heartbeats'],
      ['POST', '/v1/heartbeats/create'],
      ['DELETE', '/v1/heartbeats/delete?id=1'],
      ['GET', '/v1/heartbeats/get?id=1'],
      ['PATCH', '/v1/heartbeats/update?id=1'],
      ['GET', '/v1/heartbeats/results?id=1'],
      ['GET', '/v1/heartbeats/availability?id=1'],
      ['GET', '/v1/devices/availability?id=1'],
      ['GET', '/v1/devices/response-times?id=1'],
      ['GET', '/v1/incidents'],
      ['POST', '/v1/incidents/acknowledge?id=1'],
      ['GET', '/v1/blacklist-monitors/listings?id=1'],
      ...STATUS_PAGE_ROUTES.map(([method, path]): [string, string] => [method, path]),
      ['GET', '/v1/channels'],
      ['POST', '/v1/channels/create'],
      ['GET', '/v1/channels/get?id=1'],
      ['PATCH', '/v1/channels/update?id=1'],
      ['DELETE', '/v1/channels/delete?id=1'],
      ['POST', '/v1/channels/test?id=1'],
      ['GET', '/v1/channels/deliveries?id=1'],
    ];
    for (const [method, path] of requests) {
      const key = await t.createKey();
      await call(t, '/v1/me', { key }, 200);
      const refused = await call(
        t,
        path,
        { method, key, body: method === 'POST' || method === 'PATCH' ? {} : undefined },
        429,
      );
      assert.equal(refused.headers.get('retry-after'), refused.headers.get('ratelimit')?.match(/t=(\d+)/)?.[1]);
    }
    const throttled = open({ authFailureLimit: { limit: 1, windowSeconds: 60 } });
    await call(throttled, '/v1/me', { key: 'mapi_wrong' }, 401);
    for (const [method, path] of requests) await call(throttled, path, { method, key: 'mapi_wrong' }, 429);
  });

  test('500: a failing store and a missing schema, on every operation', async () => {
    const store = new FailingStore();
    const t = open({ store, keyCacheTtlMs: 0 });
    const key = await t.createKey();
    const requests: [string, string, unknown][] = [
      ['GET', '/v1/devices', undefined],
      ['POST', '/v1/devices/create', { target_type: 'domain', target_value: 'example.com' }],
      ['DELETE', '/v1/devices/delete?id=1', undefined],
      ['GET', '/v1/blacklist-monitors', undefined],
      ['POST', '/v1/blacklist-monitors/create', { target_type: 'domain', target_value: 'example.com' }],
      ['DELETE', '/v1/blacklist-monitors/delete?id=1', undefined],
      ['GET', '/v1/devices/results?id=1', undefined],
      ['GET', '/v1/blacklist-monitors/results?id=1', undefined],
      ['POST', '/v1/devices/check?id=1', undefined],
      ['POST', '/v1/blacklist-monitors/check?id=1', undefined],
      ['GET', '/v1/webhooks', undefined],
      ['POST', '/v1/webhooks/create', { url: 'https://hooks.example.com/' }],
      ['DELETE', '/v1/webhooks/delete?id=1', undefined],
      ['GET', '/v1/locations', undefined],
      ['GET', '/v1/webhooks/deliveries?id=1', undefined],
      ['POST', '/v1/webhooks/test?id=1', undefined],
      ...['devices', 'blacklist-monitors', 'webhooks', 'maintenance-windows'].flatMap(
        (r): [string, string, unknown][] => [
          ['GET', `/v1/${r}/get?id=1`, undefined],
          ['PATCH', `/v1/${r}/update?id=1`, {}],
        ],
      ),
      ['GET', '/v1/maintenance-windows', undefined],
      ['DELETE', '/v1/maintenance-windows/delete?id=1', undefined],
      [
        'POST',
        '/v1/maintenance-windows/create',
        { name: 'w', starts_at: '2026-01-02T00:00:00Z', ends_at: '2026-01-02T01:00:00Z', all_devices: true },
      ],
      ['GET', '/v1/devices/availability?id=1', undefined],
      ['GET', '/v1/devices/response-times?id=1', undefined],
      ['GET', '/v1/incidents', undefined],
      ['POST', '/v1/incidents/acknowledge?id=1', undefined],
      ['GET', '/v1/blacklist-monitors/listings?id=1', undefined],
      ...STATUS_PAGE_ROUTES,
      ['GET', '/v1/heartbeats', undefined],
      ['POST', '/v1/heartbeats/create', { period_s: 60 }],
      ['DELETE', '/v1/heartbeats/delete?id=1', undefined],
      ['GET', '/v1/heartbeats/get?id=1', undefined],
      ['PATCH', '/v1/heartbeats/update?id=1', {}],
      ['GET', '/v1/heartbeats/results?id=1', undefined],
      ['GET', '/v1/heartbeats/availability?id=1', undefined],
      ['GET', '/v1/channels', undefined],
      [
        'POST',
        '/v1/channels/create',
        { name: 'c', type: 'ntfy', config: { server_url: 'https://ntfy.sh', topic: 't' } },
      ],
      ['GET', '/v1/channels/get?id=1', undefined],
      ['PATCH', '/v1/channels/update?id=1', {}],
      ['DELETE', '/v1/channels/delete?id=1', undefined],
      ['POST', '/v1/channels/test?id=1', undefined],
      ['GET', '/v1/channels/deliveries?id=1', undefined],
    ];
    for (const failure of [new Error('connection reset'), new MissingTableError()]) {
      store.failure = failure;
      for (const [method, path, body] of requests) await call(t, path, { method, key, body }, 500);
      store.failKeys = true;
      await call(t, '/v1/me', { key }, 500);
      await call(t, '/v1/nowhere', { key }, 500);
      store.failKeys = false;
    }
  });

  test('requests that match no operation: 404 unknown routes, 405 with Allow, outside the base path', async () => {
    const t = open();
    const key = await t.createKey();
    for (const path of [
      '/v1/nope',
      '/v1/devices/nope',
      '/v1/blacklist-monitors/x/y',
      '/v1/me/more',
      '/v1/Devices',
      '/v1/devices//',
      '/v1',
      '/elsewhere',
      '/v1/webhooks/results',
      '/v1/maintenance-windows/nope',
      '/v1/heartbeats/nope',
      '/v1/incidents/nope',
      '/v1/status-pages/notices/nope',
      '/v1/channels/nope',
    ]) {
      await call(t, path, { key }, 404);
    }
    for (const [method, path] of [
      ['PUT', '/v1/devices'],
      ['POST', '/v1/me'],
      ['GET', '/v1/devices/create'],
      ['PATCH', '/v1/blacklist-monitors/delete'],
    ]) {
      const res = await call(t, path!, { method: method!, key }, 405);
      assert.ok(res.headers.get('allow'));
    }
    await call(t, '/v1/nope', {}, 401);
    await call(t, '/v1/devices', { method: 'PUT', key: await t.createKey({ allowedIps: ['203.0.113.7'] }) }, 403);
  });

  test('a custom base path conforms to a document generated for it', async () => {
    const t = open({ basePath: '/api/monitoring/v1' });
    const key = await t.createKey();
    await call(t, '/api/monitoring/v1/me', { key }, 200);
    await call(
      t,
      '/api/monitoring/v1/devices/create',
      { method: 'POST', key, body: { target_type: 'ip', target_value: '1.1.1.1', service_type: 'dns' } },
      201,
    );
    await call(t, '/api/monitoring/v1/devices?limit=1', { key }, 200);
    await call(t, '/v1/me', { key }, 404);
  });

  test('protocol-level answers of the standalone server, on every operation: 400, 408, 417, 431', async () => {
    // The real node:http server of `monitoring-api serve`, in process, twice: with its own
    // timeouts for the answers that come at once, and with a short header timeout for the 408
    // alone, so that it comes without waiting real seconds and bounds nothing else.
    const t = open();
    const servers = [
      createApiServer(t.api).server,
      createApiServer(t.api, { headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 50 }).server,
    ];
    for (const server of servers) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const [port, shortPort] = servers.map((server) => (server.address() as { port: number }).port) as [number, number];
    type Answer = { status: number; headers: Record<string, string>; body: unknown };
    /** Sends raw bytes, reads until the server closes, and parses the one answer. */
    const exchange = (bytes: string, to = port) =>
      new Promise<Answer>((resolve, reject) => {
        const socket = connect(to, '127.0.0.1', () => socket.write(bytes));
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const [head = '', body = ''] = received.split('\r\n\r\n');
          const [statusLine = '', ...lines] = head.split('\r\n');
          const headers = Object.fromEntries(
            lines.map((line) => [
              line.slice(0, line.indexOf(':')).toLowerCase(),
              line.slice(line.indexOf(':') + 1).trim(),
            ]),
          );
          try {
            resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) });
          } catch (error) {
            reject(new Error(`no JSON answer to ${JSON.stringify(bytes.slice(0, 80))}: ${received}`, { cause: error }));
          }
        });
      });
    try {
      // Every operation, and a path that matches none (documented under x-unmatched-request-responses).
      // The routes side by side: each waits out the short header timeout for its 408.
      await Promise.all(
        [...ROUTES, { method: 'GET', path: '/nope' }].map(async (route) => {
          const line = `${route.method} /v1${route.path} HTTP/1.1\r\n`;
          const cases: [number, string][] = [
            [400, `${line}Host: x\r\nBad Header\r\n\r\n`],
            [400, `${line}\r\n`],
            [417, `${line}Host: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n`],
            [431, `${line}Host: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`],
            [408, `${line}Host: x\r\n`],
          ];
          for (const [status, bytes] of cases) {
            const answer = await exchange(bytes, status === 408 ? shortPort : port);
            assert.equal(answer.status, status, `${route.method} ${route.path}: ${JSON.stringify(answer)}`);
            const conformance = conformanceFor('/v1');
            const checked: Exchange = {
              method: route.method,
              pathname: `/v1${route.path}`,
              basePath: '/v1',
              ...answer,
            };
            assert.deepEqual(conformance.check(checked), []);
            const { operation } = conformance.resolve(route.method, checked.pathname, '/v1', status);
            seen.push({ operation, status, code: (answer.body as { error?: { code?: string } }).error?.code });
          }
        }),
      );
      const proxyRequest = await exchange('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n');
      assert.equal(proxyRequest.status, 400);
      const conformance = conformanceFor('/v1');
      assert.deepEqual(
        conformance.check({ method: 'CONNECT', pathname: 'example.org:443', basePath: '/v1', ...proxyRequest }),
        [],
      );
      seen.push({ operation: 'unmatched', status: 400, code: 'bad_request' });
    } finally {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  test('coverage: every documented (operation, status) and every documented error code was seen', () => {
    const document = documentFor('/v1');
    const covered = new Set(seen.map((s) => `${s.operation} ${s.status}`));
    const codes = new Set(seen.map((s) => s.code).filter((c) => c !== undefined));
    const missing: string[] = [];
    const examplesOf = (response: ResponseObject) =>
      Object.keys(response.content?.['application/json']?.examples ?? {});
    const conformance = conformanceFor('/v1');
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        const operation = `${method.toUpperCase()} ${path}`;
        for (const [status, declared] of Object.entries(item[method as keyof typeof item]!.responses)) {
          // A request that matches an operation cannot be answered 404 unknown route or 405 by the
          // server that documents it (they are listed for a server URL or version that does not
          // match); those shared responses are covered by the unmatched requests that get them.
          const shared =
            '$ref' in declared && (status === '404' || status === '405') && covered.has(`unmatched ${status}`);
          if (!shared && !covered.has(`${operation} ${status}`)) missing.push(`${operation} ${status}`);
          const response = conformance.resolve(method, `/v1${path}`, '/v1', Number(status)).response!;
          for (const code of examplesOf(response))
            if (!codes.has(code)) missing.push(`code ${code} (${operation} ${status})`);
        }
      }
    }
    for (const status of Object.keys(document['x-unmatched-request-responses'])) {
      if (!covered.has(`unmatched ${status}`)) missing.push(`unmatched ${status}`);
      const response = conformance.resolve('GET', '/v1/nope', '/v1', Number(status)).response!;
      for (const code of examplesOf(response)) if (!codes.has(code)) missing.push(`code ${code} (unmatched ${status})`);
    }
    assert.deepEqual(missing, []);
  });
});
