import type { EngineLogger } from '../logger.ts';
import type { CheckSummary } from './check-summary.ts';

/** How often a worker writes its summary line (docs/operations.md, "Logs"). */
const SUMMARY_INTERVAL_MS = 60_000;

/**
 * The worker's summary line: one `info` line a minute by the engine's clock, saying what it
 * checked, what failed and how late it started checks. The claim loop offers it the time at every
 * turn, and `runOnce()` at its end; it writes only once a minute has passed since the last.
 */
export function summaryLine(summary: CheckSummary, logger: EngineLogger, workerId: string): (nowMs: number) => void {
  return (nowMs) => {
    if (nowMs - summary.since < SUMMARY_INTERVAL_MS) return;
    const line = summary.take(nowMs);
    const said = `${line.failed} found failing, ${line.ours} failed on this worker's side, ${line.lost} lost`;
    logger.info?.(`checked ${line.checks} records in ${line.period_s} s: ${said}`, { worker_id: workerId, ...line });
  };
}
