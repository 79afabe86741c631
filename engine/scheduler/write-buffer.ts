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
}

/**
 * Finished checks gathered into batched store writes (one statement for many checks is what
 * lets a worker record thousands a second). Writes go one at a time, each taking what has
 * gathered by the time it starts. A failed write is logged and dropped: those records' leases
 * lapse and they are checked again.
 */
export class WriteBuffer<O> {
  readonly #o: WriteBufferOptions<O>;
  #pending: RecordedCheck<O>[] = [];
  #unwritten = 0;
  #tail: Promise<void> = Promise.resolve();
  #queued = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: WriteBufferOptions<O>) {
    this.#o = options;
  }

  /** Checks handed in and not yet written (or given up). */
  get unwritten(): number {
    return this.#unwritten;
  }

  add(check: RecordedCheck<O>): void {
    this.#pending.push(check);
    this.#unwritten++;
    if (this.#pending.length >= this.#o.size) this.#schedule();
    else this.#timer ??= setTimeout(() => this.#schedule(), this.#o.delayMs);
  }

  /** Writes everything handed in so far; resolves when done. */
  async drain(): Promise<void> {
    // The tail is awaited even when nothing is pending: a write under way took its batch out of
    // `#pending` when it began, and "written" must include it.
    do {
      if (this.#pending.length > 0) this.#schedule();
      await this.#tail;
    } while (this.#pending.length > 0 || this.#queued);
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queued) return;
    this.#queued = true;
    this.#tail = this.#tail.then(async () => {
      this.#queued = false;
      while (this.#pending.length > 0) await this.#write(this.#pending.splice(0, this.#o.size));
    });
  }

  async #write(batch: RecordedCheck<O>[]): Promise<void> {
    const tally = this.#o.tally;
    try {
      const written = await this.#o.write(batch);
      for (const ok of written) {
        if (ok) tally.written++;
        else tally.fenced++;
      }
    } catch (error) {
      tally.failed += batch.length;
      this.#o.logger.error?.(`writing ${this.#o.kind} checks failed; they are checked again once their leases lapse`, error);
    } finally {
      this.#unwritten -= batch.length;
      this.#o.onWritten();
    }
  }
}
