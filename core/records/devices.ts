/** Devices: the hosts and services the engine checks (docs/contract.md §6). */
import type { DeviceLastResults } from './check-results.ts';
import type { Scheme, TargetType, Timestamp } from './common.ts';

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
  /** A name people know it by, 1 to 100 characters, used in notifications; null for none (its target names it). */
  name: string | null;
  /**
   * The channels told of its events (docs/notifications.md, "Which channels"): null, every channel
   * of its user with `is_default`; [] none; else these ids of the user's channels, ascending.
   */
  channel_ids: number[] | null;
}

/**
 * A device as validated from a create request, before the store gives it an id. The engine's
 * state starts as a create leaves it: `pending` (`paused` when disabled), never checked. `name`
 * and `channel_ids` may be left out (a store writes null for them), so that a host's own code
 * that makes devices need not name them.
 */
export type NewDevice = Omit<Device, 'id' | 'name' | 'channel_ids'> & Partial<Pick<Device, 'name' | 'channel_ids'>>;

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
