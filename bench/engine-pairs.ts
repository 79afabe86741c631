import { median } from './median.ts';

/** One timed run: how many operations it did and how long it took. */
export interface Timed {
  operations: number;
  ms: number;
  /** CPU time this process spent on the run (user + system), in microseconds. */
  cpuMicros: number;
}

export interface PairedResult {
  /** Median operations per second of each side. */
  engine: number;
  bare: number;
  /** Median over rounds of engine ÷ bare within the round. */
  ratio: number;
  /** Median CPU time of this process per operation, in microseconds. */
  engineCpu: number;
  bareCpu: number;
  /**
   * Median over rounds of bare CPU ÷ engine CPU per operation. On a machine other work shares,
   * CPU time per operation moves far less than operations per second do (bench/api/compare.ts reports
   * it for the same reason); where the loop is CPU-bound it says what the rate ratio would be.
   */
  cpuRatio: number;
}

export async function timed(operations: number, run: () => Promise<void>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { operations, ms, cpuMicros: used.user + used.system };
}

/**
 * The engine and its bare baseline, round after round after one unmeasured warm-up of each, in
 * alternating order (neither always runs on the warmer or the more loaded machine); the ratio is
 * taken within each round and its median reported, as bench/api/compare.ts does for the servers. Other
 * work on the machine then moves both sides of a round alike and cancels out of the ratio.
 */
export async function paired(
  rounds: number,
  engine: () => Promise<Timed>,
  bare: () => Promise<Timed>,
): Promise<PairedResult> {
  await engine();
  await bare();
  const rates = { engine: [] as number[], bare: [] as number[], ratio: [] as number[] };
  const cpus = { engine: [] as number[], bare: [] as number[], ratio: [] as number[] };
  const cpuPerOp = (t: Timed) => t.cpuMicros / t.operations;
  const rate = (t: Timed) => t.operations / (t.ms / 1000);
  for (let round = 0; round < rounds; round++) {
    let e: Timed;
    let b: Timed;
    if (round % 2 === 0) {
      e = await engine();
      b = await bare();
    } else {
      b = await bare();
      e = await engine();
    }
    rates.engine.push(rate(e));
    rates.bare.push(rate(b));
    rates.ratio.push(rate(e) / rate(b));
    cpus.engine.push(cpuPerOp(e));
    cpus.bare.push(cpuPerOp(b));
    cpus.ratio.push(cpuPerOp(b) / cpuPerOp(e));
    if (process.env.BENCH_VERBOSE)
      console.log(`  round ${round + 1}: engine ${Math.round(rate(e))}/s, bare ${Math.round(rate(b))}/s`);
  }
  return {
    engine: median(rates.engine),
    bare: median(rates.bare),
    ratio: median(rates.ratio),
    engineCpu: median(cpus.engine),
    bareCpu: median(cpus.bare),
    cpuRatio: median(cpus.ratio),
  };
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` at once: the bare loops' shape. */
export async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
