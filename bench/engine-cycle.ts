import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import type { OpenedKyselyStore } from '../stores/kysely/index.ts';
import { nodeArgs } from '../test/support/node-args.ts';
import { cpuMicros } from './processes.ts';

export interface CycleResult {
  records: number;
  perSecond: number;
  /** CPU time of the worker processes, per record, in microseconds. */
  workerCpu: number;
  /**
   * CPU time of the PostgreSQL backends serving the workers, per record, in microseconds (NaN
   * where /proc cannot be read). Not the whole machine's: other work on a shared machine would
   * count there. The WAL writer and checkpointer, shared by every database, are left out.
   */
  postgresCpu: number;
  /** CPU cores the workers and their backends kept busy on average: below the machine's, they waited. */
  cores: number;
  /** Records with more than one check written: must be 0. */
  checkedTwice: number;
}

interface WorkerSummary {
  claimed: number;
  written: number;
  fenced: number;
  failed: number;
  ms: number;
  cpuMicros: number;
}

/** Makes every monitor due again, with no result, so each run starts from the same table. */
async function reset(opened: OpenedKyselyStore, dueAt: string): Promise<void> {
  await sql`truncate check_results`.execute(opened.db);
  await sql`update blacklist_monitors set next_check_at = ${dueAt}, last_status = null, last_checked_at = null,
    listed_on = '[]', failed_zones = '[]', lease_owner = null, lease_token = null, lease_expires_at = null`.execute(
    opened.db,
  );
  // The update leaves a dead row per record: vacuumed, the next run scans the table it would
  // meet in service, not one twice its size.
  await sql`vacuum analyze blacklist_monitors`.execute(opened.db);
}

/** `count` due IP monitors for one user, in bulk. */
export async function seedCycle(opened: OpenedKyselyStore, count: number): Promise<void> {
  const user = await opened.store.createUser({ name: 'cycle', created_at: new Date().toISOString() });
  await sql`insert into blacklist_monitors (user_id, target_type, target_value, is_enabled, listed_on, created_at, next_check_at)
    select ${user.id}, 'ip', '10.' || (n / 65536) || '.' || (n / 256 % 256) || '.' || (n % 256), true, '[]', now(), now()
    from generate_series(1, ${count}) as n`.execute(opened.db);
}

/** Who does the cycle: the engine (bench/engine-cycle-worker.ts) or its hand-written baseline. */
export type CycleSide = 'engine' | 'hand-written';

const WORKER_SCRIPT: Record<CycleSide, string> = {
  engine: 'bench/engine-cycle-worker.ts',
  'hand-written': 'bench/engine-cycle-raw-worker.ts',
};

function startWorker(side: CycleSide, url: string, id: string, zones: number) {
  const child = spawn(process.execPath, [...nodeArgs(WORKER_SCRIPT[side]), url, id, String(zones)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      for (const wake of waiters.splice(0)) wake();
      resolve(code);
    }),
  );
  const line = async (n: number): Promise<string> => {
    while (lines.length < n) {
      if (child.exitCode !== null) throw new Error(`cycle worker ${id} exited with ${child.exitCode}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
    return lines[n - 1]!;
  };
  return { child, line, exited };
}

/**
 * The claim-and-record cycle on PostgreSQL: `workers` processes (bench/engine-cycle-worker.ts, or
 * its hand-written baseline) start together on `count` due monitors and each runs `runOnce()` until
 * nothing is left; the time is from the go to the last worker's end. Then the table says whether
 * any record was checked twice (more result rows than zones, or a claim counted twice).
 */
export async function benchCycle(
  opened: OpenedKyselyStore,
  url: string,
  count: number,
  workers: number,
  zones: number,
  side: CycleSide = 'engine',
): Promise<CycleResult> {
  await reset(opened, new Date(Date.now() - 60_000).toISOString());
  const started = Array.from({ length: workers }, (_, i) => startWorker(side, url, `cycle-${i}`, zones));
  try {
    for (const worker of started)
      if ((await worker.line(1)) !== 'ready') throw new Error('a cycle worker did not start');
    // The workers' pools are open by now (they said `ready`): these are the backends they use.
    // A backend that goes away during the run (none should) counts for nothing rather than NaN.
    const { rows: backends } = await sql<{ pid: number }>`select pid from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`.execute(
      opened.db,
    );
    const backendCpu = () => backends.map(({ pid }) => cpuMicros(pid));
    const postgresBefore = backendCpu();
    const t0 = performance.now();
    for (const worker of started) worker.child.stdin.write('go\n');
    const summaries = await Promise.all(started.map(async (w) => JSON.parse(await w.line(2)) as WorkerSummary));
    const ms = performance.now() - t0;
    const postgresUsed = backendCpu().reduce<number>(
      (sum, after, i) => sum + (after === undefined ? 0 : after - (postgresBefore[i] ?? after)),
      0,
    );
    const claimed = summaries.reduce((sum, s) => sum + s.claimed, 0);
    const written = summaries.reduce((sum, s) => sum + s.written, 0);
    const workerCpu = summaries.reduce((sum, s) => sum + s.cpuMicros, 0);
    const { rows } = await sql<{ twice: string; results: string; unchecked: string }>`select
      (select count(*) from (select resource_id from check_results where resource_kind = 'blacklist_monitor'
        group by resource_id having count(*) <> ${zones}) as t) as twice,
      (select count(*) from check_results where resource_kind = 'blacklist_monitor') as results,
      (select count(*) from blacklist_monitors where last_checked_at is null) as unchecked`.execute(opened.db);
    const row = rows[0]!;
    if (Number(row.unchecked) > 0 || written !== count || Number(row.results) !== count * zones) {
      throw new Error(`cycle: ${written} written, ${row.results} result rows, ${row.unchecked} unchecked of ${count}`);
    }
    return {
      records: count,
      perSecond: count / (ms / 1000),
      workerCpu: workerCpu / count,
      postgresCpu: postgresUsed / count,
      cores: (workerCpu + postgresUsed) / (ms * 1000),
      checkedTwice: Number(row.twice) + (claimed - count),
    };
  } finally {
    for (const worker of started) worker.child.stdin.end();
    await Promise.all(started.map((w) => w.exited));
  }
}
