/**
 * What the client sends and receives. Records come from the core's public entry (core/index.ts) as
 * types only (erased at build), so the client has no runtime dependency on the server code.
 */
import type {
  AvailabilityReport,
  CreatedWebhook,
  Deleted,
  EventType,
  Incident,
  ListingPeriod,
  MaintenanceRepeat,
  Notice,
  NoticeImpact,
  NoticeStatus,
  ReportBucket,
  ResponseTimePoint,
  Scheme,
  ServiceType,
  StatusPage,
  TargetType,
  Webhook,
  WebhookAttempt,
  WebhookTestResult,
} from '../core/index.ts';

export type * from './records.ts';

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
  /** Seconds between checks, 30-86400; default 60. */
  check_interval_s?: number | null;
  /** 1-16 distinct location names (`[a-z0-9-]{1,32}`); default null: any one location. */
  check_locations?: string[] | null;
  /** 1 to the number of check_locations; default floor(n / 2) + 1; only with check_locations. */
  quorum?: number | null;
}

export interface BlacklistMonitorInput {
  target_type: TargetType;
  target_value: string;
  /** Default true. */
  is_enabled?: Flag | null;
  /** Seconds between checks, 300-86400; default 3600. */
  check_interval_s?: number | null;
  /** Some of the installation's zones for the target's type; default null, every one of them. */
  zones?: string[] | null;
  /** Whether a policy listing (Spamhaus PBL) makes the monitor `listed`; default false. */
  count_policy_listings?: Flag | null;
}

export interface WebhookInput {
  /** An http(s) URL on a public host, at most 2048 characters, without credentials or fragment. */
  url: string;
  /** Non-empty and distinct. Default all event types. */
  events?: EventType[] | null;
  /** Default true. */
  is_enabled?: Flag | null;
}

/**
 * A maintenance window to create: one-off (`starts_at`, `ends_at`, RFC 3339, at most 31 days
 * apart) or weekly (`repeat`), for chosen records or all of a kind.
 */
export interface MaintenanceWindowInput {
  /** 1-200 characters. */
  name: string;
  starts_at?: string | null;
  ends_at?: string | null;
  repeat?: MaintenanceRepeat | null;
  device_ids?: number[] | null;
  all_devices?: Flag | null;
  blacklist_monitor_ids?: number[] | null;
  all_blacklist_monitors?: Flag | null;
  heartbeat_ids?: number[] | null;
  all_heartbeats?: Flag | null;
}

/** A component of a status page to create: its record (exactly one id), and its name unless the record lends one. */
export type StatusPageComponentInput = { name?: string | null; group?: string | null } & (
  { device_id: number; blacklist_monitor_id?: never } | { blacklist_monitor_id: number; device_id?: never }
);

/** A status page to create (docs/status-pages.md, "Managing pages"). */
export interface StatusPageInput {
  /** `[a-z0-9-]{3,64}`, unique across the service: served at `/status/<slug>`. */
  slug: string;
  /** 1-100 characters. */
  title: string;
  description?: string | null;
  /** 1-100 components, shown in this order. */
  components: StatusPageComponentInput[];
  history_days?: number | null;
  time_zone?: string | null;
  show_response_times?: Flag | null;
  show_targets?: Flag | null;
  hostname?: string | null;
  is_public?: Flag | null;
}

/** A notice to write on a status page: its first update is `status` with `message`. */
export interface NoticeInput {
  status_page_id: number;
  title: string;
  impact: NoticeImpact;
  status: NoticeStatus;
  message: string;
  component_indexes?: number[] | null;
}

/** Changes to a notice: `message` appends an update (with `status`, else the current one). */
export interface NoticeChanges {
  title?: string;
  impact?: NoticeImpact;
  status?: NoticeStatus;
  message?: string;
  component_indexes?: number[] | null;
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

/** Where the next (older) page of results starts: pass it back to `results` as it is. */
export interface ResultCursor {
  limit: number;
  beforeId: number;
}

/** One page of a record's check results, newest first. */
export interface ResultPage<R> {
  data: R[];
  /** null when no older results follow. */
  next: ResultCursor | null;
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

export interface ResultsOptions extends RequestOptions {
  /** Page size, 1-1000. Default 100 (the server's). */
  limit?: number;
  /** Cursor: results with a smaller id (older ones). Default: from the newest. */
  beforeId?: number;
}

export interface AllResultsOptions extends RequestOptions {
  /** Results fetched per request, 1-1000. Default 100. */
  pageSize?: number;
  /** Start below this id. Default: from the newest. */
  beforeId?: number;
}

/** Create, list and delete for one kind of record; `Created` is what a create answers (webhooks add their secret). */
/**
 * Changes to a record (`update`): any subset of the create's fields. `null` gives an optional
 * field its default back; a required field cannot be null.
 */
export type Changes<Input> = { [K in keyof Input]?: Input[K] | null };

/** Changes to a webhook: its create fields, and `rotate_secret: true` for a new signing secret. */
export type WebhookChanges = Changes<WebhookInput> & { rotate_secret?: Flag | null };

export interface ResourceClient<T, Input, Created = T, Update = Changes<Input>, Updated = T> {
  /** One page (with `limit`) and the cursor of the next, read from the Link header. */
  list(options?: ListOptions): Promise<Page<T>>;
  /** Every record, page by page, following the Link header until there is none: nothing is capped. */
  all(options?: AllOptions): AsyncIterableIterator<T>;
  /**
   * Creates the record. On 409 the MonitoringApiError carries `existingId`, the record this one
   * duplicates: use it rather than creating again.
   */
  create(input: Input, options?: RequestOptions): Promise<Created>;
  /** One record; a record that does not exist, or is another user's, is a 404. */
  get(id: number, options?: RequestOptions): Promise<T>;
  /**
   * Changes the fields given, all or none, and answers the record as changed. On 409 the error
   * carries `existingId`, the record the change would duplicate.
   */
  update(id: number, changes: Update, options?: RequestOptions): Promise<Updated>;
  delete(id: number, options?: RequestOptions): Promise<Deleted>;
}

/** A kind of record the engine checks: a resource client that also reads its check results (of type `R`). */
export interface MonitoredResourceClient<T, Input, R> extends ResourceClient<T, Input> {
  /**
   * One page of the record's check results, newest first, and the cursor of the next (older)
   * page, read from the Link header. A record that does not exist, or is another user's, is a 404.
   */
  results(id: number, options?: ResultsOptions): Promise<ResultPage<R>>;
  /** The record's check results, newest first, page by page until the oldest kept. */
  allResults(id: number, options?: AllResultsOptions): AsyncIterableIterator<R>;
  /**
   * Asks for the record to be checked now (202): the answer is the record as it stands, and the
   * check's results show in `results` once a worker has run it. At most once a minute per record
   * (sooner: `check_too_soon`, with `retryAfterSeconds`); a disabled record is `record_paused`.
   */
  check(id: number, options?: RequestOptions): Promise<T>;
}

/** Webhooks: a resource client that also reads each webhook's delivery attempts. */
export interface WebhookClient extends ResourceClient<
  Webhook,
  WebhookInput,
  CreatedWebhook,
  WebhookChanges,
  Webhook | CreatedWebhook
> {
  /** One page of a webhook's delivery attempts, newest first, and the cursor of the next (older) page. */
  deliveries(id: number, options?: ResultsOptions): Promise<ResultPage<WebhookAttempt>>;
  /** A webhook's delivery attempts, newest first, page by page until the oldest. */
  allDeliveries(id: number, options?: AllResultsOptions): AsyncIterableIterator<WebhookAttempt>;
  /** Sends the webhook a signed `webhook.test` event at once and answers how the attempt went (write scope). */
  test(id: number, options?: RequestOptions): Promise<WebhookTestResult>;
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

/**
 * A report's range (docs/contract.md §6.12): RFC 3339 strings or Dates. Without `to` it ends now;
 * without `from` it begins 30 days before its end; at most 400 days long.
 */
export interface RangeOptions extends RequestOptions {
  from?: string | Date;
  to?: string | Date;
}

export interface ResponseTimeOptions extends RangeOptions {
  /** Default: `hour` for a range of at most two days, else `day`; `day` whenever `timeZone` is given. */
  bucket?: ReportBucket;
  /** An IANA zone (`Europe/Berlin`) whose days the `day` buckets are; UTC days without it. */
  timeZone?: string;
}

export interface IncidentOptions extends RangeOptions {
  /** Only this device's incidents; all the user's without it (or `heartbeatId`). */
  deviceId?: number;
  /** Only this heartbeat's incidents. */
  heartbeatId?: number;
  /** Page size, 1-1000. Default 100 (the server's). */
  limit?: number;
  /** Cursor: incidents with a smaller id (older ones). Default: from the newest. */
  beforeId?: number;
}

/** Where the next (older) page of incidents starts: the same range, device and size. Pass it back to `incidents`. */
export interface IncidentCursor {
  deviceId?: number;
  heartbeatId?: number;
  from: string;
  to: string;
  limit: number;
  beforeId: number;
}

export interface IncidentPage {
  data: Incident[];
  /** null when no older incidents follow. */
  next: IncidentCursor | null;
}

export interface AllIncidentsOptions extends Omit<IncidentOptions, 'limit'> {
  /** Incidents fetched per request, 1-1000. Default 100. */
  pageSize?: number;
}

/** The notices of one's status pages (`/status-pages/notices`). */
export interface NoticeClient {
  /** One page of a status page's notices (with `limit`), ascending by id, and the cursor of the next. */
  list(statusPageId: number, options?: ListOptions): Promise<Page<Notice>>;
  /** Every notice of a status page, page by page. */
  all(statusPageId: number, options?: AllOptions): AsyncIterableIterator<Notice>;
  create(input: NoticeInput, options?: RequestOptions): Promise<Notice>;
  get(id: number, options?: RequestOptions): Promise<Notice>;
  update(id: number, changes: NoticeChanges, options?: RequestOptions): Promise<Notice>;
  delete(id: number, options?: RequestOptions): Promise<Deleted>;
}

/**
 * Status pages (`/status-pages`): a resource client, whose creates and updates answer 409
 * `duplicate_slug` or `duplicate_hostname` (without `existingId`: the other page may be another
 * user's), and the pages' notices.
 */
export interface StatusPageClient extends ResourceClient<StatusPage, StatusPageInput> {
  notices: NoticeClient;
}

/** The report routes (scope read): availability, response times, incidents and blacklist listings. */
export interface ReportsClient {
  /** `GET /devices/availability`: how one device spent the range, and its availability in percent. */
  availability(deviceId: number, options?: RangeOptions): Promise<AvailabilityReport>;
  /** `GET /devices/response-times`: one point per bucket, probe and location. */
  responseTimes(deviceId: number, options?: ResponseTimeOptions): Promise<ResponseTimePoint[]>;
  /** `GET /incidents`: one page of the user's incidents overlapping the range, newest first. */
  incidents(options?: IncidentOptions | (IncidentCursor & RequestOptions)): Promise<IncidentPage>;
  /** Every incident overlapping the range, newest first, page by page. */
  allIncidents(options?: AllIncidentsOptions): AsyncIterableIterator<Incident>;
  /** `GET /blacklist-monitors/listings`: the monitor's listing periods overlapping the range. */
  listings(monitorId: number, options?: RangeOptions): Promise<ListingPeriod[]>;
}
