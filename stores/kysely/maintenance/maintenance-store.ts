import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type {
  ActiveMaintenance,
  MaintenanceRepeat,
  MaintenanceStore,
  MonitoredKind,
  NewMaintenanceWindow,
  NewMonitoringEvent,
  OwnedMaintenanceWindow,
  PageRequest,
  RecordChange,
  StoredMaintenanceWindow,
  Timestamp,
  UpdateResult,
} from '../../../core/index.ts';
import { eventValues } from '../checks/result-rows.ts';
import {
  deviceFromRow,
  flagFor,
  nullableStampText,
  stampText,
  toFlag,
  toId,
  toNullableStamp,
  toStamp,
} from '../rows.ts';
import { TABLE_OF } from '../checks/schedule.ts';
import type { Database, DevicesTable, MaintenanceWindowsTable, StoreDialect } from '../schema.ts';
import { applyChange } from '../records/apply-change.ts';
import { listOwnedRows, pickColumns, readOwnedRow } from '../records/update-record.ts';
import { setLocationsEnabled } from '../checks/location-checks.ts';

function parseIds(text: string): number[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((x) => Number.isSafeInteger(x))) {
    throw new Error('a maintenance window holds ids that are not integers');
  }
  return value as number[];
}

function windowFromRow(row: Selectable<MaintenanceWindowsTable>): OwnedMaintenanceWindow {
  return {
    id: toId(row.id),
    user_id: toId(row.user_id),
    name: row.name,
    starts_at: toNullableStamp(row.starts_at),
    ends_at: toNullableStamp(row.ends_at),
    repeat: row.repeat === null ? null : (JSON.parse(row.repeat) as MaintenanceRepeat),
    device_ids: parseIds(row.device_ids),
    all_devices: toFlag(row.all_devices),
    blacklist_monitor_ids: parseIds(row.blacklist_monitor_ids),
    all_blacklist_monitors: toFlag(row.all_blacklist_monitors),
    heartbeat_ids: parseIds(row.heartbeat_ids),
    all_heartbeats: toFlag(row.all_heartbeats),
    created_at: toStamp(row.created_at),
  };
}

function withoutOwner({ user_id: _owner, ...window }: OwnedMaintenanceWindow): StoredMaintenanceWindow {
  return window;
}

/** Rows of devices per statement when asking which ids a user owns. */
const ID_BATCH = 500;

/** The maintenance part of `KyselyStore` (docs/engine.md, "Maintenance windows"), on both databases. */
export class KyselyMaintenance implements MaintenanceStore {
  private readonly db: Kysely<Database>;
  private readonly dialect: StoreDialect;
  constructor(db: Kysely<Database>, dialect: StoreDialect) {
    this.db = db;
    this.dialect = dialect;
  }

  #row(window: NewMaintenanceWindow | StoredMaintenanceWindow) {
    return {
      name: window.name,
      starts_at: nullableStampText(window.starts_at),
      ends_at: nullableStampText(window.ends_at),
      repeat: window.repeat === null ? null : JSON.stringify(window.repeat),
      device_ids: JSON.stringify(window.device_ids),
      all_devices: flagFor(this.dialect, window.all_devices),
      blacklist_monitor_ids: JSON.stringify(window.blacklist_monitor_ids),
      all_blacklist_monitors: flagFor(this.dialect, window.all_blacklist_monitors),
      heartbeat_ids: JSON.stringify(window.heartbeat_ids),
      all_heartbeats: flagFor(this.dialect, window.all_heartbeats),
    };
  }

  async createMaintenanceWindow(userId: number, window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow> {
    const row = await this.db
      .insertInto('maintenance_windows')
      .values({ ...this.#row(window), user_id: userId, created_at: stampText(window.created_at) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return withoutOwner(windowFromRow(row));
  }

  async listMaintenanceWindows(userId: number, page: PageRequest): Promise<StoredMaintenanceWindow[]> {
    const rows = await listOwnedRows<Selectable<MaintenanceWindowsTable>>(
      this.db,
      this.dialect,
      'maintenance_windows',
      userId,
      page,
    );
    return rows.map((row) => withoutOwner(windowFromRow(row)));
  }

  async getMaintenanceWindow(userId: number, id: number): Promise<StoredMaintenanceWindow | undefined> {
    const row = await readOwnedRow<Selectable<MaintenanceWindowsTable>>(
      this.db,
      this.dialect,
      'maintenance_windows',
      userId,
      id,
    );
    return row && withoutOwner(windowFromRow(row));
  }

  /** A change as for devices (records/apply-change.ts); windows have no duplicates. */
  async updateMaintenanceWindow(
    userId: number,
    id: number,
    change: RecordChange<StoredMaintenanceWindow, NewMaintenanceWindow>,
  ): Promise<UpdateResult<StoredMaintenanceWindow>> {
    const shown = (row: Selectable<MaintenanceWindowsTable>) => withoutOwner(windowFromRow(row));
    return applyChange(
      this.db,
      this.dialect,
      {
        rowChange: (c: RecordChange<StoredMaintenanceWindow, NewMaintenanceWindow>) => ({
          table: 'maintenance_windows',
          userId,
          id,
          effect: 'none',
          at: c.at,
          events: [],
          set: pickColumns(this.#row(c.to), c.fields),
          expect: pickColumns(this.#row(c.from), c.fields),
        }),
        judged: shown,
        answered: shown,
      },
      change,
    );
  }

  async deleteMaintenanceWindow(userId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('maintenance_windows')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async ownedIds(userId: number, kind: MonitoredKind, ids: readonly number[]): Promise<number[]> {
    const owned: number[] = [];
    for (let start = 0; start < ids.length; start += ID_BATCH) {
      const rows = await this.db
        .selectFrom(TABLE_OF[kind])
        .select('id')
        .where('user_id', '=', userId)
        .where('id', 'in', ids.slice(start, start + ID_BATCH))
        .execute();
      owned.push(...rows.map((row) => toId(row.id)));
    }
    return owned;
  }

  async allMaintenanceWindows(): Promise<OwnedMaintenanceWindow[]> {
    return (await this.db.selectFrom('maintenance_windows').selectAll().orderBy('id').execute()).map(windowFromRow);
  }

  /**
   * The flips of docs/engine.md, "Maintenance windows": the candidates are read (the users with a
   * window in force; the devices in maintenance, by a partial index), then each flip is a
   * conditional UPDATE on the status and announced occurrence read, with its event, in id order
   * inside one transaction: two workers flipping at once lock rows in the same order, and the
   * second finds the row moved and writes nothing. A device entering the occurrence it was
   * already announced for (it left it by a pause or an edit) enters silently.
   */
  async syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    const covering = (userId: number, id: number) =>
      active.filter((a) => a.user_id === userId && (a.device_ids === null || a.device_ids.includes(id)));
    type Candidate = Pick<Selectable<DevicesTable>, 'id' | 'user_id' | 'status' | 'maintenance_announced'>;
    // The devices each window in force covers that are not in maintenance yet: one query per
    // window, narrowed to its ids when it names them.
    const enter = new Map<number, Candidate>();
    const columns = ['id', 'user_id', 'status', 'maintenance_announced'] as const;
    for (const window of active) {
      if (window.device_ids !== null && window.device_ids.length === 0) continue;
      let query = this.db
        .selectFrom('devices')
        .select(columns)
        .where('user_id', '=', window.user_id)
        .where('is_enabled', '=', flagFor(this.dialect, true))
        .where('status', '<>', 'maintenance');
      if (window.device_ids !== null) query = query.where('id', 'in', [...window.device_ids]);
      for (const row of await query.execute()) enter.set(toId(row.id), row);
    }
    const inside = await this.db
      .selectFrom('devices')
      .select(columns)
      .where('status', '=', 'maintenance')
      .orderBy('id')
      .execute();
    interface Flip {
      id: number;
      from: string;
      to: 'maintenance' | 'pending';
      since: string;
      /** The announced occurrence read, and the one written. */
      announcedFrom: string | null;
      announcedTo: string | null;
      announce: boolean;
    }
    const flips: Flip[] = [];
    for (const row of enter.values()) {
      const windows = covering(toId(row.user_id), toId(row.id));
      if (windows.length === 0) continue;
      const since = windows.map((w) => stampText(w.started_at)).sort()[0]!;
      const announcedFrom = nullableStampText(toNullableStamp(row.maintenance_announced));
      flips.push({
        id: toId(row.id),
        from: row.status,
        to: 'maintenance',
        since,
        announcedFrom,
        announcedTo: since,
        announce: announcedFrom !== since,
      });
    }
    for (const row of inside) {
      if (covering(toId(row.user_id), toId(row.id)).length > 0) continue;
      const announcedFrom = nullableStampText(toNullableStamp(row.maintenance_announced));
      flips.push({
        id: toId(row.id),
        from: row.status,
        to: 'pending',
        since: stampText(at),
        announcedFrom,
        announcedTo: null,
        announce: true,
      });
    }
    const monitors = await this.#syncMonitors(active, at);
    if (flips.length === 0) return monitors;
    flips.sort((a, b) => a.id - b.id);
    return this.db.transaction().execute(async (trx) => {
      let moved = 0;
      for (const flip of flips) {
        const ended = flip.to === 'pending';
        const schedule = ended
          ? {
              next_check_at: stampText(at),
              lease_owner: null,
              lease_token: null,
              lease_expires_at: null,
              consecutive_failures: 0,
            }
          : { consecutive_failures: 0 };
        const row = await trx
          .updateTable('devices')
          .set({ status: flip.to, status_since: flip.since, maintenance_announced: flip.announcedTo, ...schedule })
          .where('id', '=', flip.id)
          .where('status', '=', flip.from as Selectable<DevicesTable>['status'])
          .where((eb) =>
            flip.announcedFrom === null
              ? eb('maintenance_announced', 'is', null)
              : eb('maintenance_announced', '=', flip.announcedFrom),
          )
          .returningAll()
          .executeTakeFirst();
        if (row === undefined) continue;
        // A device checked per location is due again at each of its locations, not as a device of one.
        if (ended && row.check_locations !== null) await setLocationsEnabled(trx, flip.id, true, at);
        moved++;
        if (!flip.announce) continue;
        const event: NewMonitoringEvent = {
          type: ended ? 'device.maintenance_ended' : 'device.maintenance_started',
          created_at: at,
          data: { ...deviceFromRow(row), previous_status: flip.from, status: flip.to },
        };
        await trx
          .insertInto('events')
          .values({
            ...eventValues(event),
            user_id: toId(row.user_id),
            resource_kind: 'device',
            resource_id: flip.id,
          })
          .execute();
      }
      return moved + monitors;
    });
  }

  /**
   * Blacklist monitors: no status and no events, only `maintenance_since` (which fences a check
   * in flight across a window's start or end) and the listings announced before the window.
   */
  async #syncMonitors(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    let moved = 0;
    for (const window of active) {
      if (window.blacklist_monitor_ids !== null && window.blacklist_monitor_ids.length === 0) continue;
      let entering = this.db
        .updateTable('blacklist_monitors')
        .set({
          maintenance_since: stampText(window.started_at),
          announced_listed_on: sql<string>`coalesce(announced_listed_on, listed_on)`,
        })
        .where('user_id', '=', window.user_id)
        .where('is_enabled', '=', flagFor(this.dialect, true))
        .where('maintenance_since', 'is', null);
      const ids = window.blacklist_monitor_ids;
      if (ids !== null) entering = entering.where('id', 'in', [...ids]);
      moved += Number((await entering.executeTakeFirst()).numUpdatedRows);
    }
    const inside = await this.db
      .selectFrom('blacklist_monitors')
      .select(['id', 'user_id'])
      .where('maintenance_since', 'is not', null)
      .execute();
    const covers = (a: ActiveMaintenance, userId: number, id: number) =>
      a.user_id === userId && (a.blacklist_monitor_ids === null || a.blacklist_monitor_ids.includes(id));
    const leaving = inside
      .map((row) => ({ id: toId(row.id), userId: toId(row.user_id) }))
      .filter(({ id, userId }) => !active.some((a) => covers(a, userId, id)))
      .map(({ id }) => id);
    for (let start = 0; start < leaving.length; start += ID_BATCH) {
      const batch = leaving.slice(start, start + ID_BATCH);
      const left = await this.db
        .updateTable('blacklist_monitors')
        .set({
          maintenance_since: null,
          next_check_at: stampText(at),
          lease_owner: null,
          lease_token: null,
          lease_expires_at: null,
        })
        .where('id', 'in', batch)
        .where('maintenance_since', 'is not', null)
        .where('is_enabled', '=', flagFor(this.dialect, true))
        .executeTakeFirst();
      moved += Number(left.numUpdatedRows);
      // A paused monitor leaves maintenance without becoming due.
      await this.db
        .updateTable('blacklist_monitors')
        .set({ maintenance_since: null })
        .where('id', 'in', batch)
        .where('is_enabled', '=', flagFor(this.dialect, false))
        .execute();
    }
    return moved;
  }
}
