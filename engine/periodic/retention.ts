import type { EngineLogger } from '../logger.ts';
import type { ResolvedEngineOptions } from '../options.ts';
import type { EngineService } from '../service.ts';
import { periodic } from './periodic.ts';

/** The store's deletions, each of up to `limit` rows older than `before`, saying how many it deleted. */
type Deletion =
  'deleteCheckResultsBefore' | 'deleteWebhookAttemptsBefore' | 'deleteHeartbeatPingsBefore' | 'deleteReportsBefore';

/**
 * The retention sweep (docs/engine.md, "Scheduling" and "Reports"): when the engine starts and
 * then every `retentionSweepMs`, it deletes check results older than the result retention, then
 * webhook delivery attempts and heartbeat pings older than the same retention (an attempt reports
 * on one try of a delivery, and a ping on one run of a job, as a result on one probe of a check,
 * and each is kept as long), then report rows (rollups,
 * closed incidents, listing periods, timeline changes) older than the report retention. A store
 * without `deleteWebhookAttemptsBefore` or `deleteReportsBefore` keeps those. Each expiry logs
 * what it deleted, or its failure, which the next sweep tries again. `deletedResults` counts the
 * check results it has deleted, for `runOnce()`'s summary.
 */
export function retentionSweep(
  resolved: ResolvedEngineOptions,
  logger: EngineLogger,
): EngineService & { readonly deletedResults: number } {
  const { store, resultRetentionHours: hours, reportRetentionHours: reportHours, retentionBatchSize: batch } = resolved;
  let deletedResults = 0;

  /** One expiry, logged; says how many rows it deleted (none when it failed). */
  const expire =
    (what: string, keptHours: number, deletion: Deletion) =>
    async (nowMs: number, stopping: () => boolean): Promise<number> => {
      const deleteBefore = store[deletion];
      if (deleteBefore === undefined) return 0;
      try {
        const before = new Date(nowMs - keptHours * 3_600_000).toISOString();
        const deleted = await deleteInBatches((limit) => deleteBefore.call(store, before, limit), batch, stopping);
        if (deleted > 0) logger.info?.(`deleted ${deleted} ${what} older than ${keptHours} hours`, { deleted });
        return deleted;
      } catch (error) {
        logger.error?.(`deleting old ${what} failed; the next sweep tries again`, error);
        return 0;
      }
    };
  const results = expire('check results', hours, 'deleteCheckResultsBefore');
  const attempts = expire('webhook attempts', hours, 'deleteWebhookAttemptsBefore');
  const pings = expire('heartbeat pings', hours, 'deleteHeartbeatPingsBefore');
  const reports = expire('report rows', reportHours, 'deleteReportsBefore');

  const service = periodic({
    name: 'retention sweep',
    clock: resolved.clock,
    everyMs: resolved.retentionSweepMs,
    pollMs: resolved.pollIntervalMs,
    async run(nowMs, stopping) {
      deletedResults += await results(nowMs, stopping);
      await attempts(nowMs, stopping);
      await pings(nowMs, stopping);
      await reports(nowMs, stopping);
    },
  });
  return {
    ...service,
    get deletedResults() {
      return deletedResults;
    },
  };
}

/**
 * Calls `deleteBatch` until a batch comes back short or `stopping` says so, between batches; says
 * how many rows it deleted in all. Small batches keep any one statement from holding locks for
 * long; there is no cap on batches per sweep, since a busy installation writes results faster than
 * any fixed number of batches every ten minutes would delete them; and an engine that stops does
 * not wait for a large backlog.
 */
async function deleteInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  batchSize: number,
  stopping: () => boolean,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(batchSize);
    total += deleted;
    if (deleted < batchSize || stopping()) return total;
  }
}
