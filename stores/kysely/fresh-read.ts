/**
 * Shares one read among the callers that are waiting for it, while promising each caller a read
 * that started after it asked. A caller that arrives while a read is in flight waits for the next
 * one, which starts when the current one ends and serves everyone who arrived meanwhile: under
 * load, one database round trip answers many requests, and none of them gets a value older than
 * its own arrival (so never older than a write whose answer it could have seen).
 */
export class FreshRead<T> {
  #running: Promise<T> | undefined;
  #queued: Promise<T> | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.#running === undefined) return this.#start();
    this.#queued ??= this.#running.then(() => undefined, () => undefined).then(() => {
      this.#queued = undefined;
      return this.#start();
    });
    return this.#queued;
  }

  #start(): Promise<T> {
    const running = this.read().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}
