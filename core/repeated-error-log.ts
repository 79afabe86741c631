import { systemClock, type Clock } from './clock.ts';

/** What a `RepeatedErrorLog` hands its writer. */
export interface RepeatedError {
  message: string;
  error: unknown;
  requestId?: string;
  /**
   * 0: the first failure of its kind (or the first after a quiet interval): write it in full,
   * stack and all. n > 0: n more failures of this kind happened since the last line about it;
   * `error` is the first one's, for its name and message (the stack was written already).
   */
  repeats: number;
}

export interface RepeatedErrorLogOptions {
  write(entry: RepeatedError): void;
  /** At most one count line per kind per interval. Default 10 s. */
  intervalMs?: number;
  /** Default: the system clock. */
  clock?: Clock;
  /**
   * Most kinds followed at once (default 100). Past it, the first failure of a new kind is written
   * in full and the failures of every further new kind are counted with it, so that many distinct
   * failures cannot unbound the log either.
   */
  maxKinds?: number;
  /**
   * The kind of a failure: failures of one kind are written once, then counted. Default: its
   * context, error class, message and code (kindOf below). A log of one dependency's failures may
   * make them all one kind, when one outage shows in several words (a reset, a closed socket).
   */
  kindOf?: (message: string, error: unknown) => string;
}

interface Kind {
  first: RepeatedError;
  /** When the current interval of this kind began. */
  since: number;
  repeats: number;
}

const OVERFLOW = '\0overflow';

/** Two failures are the same kind when they say the same thing: context, error class, message and code. */
function kindOf(message: string, error: unknown): string {
  if (!(error instanceof Error)) return `${message}\0${String(error)}`;
  const code = (error as { code?: unknown }).code;
  return `${message}\0${error.name}\0${error.message}\0${typeof code === 'string' || typeof code === 'number' ? code : ''}`;
}

/**
 * Keeps a failure that repeats from flooding the log: the first of a kind is written in full,
 * the rest are counted, and one line per interval says how many more there were. A kind that
 * stays quiet for a whole interval is forgotten, so the next outage is written in full again.
 * During an outage every request fails the same way; a stack for each of them filled 232 MB of
 * stderr in 20 s.
 *
 * Count lines are written by a timer (unref'd: it never keeps a process alive) or by `flush()`;
 * `close()` writes what is still counted. Used by the standalone server's log, and meant for
 * anything that reports a failure per attempt (a checker's "logged once per outage").
 */
export class RepeatedErrorLog {
  readonly #write: (entry: RepeatedError) => void;
  readonly #intervalMs: number;
  readonly #clock: Clock;
  readonly #maxKinds: number;
  readonly #kindOf: (message: string, error: unknown) => string;
  readonly #kinds = new Map<string, Kind>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: RepeatedErrorLogOptions) {
    this.#write = options.write;
    this.#intervalMs = options.intervalMs ?? 10_000;
    this.#clock = options.clock ?? systemClock;
    this.#maxKinds = options.maxKinds ?? 100;
    this.#kindOf = options.kindOf ?? kindOf;
    if (!(this.#intervalMs > 0)) throw new RangeError(`intervalMs must be positive, not ${this.#intervalMs}`);
  }

  /** Reports one failure; returns whether it was written in full (true) or counted (false). */
  report(message: string, error: unknown, requestId?: string): boolean {
    const now = this.#clock.now();
    this.#flushDue(now);
    let key = this.#kindOf(message, error);
    const entry: RepeatedError = { message, error, repeats: 0, ...(requestId === undefined ? {} : { requestId }) };
    let kind = this.#kinds.get(key);
    if (kind === undefined && this.#kinds.size >= this.#maxKinds) {
      // Past the bound, failures of kinds not followed are counted together, under the first of them.
      key = OVERFLOW;
      kind = this.#kinds.get(key);
    }
    if (kind !== undefined) {
      kind.repeats++;
      return false;
    }
    this.#kinds.set(key, { first: entry, since: now, repeats: 0 });
    this.#write(entry);
    this.#timer ??= this.#startTimer();
    return true;
  }

  /** Writes the count of every kind whose interval has ended (the timer calls this). */
  flush(): void {
    this.#flushDue(this.#clock.now());
  }

  /** Writes every count still pending, whatever its interval, and stops the timer. */
  close(): void {
    for (const kind of this.#kinds.values()) this.#writeCount(kind);
    this.#kinds.clear();
    this.#stopTimer();
  }

  #flushDue(now: number): void {
    for (const [key, kind] of this.#kinds) {
      if (now - kind.since < this.#intervalMs) continue;
      if (kind.repeats === 0) this.#kinds.delete(key);
      else {
        this.#writeCount(kind);
        kind.since = now;
      }
    }
    if (this.#kinds.size === 0) this.#stopTimer();
  }

  #writeCount(kind: Kind): void {
    if (kind.repeats === 0) return;
    this.#write({ ...kind.first, repeats: kind.repeats });
    kind.repeats = 0;
  }

  #startTimer(): ReturnType<typeof setInterval> {
    const timer = setInterval(() => this.flush(), this.#intervalMs);
    timer.unref();
    return timer;
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
