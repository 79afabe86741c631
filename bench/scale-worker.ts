// One worker process of the scale benchmark (bench/scale.ts): either the engine on PostgreSQL with
// a device check that answers after a simulated latency (no network), or the hand-written
// claim-and-record loop doing the same through `pg` (the baseline). Prints `ready` once its pool
// is open, starts on a line on stdin, and when stdin ends stops, prints its summary as JSON (the
// checks it started and, for the engine, the scheduling lag of each one in a histogram of whole
// milliseconds) and exits.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { sql } from 'kysely';
import type { ClaimedDevice, DeviceCheckOutcome } from '../core/index.ts';
import { createMonitoringEngine, openKyselyStore } from './compiled.ts';

const [url, workerId, side, latency] = process.argv.slice(2);
const LATENCY_MS = Number(latency);
const INTERVAL_MS = 60_000;
const LEASE_MS = 120_000;

/** What the simulated check found: the service answered, as `checkDevice` would record it. */
function passed(claimed: ClaimedDevice, checkedAt: number): DeviceCheckOutcome {
  const at = new Date(checkedAt).toISOString();
  return {
    checked_at: at,
    previous_status: claimed.record.status,
    status: 'up',
    consecutive_failures: 0,
    results: [{ probe: 'service', checked_at: at, ok: true, response_ms: LATENCY_MS, error: null, banner: null }],
    next_check_at: new Date(checkedAt + INTERVAL_MS * (0.9 + 0.2 * Math.random())).toISOString(),
    events: [],
  };
}

interface Side {
  warm(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

const lags = new Map<number, number>();
let checks = 0;

function engineSide(): Side {
  let opened: Awaited<ReturnType<typeof openKyselyStore>>;
  let engine: ReturnType<typeof createMonitoringEngine>;
  return {
    async warm() {
      opened = await openKyselyStore(url!);
      engine = createMonitoringEngine({
        store: opened.store,
        workerId,
        pollIntervalMs: 100,
        deviceCheck: async (claimed, context) => {
          const started = context.clock.now();
          const lag = Math.max(0, Math.round(started - Date.parse(claimed.due_at)));
          lags.set(lag, (lags.get(lag) ?? 0) + 1);
          checks += 1;
          await sleep(LATENCY_MS);
          return passed(claimed, context.clock.now());
        },
      });
      await Promise.all(Array.from({ length: 10 }, () => sql`select 1`.execute(opened.db)));
    },
    start: () => engine.start(),
    async stop() {
      await engine.stop();
      await opened.store.close();
    },
  };
}

/**
 * The baseline: four loops of 25, the engine's hundred checks in flight claimed a quarter at a
 * time, each claiming with the engine's statement (due time moved to the lease's expiry), waiting
 * the latency and writing the batch fenced by its lease in one statement (record and result row).
 */
function handWrittenSide(): Side {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const CLAIM = `with picked as (
      select id, next_check_at as due_at from devices
      where next_check_at <= $4 and (lease_expires_at is null or lease_expires_at <= $4)
      order by next_check_at, id limit $5 for update skip locked)
    update devices t set lease_owner = $1, lease_token = $2, lease_expires_at = $3, next_check_at = $3
    from picked where t.id = picked.id
    returning t.id, t.status`;
  const WRITE = `with input as (
      select * from unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[])
        as i (id, token, checked_at, next_check_at, last_results)
    ),
    written as (
      update devices d set status = 'up', status_since = case when d.status <> 'up' then i.checked_at else d.status_since end,
        last_checked_at = i.checked_at,
        last_results = cast(cast(d.last_results as jsonb) || cast(i.last_results as jsonb) as text),
        consecutive_failures = 0, next_check_at = i.next_check_at,
        lease_owner = null, lease_token = null, lease_expires_at = null
      from input i where d.id = i.id and d.lease_token = i.token and d.status = 'up'
      returning d.id
    ),
    results as (
      insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields)
      select 'device', i.id, i.checked_at, 'service', true, ${LATENCY_MS}, null, '{"banner":null}'
      from input i where i.id in (select id from written)
    )
    select id from written`;
  let running = true;
  let loops: Promise<void>[] = [];
  const loop = async () => {
    while (running) {
      const now = Date.now();
      const token = randomUUID();
      const { rows } = await pool.query<{ id: string }>({
        name: 'claim',
        text: CLAIM,
        values: [workerId, token, new Date(now + LEASE_MS).toISOString(), new Date(now).toISOString(), 25],
      });
      if (rows.length === 0) {
        await sleep(100);
        continue;
      }
      checks += rows.length;
      await sleep(LATENCY_MS);
      const ids = rows.map((row) => Number(row.id)).sort((a, b) => a - b);
      const checkedAt = Date.now();
      const at = new Date(checkedAt).toISOString();
      const last = JSON.stringify({
        service: { probe: 'service', checked_at: at, ok: true, response_ms: LATENCY_MS, error: null, banner: null },
      });
      await pool.query({
        name: 'write',
        text: WRITE,
        values: [
          ids,
          ids.map(() => token),
          ids.map(() => at),
          ids.map(() => new Date(checkedAt + INTERVAL_MS * (0.9 + 0.2 * Math.random())).toISOString()),
          ids.map(() => last),
        ],
      });
    }
  };
  return {
    warm: async () => void (await Promise.all(Array.from({ length: 10 }, () => pool.query('select 1')))),
    start() {
      loops = Array.from({ length: 4 }, loop);
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      await pool.end();
    },
  };
}

const worker = side === 'engine' ? engineSide() : handWrittenSide();
await worker.warm();
process.stdout.write('ready\n');
const input = createInterface({ input: process.stdin });
const closed = new Promise<void>((resolve) => input.once('close', resolve));
await new Promise<void>((resolve) => input.once('line', () => resolve()));
worker.start();
await closed;
await worker.stop();
process.stdout.write(`${JSON.stringify({ checks, lags: Object.fromEntries(lags) })}\n`);
