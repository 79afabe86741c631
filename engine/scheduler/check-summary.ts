import type { MonitoredKind } from '../../core/index.ts';
import type { CheckVerdict } from '../metrics.ts';

/**
 * Upper bounds of the scheduling-lag buckets, in milliseconds: from "on time" to an hour late.
 * The summary's p99 is the bound of the bucket it falls in, so it reads "at most".
 */
export const LAG_BUCKETS_MS = [
  10, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 3_600_000,
] as const;

/** What a worker did over one period, as its summary line says it. */
export interface CheckSummaryLine {
  period_s: number;
  /** Checks claimed in the period. */
  claimed: number;
  /** Checks written. */
  checks: number;
  /** Written checks with at least one failed probe or zone. */
  failed: number;
  /** Written checks that failed on the worker's side (resolver_unavailable, refused_by_policy, worker_overloaded). */
  ours: number;
  /** Checks lost to a failed write or a check that threw; their records are checked again later. */
  lost: number;
  /** The 99th percentile of how late claimed checks started, as the bound of its bucket; null when none. */
  lag_ms_p99: number | null;
  by_kind: Record<MonitoredKind | 'heartbeat', KindCounts>;
}

interface KindCounts {
  checks: number;
  failed: number;
  ours: number;
}

/** Counts of one period, reset by each `take`. */
export class CheckSummary {
  #since: number;
  #claimed = 0;
  #lost = 0;
  #lags = new Array<number>(LAG_BUCKETS_MS.length + 1).fill(0);
  #byKind: Record<MonitoredKind | 'heartbeat', KindCounts> = fresh();

  constructor(nowMs: number) {
    this.#since = nowMs;
  }

  get since(): number {
    return this.#since;
  }

  claimed(lagMs: number): void {
    this.#claimed++;
    let bucket = 0;
    while (bucket < LAG_BUCKETS_MS.length && lagMs > LAG_BUCKETS_MS[bucket]!) bucket++;
    this.#lags[bucket]!++;
  }

  written(kind: MonitoredKind | 'heartbeat', verdict: CheckVerdict): void {
    const counts = this.#byKind[kind];
    counts.checks++;
    if (verdict === 'failed') counts.failed++;
    else if (verdict === 'ours') counts.ours++;
  }

  lost(count: number): void {
    this.#lost += count;
  }

  /** The period's line; the next period starts at `nowMs`. */
  take(nowMs: number): CheckSummaryLine {
    const kinds = Object.values(this.#byKind);
    const sum = (count: keyof KindCounts) => kinds.reduce((total, counts) => total + counts[count], 0);
    const line: CheckSummaryLine = {
      period_s: Math.round((nowMs - this.#since) / 1000),
      claimed: this.#claimed,
      checks: sum('checks'),
      failed: sum('failed'),
      ours: sum('ours'),
      lost: this.#lost,
      lag_ms_p99: this.#p99(),
      by_kind: this.#byKind,
    };
    this.#since = nowMs;
    this.#claimed = 0;
    this.#lost = 0;
    this.#lags.fill(0);
    this.#byKind = fresh();
    return line;
  }

  #p99(): number | null {
    if (this.#claimed === 0) return null;
    const rank = Math.ceil(this.#claimed * 0.99);
    let seen = 0;
    for (let bucket = 0; bucket < this.#lags.length; bucket++) {
      seen += this.#lags[bucket]!;
      // Past the last bound: later than an hour, said as the last bound.
      if (seen >= rank) return LAG_BUCKETS_MS[Math.min(bucket, LAG_BUCKETS_MS.length - 1)]!;
    }
    return null;
  }
}

/** A heartbeat found late counts as a failed check of its kind. */
function fresh(): Record<MonitoredKind | 'heartbeat', KindCounts> {
  return {
    device: { checks: 0, failed: 0, ours: 0 },
    blacklist_monitor: { checks: 0, failed: 0, ours: 0 },
    heartbeat: { checks: 0, failed: 0, ours: 0 },
  };
}
