import { sql, type Kysely, type Selectable } from 'kysely';
import type { CreateResult, Device, NewDevice, PageRequest, RecordChange, UpdateResult } from '../../../core/index.ts';
import { deleteWithResults } from '../checks/check-results.ts';
import {
  initialLocationStates,
  insertLocationChecks,
  replaceLocationChecks,
  rescheduleLocationChecks,
  setLocationsEnabled,
} from '../checks/location-checks.ts';
import { deviceFromRow, deviceToRow, toId } from '../rows.ts';
import type { Database, DbInteger, DevicesTable } from '../schema.ts';
import type { StoreContext } from '../store-context.ts';
import { InsertIfAbsent } from './insert-if-absent.ts';
import { updateMonitored } from './monitored-change.ts';
import { listOwnedRows, readOwnedRow } from './update-record.ts';

/**
 * Devices: create, read, change, list and delete, each change counted as a write. A device checked
 * per location carries its location schedules along in the same transaction.
 */
export class DeviceRecords {
  readonly #ctx: StoreContext;
  readonly #insert = new InsertIfAbsent('devices');

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    const { db, dialect } = this.#ctx;
    return this.#ctx.createUnique(
      'device',
      () => deviceToRow(dialect, userId, device),
      (values) =>
        device.check_locations === null
          ? this.#insert.run(db, values)
          : // With its locations' schedules, in one transaction: a device is never left unscheduled.
            db.transaction().execute(async (trx) => {
              const locations = await initialLocationStates(trx, dialect, device.check_locations!);
              const row = await trx
                .insertInto('devices')
                .values({ ...values, location_states: locations })
                .onConflict((oc) => oc.doNothing())
                .returningAll()
                .executeTakeFirst();
              if (row !== undefined) await insertLocationChecks(trx, dialect, toId(row.id), device);
              return row;
            }),
      deviceFromRow,
      () => this.#find(userId, device),
    );
  }

  /** The device of the user that the unique index says `device` would duplicate. */
  #find(userId: number, device: NewDevice): Promise<{ id: DbInteger } | undefined> {
    return (
      this.#ctx.db
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

  getDevice(userId: number, id: number): Promise<Device | undefined> {
    return this.#ctx.run(async (db) => {
      const row = await readOwnedRow<Selectable<DevicesTable>>(db, this.#ctx.dialect, 'devices', userId, id);
      return row && deviceFromRow(row);
    });
  }

  updateDevice(userId: number, id: number, change: RecordChange<Device, NewDevice>): Promise<UpdateResult<Device>> {
    return updateMonitored(
      this.#ctx,
      {
        table: 'devices',
        fromRow: deviceFromRow,
        findDuplicate: (to) => this.#find(userId, to),
        follow: (c) => this.#followLocations(id, c),
      },
      userId,
      id,
      change,
    );
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
    const dialect = this.#ctx.dialect;
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

  listDevices(userId: number, page: PageRequest): Promise<Device[]> {
    return this.#ctx.run(async (db) =>
      (await listOwnedRows<Selectable<DevicesTable>>(db, this.#ctx.dialect, 'devices', userId, page)).map(
        deviceFromRow,
      ),
    );
  }

  deleteDevice(userId: number, id: number): Promise<boolean> {
    return this.#ctx.write((db) => deleteWithResults(db, 'device', userId, id));
  }
}
