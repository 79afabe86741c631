/** The source of time for timestamps, expiry and rate-limit windows; injectable for tests. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to: for tests that need expiry or windows to pass. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: number | string | Date = '2026-01-01T00:00:00.000Z') {
    this.#now = new Date(start).getTime();
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
  set(to: number | string | Date): void {
    this.#now = new Date(to).getTime();
  }
}

let lastMs = Number.NaN;
let lastText = '';

/** ISO 8601 in UTC with milliseconds. Under load many requests share a millisecond: the last is kept. */
export function toTimestamp(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}
