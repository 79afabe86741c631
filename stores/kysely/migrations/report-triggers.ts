import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { StoreDialect } from '../schema.ts';

// The triggers that keep the status timeline, incidents and listing periods (docs/engine.md,
// "Reports"). A trigger writes in the transaction of the statement that changes the row, so every
// path that changes a device's status (a check, the quorum decision, a pause, an update, a
// maintenance window) records it without knowing of reports. Each status change is one UPDATE
// that moves `status` away from the one it read, so three workers racing to write the same
// `down` change update the row once, and the trigger opens one incident.
//
// A change's time is the new `status_since`, which every path sets to the time of the change;
// the statement's own clock stands in only if a path ever left it null. A change is never put
// before the one it follows (the old `status_since`): entering a maintenance window dates the
// status from the window's start, which may lie before the device's last change.
//
// An incident's cause is the first failing probe of the device's last results, by probe name;
// its `location`, for a device with `check_locations`, is the failing location that checked
// last, whose result made the quorum decide `down`. (A result's own `location` field is an HTTP
// redirect's header, not where it ran.)

/** PL/pgSQL that opens the incident of a device entering `down`, at `changed_at`. */
export const PG_OPEN_INCIDENT = `  if new.status = 'down' then
    insert into incidents (user_id, device_id, started_at, cause, locations)
    values (
      new.user_id, new.id, changed_at,
      (select cast(jsonb_build_object('probe', r.key, 'error', r.value -> 'error')
          || coalesce((select jsonb_build_object('location', l.key)
              from jsonb_each(cast(new.location_states as jsonb)) l
              where l.value ->> 'status' = 'failing'
              order by l.value ->> 'last_checked_at' desc nulls last, l.key limit 1), '{}'::jsonb) as text)
        from jsonb_each(cast(new.last_results as jsonb)) r
        where r.value ->> 'ok' = 'false'
        order by r.key limit 1),
      (select cast(jsonb_object_agg(l.key, l.value -> 'status') as text)
        from jsonb_each(cast(new.location_states as jsonb)) l)
    );
  end if;
`;

const PG_FUNCTIONS = [
  sql.raw(`create function report_device_status() returns trigger language plpgsql as $$
declare
  changed_at timestamptz;
begin
  if tg_op = 'INSERT' then
    changed_at := coalesce(new.status_since, new.created_at);
    insert into status_changes (device_id, from_status, to_status, at)
      values (new.id, null, new.status, changed_at);
  else
    changed_at := greatest(coalesce(new.status_since, now()), old.status_since);
    insert into status_changes (device_id, from_status, to_status, at)
      values (new.id, old.status, new.status, changed_at);
    if old.status = 'down' then
      update incidents set resolved_at = changed_at where device_id = new.id and resolved_at is null;
    end if;
  end if;
${PG_OPEN_INCIDENT}  return null;
end $$`),
  sql`create function report_listings() returns trigger language plpgsql as $$
declare
  now_listed jsonb := cast(new.listings as jsonb);
begin
  update listing_periods p set delisted_at = coalesce(new.last_checked_at, now())
  where p.monitor_id = new.id and p.delisted_at is null
    and not exists (
      select 1 from jsonb_array_elements(now_listed) l
      where l ->> 'zone' = p.zone and cast(l ->> 'since' as timestamptz) = p.listed_at);
  insert into listing_periods (user_id, monitor_id, zone, answer, listed_at)
  select new.user_id, new.id, l ->> 'zone', coalesce(l ->> 'answer', ''), cast(l ->> 'since' as timestamptz)
  from jsonb_array_elements(now_listed) l
  where l ->> 'zone' is not null and l ->> 'since' is not null and not exists (
    select 1 from listing_periods p
    where p.monitor_id = new.id and p.delisted_at is null
      and p.zone = l ->> 'zone' and p.listed_at = cast(l ->> 'since' as timestamptz));
  return null;
end $$`,
  sql`create trigger devices_status_created after insert on devices
    for each row execute function report_device_status()`,
  sql`create trigger devices_status_changed after update of status on devices
    for each row when (old.status is distinct from new.status) execute function report_device_status()`,
  sql`create trigger blacklist_monitors_listings_changed after update of listings on blacklist_monitors
    for each row when (old.listings is distinct from new.listings) execute function report_listings()`,
];

/** SQLite's clock in the store's timestamp form. */
export const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
/** The time of an update's change, in SQLite: the new `status_since`, not before the old one. */
export const SQLITE_CHANGED_AT = `max(coalesce(new.status_since, ${SQLITE_NOW}), coalesce(old.status_since, ''))`;

/** The location whose failing check was the latest (the one that made the device `down`); null without locations. */
const SQLITE_FAILING_LOCATION = `(select l.key from json_each(coalesce(new.location_states, '{}')) l
  where json_extract(l.value, '$.status') = 'failing'
  order by json_extract(l.value, '$.last_checked_at') desc, l.key limit 1)`;

/** The incident a device entering `down` opens, as SQLite trigger SQL; `at` is the change's time. */
export function sqliteOpenIncident(at: string): string {
  return `insert into incidents (user_id, device_id, started_at, cause, locations)
    select new.user_id, new.id, ${at},
      (select case when ${SQLITE_FAILING_LOCATION} is null
          then json_object('probe', r.key, 'error', json_extract(r.value, '$.error'))
          else json_object('probe', r.key, 'error', json_extract(r.value, '$.error'),
            'location', ${SQLITE_FAILING_LOCATION}) end
        from json_each(new.last_results) r
        where json_type(r.value, '$.ok') = 'false'
        order by r.key limit 1),
      case when new.location_states is null then null
        else (select json_group_object(l.key, json_extract(l.value, '$.status'))
          from json_each(new.location_states) l) end
    where new.status = 'down';`;
}

const SQLITE_TRIGGERS = [
  `create trigger devices_status_created after insert on devices begin
    insert into status_changes (device_id, from_status, to_status, at)
      values (new.id, null, new.status, coalesce(new.status_since, new.created_at));
    ${sqliteOpenIncident('coalesce(new.status_since, new.created_at)')}
  end`,
  `create trigger devices_status_changed after update of status on devices
    when old.status is not new.status begin
    insert into status_changes (device_id, from_status, to_status, at)
      values (new.id, old.status, new.status, ${SQLITE_CHANGED_AT});
    update incidents set resolved_at = ${SQLITE_CHANGED_AT}
      where device_id = new.id and resolved_at is null and old.status = 'down';
    ${sqliteOpenIncident(SQLITE_CHANGED_AT)}
  end`,
  `create trigger blacklist_monitors_listings_changed after update of listings on blacklist_monitors
    when old.listings is not new.listings begin
    update listing_periods set delisted_at = coalesce(new.last_checked_at, ${SQLITE_NOW})
      where monitor_id = new.id and delisted_at is null
        and not exists (
          select 1 from json_each(new.listings) l
          where json_extract(l.value, '$.zone') = listing_periods.zone
            and json_extract(l.value, '$.since') = listing_periods.listed_at);
    insert into listing_periods (user_id, monitor_id, zone, answer, listed_at)
      select new.user_id, new.id, json_extract(l.value, '$.zone'),
        coalesce(json_extract(l.value, '$.answer'), ''), json_extract(l.value, '$.since')
      from json_each(new.listings) l
      where json_extract(l.value, '$.zone') is not null and json_extract(l.value, '$.since') is not null
        and not exists (
        select 1 from listing_periods p
        where p.monitor_id = new.id and p.delisted_at is null
          and p.zone = json_extract(l.value, '$.zone') and p.listed_at = json_extract(l.value, '$.since'));
  end`,
];

/**
 * The report triggers. A listing without a zone or `since` (none the engine writes) is passed
 * over rather than failing the check's write. A listing period is keyed by zone and `since`: a zone whose lookup fails
 * keeps its listing (and `since`) in `listings`, so a failed lookup closes nothing; a zone that
 * leaves `listings` is delisted at the check that found it gone.
 */
export async function createReportTriggers(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
  if (dialect === 'postgres') {
    for (const statement of PG_FUNCTIONS) await statement.execute(db);
  } else {
    for (const statement of SQLITE_TRIGGERS) await sql.raw(statement).execute(db);
  }
}
