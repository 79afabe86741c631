import { CompiledQuery } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { Timestamp } from '../../../core/index.ts';
import type {
  ClosedSeriesDays,
  Incident,
  IncidentCause,
  IncidentQuery,
  ListingPeriod,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
} from '../../../core/index.ts';
import { dayStart, responseSeries, seriesReads, type RollupInput, type StoredRollup } from '../../../core/internal.ts';
import { stampText, toFlag, toId, toNullableStamp, toStamp } from '../rows.ts';
import type { Database, DbTimestamp, DeviceRollupsTable, IncidentsTable, StoreDialect } from '../schema.ts';

// What the report routes read (docs/engine.md, "Reports"). Every read first checks that the
// record is the user's, so another user's id reads as not found.

async function owns(
  db: Kysely<Database>,
  table: 'devices' | 'blacklist_monitors' | 'heartbeats',
  userId: number,
  id: number,
): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** How far the rollups went: hours before it are in the hourly rows, results after it are raw. */
export async function rolledUntil(db: Kysely<Database>): Promise<Timestamp> {
  const row = await db
    .selectFrom('report_progress')
    .select('rolled_until')
    .where('name', '=', 'rollups')
    .executeTakeFirstOrThrow();
  return toStamp(row.rolled_until);
}

/**
 * ReportStore.closedSeriesDays as one statement: the device's own row says it is the user's, the
 * progress row how far the rollups went, and the daily rows' key, which leads with (device_id,
 * start), finds the oldest one's start without reading the others. Its text is fixed (one per
 * dialect), so the hot path that asks it for every series in days skips the query builder.
 */
const CLOSED_DAYS_SQL = (at: (n: number) => string) =>
  `select (select rolled_until from report_progress where name = 'rollups') as rolled_until,
    (select min(start) from device_rollups_daily where device_id = devices.id) as first_day
  from devices where id = ${at(1)} and user_id = ${at(2)}`;
const CLOSED_DAYS_TEXT = {
  postgres: CLOSED_DAYS_SQL((n) => `$${n}`),
  sqlite: CLOSED_DAYS_SQL(() => '?'),
} as const;

export async function closedSeriesDays(
  db: Kysely<Database>,
  dialect: StoreDialect,
  userId: number,
  deviceId: number,
): Promise<ClosedSeriesDays | undefined> {
  const { rows } = await db.executeQuery<{ rolled_until: DbTimestamp | null; first_day: DbTimestamp | null }>(
    CompiledQuery.raw(CLOSED_DAYS_TEXT[dialect], [deviceId, userId]),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.rolled_until === null) throw new Error('report_progress has no row for the rollups');
  return { closedUntil: dayStart(toStamp(row.rolled_until)), firstDay: toNullableStamp(row.first_day) };
}

/** A rollup row's counts, as core's rollups name them. */
function rollupCounts(
  row: Omit<Selectable<DeviceRollupsTable>, 'histogram' | 'device_id'>,
  deviceId: number,
): Omit<StoredRollup, 'histogram'> {
  return {
    device_id: deviceId,
    probe: row.probe,
    location: row.location === '' ? null : row.location,
    start: toStamp(row.start),
    checks: row.checks,
    failures: row.failures,
    timed: row.timed,
    sum_ms: Number(row.sum_ms),
    min_ms: row.min_ms,
    max_ms: row.max_ms,
    p95_ms: row.p95_ms,
  };
}

export function rollupFromRow(row: Selectable<DeviceRollupsTable>): StoredRollup {
  return {
    ...rollupCounts(row, toId(row.device_id)),
    histogram: JSON.parse(row.histogram) as Record<number, number>,
  };
}

async function readRollups(
  db: Kysely<Database>,
  table: 'device_rollups_hourly' | 'device_rollups_daily',
  deviceId: number,
  range: { from: Timestamp; to: Timestamp },
): Promise<StoredRollup[]> {
  if (Date.parse(range.from) >= Date.parse(range.to)) return [];
  const rows = await db
    .selectFrom(table)
    .selectAll()
    .where('device_id', '=', deviceId)
    .where('start', '>=', stampText(range.from))
    .where('start', '<', stampText(range.to))
    .execute();
  return rows.map(rollupFromRow);
}

/**
 * A device's daily rows in the range, without their histograms: a daily row keeps its p95, which
 * is all a series of UTC days needs of it. A year of them is 365 rows per probe, and reading the
 * histograms would cost more than the rest of the answer.
 */
async function readDailyRollups(
  db: Kysely<Database>,
  deviceId: number,
  range: { from: Timestamp; to: Timestamp },
): Promise<StoredRollup[]> {
  if (Date.parse(range.from) >= Date.parse(range.to)) return [];
  const rows = await db
    .selectFrom('device_rollups_daily')
    .select(['probe', 'location', 'start', 'checks', 'failures', 'timed', 'sum_ms', 'min_ms', 'max_ms', 'p95_ms'])
    .where('device_id', '=', deviceId)
    .where('start', '>=', stampText(range.from))
    .where('start', '<', stampText(range.to))
    .execute();
  return rows.map((row) => ({ ...rollupCounts(row, deviceId), histogram: {} }));
}

/** A device's raw results in [from, to), only the columns a rollup reads. */
export async function readRollupInput(
  db: Kysely<Database>,
  deviceIds: { from: number; to: number },
  range: { from: Timestamp; to: Timestamp },
): Promise<RollupInput[]> {
  if (Date.parse(range.from) >= Date.parse(range.to)) return [];
  const rows = await db
    .selectFrom('check_results')
    .select(['resource_id', 'probe', 'check_location', 'checked_at', 'ok', 'response_ms'])
    .where('resource_kind', '=', 'device')
    .where('resource_id', '>=', deviceIds.from)
    .where('resource_id', '<=', deviceIds.to)
    .where('checked_at', '>=', stampText(range.from))
    .where('checked_at', '<', stampText(range.to))
    .execute();
  return rows.map((row) => ({
    device_id: toId(row.resource_id),
    probe: row.probe,
    location: row.check_location,
    checked_at: toStamp(row.checked_at),
    ok: toFlag(row.ok),
    response_ms: row.response_ms,
  }));
}

export async function listResponseTimes(
  db: Kysely<Database>,
  userId: number,
  deviceId: number,
  query: ResponseTimeQuery,
): Promise<ResponseTimePoint[] | undefined> {
  if (!(await owns(db, 'devices', userId, deviceId))) return undefined;
  // rolled_until first: an hour rolled up after this read is still read raw, never twice.
  const reads = seriesReads(query, await rolledUntil(db));
  const ids = { from: deviceId, to: deviceId };
  const daily = reads.daily === undefined ? [] : await readDailyRollups(db, deviceId, reads.daily);
  const hourly: StoredRollup[] = [];
  for (const range of reads.hourly) hourly.push(...(await readRollups(db, 'device_rollups_hourly', deviceId, range)));
  const raw: RollupInput[] = [];
  for (const range of reads.raw) raw.push(...(await readRollupInput(db, ids, range)));
  return responseSeries(query, reads, { daily, hourly, raw });
}

function parseJsonObject<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export async function listIncidents(
  db: Kysely<Database>,
  userId: number,
  query: IncidentQuery,
): Promise<Incident[] | undefined> {
  if (query.device_id !== undefined && !(await owns(db, 'devices', userId, query.device_id))) return undefined;
  if (query.heartbeat_id !== undefined && !(await owns(db, 'heartbeats', userId, query.heartbeat_id))) return undefined;
  let select = db
    .selectFrom('incidents')
    .selectAll()
    .where('user_id', '=', userId)
    .where('started_at', '<', stampText(query.to))
    .where((eb) => eb.or([eb('resolved_at', 'is', null), eb('resolved_at', '>', stampText(query.from))]));
  if (query.device_id !== undefined) select = select.where('device_id', '=', query.device_id);
  if (query.heartbeat_id !== undefined) select = select.where('heartbeat_id', '=', query.heartbeat_id);
  if (query.before_id !== undefined) select = select.where('id', '<', query.before_id);
  const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
  return rows.map(incidentFromRow);
}

/** An `incidents` row as answers show it. */
export function incidentFromRow(row: Selectable<IncidentsTable>): Incident {
  const started = toStamp(row.started_at);
  const resolved = toNullableStamp(row.resolved_at);
  return {
    id: toId(row.id),
    device_id: row.device_id === null ? null : toId(row.device_id),
    heartbeat_id: row.heartbeat_id === null ? null : toId(row.heartbeat_id),
    started_at: started,
    resolved_at: resolved,
    duration_s: resolved === null ? null : Math.floor((Date.parse(resolved) - Date.parse(started)) / 1000),
    cause: parseJsonObject<IncidentCause>(row.cause),
    locations: parseJsonObject<Record<string, string>>(row.locations),
    acknowledged_at: toNullableStamp(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by === null ? null : toId(row.acknowledged_by),
  };
}

export async function listListingPeriods(
  db: Kysely<Database>,
  userId: number,
  monitorId: number,
  range: ReportRange,
): Promise<ListingPeriod[] | undefined> {
  if (!(await owns(db, 'blacklist_monitors', userId, monitorId))) return undefined;
  const rows = await db
    .selectFrom('listing_periods')
    .select(['zone', 'answer', 'listed_at', 'delisted_at'])
    .where('monitor_id', '=', monitorId)
    .where('listed_at', '<', stampText(range.to))
    .where((eb) => eb.or([eb('delisted_at', 'is', null), eb('delisted_at', '>', stampText(range.from))]))
    .orderBy('listed_at')
    .orderBy('zone')
    .execute();
  return rows.map((row) => ({
    zone: row.zone,
    answer: row.answer,
    listed_at: toStamp(row.listed_at),
    delisted_at: toNullableStamp(row.delisted_at),
  }));
}
