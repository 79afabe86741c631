import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openKyselyStore } from '../stores/kysely/index.ts';
import { migrateToLatest } from '../stores/kysely/migrations.ts';
import type { BenchRun } from './benchmark.ts';
import { GRACE_S, PERIOD_S, seedHeartbeats } from './heartbeats-seed.ts';
import { median } from './median.ts';
import { cpuMicros, machineCpuMicros, stopChild, type RunningServer } from './processes.ts';
import { serveApi } from './api/serve.ts';

export interface LatenessResult {
  heartbeats: number;
  /** Pings answered 200, sent, and due (every heartbeat but the un-pinged), and the rate they were sent at. */
  pinged: number;
  sent: number;
  due: number;
  perSecond: number;
  /** Answer times of the pings, ms. */
  answerP50: number;
  answerP99: number;
  /** Pinged heartbeats whose `last_ping_at` is a ping of this run: each recorded. */
  recorded: number;
  /** Heartbeats left un-pinged, and `heartbeat.down` events found for them. */
  unpinged: number;
  found: number;
  /** Heartbeats down at the deadline their ping, answered 200, was to meet: none is right. */
  falseDowns: number;
  /** Seconds from each missed deadline to its `heartbeat.down` event's commit (seen within 100 ms). */
  lateP50: number;
  lateP99: number;
  lateMax: number;
  /** CPU over the pinging window, in cores: the server's, the worker's, the rest of the machine's (PostgreSQL). */
  cores: { server: number; worker: number; others: number };
}

/** A `monitoring-api worker` process on `database`, its log in the run's directory. */
function startWorker(run: BenchRun, database: string): RunningServer {
  const out = openSync(join(run.work, 'worker.log'), 'w');
  const child = spawn(process.execPath, ['dist/cli/main.js', 'worker', '--database', database], {
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  return run.stopAtEnd({
    url: '',
    pid: child.pid!,
    stop: () => stopChild(child),
  });
}

/** Pings unanswered at once at most: the load generator's clients. */
const IN_FLIGHT = 64;

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * `count` heartbeats at a 60 s period on PostgreSQL (`database`, migrated here), the API serving
 * their pings (dist/cli/main.js serve) and one `monitoring-api worker` process finding lateness.
 * Over `windowS` seconds this process pings each heartbeat once, spread evenly, except every
 * `skipEvery`-th, which misses its deadline (`windowS` after its place in the spread, so the
 * deadlines fall as evenly as the pings). Then it waits for every missed deadline's
 * `heartbeat.down` and measures how late each came.
 */
export async function benchLateness(
  run: BenchRun,
  database: string,
  count: number,
  windowS: number,
  skipEvery: number,
): Promise<LatenessResult> {
  const opened = await openKyselyStore(database);
  const { db } = opened;
  const started: RunningServer[] = [];
  try {
    await migrateToLatest(db);
    // Due two minutes after the seed: the spread below moves every deadline before any passes.
    const seeded = await seedHeartbeats(database, count, new Date());
    const api = await serveApi(run, database);
    started.push(api.server);
    const worker = startWorker(run, database);
    started.push(worker);
    const origin = new URL(api.server.url).origin;
    const stepMs = (windowS * 1000) / count;
    // Start when the worker has had a few seconds to start; each heartbeat's deadline is then its
    // place in the spread plus the window, its last success one period and grace before that.
    const t0 = Date.now() + 3_000;
    await sql`
      update heartbeats set
        next_due_at = ${new Date(t0 + windowS * 1000).toISOString()}::timestamptz
          + (id - ${seeded.firstId}::bigint) * ${stepMs}::float8 * interval '1 millisecond',
        late_check_at = ${new Date(t0 + windowS * 1000).toISOString()}::timestamptz
          + (id - ${seeded.firstId}::bigint) * ${stepMs}::float8 * interval '1 millisecond',
        last_success_at = ${new Date(t0 + (windowS - PERIOD_S - GRACE_S) * 1000).toISOString()}::timestamptz
          + (id - ${seeded.firstId}::bigint) * ${stepMs}::float8 * interval '1 millisecond'
      where user_id = ${seeded.userId}`.execute(db);
    const deadline = (k: number) => t0 + windowS * 1000 + k * stepMs;

    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const answers: number[] = [];
    let sent = 0;
    let pinged = 0;
    const failures = new Map<string, number>();
    const answered = new Set<number>();
    const ping = (token: string, k: number) =>
      new Promise<void>((resolve) => {
        const sentAt = performance.now();
        sent++;
        const req = request(`${origin}/ping/${token}`, { agent }, (res) => {
          res.resume();
          res.once('end', () => {
            if (res.statusCode === 200) {
              pinged++;
              answered.add(k);
            } else failures.set(String(res.statusCode), (failures.get(String(res.statusCode)) ?? 0) + 1);
            answers.push(performance.now() - sentAt);
            resolve();
          });
        });
        req.once('error', (error) => {
          failures.set(error.message, (failures.get(error.message) ?? 0) + 1);
          resolve();
        });
        req.end();
      });

    // A heartbeat.down event's created_at is the deadline it missed (its incident starts there), so
    // when the worker found it is when its event was committed: the outbox is read every 100 ms.
    const seen = new Map<number, number>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const rows = await sql<{ resource_id: string | number }>`
          select resource_id from events where type = 'heartbeat.down'
            and (resource_id - ${seeded.firstId}::bigint) % ${skipEvery}::bigint = 0`.execute(db);
        const at = Date.now();
        for (const row of rows.rows) if (!seen.has(Number(row.resource_id))) seen.set(Number(row.resource_id), at);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, t0 - Date.now())));
    const cpu = { server: cpuMicros(api.server.pid), worker: cpuMicros(worker.pid), machine: machineCpuMicros() };
    const load = process.cpuUsage();
    // Every 10 ms, the pings whose place in the spread has come, at most IN_FLIGHT unanswered, as
    // many clients would: a server that cannot keep up falls behind, and a ping still unsent at its
    // heartbeat's deadline is never sent (that heartbeat goes late as the un-pinged do).
    const inFlight = new Set<Promise<void>>();
    let k = 0;
    while (k < count) {
      const due = Math.min(count, Math.floor((Date.now() - t0) / stepMs) + 1);
      for (; k < due && inFlight.size < IN_FLIGHT; k++) {
        if (k % skipEvery === 0 || Date.now() >= deadline(k)) continue;
        const token = seeded.tokens[k]!;
        const sending: Promise<void> = ping(token, k).finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
      if (k < due && inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(inFlight);
    const elapsedS = (Date.now() - t0) / 1000;
    const used = (before: number | undefined, after: number | undefined) =>
      before === undefined || after === undefined ? Number.NaN : (after - before) / 1e6 / elapsedS;
    const server = used(cpu.server, cpuMicros(api.server.pid));
    const workerCores = used(cpu.worker, cpuMicros(worker.pid));
    const loadUsed = process.cpuUsage(load);
    const others =
      used(cpu.machine, machineCpuMicros()) - server - workerCores - (loadUsed.user + loadUsed.system) / 1e6 / elapsedS;
    agent.destroy();
    if (failures.size > 0) console.log(`  pings not answered 200: ${JSON.stringify(Object.fromEntries(failures))}`);

    const unpinged = Math.ceil(count / skipEvery);
    // Until the last deadline has passed and every missed one is announced; a guard, never a bound on speed.
    const guard = deadline(count - 1) + 600_000;
    while ((Date.now() < deadline(count - 1) || seen.size < unpinged) && Date.now() < guard) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    watching = false;
    await watcher;
    const late = [...seen].map(([id, at]) => (at - deadline(id - seeded.firstId)) / 1000);
    // A pinged heartbeat goes down again a period and grace after its ping, which for the first
    // pinged falls before the wait above ends: that is right. Wrong is a down stamped with the
    // deadline its answered ping met (a `heartbeat.down`'s created_at is the deadline it missed).
    const downs = await sql<{ resource_id: string | number; created_at: Date | string }>`
      select resource_id, created_at from events where type = 'heartbeat.down'`.execute(db);
    const falseDowns = downs.rows.filter((row) => {
      const k = Number(row.resource_id) - seeded.firstId;
      return answered.has(k) && new Date(row.created_at).getTime() < deadline(k) + 1000;
    }).length;
    late.sort((a, b) => a - b);
    const recorded = await sql<{ n: string | number }>`
      select count(*) as n from heartbeats
      where user_id = ${seeded.userId} and last_ping_at >= ${new Date(t0).toISOString()}::timestamptz`.execute(db);
    answers.sort((a, b) => a - b);
    return {
      heartbeats: count,
      pinged,
      sent,
      due: count - Math.ceil(count / skipEvery),
      perSecond: sent / elapsedS,
      answerP50: median(answers),
      answerP99: percentile(answers, 0.99),
      recorded: Number(recorded.rows[0]!.n),
      unpinged,
      found: late.length,
      falseDowns,
      lateP50: percentile(late, 0.5),
      lateP99: percentile(late, 0.99),
      lateMax: late.at(-1) ?? Number.NaN,
      cores: { server, worker: workerCores, others },
    };
  } finally {
    // Before the database is dropped: their pools would reconnect.
    await Promise.all(started.map((server) => server.stop()));
    await opened.store.close();
  }
}
