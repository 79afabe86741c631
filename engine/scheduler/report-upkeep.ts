import type { MonitoringStore } from '../../core/index.ts';
import { deleteInBatches } from './retention.ts';

// The engine's share of the reports (docs/engine.md, "Reports"): rolling finished hours of raw
// results up, and deleting report rows past the report retention. A store without `ReportUpkeep`
// keeps raw results only, and both are then nothing to do.

/** How often a running engine asks the store to roll up finished hours. */
export const ROLLUP_INTERVAL_MS = 60_000;
/** Hours rolled per store call, one call a minute: a backlog is caught up a day a minute. */
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
 * Rolls up the finished hours that ended at least `graceMs` before `nowMs` and are not rolled
 * yet, oldest first, at most a day of them: one store call, so a worker that was away catches up
 * a day a minute without spending its loop on the backlog (an hour waits in the raw results
 * meanwhile, and reports read it there). Says how many hours it rolled.
 */
export async function rollUpHours(store: MonitoringStore, nowMs: number, graceMs: number): Promise<number> {
  if (store.rollUpResults === undefined) return 0;
  return store.rollUpResults(new Date(nowMs - graceMs).toISOString(), ROLLUP_HOURS_PER_CALL);
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
  return deleteInBatches((limit) => store.deleteReportsBefore!(before, limit), batchSize, stopping);
}
