/**
 * `npm run bench -- --only scale`: the engine at 1,000,000 devices on PostgreSQL (docs/performance.md,
 * "Scale"). In a database of its own, created, seeded in bulk and dropped here:
 *
 * - claim time, p50 and p99 of claims of 100 through the store, with 0, 20,000 and 100,000 leases
 *   held, beside the statement that left a claimed row's due time alone;
 * - sustained checks per second of N engine worker processes whose device check answers after a
 *   simulated latency (no network), beside the hand-written claim-and-record loop
 *   (bench/scale-worker.ts) in as many processes, on the same table; CPU per check of the workers
 *   and of their PostgreSQL backends;
 * - scheduling lag p99, at half the engine's measured rate, with every row still in the table;
 * - from the per-check costs, the worker processes and cores 1,000,000 devices at 60 s need.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../stores/kysely/schema.ts';
import { createTestDatabase } from '../test/support/postgres.ts';
import { nodeArgs } from '../test/support/node-args.ts';
import type { BenchRun } from './benchmark.ts';
import { migrateToLatest, openKyselyStore } from './compiled.ts';
import { cpuMicros } from './processes.ts';

type Db = Kysely<Database>;

/** Every device due an hour ago, one microsecond apart in id order: the claim's order is the id's. */
const SEEDED_DUE = sql`now() - interval '1 hour' + id * interval '1 microsecond'`;
const LATENCY_MS = 20;
const DUE_EVERY_S = 60;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

async function seed(db: Db, count: number): Promise<void> {
  const { rows } = await sql<{
    id: string;
  }>`insert into users (name, created_at) values ('scale', now()) returning id`.execute(db);
  await sql`insert into devices (user_id, target_type, target_value, service_type, scheme, port, proxy_enabled,
      check_public_http, check_public_https, check_public_tls, check_origin_http, check_origin_tls, is_enabled,
      created_at, check_interval_s, status, next_check_at)
    select ${rows[0]!.id}, 'domain', 'd' || n || '.scale.bench.test', 'tcp', null, 1, false,
      false, false, false, false, false, true, now(), ${DUE_EVERY_S}, 'up', now()
    from generate_series(1, ${count}) as n`.execute(db);
  await reset(db);
}

/** Every device due again as seeded, unleased and `up`, with no result. */
async function reset(db: Db): Promise<void> {
  await sql`truncate check_results`.execute(db);
  await sql`update devices set next_check_at = ${SEEDED_DUE}, status = 'up', consecutive_failures = 0,
    lease_owner = null, lease_token = null, lease_expires_at = null`.execute(db);
  await sql`vacuum analyze devices`.execute(db);
  // The reset's writes go to disk now, not during the next measurement.
  await sql`checkpoint`.execute(db);
}

/** What a written check does to the claimed rows: due again in an hour, lease dropped. */
async function complete(db: Db, ids: readonly number[]): Promise<void> {
  await sql`update devices set next_check_at = now() + interval '1 hour', lease_owner = null, lease_token = null,
    lease_expires_at = null where id = any(${ids})`.execute(db);
}

/** The claim as it was: the due time left alone, so every claim walks past every leased row. */
async function claimLeavingDueTime(db: Db): Promise<number[]> {
  const now = new Date().toISOString();
  const { rows } = await sql<{ id: string }>`update devices
    set lease_owner = 'bench', lease_token = ${crypto.randomUUID()}, lease_expires_at = now() + interval '2 minutes'
    where id in (select id from devices
      where next_check_at <= ${now} and (lease_expires_at is null or lease_expires_at <= ${now})
      order by next_check_at, id limit 100 for update skip locked)
    returning id`.execute(db);
  return rows.map((row) => Number(row.id));
}

interface ClaimTimes {
  held: number;
  engine: { p50: number; p99: number };
  previous: { p50: number; p99: number };
}

async function claimTimes(
  opened: Awaited<ReturnType<typeof openKyselyStore>>,
  levels: readonly number[],
  samples: number,
): Promise<ClaimTimes[]> {
  const db = opened.db;
  const store = opened.store;
  const out: ClaimTimes[] = [];
  let held = 0;
  const hold = { owner: 'held', now: '', limit: 1000, leaseUntil: '2100-01-01T00:00:00.000Z' };
  // A warm-up, so the first level does not pay for the plans and the pool.
  for (let i = 0; i < 20; i += 1) {
    const claimed = await store.claimDueDevices({ ...hold, owner: 'bench', now: new Date().toISOString(), limit: 100 });
    await complete(
      db,
      claimed.map((c) => c.lease.id),
    );
    await complete(db, await claimLeavingDueTime(db));
  }
  for (const level of levels) {
    while (held < level) {
      const claimed = await store.claimDueDevices({
        ...hold,
        now: new Date().toISOString(),
        limit: Math.min(1000, level - held),
      });
      held += claimed.length;
    }
    await sql`vacuum analyze devices`.execute(db);
    const engineTimes: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      const now = new Date();
      const t0 = performance.now();
      const claimed = await store.claimDueDevices({
        owner: 'bench',
        now: now.toISOString(),
        limit: 100,
        leaseUntil: new Date(now.getTime() + 120_000).toISOString(),
      });
      engineTimes.push(performance.now() - t0);
      await complete(
        db,
        claimed.map((c) => c.lease.id),
      );
    }
    // The same leases held the way the previous claim held them: due time where it was, before
    // every row not leased (they were claimed because they were due first).
    await sql`update devices set next_check_at = now() - interval '2 hours' + id * interval '1 microsecond'
      where lease_owner = 'held'`.execute(db);
    await sql`vacuum analyze devices`.execute(db);
    const previousTimes: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      const t0 = performance.now();
      const ids = await claimLeavingDueTime(db);
      previousTimes.push(performance.now() - t0);
      await complete(db, ids);
    }
    await sql`update devices set next_check_at = lease_expires_at where lease_owner = 'held'`.execute(db);
    const stats = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    };
    out.push({ held: level, engine: stats(engineTimes), previous: stats(previousTimes) });
  }
  return out;
}

interface WorkerRun {
  /** Checks written per second over the measured window. */
  perSecond: number;
  workerCpu: number;
  postgresCpu: number;
  lags: Map<number, number>;
}

function startWorker(side: 'engine' | 'hand-written', url: string, id: string) {
  const child = spawn(process.execPath, [...nodeArgs('bench/scale-worker.ts'), url, id, side, String(LATENCY_MS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    wake?.();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = async (n: number): Promise<string> => {
    while (lines.length < n) {
      if (child.exitCode !== null) throw new Error(`scale worker ${id} exited with ${child.exitCode}`);
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), exited]);
    }
    return lines[n - 1]!;
  };
  return { child, line, exited };
}

async function resultCount(db: Db): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from check_results`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * `workers` processes of one side run on the table as it is, for a warm-up and then `seconds`
 * measured: checks written in that window (result rows), and the CPU the workers and their
 * backends used in it.
 */
async function runWorkers(
  db: Db,
  url: string,
  side: 'engine' | 'hand-written',
  workers: number,
  warmS: number,
  seconds: number,
  beforeGo: () => Promise<void> = async () => {},
): Promise<WorkerRun> {
  const started = Array.from({ length: workers }, (_, i) => startWorker(side, url, `scale-${side}-${i}`));
  try {
    for (const worker of started) if ((await worker.line(1)) !== 'ready') throw new Error('a worker did not start');
    const { rows: backends } = await sql<{ pid: number }>`select pid from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`.execute(db);
    await beforeGo();
    for (const worker of started) worker.child.stdin.write('go\n');
    await sleep(warmS * 1000);
    const cpu = () => ({
      postgres: backends.reduce((sum, { pid }) => sum + (cpuMicros(pid) ?? 0), 0),
      workers: started.reduce((sum, w) => sum + (cpuMicros(w.child.pid!) ?? 0), 0),
    });
    const before = { count: await resultCount(db), cpu: cpu(), at: performance.now() };
    await sleep(seconds * 1000);
    const after = { count: await resultCount(db), cpu: cpu(), at: performance.now() };
    const checks = Math.max(1, after.count - before.count);
    for (const worker of started) worker.child.stdin.end();
    const summaries = await Promise.all(
      started.map(async (w) => JSON.parse(await w.line(2)) as { lags: Record<string, number> }),
    );
    const lags = new Map<number, number>();
    for (const summary of summaries) {
      for (const [ms, n] of Object.entries(summary.lags)) lags.set(Number(ms), (lags.get(Number(ms)) ?? 0) + n);
    }
    return {
      perSecond: (after.count - before.count) / ((after.at - before.at) / 1000),
      workerCpu: (after.cpu.workers - before.cpu.workers) / checks,
      postgresCpu: (after.cpu.postgres - before.cpu.postgres) / checks,
      lags,
    };
  } finally {
    for (const worker of started) worker.child.stdin.end();
    await Promise.all(started.map((w) => w.exited));
  }
}

function lagPercentile(lags: Map<number, number>, p: number): number {
  const total = [...lags.values()].reduce((a, b) => a + b, 0);
  let seen = 0;
  for (const ms of [...lags.keys()].sort((a, b) => a - b)) {
    seen += lags.get(ms)!;
    if (seen >= (total * p) / 100) return ms;
  }
  return Number.NaN;
}

export async function benchScale({ smoke, report }: BenchRun): Promise<void> {
  const size = smoke
    ? { devices: 20_000, levels: [0, 400, 2_000], samples: 5, workers: 2, warmS: 1, seconds: 2, lagS: 3 }
    : { devices: 1_000_000, levels: [0, 20_000, 100_000], samples: 200, workers: 2, warmS: 5, seconds: 20, lagS: 30 };
  const database = await createTestDatabase();
  if (database.skip !== undefined) {
    report('scale (PostgreSQL)', 'skipped', database.skip);
    return;
  }
  // Seeding, resetting and vacuuming a million rows take longer than a request's query timeout.
  const opened = await openKyselyStore(database.url, { queryTimeoutMs: 3_600_000 });
  const db = opened.db;
  try {
    await migrateToLatest(opened.db);
    const t0 = performance.now();
    await seed(db, size.devices);
    const rows = `${size.devices.toLocaleString('en')} devices`;
    report(`scale: seed (${rows}, bulk insert, vacuum)`, `${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const claims = await claimTimes(opened, size.levels, size.samples);
    const base = claims[0]!.engine;
    for (const c of claims) {
      report(
        `scale: claim of 100 (${rows}, ${c.held.toLocaleString('en')} leases held)`,
        `p50 ${c.engine.p50.toFixed(2)} ms`,
        `p99 ${c.engine.p99.toFixed(2)} ms`,
        `p50 ${(c.engine.p50 / base.p50).toFixed(2)}x of none held`,
        `previous claim p50 ${c.previous.p50.toFixed(2)} ms, p99 ${c.previous.p99.toFixed(2)} ms`,
        'target within 1.5x',
      );
    }

    await reset(db);
    const hand = await runWorkers(db, database.url, 'hand-written', size.workers, size.warmS, size.seconds);
    await reset(db);
    const engine = await runWorkers(db, database.url, 'engine', size.workers, size.warmS, size.seconds);
    const what = `scale: sustained checks (${rows}, ${size.workers} worker processes, ${LATENCY_MS} ms simulated latency)`;
    const costs = (r: WorkerRun) =>
      [`workers ${r.workerCpu.toFixed(0)} us/check`, `PostgreSQL ${r.postgresCpu.toFixed(0)} us/check`] as const;
    report(what, 'hand-written pg', `${Math.round(hand.perSecond)} checks/s`, '1.00', ...costs(hand));
    report(
      what,
      'engine',
      `${Math.round(engine.perSecond)} checks/s`,
      (engine.perSecond / hand.perSecond).toFixed(2),
      ...costs(engine),
      'target >= 0.70',
    );

    // The lag: every row stays, but only half the engine's measured rate comes due, spread evenly
    // from a second after the workers are told to go (the rows are made due once they are ready).
    await reset(db);
    const rate = Math.max(1, Math.floor(engine.perSecond / 2));
    const dueCount = Math.min(size.devices, rate * size.lagS);
    await sql`update devices set next_check_at = now() + interval '1 day'`.execute(db);
    await sql`vacuum analyze devices`.execute(db);
    await sql`checkpoint`.execute(db);
    const lag = await runWorkers(db, database.url, 'engine', size.workers, 0, size.lagS + 3, async () => {
      await sql`update devices set next_check_at = now() + interval '1 second'
        + ((id - (select min(id) from devices)) * cast(${1000 / rate} as double precision)) * interval '1 millisecond'
        where id < (select min(id) from devices) + ${dueCount}`.execute(db);
    });
    report(
      `scale: scheduling lag (${rows}, ${rate} checks/s due: half the measured rate)`,
      `p50 ${(lagPercentile(lag.lags, 50) / 1000).toFixed(2)} s`,
      `p99 ${(lagPercentile(lag.lags, 99) / 1000).toFixed(2)} s`,
      `max ${(Math.max(...lag.lags.keys()) / 1000).toFixed(2)} s`,
    );

    // 1,000,000 devices at 60 s: the rate, times each side's CPU per check.
    const needed = 1_000_000 / 60;
    const workerCores = (needed * engine.workerCpu) / 1e6;
    const databaseCores = (needed * engine.postgresCpu) / 1e6;
    const perWorker = Math.min(1e6 / engine.workerCpu, 100 / (LATENCY_MS / 1000));
    report(
      'scale: 1,000,000 devices at 60 s (16,667 checks/s) from the measured costs',
      `${workerCores.toFixed(1)} worker cores`,
      `${Math.ceil(needed / perWorker)} worker processes at concurrency 100`,
      `${databaseCores.toFixed(1)} PostgreSQL cores`,
    );
  } finally {
    await opened.store.close();
    await database.drop();
  }
}
