// The baseline of the claim-and-record benchmark (bench/engine-cycle.ts): one worker process, as
// bench/engine-cycle-worker.ts is, that does the database's part of the cycle alone, by hand,
// through `pg` with the same pool of 10: the same claim statement (100 due monitors under a
// lease, FOR UPDATE SKIP LOCKED, the due time moved to the lease's expiry) and the same fenced,
// set-based write of each batch (the record's new state and one `clean` result row per zone, in
// one statement), with no engine, no Kysely and no scheduling around them. Four claim-and-write
// loops run at once, so claims and writes overlap as the engine's do. Same protocol as the
// engine's worker: `ready`, `go`, a JSON summary.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { serveCycleWorker } from './engine-cycle-protocol.ts';

const [url, workerId, zoneCount] = process.argv.slice(2);
const zones = Array.from({ length: Number(zoneCount) }, (_, i) => `z${i}.cycle.bench.test`);
const pool = new pg.Pool({ connectionString: url, max: 10 });
const BATCH = 100;
const LOOPS = 4;
const INTERVAL_MS = 3_600_000;
const LEASE_MS = 120_000;

const CLAIM = `with picked as (
    select id from blacklist_monitors
    where next_check_at <= $4 and (lease_expires_at is null or lease_expires_at <= $4)
    order by next_check_at, id limit $5 for update skip locked)
  update blacklist_monitors t set lease_owner = $1, lease_token = $2, lease_expires_at = $3, next_check_at = $3
  from picked where t.id = picked.id
  returning t.id, t.user_id`;

const WRITE = `with input as (
    select * from unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::timestamptz[])
      as i (id, token, last_status, checked_at, listed_on, failed_zones, next_check_at)
  ),
  written as (
    update blacklist_monitors m set last_status = i.last_status, last_checked_at = i.checked_at, listed_on = i.listed_on,
      failed_zones = i.failed_zones, next_check_at = i.next_check_at, lease_owner = null, lease_token = null, lease_expires_at = null
    from input i where m.id = i.id and m.lease_token = i.token
    returning m.id
  ),
  results as (
    insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields)
    select 'blacklist_monitor', r.resource_id, r.checked_at, 'dnsbl', true, 0, null, r.fields
    from unnest($8::bigint[], $9::timestamptz[], $10::text[]) with ordinality as r (resource_id, checked_at, fields, n)
    where r.resource_id in (select id from written)
    order by r.n
  )
  select id from written`;

let claimed = 0;
let written = 0;

async function loop(): Promise<void> {
  for (;;) {
    const now = Date.now();
    const token = randomUUID();
    const { rows } = await pool.query<{ id: string }>({
      name: 'claim',
      text: CLAIM,
      values: [workerId, token, new Date(now + LEASE_MS).toISOString(), new Date(now).toISOString(), BATCH],
    });
    if (rows.length === 0) return;
    claimed += rows.length;
    const ids = rows.map((row) => Number(row.id)).sort((a, b) => a - b);
    const checkedAt = new Date().toISOString();
    const next = new Date(Date.now() + INTERVAL_MS).toISOString();
    const resultIds: number[] = [];
    const resultFields: string[] = [];
    for (const id of ids) {
      for (const zone of zones) {
        resultIds.push(id);
        resultFields.push(JSON.stringify({ zone, listed: false, answer: null }));
      }
    }
    const result = await pool.query({
      name: 'write',
      text: WRITE,
      values: [
        ids,
        ids.map(() => token),
        ids.map(() => 'clean'),
        ids.map(() => checkedAt),
        ids.map(() => '[]'),
        ids.map(() => '[]'),
        ids.map(() => next),
        resultIds,
        resultIds.map(() => checkedAt),
        resultFields,
      ],
    });
    written += result.rowCount ?? 0;
  }
}

await serveCycleWorker({
  // The pool's connections open before the clock starts, as the engine worker's do.
  warm: async () => void (await Promise.all(Array.from({ length: 10 }, () => pool.query('select 1')))),
  run: async () => {
    await Promise.all(Array.from({ length: LOOPS }, loop));
    return { claimed, written, fenced: 0, failed: 0 };
  },
  close: () => pool.end(),
});
