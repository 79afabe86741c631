import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { DAY_MS } from '../../../core/internal.ts';
import { countWriteSql } from '../change-count.ts';

// Raw results on PostgreSQL, partitioned by UTC day (docs/engine.md, "Reports"): one partition
// per day, `check_results_pYYYYMMDD` for [day, day + 1), and `check_results_default` for rows of a
// day without one. Expiry drops whole partitions; the days ahead are made before rows reach them.

/** How many days after today get their partition ahead of time. */
export const DAYS_AHEAD = 3;

/** The partition name of the UTC day that starts at `dayMs`. */
export function partitionName(dayMs: number): string {
  return `check_results_p${new Date(dayMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The UTC day start of a partition name; undefined for a name of no day. */
function dayOfPartition(name: string): number | undefined {
  const match = /^check_results_p(\d{4})(\d\d)(\d\d)$/.exec(name);
  return match === null ? undefined : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
}

/** The day partitions of check_results, by day start. */
export async function dayPartitions<DB>(db: Kysely<DB>): Promise<Map<number, string>> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = cast('check_results' as regclass)`.execute(db);
  const days = new Map<number, string>();
  for (const { name } of rows) {
    const day = dayOfPartition(name);
    if (day !== undefined) days.set(day, name);
  }
  return days;
}

/**
 * Makes the day's partition unless it exists. Rows of that day already in the default partition
 * move into it first: PostgreSQL refuses a partition whose rows the default partition holds.
 */
export async function ensureDayPartition<DB>(db: Kysely<DB>, dayMs: number, existing: Map<number, string>) {
  if (existing.has(dayMs)) return;
  const name = partitionName(dayMs);
  const from = new Date(dayMs).toISOString();
  const to = new Date(dayMs + DAY_MS).toISOString();
  await sql`create table ${sql.table(name)} (like check_results including defaults including constraints)`.execute(db);
  await sql`with moved as (
      delete from check_results_default where checked_at >= ${from} and checked_at < ${to} returning *
    )
    insert into ${sql.table(name)} select * from moved`.execute(db);
  await sql`alter table check_results attach partition ${sql.table(name)}
    for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(db);
  existing.set(dayMs, name);
}

/**
 * Drops the day partitions that end at or before `before`, and makes those of the days from
 * `today` to DAYS_AHEAD after it that end after `before`; says how many rows the dropped
 * partitions held. Workers doing it at once take turns (an advisory lock), and a worker that
 * cannot have the table's lock soon gives up until its next sweep rather than hold up the
 * checks' writes.
 */
export async function maintainPartitions<DB>(db: Kysely<DB>, before: number, today: number): Promise<number> {
  return dropAndMake(db, before, today).catch((error: unknown) => {
    // 55P03: lock_not_available; the next sweep tries again.
    if (error instanceof Error && 'code' in error && error.code === '55P03') return 0;
    throw error;
  });
}

function dropAndMake<DB>(db: Kysely<DB>, before: number, today: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = '2s'`.execute(trx);
    await sql`select pg_advisory_xact_lock(hashtext('check_results partitions'))`.execute(trx);
    const existing = await dayPartitions(trx);
    let dropped = 0;
    let droppedAny = false;
    for (const [day, name] of existing) {
      if (day + DAY_MS > before) continue;
      // Counting a large partition would cost as much as deleting it row by row: a small one (a few
      // MB) is counted, a large one takes the planner's figure (kept by autovacuum), or, never
      // analysed, its size at ~120 bytes a row (the figure is for the logs, not exact).
      const { rows } = await sql<{ tuples: number; bytes: string }>`
        select reltuples as tuples, pg_relation_size(oid) as bytes from pg_class
        where oid = cast(${name} as regclass)`.execute(trx);
      const tuples = Number(rows[0]?.tuples ?? -1);
      const bytes = Number(rows[0]?.bytes ?? 0);
      let count = tuples >= 0 ? Math.round(tuples) : Math.round(bytes / 120);
      if (bytes < 8 * 1024 * 1024) {
        const exact = await sql<{ n: string }>`select count(*) as n from ${sql.table(name)}`.execute(trx);
        count = Number(exact.rows[0]?.n ?? 0);
      }
      await sql`drop table ${sql.table(name)}`.execute(trx);
      existing.delete(day);
      dropped += count;
      droppedAny = true;
    }
    // No trigger sees a dropped partition: the change marker is moved here (change-count.ts).
    if (droppedAny) await sql.raw(countWriteSql()).execute(trx);
    for (let i = 0; i <= DAYS_AHEAD; i++) {
      const day = today + i * DAY_MS;
      // A day that has ended before `before` gets no partition: its rows would be expired already.
      if (day + DAY_MS > before) await ensureDayPartition(trx, day, existing);
    }
    return dropped;
  });
}
