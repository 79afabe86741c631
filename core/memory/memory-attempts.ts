import type { Timestamp } from '../records/index.ts';
import type { ResultsPage } from '../store/monitoring-store.ts';
import { ms } from './memory-rows.ts';

/**
 * Delivery attempts as the memory store keeps them, a webhook's or a channel's (memory-webhooks.ts,
 * memory-channels.ts): in id order, each with the id of what it was made for, listed newest first
 * and expired oldest first, as the SQL store's (stores/kysely/delivery-attempts.ts).
 */
export class MemoryAttempts<A extends { id: number; attempted_at: Timestamp }> {
  #kept: { owner: number; attempt: A }[] = [];
  #nextId = 1;

  /** Keeps `attempt` under `owner` with the next id; answers it as kept. */
  add(owner: number, attempt: Omit<A, 'id'>): A {
    const kept = { id: this.#nextId++, ...structuredClone(attempt) } as A;
    this.#kept.push({ owner, attempt: kept });
    return kept;
  }

  /** The owner's attempts, newest first, below `page.beforeId`, at most `page.limit` (copies). */
  newest(owner: number, page: ResultsPage): A[] {
    const out: A[] = [];
    for (let i = this.#kept.length - 1; i >= 0 && out.length < page.limit; i--) {
      const { owner: of, attempt } = this.#kept[i]!;
      if (of !== owner || (page.beforeId !== undefined && attempt.id >= page.beforeId)) continue;
      out.push(structuredClone(attempt));
    }
    return out;
  }

  /** Forgets every attempt of a deleted owner. */
  dropOwner(owner: number): void {
    this.#kept = this.#kept.filter((kept) => kept.owner !== owner);
  }

  /** Deletes at most `limit` attempts that ended before `before`, smallest id first; answers how many. */
  deleteBefore(before: Timestamp, limit: number): number {
    const cutoff = ms(before);
    let deleted = 0;
    this.#kept = this.#kept.filter(({ attempt }) => {
      if (deleted >= limit || ms(attempt.attempted_at) >= cutoff) return true;
      deleted++;
      return false;
    });
    return deleted;
  }
}

/** The delivery fields a webhook and a channel both show. */
export interface LastDelivery {
  last_delivery_at: Timestamp | null;
  last_delivery_status: 'delivered' | 'failing' | null;
  last_delivery_error: string | null;
  failing_since: Timestamp | null;
}

/**
 * An attempt that ended at `at` moves `record`'s delivery fields unless a newer one did already (a
 * worker whose lease was taken may finish late): a failure keeps the `failing_since` of the run it
 * continues, a delivery ends it.
 */
export function recordLastDelivery(
  record: LastDelivery,
  at: Timestamp,
  error: string | null,
  delivered: boolean,
): void {
  if (record.last_delivery_at !== null && ms(record.last_delivery_at) > ms(at)) return;
  record.last_delivery_at = at;
  record.last_delivery_status = delivered ? 'delivered' : 'failing';
  record.last_delivery_error = error;
  record.failing_since = delivered ? null : (record.failing_since ?? at);
}
