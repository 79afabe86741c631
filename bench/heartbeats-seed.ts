import { randomUUID } from 'node:crypto';
import type { HeartbeatState } from '../core/index.ts';
import { openKyselyStore } from '../stores/kysely/index.ts';
import { newStateRow } from '../stores/kysely/heartbeats/heartbeat-rows.ts';

/** Period and grace of every seeded heartbeat: the shortest the API takes (docs/heartbeats.md). */
export const PERIOD_S = 60;
export const GRACE_S = 60;

export interface SeededHeartbeats {
  userId: number;
  /** Their ping tokens, in the order of their ids. */
  tokens: string[];
  /** The smallest id: heartbeat `k` of `tokens` has id `firstId + k`. */
  firstId: number;
}

/**
 * A user owning `count` heartbeats at a 60 s period and 60 s grace, inserted in bulk as bench/seed.ts
 * inserts devices, each `up` since a success at `lastSuccess` (so the next deadline is two minutes
 * after it, and a ping is a plain success, no status change). Returns their tokens.
 */
export async function seedHeartbeats(databaseUrl: string, count: number, lastSuccess: Date): Promise<SeededHeartbeats> {
  const { store, db, dialect } = await openKyselyStore(databaseUrl);
  try {
    const user = await store.createUser({ name: `bench-heartbeats-${count}`, created_at: new Date().toISOString() });
    const at = lastSuccess.toISOString();
    const due = new Date(lastSuccess.getTime() + (PERIOD_S + GRACE_S) * 1000).toISOString();
    const tokens = Array.from({ length: count }, () => randomUUID());
    const ids: number[] = [];
    await db.transaction().execute(async (trx) => {
      for (let start = 0; start < count; start += 500) {
        const rows = tokens.slice(start, start + 500).map((token) => {
          const state: HeartbeatState = {
            record: {
              id: 0,
              name: null,
              period_s: PERIOD_S,
              schedule: null,
              time_zone: 'UTC',
              grace_s: GRACE_S,
              max_runtime_s: null,
              min_runtime_s: null,
              is_enabled: true,
              channel_ids: null,
              ping_token: token,
              status: 'up',
              status_since: at,
              last_ping_at: at,
              last_duration_ms: null,
              next_due_at: due,
              created_at: at,
            },
            user_id: user.id,
            last_success_at: at,
            runs: {},
            down_cause: null,
            last_body: null,
            maintenance_since: null,
          };
          return newStateRow(dialect, state);
        });
        const inserted = await trx.insertInto('heartbeats').values(rows).returning('id').execute();
        ids.push(...inserted.map((row) => Number(row.id)));
      }
    });
    // One insert's ids ascend in the order of its rows on both stores, and nothing else inserts here.
    const firstId = ids[0]!;
    if (ids.some((id, k) => id !== firstId + k)) throw new Error('seeded heartbeats: ids are not consecutive');
    return { userId: user.id, tokens, firstId };
  } finally {
    await store.close();
  }
}
