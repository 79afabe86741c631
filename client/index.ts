/**
 * `monitoring-api/client`: a typed client of the Monitoring Service API v1. fetch-based with no
 * runtime dependency, for Node 20+, Bun, Deno and browsers.
 *
 *   const api = createMonitoringClient({ baseUrl: 'https://monitoring.example.com/v1', token, retry: { retries: 3 } });
 *   for await (const device of api.devices.all()) console.log(device.id, device.target_value);
 */
import { MonitoringApiError } from './errors.ts';
import { noticesClient } from './status-pages.ts';
import type { Heartbeat, HeartbeatChanges, HeartbeatClient, HeartbeatInput, HeartbeatPing } from './heartbeat-types.ts';
import type { MonitoringClient } from './monitoring-client.ts';
import { reportsClient, withRange } from './reports.ts';
import { createTransport, cursorOf, nextLink, resultCursorOf, type Transport } from './transport.ts';
import type {
  AllOptions,
  AvailabilityReport,
  RangeOptions,
  AllResultsOptions,
  BlacklistMonitor,
  Channel,
  ChannelAttempt,
  ChannelClient,
  CreatedWebhook,
  Deleted,
  Device,
  DeviceProbeResult,
  DnsblResult,
  ListOptions,
  LocationSummary,
  MaintenanceWindow,
  Me,
  MonitoredResourceClient,
  MonitoringClientOptions,
  Page,
  RequestOptions,
  ResourceClient,
  StatusPage,
  StatusPageInput,
  ResultCursor,
  ResultPage,
  ResultsOptions,
  Webhook,
  WebhookAttempt,
  WebhookClient,
  WebhookTestResult,
} from './types.ts';
import type {
  BlacklistMonitorInput,
  Changes,
  ChannelChanges,
  ChannelInput,
  DeviceInput,
  MaintenanceWindowInput,
  WebhookChanges,
  WebhookInput,
} from './input-types.ts';

export { MonitoringApiError, type ClientErrorCode, type MonitoringApiErrorInit } from './errors.ts';
export type * from './types.ts';
export type * from './heartbeat-types.ts';
export type * from './monitoring-client.ts';

/** Records per request of `all()` unless told otherwise: a few round trips for typical accounts, small answers. */
const DEFAULT_PAGE_SIZE = 100;

function resource<T, Input, Created = T, Update = Changes<Input>, Updated = T>(
  transport: Transport,
  base: URL,
  segment: string,
): ResourceClient<T, Input, Created, Update, Updated> {
  const listUrl = new URL(segment, base);

  async function list(options: ListOptions = {}): Promise<Page<T>> {
    const url = new URL(listUrl);
    if (options.limit !== undefined) url.searchParams.set('limit', String(options.limit));
    if (options.afterId !== undefined) url.searchParams.set('after_id', String(options.afterId));
    const answer = await transport.send<T[]>('GET', url, undefined, options);
    const next = nextLink(answer.headers, answer.url);
    return { data: answer.data, next: next === null ? null : cursorOf(next, answer.url) };
  }

  async function* all(options: AllOptions = {}): AsyncGenerator<T, void, undefined> {
    // Always paged: a bounded answer per request, and the Link header says when to stop, so no
    // record is lost to a page size the caller did not choose.
    let cursor: ListOptions | null = { limit: options.pageSize ?? DEFAULT_PAGE_SIZE, afterId: options.afterId ?? 0 };
    while (cursor !== null) {
      const page: Page<T> = await list({ ...cursor, signal: options.signal, requestId: options.requestId });
      yield* page.data;
      cursor = page.next;
    }
  }

  return {
    list,
    all,
    async create(input, options) {
      return (await transport.send<Created>('POST', new URL(`${segment}/create`, base), input, options)).data;
    },
    async get(id, options) {
      const url = new URL(`${segment}/get`, base);
      url.searchParams.set('id', String(id));
      return (await transport.send<T>('GET', url, undefined, options)).data;
    },
    async update(id, changes, options) {
      const url = new URL(`${segment}/update`, base);
      url.searchParams.set('id', String(id));
      return (await transport.send<Updated>('PATCH', url, changes, options)).data;
    },
    async delete(id, options) {
      const url = new URL(`${segment}/delete`, base);
      url.searchParams.set('id', String(id));
      return (await transport.send<Deleted>('DELETE', url, undefined, options)).data;
    },
  };
}

/** A resource the engine checks: the resource client plus its check results, newest first. */
function monitored<T, Input, R>(
  transport: Transport,
  base: URL,
  segment: string,
): MonitoredResourceClient<T, Input, R> {
  const { page: results, all: allResults } = newestFirst<R>(transport, new URL(`${segment}/results`, base));
  async function check(id: number, options?: RequestOptions): Promise<T> {
    const url = new URL(`${segment}/check`, base);
    url.searchParams.set('id', String(id));
    return (await transport.send<T>('POST', url, undefined, options)).data;
  }
  return { ...resource<T, Input>(transport, base, segment), results, allResults, check };
}

/** Webhooks: the resource client plus each one's delivery attempts, newest first. */
function webhooks(transport: Transport, base: URL): WebhookClient {
  const attempts = newestFirst<WebhookAttempt>(transport, new URL('webhooks/deliveries', base));
  const { page: deliveries, all: allDeliveries } = attempts;
  async function test(id: number, options?: RequestOptions): Promise<WebhookTestResult> {
    const url = new URL('webhooks/test', base);
    url.searchParams.set('id', String(id));
    return (await transport.send<WebhookTestResult>('POST', url, undefined, options)).data;
  }
  const webhookResource = resource<Webhook, WebhookInput, CreatedWebhook, WebhookChanges, Webhook | CreatedWebhook>(
    transport,
    base,
    'webhooks',
  );
  return { ...webhookResource, deliveries, allDeliveries, test };
}

/** Heartbeats: the resource client plus each one's pings, newest first, and its availability. */
function heartbeats(transport: Transport, base: URL): HeartbeatClient {
  const { page: pings, all: allPings } = newestFirst<HeartbeatPing>(transport, new URL('heartbeats/results', base));
  async function availability(id: number, options: RangeOptions = {}): Promise<AvailabilityReport> {
    const url = withRange(new URL('heartbeats/availability', base), options);
    url.searchParams.set('id', String(id));
    return (await transport.send<AvailabilityReport>('GET', url, undefined, options)).data;
  }
  const resourceClient = resource<Heartbeat, HeartbeatInput, Heartbeat, HeartbeatChanges>(
    transport,
    base,
    'heartbeats',
  );
  return { ...resourceClient, pings, allPings, availability };
}

/** Channels: the resource client plus each one's delivery attempts and its test message. */
function channels(transport: Transport, base: URL): ChannelClient {
  const { page: deliveries, all: allDeliveries } = newestFirst<ChannelAttempt>(
    transport,
    new URL('channels/deliveries', base),
  );
  async function test(id: number, options?: RequestOptions): Promise<WebhookTestResult> {
    const url = new URL('channels/test', base);
    url.searchParams.set('id', String(id));
    return (await transport.send<WebhookTestResult>('POST', url, undefined, options)).data;
  }
  const channelResource = resource<Channel, ChannelInput, Channel, ChannelChanges>(transport, base, 'channels');
  return { ...channelResource, deliveries, allDeliveries, test };
}

/** One record's rows at `resultsUrl`, newest first: a page, and every page following the Link header. */
function newestFirst<R>(transport: Transport, resultsUrl: URL) {
  async function results(id: number, options: ResultsOptions = {}): Promise<ResultPage<R>> {
    const url = new URL(resultsUrl);
    url.searchParams.set('id', String(id));
    if (options.limit !== undefined) url.searchParams.set('limit', String(options.limit));
    if (options.beforeId !== undefined) url.searchParams.set('before_id', String(options.beforeId));
    const answer = await transport.send<R[]>('GET', url, undefined, options);
    const next = nextLink(answer.headers, answer.url);
    return { data: answer.data, next: next === null ? null : resultCursorOf(next, answer.url) };
  }

  async function* allResults(id: number, options: AllResultsOptions = {}): AsyncGenerator<R, void, undefined> {
    // Paged like all(): the Link header says when the oldest result has been read.
    let cursor: ResultsOptions | ResultCursor | null = {
      limit: options.pageSize ?? DEFAULT_PAGE_SIZE,
      beforeId: options.beforeId,
    };
    while (cursor !== null) {
      const page: ResultPage<R> = await results(id, {
        ...cursor,
        signal: options.signal,
        requestId: options.requestId,
      });
      yield* page.data;
      cursor = page.next;
    }
  }

  return { page: results, all: allResults };
}

export function createMonitoringClient(options: MonitoringClientOptions): MonitoringClient {
  if (typeof options.token !== 'string' || options.token === '')
    throw new TypeError('token must be a non-empty string');
  // A trailing slash makes the base a directory, so 'devices' resolves under /v1/ and not beside it.
  const base = new URL(options.baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  base.search = '';
  base.hash = '';
  // Called through a closure so a browser's fetch is never invoked with another `this`.
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const transport = createTransport(options.token, fetchImpl, options.retry);
  return {
    async me(requestOptions?: RequestOptions) {
      return (await transport.send<Me>('GET', new URL('me', base), undefined, requestOptions)).data;
    },
    async locations(requestOptions?: RequestOptions) {
      return (await transport.send<LocationSummary[]>('GET', new URL('locations', base), undefined, requestOptions))
        .data;
    },
    devices: monitored<Device, DeviceInput, DeviceProbeResult>(transport, base, 'devices'),
    blacklistMonitors: monitored<BlacklistMonitor, BlacklistMonitorInput, DnsblResult>(
      transport,
      base,
      'blacklist-monitors',
    ),
    webhooks: webhooks(transport, base),
    channels: channels(transport, base),
    maintenanceWindows: resource<MaintenanceWindow, MaintenanceWindowInput>(transport, base, 'maintenance-windows'),
    heartbeats: heartbeats(transport, base),
    reports: reportsClient(transport, base),
    statusPages: {
      ...resource<StatusPage, StatusPageInput>(transport, base, 'status-pages'),
      notices: noticesClient(transport, base),
    },
  };
}

/** Whether an error is the API's answer with this code (e.g. `isApiError(e, 'duplicate_device')`). */
export function isApiError(error: unknown, code?: string): error is MonitoringApiError {
  return error instanceof MonitoringApiError && (code === undefined || error.code === code);
}
