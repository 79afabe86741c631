import type { MonitoringStore } from '../../core/index.ts';

/** Batches deleted per sweep at most: a large backlog is worked off over several sweeps. */
const MAX_BATCHES_PER_SWEEP = 20;

/**
 * Deletes check results older than the retention, in small batches so no statement holds locks
 * for long (docs/engine.md, "What the API shows"). Says how many it deleted.
 */
export async function pruneResults(store: MonitoringStore, nowMs: number, retentionDays: number, batchSize: number): Promise<number> {
  const before = new Date(nowMs - retentionDays * 86_400_000).toISOString();
  let total = 0;
  for (let i = 0; i < MAX_BATCHES_PER_SWEEP; i++) {
    const deleted = await store.deleteCheckResultsBefore(before, batchSize);
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}
