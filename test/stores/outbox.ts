import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EventType } from '../../core/records/index.ts';
import type { Database } from '../../stores/kysely/index.ts';

/** An outbox row as the tests compare it. */
export interface StoredEvent {
  type: EventType;
  user_id: number;
  resource_kind: string;
  resource_id: number;
  created_at: string;
  data: unknown;
}

/**
 * Reads the event outbox of a Kysely store by SQL: the store has no read path of its own yet
 * (webhook delivery will add one), and the tests must see that events go with their checks.
 */
export async function readEvents(db: Kysely<Database>): Promise<StoredEvent[]> {
  const { rows } = await sql<{
    type: EventType;
    user_id: number | string;
    resource_kind: string;
    resource_id: number | string;
    created_at: Date | string;
    data: string;
  }>`select type, user_id, resource_kind, resource_id, created_at, data from events order by id`.execute(db);
  return rows.map((row) => ({
    type: row.type,
    user_id: Number(row.user_id),
    resource_kind: row.resource_kind,
    resource_id: Number(row.resource_id),
    created_at: new Date(row.created_at).toISOString(),
    data: JSON.parse(row.data) as unknown,
  }));
}
