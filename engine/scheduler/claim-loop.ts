import type { EngineLogger } from '../logger.ts';
import type { ResolvedEngineOptions } from '../options.ts';
import type { EngineService } from '../service.ts';
import type { Runner } from './kind-runner.ts';
import type { Slots } from './slots.ts';
import { wakeableSleep } from '../wakeable-sleep.ts';

/** Finished checks waiting to be written, per write batch, beyond which claiming waits. */
const UNWRITTEN_BATCHES = 4;

export interface ClaimLoopOptions {
  resolved: ResolvedEngineOptions;
  /** The kinds claimed, each with its own write buffer; they share the slots. */
  runners: readonly Runner[];
  slots: Slots;
  logger: EngineLogger;
  /** Runs before every round of claims, as of its time; its failure is the round's. */
  beforeClaims(nowMs: number): Promise<unknown>;
  /** Told the time at the start of every turn of the loop (the summary line). */
  everyTurn(nowMs: number): void;
}

/**
 * The claim loop (docs/engine.md, "Scheduling"): claims due records under a lease, kind by kind,
 * as the slots and the write buffers have room, and starts their checks. `start()` claims again
 * and again, sleeping a poll interval whenever a turn found less than it could take; `stop()`
 * stops claiming, lets the checks in flight end and writes them. `runOnce(now)` claims everything
 * due by `now` and resolves once it is checked and written. A failing claim is logged once per
 * streak, and once when claiming works again.
 */
export function claimLoop(options: ClaimLoopOptions): EngineService {
  const { resolved, runners, slots, logger } = options;
  const { clock } = resolved;
  const maxUnwritten = UNWRITTEN_BATCHES * resolved.writeBatchSize;
  // A claim waits until a quarter of the slots (or a batch) is open: claiming one record each time
  // one check ends would cost a store round trip per check. The worker claims that much ahead of
  // its free slots, so that the checks claimed last wait for a slot while the next claim is out
  // and the slots stay full (docs/engine.md, "Scheduling").
  const claimAtFree = Math.max(1, Math.min(resolved.batchSize, Math.ceil(resolved.concurrency / 4)));
  const open = () => slots.free + claimAtFree - slots.queued;
  const hasRoom = (runner: Runner) => open() >= claimAtFree && runner.unwritten < maxUnwritten;
  // The checks just started run up to their first wait before the next claim is sized: those that
  // need no I/O (a refused target, an injected resolver) end there, and the claim then fills the
  // slots they freed instead of going out for the quarter claimed ahead alone.
  const checksStarted = () => new Promise<void>((resolve) => setImmediate(resolve));
  /** Claims for `runner` as much as is open, at most a batch; says how many it claimed of how many. */
  const claim = async (runner: Runner, dueByMs?: number) => {
    const limit = Math.min(resolved.batchSize, open());
    return { limit, claimed: await runner.claimAndStart(limit, dueByMs) };
  };
  const finishInFlight = async () => {
    await slots.waitUntil(() => slots.used === 0);
    await Promise.all(runners.map((runner) => runner.drain()));
  };

  let stopping = false;
  let looping: Promise<void> | undefined;
  const { sleep, wake } = wakeableSleep();

  async function loop(): Promise<void> {
    let turn = 0;
    let claimsFailing = false;
    // While the worker is busy, an empty claim of this location's pairs is not repeated before the
    // engine's clock has moved one poll interval on (docs/engine.md, "Locations"): a worker whose
    // devices have no check_locations would otherwise pay a claim per turn for nothing.
    let locationsQuietUntil = Number.NEGATIVE_INFINITY;
    let wasBusy = false;
    while (!stopping) {
      const now = clock.now();
      options.everyTurn(now);
      let busy = false;
      try {
        await options.beforeClaims(now);
        // Kinds take turns at going first, so a backlog of one cannot starve the other.
        for (let i = 0; i < runners.length && !stopping; i++) {
          const runner = runners[(turn + i) % runners.length]!;
          const locations = runner.name === 'device location';
          if (locations && wasBusy && clock.now() < locationsQuietUntil) continue;
          await slots.waitUntil(() => stopping || hasRoom(runner));
          if (stopping) break;
          const { claimed, limit } = await claim(runner);
          if (claimed === limit) busy = true;
          if (locations)
            locationsQuietUntil = claimed === 0 ? clock.now() + resolved.pollIntervalMs : Number.NEGATIVE_INFINITY;
          await checksStarted();
        }
        if (claimsFailing) {
          claimsFailing = false;
          logger.info?.('claiming due checks works again');
        }
      } catch (error) {
        // Once per streak: a database that is away for an hour must not write a stack a second.
        if (!claimsFailing)
          logger.error?.('claiming due checks failed; trying again every poll interval until it works', error);
        claimsFailing = true;
        busy = false;
      }
      turn++;
      wasBusy = busy;
      if (!busy && !stopping) await sleep(resolved.pollIntervalMs);
    }
    await finishInFlight();
  }

  return {
    name: 'claim loop',
    start() {
      if (looping !== undefined) return;
      stopping = false;
      looping = loop();
    },
    async stop() {
      stopping = true;
      wake();
      slots.wake();
      await looping;
      looping = undefined;
    },
    async runOnce(nowMs) {
      try {
        await options.beforeClaims(nowMs);
        for (const runner of runners) {
          for (;;) {
            await slots.waitUntil(() => hasRoom(runner));
            // Due by the start of the run, and no later: a run always ends.
            const { claimed, limit } = await claim(runner, nowMs);
            await checksStarted();
            if (claimed < limit) break;
          }
        }
      } finally {
        await finishInFlight();
      }
    },
  };
}
