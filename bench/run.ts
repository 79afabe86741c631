/**
 * `npm run bench`: the benchmarks of docs/performance.md, each a file of its own, run in the order
 * of `BENCHMARKS` below and printed as rows of figures.
 *
 *   npm run bench -- [--rounds N] [--seconds S] [--smoke]
 *     [--only me,list,create,update,stream,status,engine,scale,reports,notifications,heartbeats,pings]
 *
 * The default list is the API's: the standalone server against a bare node:http server that
 * answers the same bytes, and Hono, each loaded in turn from this process (a second process to the
 * servers) with autocannon (bench/api/, one file a benchmark, bench/api/compare.ts the rounds and
 * ratios they share). Figures are ratios to a baseline measured in the same run, median of rounds.
 * `engine` (not in the default list: it takes a few minutes) measures the monitoring engine
 * (bench/engine.ts, docs/performance.md, "The engine"); `scale` (nor is it: it seeds a million rows)
 * the engine at 1,000,000 devices (bench/scale.ts, docs/performance.md, "Scale"); `reports` (not
 * either: it seeds a year of reports and a day of results at 10,000 devices) the reports' queries,
 * storage, expiry and write cost (bench/reports.ts); `notifications` (not either) chat messages
 * against webhook deliveries and a burst over 100 channels (bench/notifications.ts); `heartbeats`
 * (not either: it pings 100,000 heartbeats for a minute) pings against GET /me and lateness at
 * scale (bench/heartbeats.ts); `pings` the first of those alone.
 *
 * `--smoke` runs every step for a fraction of a second, so the test suite can keep this script
 * from rotting without timing anything. With `BENCH_CPU_PROF=<dir>` each API server it starts
 * writes a V8 CPU profile there when it stops (`--cpu-prof`): where a request's CPU goes.
 *
 * It runs from the sources, as do the baseline servers and scripts it starts (Node strips their
 * types: test/support/node-args.ts); the API's own server runs from dist/, as the package ships it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isBuildFresh, ROOT } from '../test/support/built-cli.ts';
import type { Benchmark, BenchRun } from './benchmark.ts';
import type { RunningServer } from './processes.ts';

/**
 * Every benchmark by its `--only` name, in the order they run. Each is loaded when it runs: the
 * engine's import the compiled package (bench/compiled.ts), which is built first. A new benchmark
 * is a file exporting a `Benchmark` and a line here.
 */
const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  me: async () => (await import('./api/me.ts')).benchMe,
  list: async () => (await import('./api/list.ts')).benchList,
  create: async () => (await import('./api/create.ts')).benchCreate,
  update: async () => (await import('./api/update.ts')).benchUpdate,
  stream: async () => (await import('./api/stream.ts')).benchStream,
  status: async () => (await import('./api/status.ts')).benchStatus,
  engine: async () => (await import('./engine.ts')).benchEngine,
  reports: async () => (await import('./reports.ts')).benchReports,
  scale: async () => (await import('./scale.ts')).benchScale,
  notifications: async () => (await import('./notifications.ts')).benchNotifications,
  heartbeats: async () => (await import('./heartbeats.ts')).benchHeartbeats,
  pings: async () => (await import('./heartbeats.ts')).benchPings,
};

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '1.5' },
    smoke: { type: 'boolean', default: false },
    only: { type: 'string', default: 'me,list,create,update,stream' },
  },
});
const only = new Set(flags.only!.split(','));
const smoke = flags.smoke!;

const started: RunningServer[] = [];
const run: BenchRun = {
  smoke,
  rounds: smoke ? 1 : Number(flags.rounds),
  seconds: smoke ? 0.1 : Number(flags.seconds),
  report: (...cells) => console.log(cells.map(String).join('  ')),
  selected: (name) => only.has(name),
  work: await mkdtemp(join(tmpdir(), 'monitoring-bench-')),
  stopAtEnd: (server) => {
    started.push(server);
    return server;
  },
};

try {
  // The bench smoke runs beside other test files that start dist/cli/main.js, which `npm test`
  // has just built: rebuilding in place then could hand one of them a half-written file.
  if (!isBuildFresh())
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(
    `monitoring-api bench: ${run.rounds} round(s) of ${run.seconds}s per target, median; load from a second process (autocannon, 32 connections)`,
  );
  for (const [name, load] of Object.entries(BENCHMARKS)) if (only.has(name)) await (await load())(run);
} finally {
  await Promise.all(started.map((server) => server.stop()));
  await rm(run.work, { recursive: true, force: true });
}
