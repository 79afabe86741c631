/**
 * The bound on checks in flight (docs/engine.md, "Scheduling"): a slot is taken when a check
 * starts and given back when it ends, so a silent target holds one slot for one timeout and the
 * rest of the worker goes on.
 */
export class Slots {
  readonly size: number;
  #used = 0;
  #waiters: Array<() => void> = [];

  constructor(size: number) {
    this.size = size;
  }

  get free(): number {
    return this.size - this.#used;
  }

  get used(): number {
    return this.#used;
  }

  take(): void {
    this.#used++;
  }

  release(): void {
    this.#used--;
    this.wake();
  }

  /** Wakes every waiter to look again (a slot came free, or the engine is stopping). */
  wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once `until()` holds; it is asked again at every release or `wake()`. */
  async waitUntil(until: () => boolean): Promise<void> {
    while (!until()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}
