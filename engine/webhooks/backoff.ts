/**
 * How long after each failed attempt the next one is made (docs/engine.md, "Events and
 * webhooks"): 30 s, 2 min, 10 min, 1 h, 6 h, 24 h. After the sixth retry fails, the delivery is
 * given up: seven attempts over about 31 hours.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  30_000,
  2 * 60_000,
  10 * 60_000,
  60 * 60_000,
  6 * 60 * 60_000,
  24 * 60 * 60_000,
];

/**
 * When to try again after `attempts` failed attempts (this one included), in ms since the epoch,
 * or null to give up. No jitter: an endpoint's deliveries go out one at a time in event order, so
 * there is no crowd of retries to spread out, and operators can predict the schedule.
 */
export function nextAttemptAt(
  failedAttempts: number,
  now: number,
  delays: readonly number[] = RETRY_DELAYS_MS,
): number | null {
  const delay = delays[failedAttempts - 1];
  return delay === undefined ? null : now + delay;
}
