import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { DEVICE_STATUSES } from '../../../core/index.ts';
import type { StoreDialect } from '../schema.ts';
import { PG_OPEN_INCIDENT, SQLITE_CHANGED_AT, sqliteOpenIncident } from './report-triggers.ts';

// The running totals on a device's status timeline (docs/reports.md, "Availability"). Each change
// carries the time the device had spent in every status from its first change up to this one,
// the number of `down` changes up to and including it, and how long the status it leaves lasted.
// Availability over any range is then the difference of two changes' totals, whatever the number
// of changes between them. Each change's totals are its predecessor's plus the predecessor's
// length, written by the status trigger in the transaction of the change: the device's row lock,
// taken by the UPDATE that changes its status, orders the changes of one device.

/** The column of a status's running total. */
export const totalColumn = (status: string) => `total_${status}_ms`;

/** Milliseconds from `from` to `to`, two timestamp expressions, as an integer. */
function lengthMs(dialect: StoreDialect, from: string, to: string): string {
  return dialect === 'postgres'
    ? `cast(round(extract(epoch from (${to} - ${from})) * 1000) as bigint)`
    : `cast(round((julianday(${to}) - julianday(${from})) * 86400000) as integer)`;
}

const TOTAL_COLUMNS = DEVICE_STATUSES.map(totalColumn).join(', ');
const CHANGE_COLUMNS = `device_id, from_status, to_status, at, prev_at, previous_ms, ${TOTAL_COLUMNS}, total_downs`;

/**
 * The totals of a change following `p` (the previous change's columns, null when none) after a
 * status that lasted `length` ms, as SQL expressions in column order.
 */
function followingTotals(length: string): string {
  return DEVICE_STATUSES.map(
    (status) =>
      `coalesce(p.${totalColumn(status)}, 0) + (case when p.to_status = '${status}' then ${length} else 0 end)`,
  ).join(',\n      ');
}

const PG_DEVICE_STATUS = `create or replace function report_device_status() returns trigger language plpgsql as $$
declare
  changed_at timestamptz;
  left_status text;
  p status_changes%rowtype;
  lasted bigint;
begin
  if tg_op = 'INSERT' then
    changed_at := coalesce(new.status_since, new.created_at);
  else
    changed_at := greatest(coalesce(new.status_since, now()), old.status_since);
    left_status := old.status;
    select * into p from status_changes where device_id = new.id order by at desc, id desc limit 1;
    -- A change never goes before the one it follows: the timeline stays in order, and every
    -- length is at least 0.
    if p.id is not null then
      changed_at := greatest(changed_at, p.at);
      lasted := ${lengthMs('postgres', 'p.at', 'changed_at')};
    end if;
  end if;
  insert into status_changes (${CHANGE_COLUMNS})
  values (new.id, left_status, new.status, changed_at, p.at, lasted,
      ${followingTotals('lasted')},
      coalesce(p.total_downs, 0) + (case when new.status = 'down' then 1 else 0 end));
  if tg_op = 'UPDATE' and old.status = 'down' then
    update incidents set resolved_at = changed_at where device_id = new.id and resolved_at is null;
  end if;
${PG_OPEN_INCIDENT}  return null;
end $$`;

/** The device's last change, the one a new change follows. */
const SQLITE_LAST_CHANGE = `(select * from status_changes where device_id = new.id order by at desc, id desc limit 1)`;
/** The time of the change just written: the device's last change. */
const SQLITE_LAST_AT = `(select at from status_changes where device_id = new.id order by at desc, id desc limit 1)`;

const SQLITE_DEVICE_STATUS = [
  `drop trigger devices_status_created`,
  `drop trigger devices_status_changed`,
  `create trigger devices_status_created after insert on devices begin
    insert into status_changes (${CHANGE_COLUMNS})
      values (new.id, null, new.status, coalesce(new.status_since, new.created_at), null, null,
        ${DEVICE_STATUSES.map(() => '0').join(', ')}, new.status = 'down');
    ${sqliteOpenIncident('coalesce(new.status_since, new.created_at)')}
  end`,
  `create trigger devices_status_changed after update of status on devices
    when old.status is not new.status begin
    insert into status_changes (${CHANGE_COLUMNS})
      select new.id, old.status, new.status, p.changed_at, p.at,
        case when p.id is null then null else ${lengthMs('sqlite', 'p.at', 'p.changed_at')} end,
        ${followingTotals(lengthMs('sqlite', 'p.at', 'p.changed_at'))},
        coalesce(p.total_downs, 0) + (new.status = 'down')
      from (select prev.*, max(${SQLITE_CHANGED_AT}, coalesce(prev.at, '')) as changed_at
        from (select 1) one left join ${SQLITE_LAST_CHANGE} prev on 1) p;
    update incidents set resolved_at = ${SQLITE_LAST_AT}
      where device_id = new.id and resolved_at is null and old.status = 'down';
    ${sqliteOpenIncident(SQLITE_LAST_AT)}
  end`,
];

/** Replaces the status trigger of migration 0011 with one that also writes the running totals. */
export async function createTimelineTotalsTrigger(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
  if (dialect === 'postgres') await sql.raw(PG_DEVICE_STATUS).execute(db);
  else for (const statement of SQLITE_DEVICE_STATUS) await sql.raw(statement).execute(db);
}

/**
 * Writes every change's running totals from the changes themselves, in timeline order (at, then
 * id): for a database's existing timeline, and for a timeline written by other means than the
 * trigger (the reports bench seeds one). A change's `from_status` becomes the status of the change
 * before it in that order: a timeline kept before 0012 could hold a change dated before the one
 * it followed, and the longest incident is read by `from_status`.
 */
export async function fillTimelineTotals(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
  const running = 'over (partition by device_id order by at, id rows between unbounded preceding and current row)';
  const sums = DEVICE_STATUSES.map(
    (status) =>
      `sum(case when prev_status = '${status}' then previous_ms else 0 end) ${running} as ${totalColumn(status)}`,
  ).join(',\n      ');
  const target = dialect === 'postgres' ? 'status_changes s' : 'status_changes';
  const self = dialect === 'postgres' ? 's' : 'status_changes';
  await sql
    .raw(
      `with ordered as (
      select id, device_id, at, to_status,
        lag(at) over (partition by device_id order by at, id) as prev_at,
        lag(to_status) over (partition by device_id order by at, id) as prev_status
      from status_changes
    ), lengths as (
      select id, device_id, at, to_status, prev_at, prev_status,
        ${lengthMs(dialect, 'prev_at', 'at')} as previous_ms
      from ordered
    ), totals as (
      select id, prev_at, prev_status, previous_ms,
      ${sums},
      sum(case when to_status = 'down' then 1 else 0 end) ${running} as total_downs
      from lengths
    )
    update ${target} set from_status = coalesce(totals.prev_status, ${self}.from_status),
      prev_at = totals.prev_at, previous_ms = totals.previous_ms,
      ${DEVICE_STATUSES.map((status) => `${totalColumn(status)} = totals.${totalColumn(status)}`).join(', ')},
      total_downs = totals.total_downs
    from totals where ${self}.id = totals.id`,
    )
    .execute(db);
}
