import { sql } from 'kysely';
import type { Kysely, RawBuilder, Selectable } from 'kysely';
import {
  MissingTableError,
  type ApiKey,
  type BlacklistCheckOutcome,
  type BlacklistMonitor,
  type CheckRequestResult,
  type CheckResult,
  type ClaimedDelivery,
  type ClaimedDevice,
  type ClaimedLocationCheck,
  type LocationCheckOutcome,
  type LocationClaimRequest,
  type LocationDecider,
  type ClaimRequest,
  type CreatedWebhook,
  type CreateResult,
  type DeliveryClaimRequest,
  type DeliveryLease,
  type DeliveryOutcome,
  type Device,
  type DeviceCheckOutcome,
  type LocationSummary,
  type WorkerHeartbeat,
  type MonitoredKind,
  type NewApiKey,
  type NewBlacklistMonitor,
  type NewDevice,
  type NewWebhook,
  type PageRequest,
  type RecordChange,
  type RecordedCheck,
  type ResultsPage,
  type Store,
  type Timestamp,
  type ClaimedBlacklistMonitor,
  type ActiveMaintenance,
  type NewMaintenanceWindow,
  type OwnedMaintenanceWindow,
  type StoredMaintenanceWindow,
  type UpdateResult,
  type User,
  type Webhook,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookChange,
  type ClosedSeriesDays,
  type Incident,
  type IncidentQuery,
  type ListingPeriod,
  type ReportRange,
  type ResponseTimePoint,
  type ResponseTimeQuery,
  type StatusTotals,
} from '../../core/index.ts';
import { deviceStatusTotals } from './reports/timeline-reads.ts';
import { closedSeriesDays, listIncidents, listListingPeriods, listResponseTimes } from './reports/report-reads.ts';
import { deleteReportsBefore, rollUpResults } from './reports/report-upkeep.ts';
import {
  apiKeyFromRow,
  apiKeyToRow,
  deviceFromRow,
  deviceToRow,
  monitorFromRow,
  monitorToRow,
  stampText,
  toId,
  toStamp,
  userFromRow,
  userToRow,
} from './rows.ts';
import { CHANGE_COUNT_SQL } from './change-count.ts';
import { deleteCheckResultsBefore, deleteWithResults, listCheckResults } from './checks/check-results.ts';
import { FreshRead } from './fresh-read.ts';
import { InsertIfAbsent } from './records/insert-if-absent.ts';
import { KyselyWebhooks } from './webhooks/webhook-store.ts';
import { KyselyMaintenance } from './maintenance/maintenance-store.ts';
import { recordBlacklistChecks, recordDeviceChecks } from './checks/record-checks.ts';
import { claimDue, requestCheck, setEnabled } from './checks/schedule.ts';
import { listLocations, recordHeartbeat } from './checks/worker-heartbeats.ts';
import { claimDueLocationChecks } from './checks/location-claims.ts';
import {
  initialLocationStates,
  insertLocationChecks,
  recordLocationCheck,
  replaceLocationChecks,
  requestLocationChecks,
  rescheduleLocationChecks,
  setLocationsEnabled,
} from './checks/location-checks.ts';
import { dialectOf } from './schema.ts';
import type { BlacklistMonitorsTable, Database, DbInteger, DevicesTable, StoreDialect } from './schema.ts';
import { applyChange, type ChangedKind } from './records/apply-change.ts';
import {
  changedColumns,
  fieldColumns,
  pickColumns,
  listOwnedRows,
  readOwnedRow,
  type RowChange,
} from './records/update-record.ts';

/**
 * How often a create retries when its insert hit a duplicate that was deleted before it could be
 * read back. Each retry needs another concurrent delete of the same identity, so a few suffice.
 */
const CREATE_ATTEMPTS = 5;

/** Rows per statement in recordKeyUsage: two parameters each, far below every driver's cap. */
const USAGE_BATCH = 500;

export interface KyselyStoreOptions {
  /** Whether close() destroys the Kysely instance; false when the host owns it. Default true. */
  destroyOnClose?: boolean;
  /**
   * SQLite's `PRAGMA data_version` on the store's one connection (openKyselyStore supplies it).
   * With it the store can say cheaply whether anything changed, so list answers can be reused.
   */
  dataVersion?: () => number;
}

function isMissingTable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // 42P01 is PostgreSQL's undefined_table; SQLite only says it in the message.
  if ('code' in error && error.code === '42P01') return true;
  return error.message.startsWith('no such table');
}

/** A store operation's failure as core should see it: "no such table" as missing_table's error. */
function storeError(error: unknown): unknown {
  return isMissingTable(error) ? new MissingTableError({ cause: error }) : error;
}

/** A store on PostgreSQL or SQLite through Kysely. Duplicates are decided by unique indexes. */
export class KyselyStore implements Store {
  // Reports (report-reads.ts, report-upkeep.ts): the triggers write the timeline, incidents and
  // listing periods; reads and upkeep are here.
  deviceStatusTotals(userId: number, deviceId: number, range: ReportRange): Promise<StatusTotals | undefined> {
    return this.#run((db) => deviceStatusTotals(db, this.#dialect, userId, deviceId, range));
  }
  listResponseTimes(
    userId: number,
    deviceId: number,
    query: ResponseTimeQuery,
  ): Promise<ResponseTimePoint[] | undefined> {
    return this.#run((db) => listResponseTimes(db, userId, deviceId, query));
  }
  closedSeriesDays(userId: number, deviceId: number): Promise<ClosedSeriesDays | undefined> {
    return this.#run((db) => closedSeriesDays(db, this.#dialect, userId, deviceId));
  }
  listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined> {
    return this.#run((db) => listIncidents(db, userId, query));
  }
  listListingPeriods(userId: number, monitorId: number, range: ReportRange): Promise<ListingPeriod[] | undefined> {
    return this.#run((db) => listListingPeriods(db, userId, monitorId, range));
  }
  rollUpResults(before: Timestamp, maxHours: number): Promise<number> {
    return this.#changedReports(this.#run((db) => rollUpResults(db, before, maxHours)));
  }
  deleteReportsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#changedReports(this.#run((db) => deleteReportsBefore(db, this.#dialect, before, limit)));
  }

  readonly #db: Kysely<Database>;
  readonly #dialect: StoreDialect;
  readonly #destroyOnClose: boolean;
  /** Writes to listed records through this store; data_version only counts other connections'. */
  #writes = 0;
  #closing: Promise<void> | undefined;
  readonly #insertDevice: InsertIfAbsent<'devices'>;
  readonly #insertMonitor: InsertIfAbsent<'blacklist_monitors'>;
  readonly #webhooks: KyselyWebhooks;
  readonly #maintenance: KyselyMaintenance;
  /**
   * The change marker, read fresh for each caller (see changeMarker): on PostgreSQL the count the
   * triggers of migration 0005 keep; on SQLite `data_version` with this store's own writes.
   */
  readonly #marker: FreshRead<string | undefined> | undefined;

  constructor(db: Kysely<Database>, dialect: StoreDialect = dialectOf(db), options: KyselyStoreOptions = {}) {
    this.#db = db;
    this.#dialect = dialect;
    this.#destroyOnClose = options.destroyOnClose ?? true;
    this.#insertDevice = new InsertIfAbsent('devices');
    this.#insertMonitor = new InsertIfAbsent('blacklist_monitors');
    this.#webhooks = new KyselyWebhooks(db, dialect);
    this.#maintenance = new KyselyMaintenance(db, dialect);
    const { dataVersion } = options;
    if (dialect === 'postgres') this.#marker = new FreshRead(() => this.#readChangeCount());
    // data_version asks SQLite for a read transaction (two fcntl locks on the -shm file and an
    // fstat): read per request, it was a tenth of a kept list's CPU under load.
    else if (dataVersion !== undefined) this.#marker = new FreshRead(async () => `${dataVersion()}:${this.#writes}`);
  }

  /**
   * One read serves every caller that arrived before it began, and the next read waits for the end
   * of the turn's I/O, so the list requests read from many connections in one turn share it
   * (FreshRead; docs/decisions.md, "List answers, and why they are never stale").
   */
  changeMarker(arrivedAt?: number): Promise<string | undefined> | undefined {
    return this.#marker?.get(arrivedAt);
  }

  /**
   * The number of committed writes to devices, monitors and webhooks, by every writer (see
   * migrations/0005-change-marker.ts). Committed with the write itself, so a count read before the
   * data can only be older than the data, which makes a kept answer miss, never go stale. Without
   * the table (a schema older than 0005) or on any failure, no marker: lists are read afresh and
   * report their own errors.
   */
  async #readChangeCount(): Promise<string | undefined> {
    try {
      const { rows } = await sql.raw<{ marker: string }>(CHANGE_COUNT_SQL).execute(this.#db);
      return rows[0]?.marker;
    } catch {
      return undefined;
    }
  }

  /**
   * Report rows rolled up or deleted by this store, which report answers show: counted as a write
   * when there were any (on PostgreSQL the triggers of migration 0012 count them for every writer).
   */
  async #changedReports(changed: Promise<number>): Promise<number> {
    const count = await changed;
    if (count > 0) this.#writes++;
    return count;
  }

  /** A write to devices or monitors: counted once it is done, before its caller hears of it. */
  #write<T>(operation: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.#run(operation).finally(() => {
      this.#writes++;
    });
  }

  /**
   * Inserts unless the unique index already holds the record, and then names the one it holds. The
   * index decides, so concurrent identical creates make one record; when the holder is deleted
   * between the two statements, the insert is tried again. Counted as a write (#write) and with
   * #run's error translation, in one async frame: every create runs it, and the nested helpers
   * it replaced cost a promise and a closure each.
   */
  async #createUnique<Values, Row, T>(
    what: string,
    toRow: () => Values,
    insert: (values: Values) => Promise<Row | undefined>,
    fromRow: (row: Row) => T,
    findExisting: () => Promise<{ id: DbInteger } | undefined>,
  ): Promise<CreateResult<T>> {
    try {
      // Inside the async frame: a record that cannot become a row rejects, as a Store promises.
      const values = toRow();
      for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        const row = await insert(values);
        if (row !== undefined) return { created: fromRow(row) };
        const existing = await findExisting();
        if (existing) return { duplicateOf: toId(existing.id) };
      }
      throw new Error(`creating a ${what}: the conflicting record kept disappearing; giving up`);
    } catch (error) {
      throw storeError(error);
    } finally {
      this.#writes++;
    }
  }

  /** Runs a store operation, turning "no such table" into the error core answers as missing_table. */
  async #run<T>(operation: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    try {
      return await operation(this.#db);
    } catch (error) {
      throw storeError(error);
    }
  }

  createUser(user: Omit<User, 'id'>): Promise<User> {
    return this.#run(async (db) => {
      const row = await db.insertInto('users').values(userToRow(user)).returningAll().executeTakeFirstOrThrow();
      return userFromRow(row);
    });
  }

  getUser(id: number): Promise<User | undefined> {
    return this.#run(async (db) => {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && userFromRow(row);
    });
  }

  createApiKey(key: NewApiKey): Promise<ApiKey> {
    return this.#run(async (db) => {
      const row = await db.insertInto('api_keys').values(apiKeyToRow(key)).returningAll().executeTakeFirstOrThrow();
      return apiKeyFromRow(row);
    });
  }

  findApiKeyByHash(tokenHash: string): Promise<ApiKey | undefined> {
    return this.#run(async (db) => {
      const row = await db.selectFrom('api_keys').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && apiKeyFromRow(row);
    });
  }

  getApiKey(id: number): Promise<ApiKey | undefined> {
    return this.#run(async (db) => {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
      return row && apiKeyFromRow(row);
    });
  }

  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.#run(async (db) => {
      const rows = await db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
      return rows.map(apiKeyFromRow);
    });
  }

  revokeApiKey(id: number, at: Timestamp): Promise<boolean> {
    return this.#run(async (db) => {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: stampText(at) })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  recordKeyUsage(usage: ReadonlyMap<number, Timestamp>): Promise<void> {
    return this.#run(async (db) => {
      const entries = [...usage];
      for (let start = 0; start < entries.length; start += USAGE_BATCH) {
        const batch = entries.slice(start, start + USAGE_BATCH);
        // One statement per batch; the condition keeps last_used_at from moving backwards when
        // two instances flush out of order.
        await sql`
          with key_usage (key_id, used_at) as (${this.#usageRows(batch)})
          update api_keys set last_used_at = key_usage.used_at
          from key_usage
          where api_keys.id = key_usage.key_id
            and (api_keys.last_used_at is null or api_keys.last_used_at < key_usage.used_at)
        `.execute(db);
      }
    });
  }

  #usageRows(batch: [number, Timestamp][]): RawBuilder<unknown> {
    // On PostgreSQL two array parameters, so the statement reads the same for any batch size and
    // is prepared once (a VALUES list would be a new statement for every size).
    if (this.#dialect === 'postgres') {
      return sql`select * from unnest(cast(${batch.map(([id]) => id)} as bigint[]), cast(${batch.map(([, at]) => stampText(at))} as timestamptz[]))`;
    }
    // SQLite has no arrays; it needs no casts either, and its CAST to an unknown type name would
    // mangle the text.
    return sql`values ${sql.join(batch.map(([id, at]) => sql`(${id}, ${stampText(at)})`))}`;
  }

  createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    const db = this.#db;
    return this.#createUnique(
      'device',
      () => deviceToRow(this.#dialect, userId, device),
      (values) =>
        device.check_locations === null
          ? this.#insertDevice.run(db, values)
          : // With its locations' schedules, in one transaction: a device is never left unscheduled.
            db.transaction().execute(async (trx) => {
              const locations = await initialLocationStates(trx, this.#dialect, device.check_locations!);
              const row = await trx
                .insertInto('devices')
                .values({ ...values, location_states: locations })
                .onConflict((oc) => oc.doNothing())
                .returningAll()
                .executeTakeFirst();
              if (row !== undefined) await insertLocationChecks(trx, this.#dialect, toId(row.id), device);
              return row;
            }),
      deviceFromRow,
      () => this.#findDevice(userId, device),
    );
  }

  /** The device of the user that the unique index says `device` would duplicate. */
  #findDevice(userId: number, device: NewDevice): Promise<{ id: DbInteger } | undefined> {
    return (
      this.#db
        .selectFrom('devices')
        .select('id')
        .where('user_id', '=', userId)
        .where('target_type', '=', device.target_type)
        .where('target_value', '=', device.target_value)
        .where('service_type', '=', device.service_type)
        .where('port', '=', device.port)
        // The same expression as the unique index, so the index answers it.
        .where(sql<string>`coalesce(scheme, '')`, '=', device.scheme ?? '')
        .executeTakeFirst()
    );
  }

  #findMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<{ id: DbInteger } | undefined> {
    return this.#db
      .selectFrom('blacklist_monitors')
      .select('id')
      .where('user_id', '=', userId)
      .where('target_type', '=', monitor.target_type)
      .where('target_value', '=', monitor.target_value)
      .executeTakeFirst();
  }

  getDevice(userId: number, id: number): Promise<Device | undefined> {
    return this.#run(async (db) => {
      const row = await readOwnedRow<Selectable<DevicesTable>>(db, this.#dialect, 'devices', userId, id);
      return row && deviceFromRow(row);
    });
  }

  updateDevice(userId: number, id: number, change: RecordChange<Device, NewDevice>): Promise<UpdateResult<Device>> {
    return this.#update('devices', userId, id, change, deviceFromRow, (to) => this.#findDevice(userId, to));
  }

  /**
   * What a device's change does to its per-location schedules, in the change's transaction: a new
   * `check_locations` or quorum replaces the pairs (replaceLocationChecks), a pause stops them, a
   * resume or a restart makes each due at once without its lease (so a check in flight under the
   * old settings is never written) and, for a restart, without what it found before; a new interval
   * brings each to at most one interval after the last check. Undefined for a device of any one
   * location before and after.
   */
  #followLocations(
    id: number,
    change: RecordChange<Device, NewDevice>,
  ): ((trx: Kysely<Database>) => Promise<void>) | undefined {
    const before = change.from.check_locations;
    const after = change.to.check_locations ?? null;
    const has = (locations: readonly string[] | null | undefined) => locations !== null && locations !== undefined;
    if (!has(before) && !has(after)) return undefined;
    const moved =
      JSON.stringify(before) !== JSON.stringify(after) ||
      change.from.quorum !== (change.to.quorum ?? change.from.quorum);
    const { effect, at } = change;
    const last = change.from.last_checked_at;
    const dialect = this.#dialect;
    return async (trx) => {
      if (moved) {
        await replaceLocationChecks(trx, dialect, id, after, at);
        // The record's locations start afresh from its new list, and say nothing without one.
        const states = after === null ? null : await initialLocationStates(trx, dialect, after);
        await trx
          .updateTable('devices')
          .set({ location_states: states, quorum_state: null })
          .where('id', '=', id)
          .execute();
      }
      if (after === null) return;
      if (effect === 'pause') await setLocationsEnabled(trx, id, false, at);
      else if (effect === 'restart') {
        await setLocationsEnabled(trx, id, false, at);
        await setLocationsEnabled(trx, id, true, at);
      } else if (effect === 'resume') await setLocationsEnabled(trx, id, true, at);
      else if (effect === 'reschedule' && last !== null) {
        const latest = new Date(Date.parse(last) + change.to.check_interval_s * 1000).toISOString();
        await rescheduleLocationChecks(trx, id, latest);
      }
    };
  }

  getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined> {
    return this.#run(async (db) => {
      const row = await readOwnedRow<Selectable<BlacklistMonitorsTable>>(
        db,
        this.#dialect,
        'blacklist_monitors',
        userId,
        id,
      );
      return row && monitorFromRow(row);
    });
  }

  updateBlacklistMonitor(
    userId: number,
    id: number,
    change: RecordChange<BlacklistMonitor, NewBlacklistMonitor>,
  ): Promise<UpdateResult<BlacklistMonitor>> {
    return this.#update('blacklist_monitors', userId, id, change, monitorFromRow, (to) =>
      this.#findMonitor(userId, to),
    );
  }

  /**
   * A change (apply-change.ts): the create's fields from `to`, the engine's columns per its
   * effect, a device's location schedules and the events, in one statement or transaction.
   */
  async #update<T extends Device | BlacklistMonitor, New extends NewDevice | NewBlacklistMonitor, Row>(
    table: 'devices' | 'blacklist_monitors',
    userId: number,
    id: number,
    change: RecordChange<T, New>,
    fromRow: (row: Row) => T,
    findDuplicate: (to: New) => Promise<{ id: DbInteger } | undefined>,
  ): Promise<UpdateResult<T>> {
    try {
      const kind: ChangedKind<T, New, Row, T> = {
        rowChange: (c, locked) => this.#rowChange(table, userId, id, c, locked),
        judged: fromRow,
        answered: fromRow,
        findDuplicate,
      };
      return await applyChange(this.#db, this.#dialect, kind, change);
    } catch (error) {
      throw storeError(error);
    } finally {
      this.#writes++;
    }
  }

  /**
   * A device's or monitor's change as SQL: the fields that change, compared (unless `locked`)
   * with what they held when the change was judged, and for a pause, resume or restart of a
   * device its status too, since the change moves it.
   */
  #rowChange<T extends Device | BlacklistMonitor, New extends NewDevice | NewBlacklistMonitor>(
    table: 'devices' | 'blacklist_monitors',
    userId: number,
    id: number,
    change: RecordChange<T, New>,
    locked: boolean,
  ): RowChange {
    const before = fieldColumns(this.#dialect, change.from, change.fields);
    const after = fieldColumns(this.#dialect, change.to, change.fields);
    const judged = pickColumns(
      before,
      change.fields.filter((name) => Object.hasOwn(change.from, name)),
    );
    const expect = locked ? {} : { ...judged };
    const movesStatus = change.effect === 'pause' || change.effect === 'resume' || change.effect === 'restart';
    if (!locked && table === 'devices' && movesStatus) expect.status = (change.from as Device).status;
    const last = change.from.last_checked_at;
    const latest =
      last === null ? undefined : new Date(Date.parse(last) + change.to.check_interval_s * 1000).toISOString();
    const follow =
      table === 'devices' ? this.#followLocations(id, change as RecordChange<Device, NewDevice>) : undefined;
    return {
      table,
      userId,
      id,
      set: changedColumns(before, after, change.fields, judged),
      expect,
      effect: change.effect,
      at: change.at,
      ...(latest === undefined ? {} : { latest }),
      events: change.events,
      kind: table === 'devices' ? 'device' : 'blacklist_monitor',
      ...(follow === undefined ? {} : { follow }),
    };
  }

  listDevices(userId: number, page: PageRequest): Promise<Device[]> {
    return this.#run(async (db) =>
      (await listOwnedRows<Selectable<DevicesTable>>(db, this.#dialect, 'devices', userId, page)).map(deviceFromRow),
    );
  }

  deleteDevice(userId: number, id: number): Promise<boolean> {
    return this.#write((db) => deleteWithResults(db, 'device', userId, id));
  }

  createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>> {
    const db = this.#db;
    return this.#createUnique(
      'blacklist monitor',
      () => monitorToRow(this.#dialect, userId, monitor),
      (values) => this.#insertMonitor.run(db, values),
      monitorFromRow,
      () => this.#findMonitor(userId, monitor),
    );
  }

  listBlacklistMonitors(userId: number, page: PageRequest): Promise<BlacklistMonitor[]> {
    return this.#run(async (db) =>
      (
        await listOwnedRows<Selectable<BlacklistMonitorsTable>>(db, this.#dialect, 'blacklist_monitors', userId, page)
      ).map(monitorFromRow),
    );
  }

  deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    return this.#write((db) => deleteWithResults(db, 'blacklist_monitor', userId, id));
  }

  // A request moves next_check_at, which no list shows; the marker moves anyway (the trigger
  // names the column), which costs a list a fresh read, not a stale answer.
  requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: Timestamp,
    minGapMs: number,
  ): Promise<CheckRequestResult> {
    return this.#write(async (db) => {
      // A device checked per location is due at each of its locations, its own row at none.
      const found =
        kind === 'device'
          ? await db.transaction().execute(async (trx) => {
              const asked = await requestCheck(trx, this.#dialect, 'devices', userId, id, at, minGapMs);
              if (asked.outcome === 'due' && asked.row.check_locations !== null) {
                await requestLocationChecks(trx, id, at);
              }
              return asked;
            })
          : await requestCheck(db, this.#dialect, 'blacklist_monitors', userId, id, at, minGapMs);
      if (found.outcome !== 'due') return found;
      return {
        outcome: 'due',
        record:
          kind === 'device'
            ? deviceFromRow(found.row as Selectable<DevicesTable>)
            : monitorFromRow(found.row as Selectable<BlacklistMonitorsTable>),
      };
    });
  }

  listCheckResults(
    userId: number,
    kind: MonitoredKind,
    id: number,
    page: ResultsPage,
  ): Promise<CheckResult[] | undefined> {
    return this.#run((db) => listCheckResults(db, userId, kind, id, page));
  }

  // Claims change only leases, which no list shows, so they are not counted as writes.
  claimDueDevices(claim: ClaimRequest): Promise<ClaimedDevice[]> {
    return this.#run(async (db) =>
      (await claimDue(db, this.#dialect, 'devices', claim)).map(({ row, lease, due_at }) => ({
        record: deviceFromRow(row),
        lease,
        due_at,
        consecutive_failures: row.consecutive_failures,
      })),
    );
  }

  claimDueBlacklistMonitors(claim: ClaimRequest): Promise<ClaimedBlacklistMonitor[]> {
    return this.#run(async (db) =>
      (await claimDue(db, this.#dialect, 'blacklist_monitors', claim)).map(({ row, lease, due_at }) => ({
        record: monitorFromRow(row),
        lease,
        due_at,
        // Only when a window has a part in the check, so a claim outside one reads as before.
        ...(row.maintenance_since == null ? {} : { maintenance_since: toStamp(row.maintenance_since) }),
        ...(row.announced_listed_on == null
          ? {}
          : { announced_listed_on: JSON.parse(row.announced_listed_on) as string[] }),
      })),
    );
  }

  recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]> {
    return this.#write((db) => recordDeviceChecks(db, this.#dialect, checks));
  }

  recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]> {
    return this.#write((db) => recordBlacklistChecks(db, this.#dialect, checks));
  }

  setEnabled(kind: MonitoredKind, id: number, enabled: boolean, at: Timestamp): Promise<boolean> {
    return this.#write(async (db) => {
      const found = await setEnabled(db, this.#dialect, kind, id, enabled, at);
      if (found && kind === 'device') await setLocationsEnabled(db, id, enabled, at);
      return found;
    });
  }

  /** Counted as a write when rows went: a response-time series shows raw results in the hours its range cuts. */
  deleteCheckResultsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#changedReports(this.#run((db) => deleteCheckResultsBefore(db, this.#dialect, before, limit)));
  }

  // Heartbeats and locations (worker-heartbeats.ts): no answer a list shows, so no write counted.
  claimDueLocationChecks(claim: LocationClaimRequest): Promise<ClaimedLocationCheck[]> {
    return this.#run((db) => claimDueLocationChecks(db, this.#dialect, claim));
  }

  recordLocationCheck(check: RecordedCheck<LocationCheckOutcome>, decide: LocationDecider): Promise<boolean> {
    return this.#write((db) => recordLocationCheck(db, this.#dialect, check, decide));
  }

  recordHeartbeat(heartbeat: WorkerHeartbeat): Promise<void> {
    return this.#run((db) => recordHeartbeat(db, this.#dialect, heartbeat));
  }

  listLocations(): Promise<LocationSummary[]> {
    return this.#run((db) => listLocations(db, this.#dialect));
  }

  // Webhooks (webhooks/webhook-store.ts). Whatever a webhook list shows counts as a write, so a cached
  // list answer is not reused after it (see changeMarker).
  createWebhook(userId: number, webhook: NewWebhook): Promise<CreateResult<CreatedWebhook>> {
    return this.#write(() => this.#webhooks.createWebhook(userId, webhook));
  }
  listWebhooks(userId: number, page: PageRequest): Promise<Webhook[]> {
    return this.#run(() => this.#webhooks.listWebhooks(userId, page));
  }
  getWebhook(userId: number, id: number): Promise<Webhook | undefined> {
    return this.#run(() => this.#webhooks.getWebhook(userId, id));
  }
  updateWebhook(
    userId: number,
    id: number,
    change: RecordChange<Webhook, WebhookChange>,
  ): Promise<UpdateResult<CreatedWebhook>> {
    return this.#write(() => this.#webhooks.updateWebhook(userId, id, change));
  }
  deleteWebhook(userId: number, id: number): Promise<boolean> {
    return this.#write(() => this.#webhooks.deleteWebhook(userId, id));
  }
  listWebhookAttempts(userId: number, id: number, page: ResultsPage): Promise<WebhookAttempt[] | undefined> {
    return this.#run(() => this.#webhooks.listWebhookAttempts(userId, id, page));
  }
  // No list answer is kept for attempts (they are read fresh), so expiring them counts no write.
  deleteWebhookAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#run(() => this.#webhooks.deleteWebhookAttemptsBefore(before, limit));
  }
  webhookWithSecret(userId: number, id: number): Promise<WebhookEndpoint | undefined> {
    return this.#run(() => this.#webhooks.webhookWithSecret(userId, id));
  }
  fanOutEvents(now: Timestamp, limit: number): Promise<number> {
    return this.#run(() => this.#webhooks.fanOutEvents(now, limit));
  }
  claimDeliveries(claim: DeliveryClaimRequest): Promise<ClaimedDelivery[]> {
    return this.#run(() => this.#webhooks.claimDeliveries(claim));
  }
  recordDeliveryAttempt(lease: DeliveryLease, outcome: DeliveryOutcome): Promise<boolean> {
    return this.#write(() => this.#webhooks.recordDeliveryAttempt(lease, outcome));
  }

  // Maintenance windows (maintenance/maintenance-store.ts). Windows are never in a cached list; the flips
  // change devices, so they count as writes.
  createMaintenanceWindow(userId: number, window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow> {
    return this.#run(() => this.#maintenance.createMaintenanceWindow(userId, window));
  }
  listMaintenanceWindows(userId: number, page: PageRequest): Promise<StoredMaintenanceWindow[]> {
    return this.#run(() => this.#maintenance.listMaintenanceWindows(userId, page));
  }
  getMaintenanceWindow(userId: number, id: number): Promise<StoredMaintenanceWindow | undefined> {
    return this.#run(() => this.#maintenance.getMaintenanceWindow(userId, id));
  }
  updateMaintenanceWindow(
    userId: number,
    id: number,
    change: RecordChange<StoredMaintenanceWindow, NewMaintenanceWindow>,
  ): Promise<UpdateResult<StoredMaintenanceWindow>> {
    return this.#run(() => this.#maintenance.updateMaintenanceWindow(userId, id, change));
  }
  deleteMaintenanceWindow(userId: number, id: number): Promise<boolean> {
    return this.#run(() => this.#maintenance.deleteMaintenanceWindow(userId, id));
  }
  ownedIds(userId: number, kind: MonitoredKind, ids: readonly number[]): Promise<number[]> {
    return this.#run(() => this.#maintenance.ownedIds(userId, kind, ids));
  }
  allMaintenanceWindows(): Promise<OwnedMaintenanceWindow[]> {
    return this.#run(() => this.#maintenance.allMaintenanceWindows());
  }
  syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    return this.#write(() => this.#maintenance.syncMaintenance(active, at));
  }

  close(): Promise<void> {
    this.#closing ??= this.#destroyOnClose ? this.#db.destroy() : Promise.resolve();
    return this.#closing;
  }
}
