/**
 * What the client sends and receives. Records come from the core's public entry (core/index.ts) as
 * types only (erased at build), so the client has no runtime dependency on the server code.
 */
import type {
  AvailabilityReport,
  Channel,
  ChannelAttempt,
  CreatedWebhook,
  Deleted,
  Incident,
  ListingPeriod,
  Notice,
  ReportBucket,
  ResponseTimePoint,
  StatusPage,
  Webhook,
  WebhookAttempt,
  WebhookTestResult,
} from '../core/index.ts';
import type {
  Changes,
  ChannelChanges,
  ChannelInput,
  NoticeChanges,
  NoticeInput,
  StatusPageInput,
  WebhookChanges,
  WebhookInput,
} from './input-types.ts';

export type * from './records.ts';
export type * from './input-types.ts';
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

/** Channels: a resource client that also reads each channel's delivery attempts and sends it a test. */
export interface ChannelClient extends ResourceClient<Channel, ChannelInput, Channel, ChannelChanges> {
  /** One page of a channel's delivery attempts, newest first, and the cursor of the next (older) page. */
  deliveries(id: number, options?: ResultsOptions): Promise<ResultPage<ChannelAttempt>>;
  /** A channel's delivery attempts, newest first, page by page until the oldest. */
  allDeliveries(id: number, options?: AllResultsOptions): AsyncIterableIterator<ChannelAttempt>;
  /** Sends the channel one test message at once and answers how the attempt went (write scope). */
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
  /**
   * `POST /incidents/acknowledge` (write scope): acknowledges the incident as this key, which stops
   * its reminders and escalations; answers it as it now stands (a repeat keeps the first acknowledgement).
   */
  acknowledge(incidentId: number, options?: RequestOptions): Promise<Incident>;
  /** `GET /blacklist-monitors/listings`: the monitor's listing periods overlapping the range. */
  listings(monitorId: number, options?: RangeOptions): Promise<ListingPeriod[]>;
}
