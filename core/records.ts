/**
 * The records the API stores and returns. Field names are the wire names of docs/contract.md §6 and §7,
 * so a record can be serialised as it is.
 */

export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

export type TargetType = 'domain' | 'ip';
export type Scheme = 'http' | 'https';

export const SERVICE_TYPES = [
  'web',
  'ssh',
  'smtp',
  'smtps',
  'submission',
  'ftp',
  'imap',
  'imaps',
  'pop3',
  'pop3s',
  'dns',
  'mysql',
  'postgresql',
  'rdp',
  'tcp',
] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

/** A timestamp: ISO 8601 UTC with milliseconds, e.g. `2026-11-22T07:00:00.000Z`. */
export type Timestamp = string;

export interface Device {
  id: number;
  target_type: TargetType;
  target_value: string;
  service_type: ServiceType;
  scheme: Scheme | null;
  port: number;
  host_header: string | null;
  proxy_enabled: boolean;
  origin_host: string | null;
  origin_scheme: Scheme | null;
  origin_port: number | null;
  check_public_http: boolean;
  check_public_https: boolean;
  check_public_tls: boolean;
  check_origin_http: boolean;
  check_origin_tls: boolean;
  expect_status: number | null;
  location: string | null;
  is_enabled: boolean;
  created_at: Timestamp;
  /** Seconds between checks (docs/engine.md, "What the API shows"): 30 to 86400, default 60. */
  check_interval_s: number;
  /**
   * The locations the device is checked from (docs/engine.md, "Locations"): 1 to 16 distinct
   * names; null (the default) means any one location.
   */
  check_locations: string[] | null;
  /** How many locations must agree to declare it down or up; null when `check_locations` is. */
  quorum: number | null;
  /**
   * `insufficient` while fewer of its locations than the quorum can be heard (its status then
   * holds), `met` otherwise; null when `check_locations` is null or before the first result.
   */
  quorum_state: QuorumState | null;
  /** What each of `check_locations` last found, by name; null when `check_locations` is null. */
  locations: Record<string, DeviceLocation> | null;
  /** Where the engine's checks have put the device (docs/engine.md, "Statuses and transitions"). */
  status: DeviceStatus;
  /** When the status last changed; null until the engine first changes it. */
  status_since: Timestamp | null;
  /** The end of the last completed check; null before the first. */
  last_checked_at: Timestamp | null;
  /** The last result of each probe that ran, keyed by probe name; `{}` before the first check. */
  last_results: DeviceLastResults;
}

/**
 * A device as validated from a create request, before the store gives it an id. The engine's
 * state starts as a create leaves it: `pending` (`paused` when disabled), never checked.
 */
export type NewDevice = Omit<Device, 'id'>;

export type QuorumState = 'met' | 'insufficient';

/**
 * What one location says about a device: `up` or `failing` from a recent result, `stale` when it
 * has no live worker or no recent result, `unknown` before its first result.
 */
export type LocationVerdict = 'up' | 'failing' | 'stale' | 'unknown';

/** One location of a device as the record shows it (`Device.locations`). */
export interface DeviceLocation {
  status: LocationVerdict;
  /** When this location's last check ended; null before the first. */
  last_checked_at: Timestamp | null;
  /** The slowest probe of that check, in milliseconds; null when none connected. */
  response_ms: number | null;
  /** The first error of that check; null when it passed. */
  error: string | null;
}

export const DEVICE_STATUSES = ['pending', 'up', 'validating', 'down', 'paused', 'maintenance'] as const;
/**
 * `pending`: never checked. `up`: the last check passed. `validating`: a check failed and is being
 * confirmed. `down`: enough consecutive checks failed. `paused`: disabled, not checked.
 * `maintenance`: a maintenance window covers it; checked, never announced down or up.
 */
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

export type BlacklistStatus = 'clean' | 'listed' | 'error';

export interface BlacklistMonitor {
  id: number;
  target_type: TargetType;
  target_value: string;
  is_enabled: boolean;
  last_status: BlacklistStatus | null;
  last_checked_at: Timestamp | null;
  /** The blacklist zones that listed the target at the last check, sorted; [] otherwise. */
  listed_on: string[];
  created_at: Timestamp;
  /** Seconds between checks (docs/engine.md, "What the API shows"): 300 to 86400, default 3600. */
  check_interval_s: number;
  /** The zones whose lookup failed at the last check, sorted; [] otherwise. */
  failed_zones: string[];
  /**
   * The zones asked for this target, sorted: a subset of the operator's zones of its kind; null
   * asks every one of them (docs/engine.md, "Blacklist monitors (DNSBL)"). A create field.
   */
  zones: string[] | null;
  /**
   * Whether a policy listing (Spamhaus PBL: an address range its owner says should not send mail
   * directly) makes the monitor `listed`. A create field, default false: such a listing is shown
   * in `listings` and leaves the status `clean`.
   */
  count_policy_listings: boolean;
  /** Every zone that lists the target, by zone name; [] when none does. */
  listings: DnsblListing[];
  /** The reverse DNS (PTR) name of an IP target at the last check that got an answer; null when it has none. */
  rdns: string | null;
}

/** One zone's listing of a target (docs/engine.md, "Blacklist monitors (DNSBL)"). */
export interface DnsblListing {
  zone: string;
  /** The A records the zone answered, comma-joined (e.g. `127.0.0.2`). */
  answer: string;
  /** What the answer means, from the list's own documentation; null when the code is not known. */
  meaning: string | null;
  /** True when every code of the answer is a policy listing (Spamhaus PBL), which need not mean spam. */
  policy: boolean;
  /** Where to look the listing up and ask for its removal; null when not known. */
  delist_url: string | null;
  /** The first check that saw this zone list the target, counting from its last delisting. */
  since: Timestamp;
}

export type NewBlacklistMonitor = Omit<BlacklistMonitor, 'id'>;

/** The probes a device can run (docs/engine.md, "Device probes"), each when its flag is on. */
export const DEVICE_PROBES = [
  'public_http',
  'public_https',
  'public_tls',
  'origin_http',
  'origin_tls',
  'service',
] as const;
export type DeviceProbe = (typeof DEVICE_PROBES)[number];
/** Every probe name a check result can carry: the device probes and `dnsbl` (one row per zone). */
export type ProbeName = DeviceProbe | 'dnsbl';

/** What every check result says, whatever the probe: plain data a person can read. */
export interface CheckResultBase {
  /** Ids grow with time: a larger id is a later result. */
  id: number;
  /**
   * The check the result belongs to: every result of one check (a device's probes, a monitor's
   * zones) has the same; a later check has a larger one.
   */
  check_id: number;
  /** When the probe finished. */
  checked_at: Timestamp;
  probe: ProbeName;
  ok: boolean;
  /** How long the probe took, in whole milliseconds; null when it never got to connect. */
  response_ms: number | null;
  /** Why the probe failed (`timeout`, `forbidden_address`, `ECONNREFUSED`, ...); null when ok. */
  error: string | null;
  /** Present, and true, on a result of a check made while a maintenance window covered the record. */
  maintenance?: true;
  /**
   * The location whose worker made the check, for a device with `check_locations`; null for a
   * device checked from any one location, and for a blacklist monitor.
   */
  check_location: string | null;
}

/** One DNSBL zone's answer for a blacklist monitor's target (docs/engine.md, "Blacklist monitors (DNSBL)"). */
export interface DnsblResult extends CheckResultBase {
  probe: 'dnsbl';
  zone: string;
  /** True when the zone listed the target; false when it did not, or its lookup failed. */
  listed: boolean;
  /** The A records the zone answered, comma-joined (e.g. `127.0.0.2`); null for NXDOMAIN or a failure. */
  answer: string | null;
  /** What a listing's answer means (as in `listings`); null when not listed or not known. */
  meaning: string | null;
  /** True for a policy listing; false otherwise, and when not listed. */
  policy: boolean;
  /** Where to look up or remove the listing; null when not listed or not known. */
  delist_url: string | null;
  /** The first check that saw the listing; null when not listed. */
  since: Timestamp | null;
}

/** `public_http`, `public_https`, `origin_http`: one GET of `/`, redirects not followed. */
export interface HttpProbeResult extends CheckResultBase {
  probe: 'public_http' | 'public_https' | 'origin_http';
  http_status: number | null;
  /** The `Location` header of a 3xx answer; null otherwise. */
  location: string | null;
}

/** `public_tls`, `origin_tls`: a TLS handshake and the certificate it showed. */
export interface TlsProbeResult extends CheckResultBase {
  probe: 'public_tls' | 'origin_tls';
  tls_valid_to: Timestamp | null;
  /** Whole days until `tls_valid_to`, negative once expired. */
  tls_days_left: number | null;
  /** Node's code for a certificate it refused (`CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID`, ...). */
  tls_error: string | null;
}

/** `service`: a TCP connection and the protocol's greeting. */
export interface ServiceProbeResult extends CheckResultBase {
  probe: 'service';
  /** The first line the service sent, at most 200 characters; null when it sends none first. */
  banner: string | null;
}

export type DeviceProbeResult = HttpProbeResult | TlsProbeResult | ServiceProbeResult;
/** A stored check result, as `GET /devices/results` and `GET /blacklist-monitors/results` show it. */
export type CheckResult = DnsblResult | DeviceProbeResult;

type WithoutId<T> = T extends unknown ? Omit<T, 'id' | 'check_id' | 'check_location'> : never;
/** A check result as the engine hands it to the store, before the store gives it its ids. */
export type NewCheckResult = WithoutId<CheckResult>;
export type NewDeviceProbeResult = WithoutId<DeviceProbeResult>;
export type NewDnsblResult = Omit<DnsblResult, 'id' | 'check_id' | 'check_location'>;

// `Extract<..., { probe: P }>` was never for the TLS and HTTP probes, whose result types each
// cover several probe names: the intersection keeps the result type of the probe P names.
/** A device's last result per probe (`Device.last_results`). */
export type DeviceLastResults = { [P in DeviceProbe]?: NewDeviceProbeResult & { probe: P } };

/** The status changes announced to webhooks (docs/engine.md, "Events and webhooks"). */
export const EVENT_TYPES = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'device.location_failing',
  'blacklist.listed',
  'blacklist.delisted',
  'device.paused',
  'device.resumed',
  'blacklist_monitor.paused',
  'blacklist_monitor.resumed',
  'device.maintenance_started',
  'device.maintenance_ended',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * A status change as it is announced: the record's state at that moment, with the status before
 * and after (`last_status` for a blacklist monitor).
 */
export type EventData = (Device | BlacklistMonitor) & { previous_status: string | null; status: string | null };

/** One event in the outbox. Written with the status change that caused it, in one transaction. */
export interface MonitoringEvent {
  id: number;
  type: EventType;
  /** The owner of the record: the webhooks that hear of it are theirs. */
  user_id: number;
  created_at: Timestamp;
  data: EventData;
}

/** An event as the engine hands it to the store with a check; the store fills in id and owner. */
export type NewMonitoringEvent = Omit<MonitoringEvent, 'id' | 'user_id'>;

export interface User {
  id: number;
  name: string | null;
  created_at: Timestamp;
}

/** A per-key override of the default rate limit: `limit` requests each `windowSeconds`. */
export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export interface ApiKey {
  id: number;
  user_id: number;
  name: string | null;
  scopes: Scope[];
  /** Addresses or CIDR blocks, v4 and v6; empty means any address. */
  allowed_ips: string[];
  rate_limit: RateLimitRule | null;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

/** A key as the host creates it; only the SHA-256 of its token is ever stored. */
export type NewApiKey = Omit<ApiKey, 'id' | 'revoked_at' | 'last_used_at'> & { token_hash: string };

/**
 * `GET /me`'s data: the calling key and its user (docs/contract.md §6.5), plus the key's expiry. More fields
 * may follow in later releases.
 */
export interface Me {
  user_id: number;
  key_id: number;
  scopes: Scope[];
  expires_at: Timestamp | null;
}

/**
 * A monitoring engine worker's sign of life (docs/engine.md, "Locations"): written every 10 s, its
 * time by the store's own clock, so workers whose clocks differ still agree on who is live.
 */
export interface WorkerHeartbeat {
  worker_id: string;
  /** The location the worker checks from: `[a-z0-9-]{1,32}`, `default` unless told. */
  location: string;
  /** The package version the worker runs. */
  version: string;
  started_at: Timestamp;
}

/** One location as `GET /locations` shows it. */
export interface LocationSummary {
  name: string;
  /** Workers of this location whose last heartbeat is younger than 30 s. */
  live_workers: number;
  /** The last heartbeat of any of its workers. */
  last_seen_at: Timestamp;
}

/** A delete's data. */
export interface Deleted {
  id: number;
  deleted: true;
}

/** How the last delivery to a webhook went: `failing` from its first failed attempt until one succeeds. */
export const WEBHOOK_DELIVERY_STATUSES = ['delivered', 'failing'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * An endpoint that hears of the events of its user (docs/engine.md, "Events and webhooks"), as
 * `GET /webhooks` shows it: never with its secret.
 */
export interface Webhook {
  id: number;
  /** http(s), at most 2048 characters, stored in its WHATWG URL serialisation. */
  url: string;
  /** The event types it receives: non-empty, distinct, in the order of EVENT_TYPES. */
  events: EventType[];
  is_enabled: boolean;
  created_at: Timestamp;
  /** When the last delivery attempt ended; null before the first. */
  last_delivery_at: Timestamp | null;
  last_delivery_status: WebhookDeliveryStatus | null;
  /**
   * Why the last attempt failed (`timeout`, `http_500`, `ECONNREFUSED`, ...); null when it
   * succeeded, or before any.
   */
  last_delivery_error: string | null;
  /** When the current run of failed attempts began; null while deliveries succeed. */
  failing_since: Timestamp | null;
}

/** One delivery attempt to a webhook, as `GET /webhooks/deliveries` lists it. */
export interface WebhookAttempt {
  /** Larger ids are later attempts. */
  id: number;
  /** The event delivered: the `webhook-id` header the endpoint received. */
  event_id: number;
  event_type: EventType;
  /** 1 for the first attempt at this event, 2 for its first retry, ... */
  attempt: number;
  /** When the attempt ended. */
  attempted_at: Timestamp;
  /** The HTTP status the endpoint answered; null when it never answered. */
  http_status: number | null;
  /** Why the attempt failed; null when it was delivered (a 2xx). */
  error: string | null;
  /** How long the attempt took, connecting included, in whole milliseconds. */
  duration_ms: number | null;
}

/** The answer of `POST /webhooks/create`: the only time the signing secret is shown. */
export interface CreatedWebhook extends Webhook {
  /** `whsec_` + base64 of 32 random bytes; the HMAC key is the decoded bytes. */
  secret: string;
}

/** A webhook as validated from a create request, secret included, before the store gives it an id. */
export type NewWebhook = Omit<CreatedWebhook, 'id'>;

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A weekly window: on each of `days`, from `start` (local time in `time_zone`) for `duration_s`. */
export interface MaintenanceRepeat {
  days: Weekday[];
  /** `HH:MM`, 24-hour, in `time_zone`. */
  start: string;
  duration_s: number;
  /** An IANA zone (`Europe/Berlin`): the window follows its daylight-saving changes. */
  time_zone: string;
}

/** A maintenance window as stored: one-off (`starts_at`, `ends_at`) or weekly (`repeat`). */
export interface MaintenanceWindowSettings {
  name: string;
  starts_at: Timestamp | null;
  ends_at: Timestamp | null;
  repeat: MaintenanceRepeat | null;
  device_ids: number[];
  all_devices: boolean;
  blacklist_monitor_ids: number[];
  all_blacklist_monitors: boolean;
}

export interface StoredMaintenanceWindow extends MaintenanceWindowSettings {
  id: number;
  created_at: Timestamp;
}

/** What the API shows (docs/contract.md §6.10): the window, and when it is in force, from the clock. */
export interface MaintenanceWindow extends StoredMaintenanceWindow {
  active_now: boolean;
  /** The start of the occurrence in force, or of the next one; null when none is left. */
  next_start_at: Timestamp | null;
  next_end_at: Timestamp | null;
}

export type NewMaintenanceWindow = Omit<StoredMaintenanceWindow, 'id'>;
