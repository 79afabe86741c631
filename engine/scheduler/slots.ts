/**
 * The bound on checks in flight (docs/engine.md, "Scheduling"): a slot is taken when a check
 * starts and given back when it ends, so a silent target holds one slot for one timeout and the
 * rest of the worker goes on.
 *
 * Claimed checks that find every slot taken wait here, first in first out, and a slot that comes
 * free goes straight to the next of them: the engine claims a little ahead of its free slots, so
 * its slots stay full while the next claim is out and a claim fetches a batch rather than a
 * record or two (docs/engine.md, "Scheduling").
 */
export class Slots {
  readonly size: number;
  #used = 0;
  #waiters: Array<() => void> = [];
  /** Starts waiting for a slot; `#head` is the next to go (a queue without a shift per start). */
  #queue: Array<(() => void) | undefined> = [];
  #head = 0;

  constructor(size: number) {
    this.size = size;
  }

  get free(): number {
    return this.size - this.#used;
  }

  get used(): number {
    return this.#used;
  }

  /** Checks claimed and waiting for a slot. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * Calls `start` at once with a slot taken for it, or later, when a slot comes free. The work it
   * starts gives the slot back by `release()`. `start` must not throw.
   */
  run(start: () => void): void {
    if (this.#used < this.size) {
      this.#used++;
      start();
    } else {
      this.#queue.push(start);
    }
  }

  /** Gives a slot back: to the next start waiting, if any, else to the pool. */
  release(): void {
    if (this.#head < this.#queue.length) {
      const start = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined;
      if (this.#head === this.#queue.length) {
        this.#queue.length = 0;
        this.#head = 0;
      }
      start();
    } else {
      this.#used--;
    }
    this.wake();
  }

  /** Wakes every waiter to look again (a slot came free, or the engine is stopping). */
  wake(): void {
    if (this.#waiters.length === 0) return;
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once `until()` holds; it is asked again at every release or `wake()`. */
  async waitUntil(until: () => boolean): Promise<void> {
    while (!until()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}
