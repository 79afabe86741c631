import { toTimestamp } from '../clock.ts';
import type { Store } from '../store/store.ts';

/**
 * Batches `last_used_at` writes: a key's use is written at most once per `minIntervalMs`, and
 * all pending writes go to the store together every `flushIntervalMs`, off the request path.
 */
export class KeyUsageRecorder {
  readonly #pending = new Map<number, string>();
  readonly #lastWritten = new Map<number, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  private readonly store: Store;
  private readonly onError: (error: unknown) => void;
  private readonly minIntervalMs: number;
  private readonly flushIntervalMs: number;

  constructor(store: Store, onError: (error: unknown) => void, minIntervalMs = 60_000, flushIntervalMs = 1_000) {
    this.store = store;
    this.onError = onError;
    this.minIntervalMs = minIntervalMs;
    this.flushIntervalMs = flushIntervalMs;
  }

  record(keyId: number, now: number): void {
    const last = this.#lastWritten.get(keyId);
    if (last !== undefined && now - last < this.minIntervalMs) return;
    this.#lastWritten.set(keyId, now);
    this.#pending.set(keyId, toTimestamp(now));
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush(), this.flushIntervalMs);
      // A pending write must not keep a process alive that is otherwise done.
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    const batch = new Map(this.#pending);
    this.#pending.clear();
    try {
      await this.store.recordKeyUsage(batch);
    } catch (error) {
      this.onError(error);
    }
  }
}
