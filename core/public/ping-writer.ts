import type { ReceivedPing } from '../records/index.ts';

/** What became of a ping handed to the writer. */
export type PingOutcome = 'recorded' | 'not_found' | 'busy' | 'failed';

/** After the current turn's I/O callbacks: setImmediate where the runtime has it (Node, Bun, Deno). */
const nextTurn: (run: () => void) => void =
  typeof setImmediate === 'function' ? (run) => setImmediate(run) : (run) => setTimeout(run, 0);

/** Pings written per store call at most. */
const BATCH = 500;

interface Waiting {
  ping: ReceivedPing;
  done(outcome: PingOutcome): void;
}

/**
 * Pings written to the store in batches, one batch at a time (docs/heartbeats.md, "Durability"): a
 * ping is answered once the batch that holds it is committed, and the pings that arrive while one
 * is being written go together in the next, so a busy server makes one transaction for many pings
 * instead of one each, and an idle one writes a ping at once. Pings are written in the order they
 * arrived. At most `limit` pings wait (the one being written included); beyond that a ping is
 * answered `busy` at once, so a slow store never holds an unbounded queue or a client's request
 * for long.
 */
export class PingWriter {
  readonly #write: (pings: readonly ReceivedPing[]) => Promise<boolean[]>;
  readonly #limit: number;
  readonly #onError: (error: unknown) => void;
  #pending: Waiting[] = [];
  #inFlight = 0;
  #writing: Promise<void> | undefined;
  #scheduled = false;

  constructor(
    write: (pings: readonly ReceivedPing[]) => Promise<boolean[]>,
    limit: number,
    onError: (error: unknown) => void,
  ) {
    this.#write = write;
    this.#limit = limit;
    this.#onError = onError;
  }

  /** Pings not yet written: waiting, or in the batch being written. */
  get waiting(): number {
    return this.#pending.length + this.#inFlight;
  }

  submit(ping: ReceivedPing): Promise<PingOutcome> {
    if (this.waiting >= this.#limit) return Promise.resolve('busy');
    return new Promise<PingOutcome>((done) => {
      this.#pending.push({ ping, done });
      // Pings of one turn of the event loop start together: each request is read by an I/O
      // callback of its own, and a batch begun from a microtask would hold only the first of them
      // (on SQLite the whole transaction runs before the next callback, one commit per ping).
      // setImmediate runs once the turn's I/O callbacks are done, at once on an idle server.
      if (!this.#scheduled && this.#writing === undefined) {
        this.#scheduled = true;
        nextTurn(() => {
          this.#scheduled = false;
          this.#next();
        });
      }
    });
  }

  /** Resolves once every ping handed in so far is written (or failed). */
  async drain(): Promise<void> {
    while (this.#writing !== undefined || this.#pending.length > 0) {
      if (this.#writing === undefined) this.#next();
      await this.#writing;
    }
  }

  #next(): void {
    if (this.#writing !== undefined || this.#pending.length === 0) return;
    const batch = this.#pending.splice(0, BATCH);
    this.#inFlight = batch.length;
    this.#writing = this.#run(batch).finally(() => {
      this.#inFlight = 0;
      this.#writing = undefined;
      this.#next();
    });
  }

  /** Never rejects: a failed write answers each of its pings `failed`. */
  async #run(batch: Waiting[]): Promise<void> {
    let found: boolean[];
    try {
      found = await this.#write(batch.map((waiting) => waiting.ping));
    } catch (error) {
      this.#onError(error);
      for (const waiting of batch) waiting.done('failed');
      return;
    }
    batch.forEach((waiting, i) => waiting.done(found[i] === true ? 'recorded' : 'not_found'));
  }
}
