import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { MonitoredKind } from '../../../core/index.ts';
import type { BlacklistWrite, CheckWrite, DeviceWrite } from './check-writes.ts';
import { toId } from '../rows.ts';
import type { Database, DbInteger } from '../schema.ts';

// Recording a batch of checks on PostgreSQL is one statement whatever the batch's size: each
// column of the batch is one array parameter, unnested into rows. The text never changes, so it
// is prepared once per connection, and a batch of any size costs one round trip. The statement is
// atomic: a check's record, results and events are written together or not at all.

/**
 * Rows in id order: two batches that lock rows in the same order cannot deadlock, which matters
 * when a worker whose leases ran out writes (and fails) while the new claimer writes too.
 */
function byId<T extends CheckWrite>(writes: readonly T[]): T[] {
  return [...writes].sort((a, b) => a.id - b.id);
}

/**
 * The results and events of the checks the `written` CTE wrote, inserted in input order (ids grow
 * with it); those of checks it did not write are dropped. Each written check takes one number of
 * the `check_ids` sequence, which every result row of it carries as `check_id`.
 */
function outbox(kind: MonitoredKind, writes: readonly CheckWrite[]): RawBuilder<unknown> {
  const results = writes.flatMap((w) => w.results.map((r) => ({ id: w.id, ...r })));
  const events = writes.flatMap((w) => w.events.map((e) => ({ id: w.id, ...e })));
  const kindName = sql.lit(kind);
  return sql`
    results as (
      insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields, check_id)
      select ${kindName}, r.resource_id, r.checked_at, r.probe, r.ok, r.response_ms, r.error, r.fields, w.check_id
      from unnest(
        cast(${results.map((r) => r.id)} as bigint[]), cast(${results.map((r) => r.checked_at)} as timestamptz[]),
        cast(${results.map((r) => r.probe)} as text[]), cast(${results.map((r) => r.ok)} as boolean[]),
        cast(${results.map((r) => r.response_ms)} as integer[]), cast(${results.map((r) => r.error)} as text[]),
        cast(${results.map((r) => r.fields)} as text[])
      ) with ordinality as r (resource_id, checked_at, probe, ok, response_ms, error, fields, n)
      join written w on w.id = r.resource_id
      order by r.n
    ),
    events as (
      insert into events (user_id, type, resource_kind, resource_id, created_at, data)
      select w.user_id, e.type, ${kindName}, e.resource_id, e.created_at, e.data
      from unnest(
        cast(${events.map((e) => e.id)} as bigint[]), cast(${events.map((e) => e.type)} as text[]),
        cast(${events.map((e) => e.created_at)} as timestamptz[]), cast(${events.map((e) => e.data)} as text[])
      ) with ordinality as e (resource_id, type, created_at, data, n)
      join written w on w.id = e.resource_id
      order by e.n
    )`;
}

async function writtenIds(db: Kysely<Database>, statement: RawBuilder<{ id: DbInteger }>): Promise<Set<number>> {
  const { rows } = await statement.execute(db);
  return new Set(rows.map((row) => toId(row.id)));
}

/**
 * Writes device checks whose lease is still the record's and whose status is still the one the
 * check started from; answers the ids written. Ids must be distinct.
 */
export function writeDeviceChecksPostgres(db: Kysely<Database>, writes: readonly DeviceWrite[]): Promise<Set<number>> {
  const input = byId(writes);
  return writtenIds(
    db,
    sql<{ id: DbInteger }>`
    with input as (
      select * from unnest(
        cast(${input.map((w) => w.id)} as bigint[]), cast(${input.map((w) => w.token)} as text[]),
        cast(${input.map((w) => w.previous_status)} as text[]), cast(${input.map((w) => w.status)} as text[]),
        cast(${input.map((w) => w.checked_at)} as timestamptz[]), cast(${input.map((w) => w.consecutive_failures)} as integer[]),
        cast(${input.map((w) => w.next_check_at)} as timestamptz[]),
        cast(${input.map((w) => JSON.stringify(w.last_results))} as text[])
      ) as i (id, token, previous_status, status, checked_at, failures, next_check_at, last_results)
    ),
    written as (
      update devices d set
        status = i.status,
        -- A silent validating -> up gives back the up it left (docs/engine.md, "Statuses and transitions").
        status_since = case when d.status = i.status then d.status_since
          when d.status = 'validating' and i.status = 'up' and d.up_since is not null then d.up_since
          else i.checked_at end,
        up_since = case when i.status <> 'validating' then null
          when d.status = 'up' then d.status_since
          when d.status = 'validating' then d.up_since
          else null end,
        last_checked_at = i.checked_at,
        -- jsonb's || replaces top-level keys: the probes that ran replace theirs, others stay.
        last_results = cast(cast(d.last_results as jsonb) || cast(i.last_results as jsonb) as text),
        consecutive_failures = i.failures,
        next_check_at = i.next_check_at,
        lease_owner = null, lease_token = null, lease_expires_at = null
      from input i
      where d.id = i.id and d.lease_token = i.token and d.status = i.previous_status
      returning d.id, d.user_id, nextval('check_ids') as check_id
    ),
    ${outbox('device', writes)}
    select id from written`,
  );
}

/** Writes blacklist checks whose lease is still the record's; answers the ids written. Ids must be distinct. */
export function writeBlacklistChecksPostgres(
  db: Kysely<Database>,
  writes: readonly BlacklistWrite[],
): Promise<Set<number>> {
  const input = byId(writes);
  return writtenIds(
    db,
    sql<{ id: DbInteger }>`
    with input as (
      select * from unnest(
        cast(${input.map((w) => w.id)} as bigint[]), cast(${input.map((w) => w.token)} as text[]),
        cast(${input.map((w) => w.last_status)} as text[]), cast(${input.map((w) => w.checked_at)} as timestamptz[]),
        cast(${input.map((w) => w.listed_on)} as text[]), cast(${input.map((w) => w.failed_zones)} as text[]),
        cast(${input.map((w) => w.next_check_at)} as timestamptz[]),
        cast(${input.map((w) => w.listings)} as text[]), cast(${input.map((w) => w.rdns)} as text[]),
        cast(${input.map((w) => w.maintenance_since)} as timestamptz[])
      ) as i (id, token, last_status, checked_at, listed_on, failed_zones, next_check_at, listings, rdns, maintenance_since)
    ),
    written as (
      update blacklist_monitors m set
        last_status = i.last_status,
        last_checked_at = i.checked_at,
        listed_on = i.listed_on,
        failed_zones = i.failed_zones,
        listings = i.listings,
        rdns = i.rdns,
        next_check_at = i.next_check_at,
        announced_listed_on = case when m.maintenance_since is null then null else m.announced_listed_on end,
        lease_owner = null, lease_token = null, lease_expires_at = null
      from input i
      where m.id = i.id and m.lease_token = i.token and m.maintenance_since is not distinct from i.maintenance_since
      returning m.id, m.user_id, nextval('check_ids') as check_id
    ),
    ${outbox('blacklist_monitor', writes)}
    select id from written`,
  );
}
