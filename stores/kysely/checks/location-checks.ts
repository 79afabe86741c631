import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import {
  LIVE_HEARTBEAT_MS,
  type Device,
  type LocationCheckOutcome,
  type LocationDecider,
  type NewDevice,
  type RecordedCheck,
  type StoredLocation,
  type Timestamp,
} from '../../../core/internal.ts';
import { nextCheckId } from './check-results.ts';
import { resultValues } from './result-rows.ts';
import { deviceFromRow, flagFor, nullableStampText, stampText, toFlag, toId, toNullableStamp } from '../rows.ts';
import type { Database, DbTimestamp, DevicesTable, StoreDialect } from '../schema.ts';
import { sqlOf } from '../drivers/sql-of.ts';

// The (device, location) pairs of devices with `check_locations` (docs/engine.md, "Locations"):
// one schedule and lease per pair in `device_location_checks`, claimed by location
// (location-claims.ts), and the
// quorum decision written in the transaction that writes a location's result, with the device
// row locked (FOR UPDATE on PostgreSQL; on SQLite the transaction holds the database's one write
// lock from its start). Devices without `check_locations` never touch this table.

/** The schedule rows of a device just created with `check_locations`: due at once when enabled. */
export async function insertLocationChecks(
  trx: Kysely<Database>,
  dialect: StoreDialect,
  id: number,
  device: Pick<NewDevice, 'check_locations' | 'is_enabled' | 'created_at'>,
) {
  if (device.check_locations === null) return;
  await trx
    .insertInto('device_location_checks')
    .values(
      device.check_locations.map((location) => ({
        device_id: id,
        location,
        next_check_at: device.is_enabled ? stampText(device.created_at) : null,
        lease_owner: null,
        lease_token: null,
        lease_expires_at: null,
        last_ok: null,
        last_checked_at: null,
        response_ms: null,
        error: null,
        failing_since: null,
        announced: flagFor(dialect, false),
        failures: 0,
      })),
    )
    .execute();
}

/** Enabling makes every location of the device due at `at`; disabling unschedules them and drops their leases. */
export async function setLocationsEnabled(db: Kysely<Database>, id: number, enabled: boolean, at: Timestamp) {
  await db
    .updateTable('device_location_checks')
    .set({
      next_check_at: enabled ? stampText(at) : null,
      lease_owner: null,
      lease_token: null,
      lease_expires_at: null,
      ...(enabled ? {} : { failing_since: null, failures: 0, last_ok: null, last_checked_at: null }),
    })
    .where('device_id', '=', id)
    .execute();
  // The device row of such a device has no schedule of its own, enabled or not.
  if (enabled) {
    await db
      .updateTable('devices')
      .set({ next_check_at: null })
      .where('id', '=', id)
      .where('check_locations', 'is not', null)
      .execute();
  }
}

/**
 * A new device's `locations` as the record shows them: `unknown` where a worker is live, `stale`
 * where none is (a location may be named before its first worker starts).
 */
export async function initialLocationStates(
  db: Kysely<Database>,
  dialect: StoreDialect,
  names: readonly string[],
): Promise<string> {
  const live = await liveLocations(db, dialect, names);
  return JSON.stringify(
    Object.fromEntries(
      names.map((name) => [
        name,
        { status: live.has(name) ? 'unknown' : 'stale', last_checked_at: null, response_ms: null, error: null },
      ]),
    ),
  );
}

/** Which of `names` have a live worker, by the database's clock. */
async function liveLocations(db: Kysely<Database>, dialect: StoreDialect, names: readonly string[]) {
  const ago = sqlOf(dialect).ago(LIVE_HEARTBEAT_MS);
  const { rows } = await sql<{ location: string }>`
    select distinct location from worker_heartbeats
    where last_seen_at > ${ago} and location in (${sql.join([...names])})`.execute(db);
  return new Set(rows.map((row) => row.location));
}

const msOf = (value: DbTimestamp | null) => {
  const stamp = toNullableStamp(value);
  return stamp === null ? null : Date.parse(stamp);
};

/** One location's check of a device, with its decision, in one transaction (see the file's head). */
export function recordLocationCheck(
  db: Kysely<Database>,
  dialect: StoreDialect,
  { lease, outcome }: RecordedCheck<LocationCheckOutcome>,
  decide: LocationDecider,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const lock = sql.raw(sqlOf(dialect).forUpdate);
    const { rows: deviceRows } = await sql<Selectable<DevicesTable>>`
      select * from devices where id = ${lease.id} ${lock}`.execute(trx);
    const deviceRow = deviceRows[0];
    if (deviceRow === undefined) return false;
    const device: Device = deviceFromRow(deviceRow);
    const rows = await trx
      .selectFrom('device_location_checks')
      .selectAll()
      .where('device_id', '=', lease.id)
      .orderBy('location')
      .execute();
    if (rows.length === 0) return false;
    const live = await liveLocations(
      trx,
      dialect,
      rows.map((row) => row.location),
    );
    const locations: StoredLocation[] = rows.map((row) => ({
      name: row.location,
      live: live.has(row.location),
      // A lease that ran out before the check ended is lost: a worker stopped past it (SIGSTOP,
      // a long pause) must not write what it found then.
      leaseToken:
        row.lease_expires_at !== null && msOf(row.lease_expires_at)! > Date.parse(outcome.checked_at)
          ? row.lease_token
          : null,
      last:
        row.last_ok === null || row.last_checked_at === null
          ? null
          : { ok: toFlag(row.last_ok), checkedAtMs: msOf(row.last_checked_at)! },
      failingSinceMs: msOf(row.failing_since),
      failures: row.failures,
      announced: toFlag(row.announced),
      response_ms: row.response_ms,
      error: row.error,
    }));
    const write = decide(device, locations, toNullableStamp(deviceRow.up_since));
    if (write === null) return false;

    const checkedAt = stampText(outcome.checked_at);
    const last = write.last;
    for (const state of write.locations) {
      const mine = state.name === outcome.location;
      await trx
        .updateTable('device_location_checks')
        .set({
          failing_since: nullableStampText(
            state.failingSinceMs === null ? null : new Date(state.failingSinceMs).toISOString(),
          ),
          announced: flagFor(dialect, state.announced),
          failures: state.failures,
          ...(mine
            ? {
                lease_owner: null,
                lease_token: null,
                lease_expires_at: null,
                // A check that failed on the worker's side leaves the location's last result as it was.
                ...(last === null
                  ? {}
                  : {
                      last_ok: flagFor(dialect, last.ok),
                      last_checked_at: checkedAt,
                      response_ms: last.response_ms,
                      error: last.error,
                    }),
                next_check_at: stampText(write.next_check_at),
              }
            : {}),
        })
        .where('device_id', '=', lease.id)
        .where('location', '=', state.name)
        .execute();
    }
    if (write.second_opinion) {
      // A second opinion now: the other locations are due at once, unless already due or in flight.
      await sql`update device_location_checks set next_check_at = ${checkedAt}
        where device_id = ${lease.id} and location <> ${outcome.location}
          and next_check_at > ${checkedAt} and lease_token is null`.execute(trx);
    }
    const lastResults: Record<string, unknown> = { ...device.last_results };
    for (const result of outcome.results) lastResults[result.probe] = result;
    await trx
      .updateTable('devices')
      .set({
        status: write.status,
        status_since: nullableStampText(write.status_since),
        up_since: nullableStampText(write.up_since),
        last_checked_at: checkedAt,
        last_results: JSON.stringify(lastResults),
        quorum_state: write.quorum_state,
        location_states: JSON.stringify(write.record_locations),
      })
      .where('id', '=', lease.id)
      .execute();
    if (write.results.length > 0) {
      // One check id for the results of one check, as the devices' own writes give them.
      const checkId = await nextCheckId(trx, dialect);
      await trx
        .insertInto('check_results')
        .values(
          write.results.map((result) => {
            const v = resultValues(result);
            return {
              resource_kind: 'device' as const,
              resource_id: lease.id,
              checked_at: v.checked_at,
              probe: v.probe,
              ok: flagFor(dialect, v.ok),
              response_ms: v.response_ms,
              error: v.error,
              fields: v.fields,
              check_id: checkId,
              check_location: outcome.location,
            };
          }),
        )
        .execute();
    }
    if (write.events.length > 0) {
      await trx
        .insertInto('events')
        .values(
          write.events.map((event) => ({
            user_id: toId(deviceRow.user_id),
            type: event.type,
            resource_kind: 'device' as const,
            resource_id: lease.id,
            created_at: stampText(event.created_at),
            data: JSON.stringify(event.data),
          })),
        )
        .execute();
    }
    return true;
  });
}

/**
 * Makes a device's schedules follow a change of its `check_locations` (for an update of the
 * device): the pairs of locations it no longer names go, with their leases; a new location is due
 * at `at` while the device is enabled, and keeps nothing of another's state. A device that gains
 * its first locations gives up its own schedule and lease; one that loses them all is due at `at`
 * again as a device of any one location. Run it in the transaction that writes the change.
 */
export async function replaceLocationChecks(
  trx: Kysely<Database>,
  dialect: StoreDialect,
  id: number,
  locations: readonly string[] | null,
  at: Timestamp,
): Promise<void> {
  const device = await trx.selectFrom('devices').select(['is_enabled']).where('id', '=', id).executeTakeFirst();
  if (device === undefined) return;
  const enabled = toFlag(device.is_enabled);
  let remove = trx.deleteFrom('device_location_checks').where('device_id', '=', id);
  if (locations !== null && locations.length > 0) remove = remove.where('location', 'not in', [...locations]);
  await remove.execute();
  if (locations === null || locations.length === 0) {
    await trx
      .updateTable('devices')
      .set({
        next_check_at: enabled ? stampText(at) : null,
        lease_owner: null,
        lease_token: null,
        lease_expires_at: null,
      })
      .where('id', '=', id)
      .where('next_check_at', 'is', null)
      .execute();
    return;
  }
  const kept = await trx.selectFrom('device_location_checks').select('location').where('device_id', '=', id).execute();
  const have = new Set(kept.map((row) => row.location));
  const added = locations.filter((location) => !have.has(location));
  if (added.length > 0) {
    await insertLocationChecks(trx, dialect, id, { check_locations: added, is_enabled: enabled, created_at: at });
  }
  await trx
    .updateTable('devices')
    .set({ next_check_at: null, lease_owner: null, lease_token: null, lease_expires_at: null })
    .where('id', '=', id)
    .execute();
}

/**
 * A new interval for a device checked per location: each location is due at most at `latest`
 * (one new interval after the device's last check), as the device row is for a device of one.
 */
export async function rescheduleLocationChecks(trx: Kysely<Database>, id: number, latest: Timestamp): Promise<void> {
  const stamp = stampText(latest);
  await trx
    .updateTable('device_location_checks')
    .set({ next_check_at: stamp })
    .where('device_id', '=', id)
    .where('next_check_at', '>', stamp)
    .execute();
}

/**
 * A check asked for (`requestCheck`) on a device checked per location: each location is due at
 * `at` and the device row keeps no schedule of its own. A lease in flight is left alone, as a
 * device's is. False when the device has no locations (its own row was made due).
 */
export async function requestLocationChecks(db: Kysely<Database>, id: number, at: Timestamp): Promise<boolean> {
  const pairs = await db
    .updateTable('device_location_checks')
    .set({ next_check_at: stampText(at) })
    .where('device_id', '=', id)
    .executeTakeFirst();
  if (pairs.numUpdatedRows === 0n) return false;
  await db.updateTable('devices').set({ next_check_at: null }).where('id', '=', id).execute();
  return true;
}
