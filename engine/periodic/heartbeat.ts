import { HEARTBEAT_INTERVAL_MS } from '../../core/internal.ts';
import type { EngineLogger } from '../logger.ts';
import type { ResolvedEngineOptions } from '../options.ts';
import type { EngineService } from '../service.ts';

/**
 * The worker's sign of life (docs/engine.md, "Locations"): its id, location and version, written
 * through the store, which stamps it with the database's clock. A store without `recordHeartbeat`
 * gets none. A failed heartbeat is logged once per streak and tried again at the next. `start()`
 * records one now and then one every 10 s by a timer of the host's; `runOnce()` records one now
 * and never rejects.
 */
export function heartbeat(resolved: ResolvedEngineOptions, logger: EngineLogger): EngineService {
  const record = resolved.store.recordHeartbeat?.bind(resolved.store);
  const startedAt = new Date(resolved.clock.now()).toISOString();
  let failing = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const beatOnce = async () => {
    if (record === undefined) return;
    try {
      await record({
        worker_id: resolved.workerId,
        location: resolved.location,
        version: resolved.version,
        started_at: startedAt,
      });
      if (failing) logger.info?.('recording the heartbeat works again');
      failing = false;
    } catch (error) {
      if (!failing) logger.error?.('recording the heartbeat failed; trying again every 10 s', error);
      failing = true;
    }
  };
  const beat = () => (inFlight = inFlight.then(beatOnce));
  return {
    name: 'heartbeat',
    runOnce: beat,
    start() {
      if (timer !== undefined) return;
      void beat();
      timer = setInterval(() => void beat(), HEARTBEAT_INTERVAL_MS);
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await inFlight;
    },
  };
}
