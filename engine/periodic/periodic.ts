import type { Clock } from '../../core/index.ts';
import type { EngineService } from '../service.ts';
import { wakeableSleep } from '../wakeable-sleep.ts';

export interface PeriodicJob<T> {
  readonly name: string;
  readonly clock: Clock;
  /** How often it runs, by the engine's clock. */
  readonly everyMs: number;
  /** How often a started job looks at the clock: the engine's poll interval. */
  readonly pollMs: number;
  /**
   * One run as of `nowMs`. It never rejects: it logs its own failure, and the next run tries
   * again. `stopping()` turns true when the engine stops, for a long run to end early.
   */
  run(nowMs: number, stopping: () => boolean): Promise<T>;
}

/**
 * A job the engine runs every `everyMs` by its own clock, so that a test's held clock holds it
 * too: once as soon as it starts, then whenever `everyMs` has passed since the last run began,
 * never two runs at once. It looks at the clock every `pollMs`. `runOnce(now)` runs it at once and
 * counts as its last run, so a `start()` after it waits out the interval.
 */
export function periodic<T>(job: PeriodicJob<T>): EngineService & { runOnce(nowMs: number): Promise<T> } {
  let lastMs = Number.NEGATIVE_INFINITY;
  let stopping = false;
  let running: Promise<unknown> | undefined;
  let loop: Promise<void> | undefined;
  const { sleep, wake } = wakeableSleep();

  const runOnce = (nowMs: number) => {
    lastMs = nowMs;
    return job.run(nowMs, () => stopping);
  };

  return {
    name: job.name,
    runOnce,
    start() {
      if (loop !== undefined) return;
      stopping = false;
      loop = (async () => {
        while (!stopping) {
          const now = job.clock.now();
          if (running === undefined && now - lastMs >= job.everyMs) {
            running = runOnce(now).finally(() => (running = undefined));
          }
          await sleep(job.pollMs);
        }
        await running;
      })();
    },
    async stop() {
      stopping = true;
      wake();
      await loop;
      loop = undefined;
    },
  };
}
