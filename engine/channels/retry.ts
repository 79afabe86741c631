/**
 * When a channel's message is tried again (docs/notifications.md, "Delivery"): 10 s, 30 s, 1 min,
 * 2 min, 5 min, 10 min, then every 30 min, for a day; a Retry-After the service gave is honoured
 * when it asks for longer.
 */
const FIRST_DELAYS_MS = [10_000, 30_000, 60_000, 120_000, 300_000, 600_000];
const LATER_DELAY_MS = 30 * 60_000;
const RETRY_FOR_MS = 24 * 60 * 60_000;

/** The wait after the `failed`-th failed attempt of a message (1 for its first). */
export function retryDelayMs(failed: number): number {
  return FIRST_DELAYS_MS[failed - 1] ?? LATER_DELAY_MS;
}

/** The attempts a message gets before it is given up: as many as the delays fit in a day. */
export const MAX_ATTEMPTS = (() => {
  let waited = 0;
  let failed = 0;
  while (waited < RETRY_FOR_MS) waited += retryDelayMs(++failed);
  return failed + 1;
})();

/**
 * When to try again after the `failed`-th failed attempt, or null to give up: our own failures
 * (`ours`) are retried until they deliver, the service's for a day.
 */
export function nextAttemptAt(
  failed: number,
  nowMs: number,
  retryAfterMs: number | null,
  ours: boolean,
): number | null {
  if (!ours && failed >= MAX_ATTEMPTS) return null;
  return nowMs + Math.max(retryDelayMs(failed), retryAfterMs ?? 0);
}
