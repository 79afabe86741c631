import { sql } from 'kysely';
import type { Insertable, Kysely, RawBuilder } from 'kysely';
import type { MonitoredKind } from '../../../core/index.ts';
import type { BlacklistWrite, CheckWrite, DeviceWrite } from './check-writes.ts';
import { flagFor, toId } from '../rows.ts';
import type { CheckResultsTable, Database, DbInteger, EventsTable } from '../schema.ts';

// Recording a batch of checks on SQLite: the caller's transaction holds the write lock, and each
// check is one fenced UPDATE in input order (statements cost no round trip here), so a record named
// twice in a batch sees the first write. Results and events of the written checks follow in bulk.

/** Rows per INSERT: nine parameters each stays under the 999 of older SQLite builds. */
const INSERT_ROWS = 100;

/** `last_results` with the probes that ran replaced and the others kept. */
function mergedLastResults(lastResults: Record<string, unknown>): RawBuilder<string> {
  const pairs = Object.entries(lastResults).map(
    ([probe, result]) => sql`${`$.${probe}`}, json(${JSON.stringify(result)})`,
  );
  // json_patch would merge each result into the old one (and drop its null fields): json_set
  // replaces the whole value under the key.
  return pairs.length === 0 ? sql`last_results` : sql`json_set(last_results, ${sql.join(pairs)})`;
}

function deviceUpdate(w: DeviceWrite): RawBuilder<{ user_id: DbInteger }> {
  // SET expressions read the row as it was, so `status` here is the status before the check. A
  // silent `validating` → `up` gives back the `up` it left (docs/engine.md, "Statuses and transitions").
  return sql`
    update devices set
      status = ${w.status},
      status_since = case when status = ${w.status} then status_since
        when status = 'validating' and ${w.status} = 'up' and up_since is not null then up_since
        else ${w.checked_at} end,
      up_since = case when ${w.status} <> 'validating' then null
        when status = 'up' then status_since
        when status = 'validating' then up_since
        else null end,
      last_checked_at = ${w.checked_at},
      last_results = ${mergedLastResults(w.last_results)},
      consecutive_failures = ${w.consecutive_failures},
      next_check_at = ${w.next_check_at},
      lease_owner = null, lease_token = null, lease_expires_at = null
    where id = ${w.id} and lease_token = ${w.token} and status = ${w.previous_status}
    returning user_id`;
}

function blacklistUpdate(w: BlacklistWrite): RawBuilder<{ user_id: DbInteger }> {
  return sql`
    update blacklist_monitors set
      last_status = ${w.last_status},
      last_checked_at = ${w.checked_at},
      listed_on = ${w.listed_on},
      failed_zones = ${w.failed_zones},
      listings = ${w.listings},
      rdns = ${w.rdns},
      next_check_at = ${w.next_check_at},
      announced_listed_on = case when maintenance_since is null then null else announced_listed_on end,
      lease_owner = null, lease_token = null, lease_expires_at = null
    where id = ${w.id} and lease_token = ${w.token} and maintenance_since is ${w.maintenance_since}
    returning user_id`;
}

async function insertChunked<T extends 'check_results' | 'events'>(
  trx: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_ROWS) {
    // The generic table name makes Kysely's value types unresolvable; the rows are the table's own.
    await trx
      .insertInto(table as 'events')
      .values(rows.slice(start, start + INSERT_ROWS) as never)
      .execute();
  }
}

async function writeChecks<W extends CheckWrite>(
  trx: Kysely<Database>,
  kind: MonitoredKind,
  writes: readonly W[],
  update: (write: W) => RawBuilder<{ user_id: DbInteger }>,
): Promise<boolean[]> {
  const written: boolean[] = [];
  const results: Insertable<CheckResultsTable>[] = [];
  const events: Insertable<EventsTable>[] = [];
  let checks = 0;
  for (const w of writes) {
    const { rows } = await update(w).execute(trx);
    const row = rows[0];
    written.push(row !== undefined);
    if (row === undefined) continue;
    // Numbered once the count is known: the counter moves once per batch.
    const check = checks++;
    for (const r of w.results) {
      results.push({ resource_kind: kind, resource_id: w.id, ...r, ok: flagFor('sqlite', r.ok), check_id: check });
    }
    for (const e of w.events) events.push({ user_id: toId(row.user_id), resource_kind: kind, resource_id: w.id, ...e });
  }
  if (checks > 0) {
    const { rows } = await sql<{ last: DbInteger }>`
      update check_id_counter set last = last + ${checks} where id = 1 returning last`.execute(trx);
    const first = toId(rows[0]!.last) - checks + 1;
    for (const r of results) r.check_id = first + r.check_id!;
  }
  await insertChunked(trx, 'check_results', results);
  await insertChunked(trx, 'events', events);
  return written;
}

/** Writes device checks in the caller's transaction; answers, in input order, which were written. */
export function writeDeviceChecksSqlite(trx: Kysely<Database>, writes: readonly DeviceWrite[]): Promise<boolean[]> {
  return writeChecks(trx, 'device', writes, deviceUpdate);
}

/** Writes blacklist checks in the caller's transaction; answers, in input order, which were written. */
export function writeBlacklistChecksSqlite(
  trx: Kysely<Database>,
  writes: readonly BlacklistWrite[],
): Promise<boolean[]> {
  return writeChecks(trx, 'blacklist_monitor', writes, blacklistUpdate);
}
