import type { MonitoredKind, MonitoringStore, ResultsPage } from './monitoring-store.ts';
import type { WebhookStore } from './webhook-store.ts';
import type { ChannelStore } from './channel-store.ts';
import type { NotificationStore } from './notification-store.ts';
import type { MaintenanceStore } from './maintenance-store.ts';
import type { HeartbeatStore } from './heartbeat-store.ts';
import type { ReportStore } from './report-store.ts';
import type { StatusPageStore } from './status-page-store.ts';
import type { ChangeEffect, CreateResult, PageRequest, RecordChange, UpdateResult } from './store-calls.ts';
import type { ChangeListener } from './record-changes.ts';
import type {
  ApiKey,
  BlacklistMonitor,
  CheckResult,
  Device,
  LocationSummary,
  NewApiKey,
  NewBlacklistMonitor,
  NewDevice,
  Timestamp,
  User,
} from '../records/index.ts';

export type { ChangeEffect, CreateResult, PageRequest, RecordChange, UpdateResult };

/**
 * Everything the API keeps. Implementations: `MemoryStore` (core) and `KyselyStore` (PostgreSQL,
 * SQLite). Timestamps go in and come out as ISO 8601 UTC with milliseconds. A store throws
 * `MissingTableError` when its schema is not migrated; any other error it throws is answered 500
 * `server_error` and never shown to the client.
 */
export interface Store
  extends
    MonitoringStore,
    WebhookStore,
    ChannelStore,
    NotificationStore,
    MaintenanceStore,
    ReportStore,
    HeartbeatStore,
    StatusPageStore {
  createUser(user: Omit<User, 'id'>): Promise<User>;
  getUser(id: number): Promise<User | undefined>;

  createApiKey(key: NewApiKey): Promise<ApiKey>;
  findApiKeyByHash(tokenHash: string): Promise<ApiKey | undefined>;
  getApiKey(id: number): Promise<ApiKey | undefined>;
  listApiKeys(userId: number): Promise<ApiKey[]>;
  /** Marks the key revoked; false when no such key exists or it was revoked already. */
  revokeApiKey(id: number, at: Timestamp): Promise<boolean>;
  /** Records when keys were last used, in one batch. Unknown ids are ignored. */
  recordKeyUsage(usage: ReadonlyMap<number, Timestamp>): Promise<void>;

  createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>>;
  listDevices(userId: number, page: PageRequest): Promise<Device[]>;
  /** Undefined when the device does not exist or belongs to another user. */
  getDevice(userId: number, id: number): Promise<Device | undefined>;
  /**
   * Changes a device (`PATCH /devices/update`) as `change` says: compare-and-set on its fields,
   * duplicates decided by the unique index as for creates, the engine's state per `change.effect`.
   */
  updateDevice(userId: number, id: number, change: RecordChange<Device, NewDevice>): Promise<UpdateResult<Device>>;
  /** False when the device does not exist or belongs to another user. */
  deleteDevice(userId: number, id: number): Promise<boolean>;

  createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>>;
  listBlacklistMonitors(userId: number, page: PageRequest): Promise<BlacklistMonitor[]>;
  getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined>;
  updateBlacklistMonitor(
    userId: number,
    id: number,
    change: RecordChange<BlacklistMonitor, NewBlacklistMonitor>,
  ): Promise<UpdateResult<BlacklistMonitor>>;
  deleteBlacklistMonitor(userId: number, id: number): Promise<boolean>;

  /**
   * Makes an enabled record of the user due at `at` (`POST /devices/check`, `POST
   * /blacklist-monitors/check`), at most once per `minGapMs` per record: a request within
   * `minGapMs` of the last one that took effect changes nothing and says when the next may. The
   * check and the gap are one atomic step, so concurrent requests (other instances included) make
   * the record due once.
   */
  requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: Timestamp,
    minGapMs: number,
  ): Promise<CheckRequestResult>;

  /**
   * A record's check results, newest first (`GET /devices/results`, `GET /blacklist-monitors/results`);
   * undefined when the record does not exist or belongs to another user. Deleting a record deletes
   * its results.
   */
  listCheckResults(
    userId: number,
    kind: MonitoredKind,
    id: number,
    page: ResultsPage,
  ): Promise<CheckResult[] | undefined>;

  /**
   * Every location with a heartbeat in the last 24 hours, by name, with how many of its workers
   * are live (a heartbeat younger than 30 s), both by the store's own clock (`GET /locations`).
   */
  listLocations(): Promise<LocationSummary[]>;

  /**
   * Optional: a value that differs whenever any device, monitor, webhook or channel may have changed since
   * it was last asked, or reports were rolled up or deleted (`ReportUpkeep`), writes by other
   * processes included, cheap enough to ask on every list request. When given, the API reuses a
   * list or report answer as long as the value stays the same; a store that cannot tell leaves it
   * out (or answers undefined) and every answer is read afresh.
   *
   * The answer must come from a read that started at or after `arrivedAt` (`performance.now()`
   * when the request arrived), or after the call when it is not given: such a read reflects every
   * write whose answer had been sent before the request was. So one read may serve every request
   * that arrived before it began.
   */
  changeMarker?(arrivedAt?: number): string | undefined | Promise<string | undefined>;

  /**
   * Optional: tells `listener` of every record changed in what a public status answer shows
   * (record-changes.ts), writes by other processes included, once committed; until it returns
   * the unsubscribe, `listener.hearing` says whether changes are heard. A store that cannot tell
   * leaves it out, and status answers are read afresh for every request. A change of something no
   * answer shows (a check that leaves a device's status as it was) is not told.
   */
  watchChanges?(listener: ChangeListener): () => void;

  /** Releases connections; calling it again is harmless. */
  close(): Promise<void>;
}

/** What `Store.requestCheck` did. */
export type CheckRequestResult =
  | { outcome: 'due'; record: Device | BlacklistMonitor }
  /** No such record of the user's. */
  | { outcome: 'not_found' }
  /** The record is disabled: nothing is checked until it is enabled. */
  | { outcome: 'paused' }
  /** The last request that took effect was less than `minGapMs` ago; `retry_at` is when the next may. */
  | { outcome: 'too_soon'; retry_at: Timestamp };

/** Thrown by a store whose tables do not exist (the schema was never migrated). */
export class MissingTableError extends Error {
  override readonly name = 'MissingTableError';
  constructor(options?: { cause?: unknown }) {
    super('the store schema is missing: run the migrations', options);
  }
}
