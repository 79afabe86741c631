import { wakeableSleep } from './wakeable-sleep.ts';

/**
 * The round both outbox dispatchers run (the webhooks' and the channels', docs/webhooks.md and
 * docs/notifications.md, "Delivery"): every event not yet fanned out, batch by batch (a full batch
 * means more may wait), then a pool of sends rather than batches: a slot that frees is claimed
 * again at once, so one slow endpoint never holds the others back. A send that succeeds may make
 * the endpoint's next item due, so claiming goes on until nothing is due and nothing is in flight.
 * `signal` stops the fanning and the claiming; the sends in flight are awaited.
 */
export async function dispatchRound<T>(round: {
  signal: AbortSignal;
  /** Fans out up to `batch` events; says how many it handled. */
  fanOut(): Promise<number>;
  batch: number;
  concurrency: number;
  claim(limit: number): Promise<T[]>;
  /** Sends one claimed item and records what became of it. */
  send(item: T): Promise<void>;
  /** Told when a send rejects: recording its outcome failed. */
  failed(item: T, error: unknown): void;
}): Promise<void> {
  let fanned = round.batch;
  while (fanned === round.batch && !round.signal.aborted) fanned = await round.fanOut();
  const inFlight = new Set<Promise<void>>();
  while (!round.signal.aborted) {
    const free = round.concurrency - inFlight.size;
    const claimed = free > 0 ? await round.claim(free) : [];
    for (const item of claimed) {
      const running: Promise<void> = round
        .send(item)
        .catch((error: unknown) => round.failed(item, error))
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    }
    if (inFlight.size === 0) break;
    if (claimed.length === 0 || inFlight.size >= round.concurrency) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
}

/**
 * A dispatcher's loop: a round, then a wait of `pollMs` that `stop()` ends at once; a round that
 * throws is logged and the next one comes. `stop()` aborts `stopping` and resolves once the round
 * under way has ended.
 */
export function roundLoop(loop: {
  stopping: AbortController;
  pollMs: number;
  runOnce(): Promise<void>;
  failed(error: unknown): void;
}): { start(): void; stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const { sleep, wake } = wakeableSleep();
  return {
    start() {
      if (running !== undefined) return;
      running = (async () => {
        while (!loop.stopping.signal.aborted) {
          try {
            await loop.runOnce();
          } catch (error) {
            loop.failed(error);
          }
          if (loop.stopping.signal.aborted) break;
          await sleep(loop.pollMs);
        }
      })();
    },
    async stop() {
      loop.stopping.abort();
      wake();
      await running;
    },
  };
}
