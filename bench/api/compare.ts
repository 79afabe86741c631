/**
 * How the API's benchmarks (bench/api/) take their figures (docs/performance.md, "How the figures
 * are taken"): load from this process with autocannon (bench/load.ts), the CPU each party spends
 * per request, rounds of every target in turn, and the median of the per-round ratios to a
 * baseline measured in the same round.
 */
import { availableParallelism } from 'node:os';
import type { BenchRun } from '../benchmark.ts';
import { measure, type LoadOptions, type Measured } from '../load.ts';
import { median } from '../median.ts';
import { cpuMicros, machineCpuMicros, pinToCpus, type RunningServer } from '../processes.ts';

/**
 * `measure`, which in the smoke run sends a hundred requests and stops: it only has to show that
 * every part answers. Timed loads kept both cores busy for the whole tenth of a second each (and,
 * at autocannon's default tick, for a whole second), a score of times a run.
 */
export const measureLoad = (run: BenchRun, options: LoadOptions) =>
  measure(run.smoke ? { tickMs: 20, ...options, requests: 100 } : options);

/**
 * On a machine of two or more cores, the servers under comparison get core 0 and this process
 * (the load generator) core 1 while they are measured, so no run depends on where the scheduler
 * happened to put the two; on this 2-core machine that took the bare figure's swing between runs
 * from about 30% to a few percent. Without taskset, nothing is pinned and the figures say so.
 */
/** Read once: while this process is pinned to one core, availableParallelism() says 1. */
const CORES = availableParallelism();

export async function pinned<T>(servers: RunningServer[], measureThem: () => Promise<T>): Promise<T> {
  const pin = CORES >= 2 && servers.every((server) => pinToCpus(server.pid, '0')) && pinToCpus(process.pid, '1');
  if (!pin) console.log('  (not pinned to cores: taskset missing or one core only)');
  try {
    return await measureThem();
  } finally {
    if (pin) pinToCpus(process.pid, `0-${CORES - 1}`);
  }
}

/** CPU times are per answered request, in microseconds, NaN where /proc cannot be read. */
export interface ServerMeasured extends Measured {
  /** The server process's. */
  serverCpu: number;
  /** This process's: the load generator's. */
  loadCpu: number;
  /** The whole machine's, PostgreSQL and the kernel included. */
  machineCpu: number;
}

/** `measure`, with the CPU each party spent on it, per request answered. */
export async function measureServer(run: BenchRun, options: LoadOptions, pid: number): Promise<ServerMeasured> {
  const server = cpuMicros(pid);
  const machine = machineCpuMicros();
  const load = process.cpuUsage();
  const measured = await measureLoad(run, { ...options, seconds: run.seconds });
  const loadUsed = process.cpuUsage(load);
  const perRequest = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? Number.NaN : (after - before) / measured.requests;
  return {
    ...measured,
    serverCpu: perRequest(server, cpuMicros(pid)),
    loadCpu: (loadUsed.user + loadUsed.system) / measured.requests,
    machineCpu: perRequest(machine, machineCpuMicros()),
  };
}

export interface Target extends LoadOptions {
  /** The server's process, whose CPU time per request is measured alongside. */
  pid: number;
}

export interface Compared {
  /** Median requests per second of each target. */
  rate: Record<string, number>;
  /** Median over rounds of each target's rate divided by the baseline's in the same round. */
  ratio: Record<string, number>;
  /** Median over rounds of the baseline's server CPU per request divided by each target's. */
  cpuRatio: Record<string, number>;
  /** Median server CPU time per request, in microseconds. */
  cpu: Record<string, number>;
  /** The lowest and highest per-round CPU ratio: how far one round can be trusted. */
  cpuSpread: Record<string, [number, number]>;
}

/**
 * Loads each target in turn, round after round, after one short unmeasured round that warms the
 * JIT of every server. The ratio is taken within each round (the baseline and the others measured
 * seconds apart) and its median reported: drift in the machine over the run, which moved the
 * bare server's own figure by a third between the first and the last round, then cancels out.
 * Each server's CPU time per request is measured too: it moves far less with the machine's noise
 * than requests per second do, and says the same thing for a server that saturates its core.
 */
export async function compare(run: BenchRun, targets: Record<string, Target>, baseline = 'bare'): Promise<Compared> {
  const names = Object.keys(targets);
  // The smoke run's figures mean nothing, warmed or not: its one round runs the same load.
  if (!run.smoke)
    for (const options of Object.values(targets))
      await measureLoad(run, { ...options, seconds: Math.min(run.seconds, 1) });
  const series = () => Object.fromEntries(names.map((name) => [name, [] as number[]]));
  const samples = series();
  const ratios = series();
  const cpus = series();
  const cpuRatios = series();
  for (let round = 0; round < run.rounds; round++) {
    const rate: Record<string, number> = {};
    const cpu: Record<string, number> = {};
    for (const [name, options] of Object.entries(targets)) {
      const measured = await measureServer(run, options, options.pid);
      rate[name] = measured.perSecond;
      cpu[name] = measured.serverCpu;
    }
    for (const name of names) {
      samples[name]!.push(rate[name]!);
      ratios[name]!.push(rate[name]! / rate[baseline]!);
      cpus[name]!.push(cpu[name]!);
      cpuRatios[name]!.push(cpu[baseline]! / cpu[name]!);
    }
    if (process.env.BENCH_VERBOSE) {
      console.log(
        `  round ${round + 1}: ${names.map((name) => `${name} ${Math.round(rate[name]!)}/s ${cpu[name]!.toFixed(1)} us`).join(', ')}`,
      );
    }
  }
  const medians = (values: Record<string, number[]>) =>
    Object.fromEntries(names.map((name) => [name, median(values[name]!)]));
  const cpuSpread = Object.fromEntries(
    names.map((name): [string, [number, number]] => [
      name,
      [Math.min(...cpuRatios[name]!), Math.max(...cpuRatios[name]!)],
    ]),
  );
  return {
    rate: medians(samples),
    ratio: medians(ratios),
    cpu: medians(cpus),
    cpuRatio: medians(cpuRatios),
    cpuSpread,
  };
}

/** Requests per second, their ratio to the baseline, and the server's CPU per request and its ratio. */
export const row = (name: string, result: Compared) => [
  Math.round(result.rate[name]!),
  result.ratio[name]!.toFixed(2),
  `cpu ${result.cpu[name]!.toFixed(1)} us/req (ratio ${result.cpuRatio[name]!.toFixed(2)}, rounds ${result.cpuSpread[name]!.map((r) => r.toFixed(2)).join('-')})`,
];
