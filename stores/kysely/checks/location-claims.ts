import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { ClaimedLocationCheck, LocationClaimRequest } from '../../../core/internal.ts';
import { deviceFromRow, stampText, toId, toStamp } from '../rows.ts';
import type { Database, DbInteger, DbTimestamp, StoreDialect } from '../schema.ts';

// The claim of one location's due (device, location) pairs (docs/engine.md, "Locations"); the
// pairs themselves, and the write of a location's result, are in location-checks.ts.

interface PickedRow {
  device_id: DbInteger;
  due_at: DbTimestamp;
}

/**
 * Leases due pairs of one location, earliest due first, moving each one's due time to its
 * lease's expiry (as `claimDue` does for devices), and answers them with their devices.
 */
export async function claimDueLocationChecks(
  db: Kysely<Database>,
  dialect: StoreDialect,
  claim: LocationClaimRequest,
): Promise<ClaimedLocationCheck[]> {
  if (claim.limit <= 0) return [];
  const lease = { token: randomUUID(), owner: claim.owner, expires_at: stampText(claim.leaseUntil) };
  const now = stampText(claim.now);
  const due = sql`location = ${claim.location} and next_check_at <= ${now}
    and (lease_expires_at is null or lease_expires_at <= ${now})`;
  const set = sql`lease_owner = ${lease.owner}, lease_token = ${lease.token}, lease_expires_at = ${lease.expires_at},
    next_check_at = ${lease.expires_at}`;
  let picked: PickedRow[];
  if (dialect === 'postgres') {
    // One statement, as `claimDue` claims devices: an empty claim costs one round trip.
    ({ rows: picked } = await sql<PickedRow>`
      with picked as (
        select device_id, next_check_at as due_at from device_location_checks
        where ${due}
        order by next_check_at, device_id
        limit ${claim.limit}
        for update skip locked
      )
      update device_location_checks t set ${set}
      from picked
      where t.location = ${claim.location} and t.device_id = picked.device_id
      returning picked.device_id, picked.due_at`.execute(db));
  } else {
    picked = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<PickedRow>`
        select device_id, next_check_at as due_at from device_location_checks
        where ${due}
        order by next_check_at, device_id
        limit ${claim.limit}`.execute(trx);
      if (rows.length === 0) return [];
      await sql`update device_location_checks set ${set}
        where location = ${claim.location} and device_id in (${sql.join(rows.map((r) => r.device_id))})`.execute(trx);
      return rows;
    });
  }
  if (picked.length === 0) return [];
  const devices = await db
    .selectFrom('devices')
    .selectAll()
    .where(
      'id',
      'in',
      picked.map((row) => toId(row.device_id)),
    )
    .execute();
  const byId = new Map(devices.map((row) => [toId(row.id), deviceFromRow(row)]));
  const claimed: ClaimedLocationCheck[] = [];
  for (const row of picked) {
    const id = toId(row.device_id);
    const record = byId.get(id);
    // Deleted between the claim and the read: its rows went with it.
    if (record === undefined) continue;
    claimed.push({ record, lease: { id, ...lease }, due_at: toStamp(row.due_at), location: claim.location });
  }
  return claimed.sort((a, b) => a.due_at.localeCompare(b.due_at) || a.lease.id - b.lease.id);
}
