import { sql } from 'kysely';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import {
  DAY_MS,
  HOUR_MS,
  dayStart,
  hourStart,
  mergeRollups,
  rollUpResults as rollUp,
  rollupP95,
  type LatencyRollup,
  type Timestamp,
} from '../../../core/internal.ts';
import { readRollupInput, rollupFromRow, rolledUntil } from './report-reads.ts';
import { stampText, toStamp } from '../rows.ts';
import { dialectOf } from '../schema.ts';
import type { Database, StoreDialect } from '../schema.ts';
import { insertHourlyRollupsPostgres } from './rollup-postgres.ts';
import { sqlOf } from '../drivers/sql-of.ts';

// The report upkeep (docs/engine.md, "Reports"): rolling finished hours up, off the checks' write
// path, and expiring old report rows.

/**
 * Devices per step while rolling an hour up. Where the raw rows are read and summed here, a
 * thousand keeps memory bounded however many devices there are. PostgreSQL sums them itself, and
 * its results are written in time order, so an hour's rows are spread over every page of that
 * hour: each step scans the hour's pages whatever its devices, and fewer, larger steps cost less
 * (measured at 40,000 devices: 40 steps of 1,000 took 4.4 times one step of all). Twenty
 * thousand devices' hour stays well within the statement timeout.
 */
const DEVICE_CHUNK = { sqlite: 1000, postgres: 20_000 } as const;
/** Rollup rows per insert: 12 parameters each, below SQLite's smallest limit (999) and PostgreSQL's. */
const INSERT_CHUNK = 80;

type RollupTable = 'device_rollups_hourly' | 'device_rollups_daily';

async function insertRollups(trx: Transaction<Database>, table: RollupTable, rows: LatencyRollup[], withP95: boolean) {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto(table)
      .values(
        rows.slice(i, i + INSERT_CHUNK).map((row) => ({
          device_id: row.device_id,
          probe: row.probe,
          location: row.location ?? '',
          start: stampText(row.start),
          checks: row.checks,
          failures: row.failures,
          timed: row.timed,
          sum_ms: row.sum_ms,
          min_ms: row.min_ms,
          max_ms: row.max_ms,
          p95_ms: withP95 ? rollupP95(row) : null,
          histogram: JSON.stringify(row.histogram),
        })),
      )
      .execute();
  }
}

/** Thrown inside a transaction to undo it: another worker rolled the hour up first. */
class AlreadyRolled extends Error {}

/**
 * Rolls up the hours from `hour` to `until` (one hour, or a run of hours without results) in one
 * transaction, and the UTC day the first completes; false when another worker moved the progress
 * first (nothing of this attempt is kept). The progress moves first: its conditional UPDATE holds
 * the row, so a second worker waits for this one and then finds the progress moved, and each hour
 * is rolled up once.
 */
async function rollUpHours(db: Kysely<Database>, hour: number, until: number): Promise<boolean> {
  const from = new Date(hour).toISOString();
  const to = new Date(until).toISOString();
  // The day `hour` lies in ends within the run: its daily rows are due (later days in the run
  // have no results, so no hourly rows either).
  const dayEnd = Date.parse(dayStart(hour)) + DAY_MS;
  const dialect = dialectOf(db);
  try {
    await db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('report_progress')
        .set({ rolled_until: stampText(to) })
        .where('name', '=', 'rollups')
        .where('rolled_until', '=', stampText(from))
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) throw new AlreadyRolled();
      let after = 0;
      for (;;) {
        const ids = await trx
          .selectFrom('devices')
          .select('id')
          .where('id', '>', after)
          .orderBy('id')
          .limit(DEVICE_CHUNK[dialect])
          .execute();
        if (ids.length === 0) break;
        const first = after + 1;
        after = Number(ids[ids.length - 1]!.id);
        // PostgreSQL sums the hour itself; elsewhere the raw rows are read and summed here.
        if (dialect === 'postgres') await insertHourlyRollupsPostgres(trx, { first, last: after }, { from, to });
        else {
          const input = await readRollupInput(trx, { from: first, to: after }, { from, to });
          await insertRollups(trx, 'device_rollups_hourly', rollUp(input), false);
        }
      }
      if (dayEnd <= until) {
        const day = dayStart(hour);
        const rows = await trx
          .selectFrom('device_rollups_hourly')
          .selectAll()
          .where('start', '>=', stampText(day))
          .where('start', '<', stampText(new Date(dayEnd).toISOString()))
          .execute();
        await insertRollups(trx, 'device_rollups_daily', mergeRollups(rows.map(rollupFromRow), dayStart), true);
      }
    });
    return true;
  } catch (error) {
    if (error instanceof AlreadyRolled) return false;
    throw error;
  }
}

/**
 * The start of the hour of the first device result checked in [from, to), or undefined when there
 * is none: the hours before it have nothing to roll up.
 */
async function firstResultHour(db: Kysely<Database>, from: number, to: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('check_results')
    .select((eb) => eb.fn.min('checked_at').as('first'))
    .where('resource_kind', '=', 'device')
    .where('checked_at', '>=', stampText(new Date(from).toISOString()))
    .where('checked_at', '<', stampText(new Date(to).toISOString()))
    .executeTakeFirst();
  if (row?.first == null) return undefined;
  return Date.parse(hourStart(toStamp(row.first)));
}

/**
 * ReportUpkeep.rollUpResults: the hours that ended at or before `before`, oldest first. A run of
 * hours without results (a quiet night, a store not rolled up for a while) moves in one step.
 */
export async function rollUpResults(db: Kysely<Database>, before: Timestamp, maxHours: number): Promise<number> {
  const end = Date.parse(hourStart(before));
  let rolled = 0;
  while (rolled < maxHours) {
    const hour = Date.parse(await rolledUntil(db));
    if (hour + HOUR_MS > end) break;
    const first = await firstResultHour(db, hour, end);
    const quietUntil = Math.min(first ?? end, hour + (maxHours - rolled) * HOUR_MS);
    const until = quietUntil > hour ? quietUntil : hour + HOUR_MS;
    if (await rollUpHours(db, hour, until)) rolled += (until - hour) / HOUR_MS;
  }
  return rolled;
}

/** `delete ... where <key> in (select <key> ... limit n)`: at most n rows of a table. */
function deleteSome(dialect: StoreDialect, table: string, where: RawBuilder<unknown>, limit: number) {
  const key = sql.raw(sqlOf(dialect).rowKey);
  return sql`delete from ${sql.table(table)} where ${key} in (
    select ${key} from ${sql.table(table)} as t where ${where} limit ${limit})`;
}

/** ReportUpkeep.deleteReportsBefore. */
export async function deleteReportsBefore(
  db: Kysely<Database>,
  dialect: StoreDialect,
  before: Timestamp,
  limit: number,
): Promise<number> {
  const cutoff = stampText(before);
  const at = sqlOf(dialect).stamp(cutoff);
  const deletions: [string, RawBuilder<unknown>][] = [
    ['device_rollups_hourly', sql`t.start < ${at}`],
    ['device_rollups_daily', sql`t.start < ${at}`],
    ['incidents', sql`t.resolved_at < ${at}`],
    ['listing_periods', sql`t.delisted_at < ${at}`],
    // A change stays while it is the last one at or before the cutoff: the status then is known.
    [
      'status_changes',
      sql`t.at < ${at} and exists (
        select 1 from status_changes n
        where n.device_id = t.device_id and n.at <= ${at} and (n.at > t.at or (n.at = t.at and n.id > t.id)))`,
    ],
  ];
  let deleted = 0;
  for (const [table, where] of deletions) {
    if (deleted >= limit) break;
    const result = await deleteSome(dialect, table, where, limit - deleted).execute(db);
    deleted += Number(result.numAffectedRows ?? 0n);
  }
  return deleted;
}
