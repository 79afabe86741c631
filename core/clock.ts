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

export function toTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
