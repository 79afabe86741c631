import type { Clock } from '../../core/internal.ts';

/** Endpoints followed at once; past it, the one whose last failure is oldest is forgotten. */
export const FOLLOWED_ENDPOINTS = 1_000;

/**
 * The endpoints a dispatcher saw failing, so that each outage is logged once when it starts and
 * once when a delivery succeeds again, not once per attempt (docs/operations.md, "A worker's
 * memory"). What it keeps is bounded:
 *
 * - at most `FOLLOWED_ENDPOINTS` endpoints; a failure past that forgets the endpoint whose last
 *   failure is oldest, so that endpoint's next failure is logged as a new outage;
 * - an endpoint not seen failing for `quietMs` (twice the longest retry delay) is forgotten at the
 *   next failure of any endpoint. A failing endpoint with deliveries due is attempted at least once
 *   per longest delay; one not heard of for longer was deleted, delivered to by another worker or
 *   has every delivery given up, and its next failure is a new outage.
 */
export class FailingEndpoints {
  readonly #clock: Clock;
  readonly #quietMs: number;
  readonly #max: number;
  /** Webhook id to the time of its last failure, oldest failure first (a failure moves it last). */
  readonly #lastFailure = new Map<number, number>();

  constructor(clock: Clock, quietMs: number, max = FOLLOWED_ENDPOINTS) {
    this.#clock = clock;
    this.#quietMs = quietMs;
    this.#max = max;
  }

  /** Records a failed attempt; true when it starts an outage (the endpoint was not followed). */
  failed(webhookId: number): boolean {
    const now = this.#clock.now();
    this.#forgetQuiet(now);
    const followed = this.#lastFailure.delete(webhookId);
    if (!followed && this.#lastFailure.size >= this.#max) this.#lastFailure.delete(this.#oldest()!);
    this.#lastFailure.set(webhookId, now);
    return !followed;
  }

  /** Records a delivered attempt; true when it ends an outage this dispatcher followed. */
  delivered(webhookId: number): boolean {
    return this.#lastFailure.delete(webhookId);
  }

  #oldest(): number | undefined {
    return this.#lastFailure.keys().next().value;
  }

  #forgetQuiet(now: number): void {
    for (const [id, at] of this.#lastFailure) {
      if (now - at <= this.#quietMs) return;
      this.#lastFailure.delete(id);
    }
  }
}
