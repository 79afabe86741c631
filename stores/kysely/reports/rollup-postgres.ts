import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

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
  // One pass over the hour: counts by response-time bucket, each bucket carrying its own totals,
  // then one row per device, probe, location and hour from those (a far smaller set).
  await sql`
    with buckets as (
      select r.resource_id as device_id, r.probe, coalesce(r.check_location, '') as location,
        date_trunc('hour', r.checked_at, 'UTC') as start,
        case
          when r.response_ms is null then null
          when r.response_ms < 32 then greatest(r.response_ms, 0)
          else 32 + cast(floor(ln(r.response_ms / 32.0) / ln(1.04)) as integer)
        end as bucket,
        count(*) as checks, count(*) filter (where not r.ok) as failures, count(r.response_ms) as timed,
        sum(r.response_ms) as sum_ms, min(r.response_ms) as min_ms, max(r.response_ms) as max_ms
      from check_results r
      where r.resource_kind = 'device' and r.resource_id between ${ids.first} and ${ids.last}
        and r.checked_at >= cast(${range.from} as timestamptz) and r.checked_at < cast(${range.to} as timestamptz)
        and exists (select 1 from devices d where d.id = r.resource_id)
      group by 1, 2, 3, 4, 5
    )
    insert into device_rollups_hourly
      (device_id, probe, location, start, checks, failures, timed, sum_ms, min_ms, max_ms, p95_ms, histogram)
    select device_id, probe, location, start, sum(checks), sum(failures), sum(timed), coalesce(sum(sum_ms), 0),
      min(min_ms), max(max_ms), null,
      coalesce(cast(json_object_agg(bucket, timed order by bucket) filter (where bucket is not null) as text), '{}')
    from buckets
    group by device_id, probe, location, start
    order by device_id, start, probe, location`.execute(db);
}
