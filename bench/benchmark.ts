/**
 * What a benchmark is to `npm run bench` (bench/run.ts): a function of its own file, given the
 * run's settings and its printer. A benchmark prints its figures as rows through `report` and
 * nothing else decides its output; run.ts only chooses which run, in its list's order.
 */
import type { RunningServer } from './processes.ts';

/** Prints one row of figures, its cells two spaces apart. */
export type Report = (...cells: (string | number)[]) => void;

export interface BenchRun {
  /** `--smoke`: every step once, for a fraction of a second, figures meaning nothing. */
  smoke: boolean;
  /** Measured rounds per comparison (1 in the smoke run). */
  rounds: number;
  /** Seconds of load per target and round (0.1 in the smoke run). */
  seconds: number;
  report: Report;
  /** Whether the benchmark `name` runs in this run too (`--only`, or the default list). */
  selected(name: string): boolean;
  /** A directory of this run's own (databases, captured answers), removed after the run. */
  work: string;
  /** Has `server` stopped when the run ends, however it ends; returns it. */
  stopAtEnd(server: RunningServer): RunningServer;
}

/** One benchmark: `--only <name>` runs it (bench/run.ts, `BENCHMARKS`). */
export type Benchmark = (run: BenchRun) => Promise<void>;
