/**
 * Shares reads among their callers while promising each caller a read that started after its
 * request arrived. A caller may name that moment (`arrivedAt`, from `performance.now()`): a read
 * that started at or after it, still running or done, serves it without another round trip.
 * Otherwise a caller that asks while a read is in flight waits for the next one, which starts when
 * the current one ends and serves everyone who asked meanwhile. Under load one database round trip
 * answers many requests, and none of them gets a value older than its own arrival (so never older
 * than a write whose answer it could have seen).
 */
export class FreshRead<T> {
  #running: Promise<T> | undefined;
  #runningStartedAt = 0;
  #queued: Promise<T> | undefined;
  /** The latest read that succeeded, and when it started; a failed one is never handed out again. */
  #done: { value: Promise<T>; startedAt: number } | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  get(arrivedAt?: number): Promise<T> {
    if (arrivedAt !== undefined) {
      if (this.#running !== undefined && this.#runningStartedAt >= arrivedAt) return this.#running;
      if (this.#done !== undefined && this.#done.startedAt >= arrivedAt) return this.#done.value;
    }
    if (this.#running === undefined) return this.#start();
    this.#queued ??= this.#running.then(() => undefined, () => undefined).then(() => {
      this.#queued = undefined;
      return this.#start();
    });
    return this.#queued;
  }

  #start(): Promise<T> {
    const startedAt = performance.now();
    const running = this.read();
    this.#running = running;
    this.#runningStartedAt = startedAt;
    void running.then(
      () => {
        if (this.#done === undefined || this.#done.startedAt <= startedAt) this.#done = { value: running, startedAt };
      },
      () => undefined,
    ).finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    return running;
  }
}
