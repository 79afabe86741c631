import type { MonitoringStore } from '../../core/index.ts';

// The engine's share of the reports (docs/engine.md, "Reports"): rolling finished hours of raw
// results up, and deleting report rows past the report retention. A store without `ReportUpkeep`
// keeps raw results only, and both are then nothing to do.

/** How often a running engine asks the store to roll up finished hours. */
export const ROLLUP_INTERVAL_MS = 60_000;
/** Hours rolled per store call: a worker back from a day away catches up a day per call. */
export const ROLLUP_HOURS_PER_CALL = 24;

/**
 * How long after an hour ends it is rolled up. A result is stamped when its check ran, and its
 * write may land as late as the end of the check's lease (a later write is refused), plus the
 * write batch's delay; a minute on top covers the clocks of workers on other hosts. An hour rolled
 * before its last write landed would miss that write for good.
 */
export function rollupGraceMs(leaseMs: number, writeDelayMs: number): number {
  return leaseMs + writeDelayMs + 60_000;
}

/**
 * Rolls up every finished hour that ended at least `graceMs` before `nowMs` and is not rolled yet,
 * a day's worth per store call, until the store says none is left or the engine stops. Says how
 * many hours it rolled.
 */
export async function rollUpHours(
  store: MonitoringStore,
  nowMs: number,
  graceMs: number,
  stopping: () => boolean = () => false,
): Promise<number> {
  if (store.rollUpResults === undefined) return 0;
  const before = new Date(nowMs - graceMs).toISOString();
  let total = 0;
  for (;;) {
    const rolled = await store.rollUpResults(before, ROLLUP_HOURS_PER_CALL);
    total += rolled;
    if (rolled < ROLLUP_HOURS_PER_CALL || stopping()) return total;
  }
}

/**
 * Deletes report rows (rollups, closed incidents, listing periods, timeline changes) older than
 * the report retention, in batches as results are (retention.ts). Says how many it deleted.
 */
export async function pruneReports(
  store: MonitoringStore,
  nowMs: number,
  retentionHours: number,
  batchSize: number,
  stopping: () => boolean = () => false,
): Promise<number> {
  if (store.deleteReportsBefore === undefined) return 0;
  const before = new Date(nowMs - retentionHours * 3_600_000).toISOString();
  let total = 0;
  for (;;) {
    const deleted = await store.deleteReportsBefore(before, batchSize);
    total += deleted;
    if (deleted < batchSize || stopping()) return total;
  }
}
