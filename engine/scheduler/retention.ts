import type { MonitoringStore, WebhookDeliveryStore } from '../../core/index.ts';

/**
 * Deletes check results older than the retention, in small batches so no statement holds locks
 * for long, one batch at a time, until a batch comes back short (docs/engine.md, "Scheduling").
 * There is no cap on batches per sweep: a busy installation writes results faster than any fixed
 * number of batches every ten minutes would delete them. `stopping` is asked between batches: an
 * engine that stops does not wait for a large backlog. Says how many it deleted.
 */
export async function pruneResults(
  store: MonitoringStore,
  nowMs: number,
  retentionHours: number,
  batchSize: number,
  stopping: () => boolean = () => false,
): Promise<number> {
  const before = new Date(nowMs - retentionHours * 3_600_000).toISOString();
  return deleteInBatches((limit) => store.deleteCheckResultsBefore(before, limit), batchSize, stopping);
}

/**
 * Deletes webhook delivery attempts that ended before the result retention, in batches as results
 * are: an attempt is a record of one outbound try, kept as long as the check results it reports
 * on, and without expiry the table grows for as long as the installation runs. A store without
 * `deleteWebhookAttemptsBefore` keeps them. Says how many it deleted.
 */
export async function pruneWebhookAttempts(
  store: Pick<WebhookDeliveryStore, 'deleteWebhookAttemptsBefore'>,
  nowMs: number,
  retentionHours: number,
  batchSize: number,
  stopping: () => boolean = () => false,
): Promise<number> {
  if (store.deleteWebhookAttemptsBefore === undefined) return 0;
  const before = new Date(nowMs - retentionHours * 3_600_000).toISOString();
  return deleteInBatches((limit) => store.deleteWebhookAttemptsBefore!(before, limit), batchSize, stopping);
}

/**
 * Calls `deleteBatch` until a batch comes back short or `stopping` says so, between batches; says
 * how many rows the batches deleted in all. Results, webhook attempts and reports are expired
 * alike.
 */
export async function deleteInBatches(
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
