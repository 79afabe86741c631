/**
 * The query figures of `--only reports` (bench/reports.ts runs them first; docs/performance.md,
 * "Reports"): availability and response times over 400 days of one device's data, answered by the
 * API's server under the load generator, on SQLite and on PostgreSQL.
 */
import type { Kysely } from 'kysely';
import { openKyselyStore, type Database } from '../../stores/kysely/index.ts';
import { fillTimelineTotals } from '../../stores/kysely/migrations/timeline-totals.ts';
import { dialectOf } from '../../stores/kysely/schema.ts';
import { createTestDatabase } from '../../test/support/postgres.ts';
import type { BenchRun } from '../benchmark.ts';
import type { RunningServer } from '../processes.ts';
import { compare, pinned } from './compare.ts';
import { authOf, bare, capture, serveApi, sqliteDatabase, type Api } from './serve.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const PROBES = ['public_https', 'public_tls'] as const;

const stamp = (ms: number) => new Date(ms).toISOString();

export async function benchReportQueries(run: BenchRun): Promise<void> {
  await reportQueries(run, sqliteDatabase(run), 'SQLite');
  const pgDb = await createTestDatabase();
  if ('skip' in pgDb) run.report('reports over 400 days (PostgreSQL)', 'skipped', pgDb.skip ?? '');
  else {
    try {
      await reportQueries(run, pgDb.url, 'PostgreSQL');
    } finally {
      await pgDb.drop();
    }
  }
}

/**
 * Reports over 400 days of one device's data (`seedReportHistory`, below): the CPU
 * per request of availability (a device down every day, and one down every month) and of the
 * daily response-time series against GET /me on the same server and database, and a bare server
 * answering the series' very bytes (how much of its cost is the size of the answer alone). The
 * same URL asked again is answered from the kept answer while nothing changes (reused-answer.ts);
 * "read afresh" asks a new range every time, as when checks are written between requests.
 */
async function reportQueries(run: BenchRun, database: string, name: string): Promise<void> {
  const api = await serveApi(run, database);
  // Stopped whatever happens: its connections would keep the caller from dropping the database.
  try {
    await seedAndMeasureReports(run, api, database, name);
  } finally {
    await api.server.stop();
  }
}

async function seedAndMeasureReports(run: BenchRun, api: Api, database: string, name: string): Promise<void> {
  const auth = authOf(api);
  const me = (await (await fetch(`${api.server.url}/me`, { headers: auth })).json()) as { data: { user_id: number } };
  const created = await fetch(`${api.server.url}/devices/create`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ target_type: 'domain', target_value: 'reported.example.com' }),
  });
  const deviceId = ((await created.json()) as { data: { id: number } }).data.id;
  const calm = await fetch(`${api.server.url}/devices/create`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ target_type: 'domain', target_value: 'calm.example.com' }),
  });
  const calmId = ((await calm.json()) as { data: { id: number } }).data.id;
  const end = Date.parse(new Date().toISOString().slice(0, 10));
  const opened = await openKyselyStore(database);
  try {
    await seedReportHistory(opened.db, deviceId, me.data.user_id, 400, end, 1);
    await seedReportHistory(opened.db, calmId, me.data.user_id, 400, end, 30);
  } finally {
    await opened.store.close();
  }
  const range = `from=${new Date(end - 400 * 86_400_000).toISOString()}&to=${new Date(end).toISOString()}`;
  const availability = `${api.server.url}/devices/availability?id=${deviceId}&${range}`;
  const calmAvailability = `${api.server.url}/devices/availability?id=${calmId}&${range}`;
  const series = `${api.server.url}/devices/response-times?id=${deviceId}&${range}&bucket=day`;
  const seriesBare = await bare(run, await capture(series, api.token), `series-${name}`);
  const get = `${api.server.url}/devices/get?id=${deviceId}`;
  await measureReports(run, api, name, { availability, calmAvailability, series, get }, seriesBare);
}

/**
 * The path of `url` with its `from` a millisecond later at every request: no two ask the same
 * range, so none is answered from a kept answer, as with checks being written between requests.
 */
function afresh(url: string): () => string {
  const parsed = new URL(url);
  const from = Date.parse(parsed.searchParams.get('from')!);
  let n = 0;
  return () => {
    parsed.searchParams.set('from', new Date(from + (++n % 3_600_000)).toISOString());
    return `${parsed.pathname}${parsed.search}`;
  };
}

async function measureReports(
  run: BenchRun,
  api: Api,
  name: string,
  urls: { availability: string; calmAvailability: string; series: string; get: string },
  seriesBare: RunningServer,
) {
  const { availability, calmAvailability, series } = urls;
  const auth = authOf(api);
  const measured = await pinned([seriesBare, api.server], () =>
    compare(
      run,
      {
        me: { url: `${api.server.url}/me`, headers: auth, pid: api.server.pid },
        get: { url: urls.get, headers: auth, pid: api.server.pid },
        availability: { url: availability, headers: auth, pid: api.server.pid },
        calmAvailability: { url: calmAvailability, headers: auth, pid: api.server.pid },
        series: { url: series, headers: auth, pid: api.server.pid },
        availabilityFresh: { url: availability, path: afresh(availability), headers: auth, pid: api.server.pid },
        seriesFresh: { url: series, path: afresh(series), headers: auth, pid: api.server.pid },
        seriesBare: { url: series.replace(api.server.url, seriesBare.url), pid: seriesBare.pid },
      },
      'me',
    ),
  );
  const times = (key: string) =>
    `${(1 / measured.cpuRatio[key]!).toFixed(1)}x GET /me (rounds ${measured.cpuSpread[key]!.map((r) =>
      (1 / r).toFixed(1),
    )
      .reverse()
      .join('-')})`;
  const title = `reports over 400 days (${name})`;
  run.report(title, 'GET /v1/me', `cpu ${measured.cpu.me!.toFixed(1)} us/req`);
  const lines: [string, string, string][] = [
    ['availability', 'availability, an outage a day', 'target <= 3x'],
    ['calmAvailability', 'availability, an outage a month', 'target <= 3x'],
    ['series', 'response times, bucket=day', 'target <= 3x'],
    ['availabilityFresh', 'availability, an outage a day, read afresh', ''],
    ['seriesFresh', 'response times, bucket=day, read afresh', ''],
    ['get', 'GET /v1/devices/get, one statement, for comparison', ''],
    ['seriesBare', 'bare server, the same series bytes', ''],
  ];
  for (const [key, what, target] of lines)
    run.report(title, what, `cpu ${measured.cpu[key]!.toFixed(1)} us/req`, times(key), ...(target ? [target] : []));
}

/**
 * `days` days of one device's report rows up to `endMs` (a UTC day start), as the engine leaves
 * them at 60 s with two probes: a 10-minute outage every `outageEveryDays` days (its two status
 * changes and its incident), hourly rollups of 60 checks per probe with a histogram of a few dozen
 * buckets, and daily rollups. An outage a day is a pessimistic device; one a month a common one.
 */
async function seedReportHistory(
  db: Kysely<Database>,
  deviceId: number,
  userId: number,
  days: number,
  endMs: number,
  outageEveryDays = 1,
): Promise<void> {
  const startMs = endMs - days * DAY_MS;
  await db.deleteFrom('status_changes').where('device_id', '=', deviceId).execute();
  const histogram = JSON.stringify(Object.fromEntries(Array.from({ length: 24 }, (_, i) => [80 + i, 1 + (i % 5)])));
  const changes: Record<string, unknown>[] = [];
  const incidents: Record<string, unknown>[] = [];
  const hourly: Record<string, unknown>[] = [];
  const daily: Record<string, unknown>[] = [];
  changes.push({ device_id: deviceId, from_status: null, to_status: 'up', at: stamp(startMs) });
  for (let day = startMs; day < endMs; day += DAY_MS) {
    const down = day + 10 * HOUR_MS;
    const up = down + 600_000;
    if (Math.round((day - startMs) / DAY_MS) % outageEveryDays === 0) {
      changes.push({ device_id: deviceId, from_status: 'up', to_status: 'down', at: stamp(down) });
      changes.push({ device_id: deviceId, from_status: 'down', to_status: 'up', at: stamp(up) });
      incidents.push({
        user_id: userId,
        device_id: deviceId,
        started_at: stamp(down),
        resolved_at: stamp(up),
        cause: JSON.stringify({ probe: 'public_https', error: 'ECONNREFUSED' }),
        locations: null,
      });
    }
    for (const probe of PROBES) {
      const counts = { probe, location: '', checks: 60, failures: 0, timed: 60, sum_ms: 5700, min_ms: 80, max_ms: 103 };
      for (let hour = day; hour < day + DAY_MS; hour += HOUR_MS)
        hourly.push({ device_id: deviceId, start: stamp(hour), ...counts, p95_ms: null, histogram });
      daily.push({ device_id: deviceId, start: stamp(day), ...counts, checks: 1440, p95_ms: 101, histogram });
    }
  }
  const insert = async (table: string, rows: Record<string, unknown>[]) => {
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto(table as never)
        .values(rows.slice(i, i + 500) as never)
        .execute();
  };
  await insert('status_changes', changes);
  // The running totals the status trigger would have written (docs/reports.md, "Availability").
  await fillTimelineTotals(db as Kysely<unknown>, dialectOf(db));
  await insert('incidents', incidents);
  await insert('device_rollups_hourly', hourly);
  await insert('device_rollups_daily', daily);
}
