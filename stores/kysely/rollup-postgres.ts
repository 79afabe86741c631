import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

// Rolling raw results up into hourly rows on PostgreSQL (docs/engine.md, "Reports"), summed by the
// database: the raw rows never leave it, so an hour of a million devices' checks costs the
// database a scan of that hour and the worker nothing. The bucket of each response time is the one
// core/reports/latency-histogram.ts gives (`bucketOf`): the same formula, and the same double
// arithmetic, which test/stores/report-rollups-postgres.test.ts checks value by value.

/**
 * Inserts the hourly rollups of the devices with ids in [firstId, lastId] for the results
 * checked in [from, to), one row per device, probe, location and hour (p95 left to the reader,
 * which has the histogram). Results of devices no longer there are left out, as they are deleted
 * with their device.
 */
export async function insertHourlyRollupsPostgres(
  db: Kysely<Database>,
  ids: { first: number; last: number },
  range: { from: string; to: string },
): Promise<void> {
  await sql`
    with raw as materialized (
      select r.resource_id as device_id, r.probe, coalesce(r.check_location, '') as location,
        date_trunc('hour', r.checked_at, 'UTC') as start, r.ok, r.response_ms,
        case
          when r.response_ms is null then null
          when r.response_ms < 32 then greatest(r.response_ms, 0)
          else 32 + cast(floor(ln(r.response_ms / 32.0) / ln(1.04)) as integer)
        end as bucket
      from check_results r
      where r.resource_kind = 'device' and r.resource_id between ${ids.first} and ${ids.last}
        and r.checked_at >= cast(${range.from} as timestamptz) and r.checked_at < cast(${range.to} as timestamptz)
        and exists (select 1 from devices d where d.id = r.resource_id)
    ),
    counts as (
      select device_id, probe, location, start, bucket, count(*) as n
      from raw where bucket is not null
      group by device_id, probe, location, start, bucket
    ),
    histograms as (
      select device_id, probe, location, start, cast(json_object_agg(bucket, n order by bucket) as text) as histogram
      from counts group by device_id, probe, location, start
    ),
    totals as (
      select device_id, probe, location, start, count(*) as checks, count(*) filter (where not ok) as failures,
        count(response_ms) as timed, coalesce(sum(response_ms), 0) as sum_ms, min(response_ms) as min_ms,
        max(response_ms) as max_ms
      from raw group by device_id, probe, location, start
    )
    insert into device_rollups_hourly
      (device_id, probe, location, start, checks, failures, timed, sum_ms, min_ms, max_ms, p95_ms, histogram)
    select t.device_id, t.probe, t.location, t.start, t.checks, t.failures, t.timed, t.sum_ms, t.min_ms, t.max_ms,
      null, coalesce(h.histogram, '{}')
    from totals t left join histograms h using (device_id, probe, location, start)
    order by t.device_id, t.start, t.probe, t.location`.execute(db);
}
