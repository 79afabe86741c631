import type { ReportUpkeep } from './report-store.ts';
import type {
  BlacklistMonitor,
  BlacklistStatus,
  Device,
  DeviceLocation,
  DnsblListing,
  DeviceStatus,
  NewDeviceProbeResult,
  NewDnsblResult,
  NewMonitoringEvent,
  QuorumState,
  Timestamp,
  WorkerHeartbeat,
} from '../records/index.ts';

/**
 * What the monitoring engine needs of a store (docs/engine.md, "Scheduling"): claim due records
 * under a lease, record each check fenced by that lease, and prune old results. `Store` extends
 * it, so a host writing its own store sees here the whole of what the engine asks.
 */
export interface MonitoringStore extends Partial<ReportUpkeep> {
  /**
   * Leases up to `claim.limit` enabled devices whose next check is due at `claim.now`, and whose
   * lease (if any) has run out, earliest due first. No two concurrent claims get the same record.
   */
  claimDueDevices(claim: ClaimRequest): Promise<ClaimedDevice[]>;
  claimDueBlacklistMonitors(claim: ClaimRequest): Promise<ClaimedBlacklistMonitor[]>;

  /**
   * Writes device checks, in one batch: for each, its results, the device's `last_results` and
   * `last_checked_at`, its next check and its status, all at once. Each is written only while its
   * lease is still the record's (a later claim, a disable or a delete takes it away) and the
   * device's status is still `outcome.previous_status`; otherwise nothing of it is written. The
   * answer says, in order, which were written.
   */
  recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]>;
  /** Writes blacklist checks, in one batch, each fenced by its lease as `recordDeviceChecks` is. */
  recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]>;

  /**
   * Enables or disables a record (v1 has no update route; hosts may). Disabling pauses it: its
   * lease is dropped, so a check in flight is not recorded. Enabling makes it due at `at`. False
   * when no such record exists.
   */
  setEnabled(kind: MonitoredKind, id: number, enabled: boolean, at: Timestamp): Promise<boolean>;

  /** Deletes at most `limit` results checked before `before` and says how many it deleted. */
  deleteCheckResultsBefore(before: Timestamp, limit: number): Promise<number>;

  /**
   * Records that a worker is alive, stamped with the store's own clock (the database's), and
   * forgets heartbeats older than a day (docs/engine.md, "Locations"). Optional: the engine on a
   * store without it records no heartbeat, and its location is never listed as live.
   */
  recordHeartbeat?(heartbeat: WorkerHeartbeat): Promise<void>;

  /**
   * Leases up to `claim.limit` due (device, location) pairs of `claim.location`, for devices with
   * `check_locations` (docs/engine.md, "Locations"), as `claimDueDevices` leases devices. Optional
   * with `recordLocationCheck`: on a store without them such devices are checked from any one
   * location, as if `check_locations` were null.
   */
  claimDueLocationChecks?(claim: LocationClaimRequest): Promise<ClaimedLocationCheck[]>;

  /**
   * Writes one location's check of a device: in one transaction with the device locked, reads
   * its locations (which have a live worker, by the store's clock), asks `decide`, and writes what
   * it answers (the location's result and schedule, the device's status, `quorum_state`,
   * `locations` and `last_results`, the other locations' state, results and events). Nothing is
   * written when `decide` answers null (a fenced result). Says whether it wrote.
   */
  recordLocationCheck?(check: RecordedCheck<LocationCheckOutcome>, decide: LocationDecider): Promise<boolean>;
}

export interface LocationClaimRequest extends ClaimRequest {
  /** Only pairs of this location are claimed. */
  location: string;
}

export interface ClaimedLocationCheck extends Claimed<Device> {
  location: string;
}

/** One location's finished check of a device, as the engine hands it to the store. */
export interface LocationCheckOutcome {
  location: string;
  checked_at: Timestamp;
  /** One result per probe that ran. */
  results: NewDeviceProbeResult[];
}

/** A location of a device as the store holds it, for the quorum decision. */
export interface StoredLocation {
  name: string;
  /** Whether the location has a live worker, by the store's clock. */
  live: boolean;
  leaseToken: string | null;
  last: { ok: boolean; checkedAtMs: number } | null;
  failingSinceMs: number | null;
  /** Its failed checks in a row; 0 while it passes. */
  failures: number;
  announced: boolean;
  response_ms: number | null;
  error: string | null;
}

/** What the store writes for one location's check, as the decision says. */
export interface LocationCheckWrite {
  status: DeviceStatus;
  /** The device's `status_since` after the decision. */
  status_since: Timestamp | null;
  /** What the store keeps as the device's `up_since` (see `LocationDecider`). */
  up_since: Timestamp | null;
  quorum_state: QuorumState;
  /** Every location of the device as the decision leaves it (the checked one included). */
  locations: { name: string; failingSinceMs: number | null; failures: number; announced: boolean }[];
  /** The record's `locations`. */
  record_locations: Record<string, DeviceLocation>;
  /** When the checked location is due again. */
  next_check_at: Timestamp;
  /** The other locations are due at once. */
  second_opinion: boolean;
  /**
   * What the checked location keeps as its last result; null when the check failed on the
   * worker's side (docs/engine.md, "Locations"), so the location keeps the one it had.
   */
  last: { ok: boolean; response_ms: number | null; error: string | null } | null;
  /** The results to store: the check's own, marked `maintenance` when made in a window. */
  results: NewDeviceProbeResult[];
  events: NewMonitoringEvent[];
}

/**
 * The quorum decision as the engine gives it to the store: null when the result is fenced.
 * `upSince` is what the store kept of the device's last write (`LocationCheckWrite.up_since`):
 * while a device that was `up` is `validating`, when that `up` began.
 */
export type LocationDecider = (
  device: Device,
  locations: readonly StoredLocation[],
  upSince: Timestamp | null,
) => LocationCheckWrite | null;

/** The two kinds of record the engine checks. */
export type MonitoredKind = 'device' | 'blacklist_monitor';

export interface ClaimRequest {
  /** The claiming worker (`host:pid` by default): kept with the lease for operators. */
  owner: string;
  /** Records due at or before this moment are claimed. */
  now: Timestamp;
  /** Claim at most this many. */
  limit: number;
  /** When the leases run out if their checks are not recorded by then. */
  leaseUntil: Timestamp;
}

/** A worker's hold on one claimed record. Its check is written only while the lease holds. */
export interface Lease {
  /** The record's id. */
  id: number;
  /** Unique to one claim: a later claim of the same record gets another token. */
  token: string;
  owner: string;
  expires_at: Timestamp;
}

export interface Claimed<T> {
  record: T;
  lease: Lease;
  /** When the check was due; the claim's `now` minus this is the scheduling lag. */
  due_at: Timestamp;
}

/**
 * A claimed blacklist monitor, with what a maintenance window (docs/engine.md, "Maintenance
 * windows") changes about its check: whether one covers it, and the listings last announced
 * before one held its announcements back.
 */
export interface ClaimedBlacklistMonitor extends Claimed<BlacklistMonitor> {
  /** When the window covering it began; null or absent outside a window. */
  maintenance_since?: Timestamp | null;
  /**
   * The listings announced before a window began, kept until the first check after it: that
   * check announces what changed since them. Null or absent otherwise.
   */
  announced_listed_on?: string[] | null;
}

export interface ClaimedDevice extends Claimed<Device> {
  /** Failed checks in a row before this one (0 after a passed check). */
  consecutive_failures: number;
}

/** One finished check, as the engine hands it to the store: the lease it ran under and what it found. */
export interface RecordedCheck<Outcome> {
  lease: Lease;
  outcome: Outcome;
}

export interface DeviceCheckOutcome {
  checked_at: Timestamp;
  /** The status the claim saw: the write happens only if the device still has it. */
  previous_status: DeviceStatus;
  /** The status after this check; `status_since` moves to `checked_at` when it differs. */
  status: DeviceStatus;
  consecutive_failures: number;
  /** One result per probe that ran, kept as rows and as the device's `last_results`. */
  results: NewDeviceProbeResult[];
  next_check_at: Timestamp;
  /** The events this check causes, written to the outbox only if the check itself is written. */
  events: NewMonitoringEvent[];
}

export interface BlacklistCheckOutcome {
  checked_at: Timestamp;
  last_status: BlacklistStatus;
  /** Sorted. */
  listed_on: string[];
  /** Sorted. */
  failed_zones: string[];
  /** Every listing known after this check, sorted by zone. */
  listings: DnsblListing[];
  rdns: string | null;
  /** One result per zone asked. */
  results: NewDnsblResult[];
  next_check_at: Timestamp;
  /** The events this check causes, written to the outbox only if the check itself is written. */
  events: NewMonitoringEvent[];
  /**
   * The claim's `maintenance_since`: the check is written only while the monitor's is still
   * this (a window that began or ended meanwhile fences it). Absent: null.
   */
  maintenance_since?: Timestamp | null;
}

/** One page of a record's results, newest first: ids below `beforeId` (all when absent). */
export interface ResultsPage {
  beforeId?: number;
  /** A positive integer; the API asks for at most 1001 (a page and one more). */
  limit: number;
}
