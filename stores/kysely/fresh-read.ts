/** A read that has begun, and when (`performance.now()`). */
interface Started<T> {
  value: Promise<T>;
  startedAt: number;
}

const ignore = () => undefined;

/**
 * Resolves in the event loop's check phase once `previous` has settled (at once when there is
 * none): after the I/O callbacks of the turn in which that happened have run.
 */
const afterTurnOf = (previous: Promise<unknown> | undefined) =>
  new Promise<void>((resolve) => {
    const later = () => void setImmediate(resolve);
    if (previous === undefined) later();
    else previous.then(later, later);
  });

/**
 * Shares reads among their callers while promising each caller a read that started after its
 * request arrived. A caller may name that moment (`arrivedAt`, from `performance.now()`): a read
 * that started at or after it, still running or done, serves it without another read. Otherwise it
 * shares the next read, which every caller joins until it starts.
 *
 * The next read starts once the one running has ended (reads never pile up) and, in any case, only
 * after the I/O callbacks of the turn in which it was asked for: a server reads the requests of
 * many connections in one turn, and each of them arrived before the read begins, so one read
 * serves them all. Started at once, it would serve only the first: every request read after it in
 * the same turn arrived after it began. None gets a value older than its own arrival, so never
 * older than a write whose answer it could have seen.
 */
export class FreshRead<T> {
  /** The read that callers join until it starts. */
  #next: Promise<T> | undefined;
  #running: Started<T> | undefined;
  /** The latest read that succeeded; a failed one is never handed out again. */
  #done: Started<T> | undefined;

  private readonly read: () => Promise<T>;
  constructor(read: () => Promise<T>) {
    this.read = read;
  }

  get(arrivedAt?: number): Promise<T> {
    if (arrivedAt !== undefined) {
      if (this.#running !== undefined && this.#running.startedAt >= arrivedAt) return this.#running.value;
      if (this.#done !== undefined && this.#done.startedAt >= arrivedAt) return this.#done.value;
    }
    this.#next ??= this.#startNext();
    return this.#next;
  }

  #startNext(): Promise<T> {
    return afterTurnOf(this.#running?.value).then(() => this.#begin());
  }

  #begin(): Promise<T> {
    this.#next = undefined;
    // The moment is taken before the read begins: a caller that arrived by then arrived before it.
    const startedAt = performance.now();
    const started: Started<T> = { value: this.read(), startedAt };
    this.#running = started;
    void started.value
      .then(() => {
        if (this.#done === undefined || this.#done.startedAt <= started.startedAt) this.#done = started;
      }, ignore)
      .finally(() => {
        if (this.#running === started) this.#running = undefined;
      });
    return started.value;
  }
}
