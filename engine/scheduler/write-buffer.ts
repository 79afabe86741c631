import type { RecordedCheck } from '../../core/index.ts';
import type { EngineLogger } from '../logger.ts';

/** What became of finished checks: written, refused by the fence (lease lost), or lost to a store failure. */
export interface WriteTally {
  written: number;
  fenced: number;
  failed: number;
}

export interface WriteBufferOptions<O> {
  kind: string;
  write(checks: readonly RecordedCheck<O>[]): Promise<boolean[]>;
  /** Checks written per store call at most. */
  size: number;
  /** How long a finished check may wait for others to share its write. */
  delayMs: number;
  logger: EngineLogger;
  tally: WriteTally;
  /** Called after each write, so a claim loop held back by unwritten checks can go on. */
  onWritten(): void;
  /** Told of each batch's fate: which checks were written, or the error that lost them all. */
  onOutcome?(batch: readonly RecordedCheck<O>[], written: readonly boolean[] | Error): void;
}

/**
 * Store writes of one kind in flight at once. One at a time made a worker's throughput one batch
 * per database round trip; two let a batch be sent while the last is committing (each batch holds
 * other records, whose rows its statement locks in id order).
 */
const WRITES_IN_FLIGHT = 2;

/**
 * Finished checks gathered into batched store writes (one statement for many checks is what
 * lets a worker record thousands a second). A write takes up to a batch of what has gathered by
 * the time it starts; at most two are in flight, and when one ends, what gathered meanwhile goes
 * at once. A failed write is logged and dropped: those records' leases lapse and they are checked
 * again.
 */
export class WriteBuffer<O> {
  readonly #options: WriteBufferOptions<O>;
  #pending: RecordedCheck<O>[] = [];
  #unwritten = 0;
  #writing = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** `drain()` calls waiting for a write to end. */
  #waiting: Array<() => void> = [];

  constructor(options: WriteBufferOptions<O>) {
    this.#options = options;
  }

  /** Checks handed in and not yet written (or given up). */
  get unwritten(): number {
    return this.#unwritten;
  }

  add(check: RecordedCheck<O>): void {
    this.#pending.push(check);
    this.#unwritten++;
    if (this.#pending.length >= this.#options.size) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), this.#options.delayMs);
  }

  /** Writes everything handed in so far; resolves when done, a write under way included. */
  async drain(): Promise<void> {
    this.#flush();
    while (this.#writing > 0 || this.#pending.length > 0) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
      this.#flush();
    }
  }

  /** Starts writes of what is pending, as many as may be in flight; the rest waits for one to end. */
  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#pending.length > 0 && this.#writing < WRITES_IN_FLIGHT) {
      this.#writing++;
      void this.#write(this.#pending.splice(0, this.#options.size)).then(() => {
        this.#writing--;
        // What gathered during the write goes now: it has waited a round trip already.
        if (this.#pending.length > 0) this.#flush();
        for (const wake of this.#waiting.splice(0)) wake();
      });
    }
  }

  /** Never rejects: a failure is counted and logged. */
  async #write(batch: RecordedCheck<O>[]): Promise<void> {
    const tally = this.#options.tally;
    try {
      const written = await this.#options.write(batch);
      for (const ok of written) {
        if (ok) tally.written++;
        else tally.fenced++;
      }
      this.#options.onOutcome?.(batch, written);
    } catch (error) {
      tally.failed += batch.length;
      this.#options.onOutcome?.(batch, error instanceof Error ? error : new Error(String(error)));
      this.#options.logger.error?.(
        `writing ${this.#options.kind} checks failed; they are checked again once their leases lapse`,
        error,
      );
    } finally {
      this.#unwritten -= batch.length;
      this.#options.onWritten();
    }
  }
}
