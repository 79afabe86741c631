/**
 * What the client sends and receives. Records come from core/records.ts as types only (erased
 * at build), so the client has no runtime dependency on the server code.
 */
import type { DetailCode, ErrorDetail } from '../core/http/api-error.ts';
import type {
  BlacklistMonitor, BlacklistStatus, CreatedWebhook, Deleted, Device, EventType, Me, Scheme, Scope, ServiceType, TargetType, Webhook,
  WebhookDeliveryStatus,
} from '../core/records.ts';

export type {
  BlacklistMonitor, BlacklistStatus, CreatedWebhook, Deleted, DetailCode, Device, ErrorDetail, EventType, Me, Scheme, Scope,
  ServiceType, TargetType, Webhook, WebhookDeliveryStatus,
};

/** An int/bool field: the API accepts exactly these (docs/contract.md §4) and answers booleans. */
export type Flag = boolean | 0 | 1;

/**
 * A device to create. Only target_type and target_value are required; null means the same as
 * leaving a field out. Web-only fields (scheme, host_header, proxy_enabled, origin_*,
 * check_public_http(s), check_origin_*, expect_status) are refused on other services unless
 * null or false.
 */
export interface DeviceInput {
  target_type: TargetType;
  /** A public domain name or IP address, at most 253 characters. */
  target_value: string;
  /** Default web. */
  service_type?: ServiceType | null;
  /** Default https for web. */
  scheme?: Scheme | null;
  /** 1-65535; default by service; required for tcp. */
  port?: number | null;
  host_header?: string | null;
  proxy_enabled?: Flag | null;
  /** Required when proxy_enabled or an origin check is on. */
  origin_host?: string | null;
  origin_scheme?: Scheme | null;
  origin_port?: number | null;
  check_public_http?: Flag | null;
  check_public_https?: Flag | null;
  check_public_tls?: Flag | null;
  check_origin_http?: Flag | null;
  check_origin_tls?: Flag | null;
  /** 100-599; default 200 for web. */
  expect_status?: number | null;
  /** Free text, at most 255 characters. */
  location?: string | null;
  /** Default true. */
  is_enabled?: Flag | null;
}

export interface BlacklistMonitorInput {
  target_type: TargetType;
  target_value: string;
  /** Default true. */
  is_enabled?: Flag | null;
}

export interface WebhookInput {
  /** An http(s) URL on a public host, at most 2048 characters, without credentials or fragment. */
  url: string;
  /** Non-empty and distinct. Default all event types. */
  events?: EventType[] | null;
  /** Default true. */
  is_enabled?: Flag | null;
}

/** Where the next page starts: pass it back to `list` as it is. */
export interface PageCursor {
  limit: number;
  afterId: number;
}

export interface Page<T> {
  data: T[];
  /** null on the last page (and on an unlimited list, which has everything). */
  next: PageCursor | null;
}

/** Per call: cancel it (also while waiting to retry), or send your own request id. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Sent as X-Request-Id (1-64 of [A-Za-z0-9._-]); the server logs it and echoes it back. */
  requestId?: string;
}

export interface ListOptions extends RequestOptions {
  /** Page size, 1-1000. Without it the server answers every record at once. */
  limit?: number;
  /** Cursor: records with a larger id. */
  afterId?: number;
}

export interface AllOptions extends RequestOptions {
  /** Records fetched per request, 1-1000. Default 100. */
  pageSize?: number;
  /** Start after this id. Default 0. */
  afterId?: number;
}

/** Create, list and delete for one kind of record; `Created` is what a create answers (webhooks add their secret). */
export interface ResourceClient<T, Input, Created = T> {
  /** One page (with `limit`) and the cursor of the next, read from the Link header. */
  list(options?: ListOptions): Promise<Page<T>>;
  /** Every record, page by page, following the Link header until there is none: nothing is capped. */
  all(options?: AllOptions): AsyncIterableIterator<T>;
  /**
   * Creates the record. On 409 the MonitoringApiError carries `existingId`, the record this one
   * duplicates: use it rather than creating again.
   */
  create(input: Input, options?: RequestOptions): Promise<Created>;
  delete(id: number, options?: RequestOptions): Promise<Deleted>;
}

export interface RetryOptions {
  /** How many times a 429 may be retried (0 = never). */
  retries: number;
  /** Longest wait accepted; a 429 asking for longer is thrown at once. Default 60 000 ms. */
  maxDelayMs?: number;
}

export interface MonitoringClientOptions {
  /** The API's base URL, version prefix included: `https://monitoring.example.com/v1`. */
  baseUrl: string | URL;
  /** The API key. */
  token: string;
  /** Default: the global fetch. Pass one to add a proxy agent, logging or a test double. */
  fetch?: typeof fetch;
  /**
   * Retrying 429 answers, after the server's Retry-After. Off unless given. Only 429 is ever
   * retried: the server did not execute such a request, so repeating it cannot create a
   * duplicate. Network errors and 5xx are never retried (a create may have happened).
   */
  retry?: RetryOptions;
}

export interface MonitoringClient {
  me(options?: RequestOptions): Promise<Me>;
  devices: ResourceClient<Device, DeviceInput>;
  blacklistMonitors: ResourceClient<BlacklistMonitor, BlacklistMonitorInput>;
  /** The create answer alone carries the signing secret: keep it then. */
  webhooks: ResourceClient<Webhook, WebhookInput, CreatedWebhook>;
}
