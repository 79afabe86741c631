import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import {
  LISTED_LOCATION_MS,
  LIVE_HEARTBEAT_MS,
  type LocationSummary,
  type WorkerHeartbeat,
} from '../../../core/internal.ts';
import { stampText, toStamp } from '../rows.ts';
import type { Database, DbInteger, DbTimestamp, StoreDialect } from '../schema.ts';
import { sqlOf } from '../drivers/sql-of.ts';

// Worker heartbeats (docs/engine.md, "Locations"), stamped and judged by the database's clock:
// every worker and every API instance then agree on who is live, whatever their own clocks say.

/** The database's clock, as the text form the store writes (SQLite) or a timestamptz (PostgreSQL). */
function databaseNow(dialect: StoreDialect) {
  return sqlOf(dialect).ago(0);
}

/** `now` minus `ms`, by the database's clock. */
function databaseAgo(dialect: StoreDialect, ms: number) {
  return sqlOf(dialect).ago(ms);
}

/** Writes a worker's heartbeat (one row per worker id) and forgets those older than a day. */
export async function recordHeartbeat(
  db: Kysely<Database>,
  dialect: StoreDialect,
  heartbeat: WorkerHeartbeat,
): Promise<void> {
  const now = databaseNow(dialect);
  await sql`insert into worker_heartbeats (worker_id, location, version, started_at, last_seen_at)
    values (${heartbeat.worker_id}, ${heartbeat.location}, ${heartbeat.version}, ${stampText(heartbeat.started_at)}, ${now})
    on conflict (worker_id) do update set location = excluded.location, version = excluded.version,
      started_at = excluded.started_at, last_seen_at = excluded.last_seen_at`.execute(db);
  await sql`delete from worker_heartbeats where last_seen_at <= ${databaseAgo(dialect, LISTED_LOCATION_MS)}`.execute(
    db,
  );
}

/** The locations with a heartbeat in the last day, by name, and their live workers. */
export async function listLocations(db: Kysely<Database>, dialect: StoreDialect): Promise<LocationSummary[]> {
  const live = databaseAgo(dialect, LIVE_HEARTBEAT_MS);
  const { rows } = await sql<{ name: string; live_workers: DbInteger; last_seen_at: DbTimestamp }>`
    select location as name, sum(case when last_seen_at > ${live} then 1 else 0 end) as live_workers,
      max(last_seen_at) as last_seen_at
    from worker_heartbeats
    where last_seen_at > ${databaseAgo(dialect, LISTED_LOCATION_MS)}
    group by location
    order by location`.execute(db);
  return rows.map((row) => ({
    name: row.name,
    live_workers: Number(row.live_workers),
    last_seen_at: toStamp(row.last_seen_at),
  }));
}
