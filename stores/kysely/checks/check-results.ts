import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { CheckResult, MonitoredKind, ResultsPage, Timestamp } from '../../../core/index.ts';
import { checkResultFromRow } from './result-rows.ts';
import { countWriteSql } from '../change-count.ts';
import { maintainPartitions } from '../reports/result-partitions.ts';
import { rolledUntil } from '../reports/report-reads.ts';
import { stampText, toId } from '../rows.ts';
import { TABLE_OF } from './schedule.ts';
import type { Database, DbInteger, StoreDialect } from '../schema.ts';

/**
 * A record's results, newest first, below `beforeId` when given; undefined when the record does
 * not exist or is another user's, so the API answers not found for both alike.
 */
export async function listCheckResults(
  db: Kysely<Database>,
  userId: number,
  kind: MonitoredKind,
  id: number,
  page: ResultsPage,
): Promise<CheckResult[] | undefined> {
  const owned = await db
    .selectFrom(TABLE_OF[kind])
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (owned === undefined) return undefined;
  let query = db
    .selectFrom('check_results')
    .selectAll()
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', id);
  if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(page.limit).execute();
  return rows.map(checkResultFromRow);
}

/**
 * Deletes at most `limit` results checked before `before`, oldest first, and says how many. On
 * PostgreSQL rows another pruner is deleting are skipped rather than waited for, so workers
 * pruning at once share the work instead of queueing on one another; and first, whole days of
 * results go by dropping their partitions (reports/result-partitions.ts), whatever `limit` says, and the
 * partitions of the next days are made.
 */
export async function deleteCheckResultsBefore(
  db: Kysely<Database>,
  dialect: StoreDialect,
  before: Timestamp,
  limit: number,
): Promise<number> {
  if (limit <= 0) return 0;
  // Raw results are the rollups' input: none goes before its hour is rolled up, however long the
  // workers were away (docs/engine.md, "Reports").
  const rolled = await rolledUntil(db);
  if (Date.parse(rolled) < Date.parse(before)) before = rolled;
  let dropped = 0;
  if (dialect === 'postgres') {
    const { rows } = await sql<{ today: string }>`
      select to_char(now() at time zone 'UTC', 'YYYY-MM-DD') as today`.execute(db);
    const today = Date.parse(`${rows[0]!.today}T00:00:00Z`);
    dropped = await maintainPartitions(db, Date.parse(before), today);
  }
  if (dialect === 'sqlite') {
    const result = await sql`
      delete from check_results where id in (
        select id from check_results where checked_at < ${stampText(before)} order by checked_at limit ${limit}
      )`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  }
  // The change marker moves in the same statement when rows went: a series shows raw results in
  // the hours its range cuts (SQLite's marker counts the store's own writes, store-context.ts).
  const { rows } = await sql<{ deleted: DbInteger }>`
    with deleted as (
      delete from check_results where id in (
        select id from check_results where checked_at < ${stampText(before)}
        order by checked_at limit ${limit} for update skip locked
      ) returning 1
    ), counted as (
      ${sql.raw(countWriteSql('exists (select 1 from deleted)'))}
    )
    select count(*) as deleted from deleted`.execute(db);
  return dropped + Number(rows[0]?.deleted ?? 0);
}

/**
 * Deletes a user's record and its results together (docs/engine.md, "Scheduling": deleting a
 * record deletes its schedule and results), in one transaction of two statements. Not one
 * statement on PostgreSQL: a check being written holds the record's lock, the delete waits for it,
 * and the result rows that write commits are not in the snapshot the waiting statement started
 * with; the second statement, with a snapshot of its own, sees and deletes them. A check written
 * after the record's delete finds no record and writes nothing. Events stay: they are about what
 * happened.
 */
export async function deleteWithResults(
  db: Kysely<Database>,
  kind: MonitoredKind,
  userId: number,
  id: number,
): Promise<boolean> {
  const table = sql.table(TABLE_OF[kind]);
  return db.transaction().execute(async (trx) => {
    const result = await sql`delete from ${table} where id = ${id} and user_id = ${userId}`.execute(trx);
    if ((result.numAffectedRows ?? 0n) === 0n) return false;
    await trx.deleteFrom('check_results').where('resource_kind', '=', kind).where('resource_id', '=', id).execute();
    return true;
  });
}

/** The next check id: from the `check_ids` sequence on PostgreSQL, the `check_id_counter` row on SQLite. */
export async function nextCheckId(trx: Kysely<Database>, dialect: StoreDialect): Promise<number> {
  const { rows } =
    dialect === 'postgres'
      ? await sql<{ last: DbInteger }>`select nextval('check_ids') as last`.execute(trx)
      : await sql<{ last: DbInteger }>`update check_id_counter set last = last + 1 where id = 1 returning last`.execute(
          trx,
        );
  return toId(rows[0]!.last);
}
