import type { EngineLogger } from '../logger.ts';
import type { ResolvedEngineOptions } from '../options.ts';
import type { EngineService } from '../service.ts';
import { periodic } from './periodic.ts';

/** How often a running engine asks the store to roll up finished hours. */
const ROLLUP_INTERVAL_MS = 60_000;
/** Hours rolled per store call, one call a minute: a backlog is caught up a day a minute. */
const ROLLUP_HOURS_PER_CALL = 24;

/**
 * How long after an hour ends it is rolled up. A result is stamped when its check ran, and its
 * write may land as late as the end of the check's lease (a later write is refused), plus the
 * write batch's delay; a minute on top covers the clocks of workers on other hosts. An hour rolled
 * before its last write landed would miss that write for good.
 */
function rollupGraceMs(leaseMs: number, writeDelayMs: number): number {
  return leaseMs + writeDelayMs + 60_000;
}

/**
 * The engine's share of the reports' rollups (docs/engine.md, "Reports"): every minute, and on
 * every `runOnce()`, it asks the store to roll up the finished hours that ended at least the grace
 * ago and are not rolled yet, oldest first, at most a day of them. That is one store call, so a
 * worker that was away catches up a day a minute without spending its time on the backlog (an hour
 * waits in the raw results meanwhile, and reports read it there). Every worker asks, and the store
 * rolls each hour once. A store without `rollUpResults` keeps raw results only, and this does
 * nothing. A failure is logged once per streak, and once when it works again.
 */
export function rollups(resolved: ResolvedEngineOptions, logger: EngineLogger): EngineService {
  const { store } = resolved;
  const graceMs = rollupGraceMs(resolved.leaseMs, resolved.writeDelayMs);
  let failing = false;
  return periodic({
    name: 'rollups',
    clock: resolved.clock,
    everyMs: ROLLUP_INTERVAL_MS,
    pollMs: resolved.pollIntervalMs,
    async run(nowMs): Promise<number> {
      if (store.rollUpResults === undefined) return 0;
      try {
        const rolled = await store.rollUpResults(new Date(nowMs - graceMs).toISOString(), ROLLUP_HOURS_PER_CALL);
        if (failing) logger.info?.('rolling up finished hours works again');
        failing = false;
        return rolled;
      } catch (error) {
        // Once per streak, as for claims: the store is asked every minute.
        if (!failing) logger.error?.('rolling up finished hours failed; trying again every minute', error);
        failing = true;
        return 0;
      }
    },
  });
}
