import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EventType, ResultsPage, Timestamp, WebhookAttempt } from '../../../core/index.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import type { Database, StoreDialect } from '../schema.ts';

// A webhook's delivery attempts (`webhook_attempts`, migration 0007): what `GET /webhooks/deliveries`
// lists, and their expiry with the raw results (docs/engine.md, "Scheduling").

/** WebhookStore.listWebhookAttempts: newest first, below `page.beforeId`; undefined for another user's webhook. */
export async function listWebhookAttempts(
  db: Kysely<Database>,
  userId: number,
  id: number,
  page: ResultsPage,
): Promise<WebhookAttempt[] | undefined> {
  const owned = await db
    .selectFrom('webhooks')
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (owned === undefined) return undefined;
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('webhook_id', '=', id)
    .$if(page.beforeId !== undefined, (q) => q.where('id', '<', page.beforeId!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map((row) => ({
    id: toId(row.id),
    event_id: toId(row.event_id),
    event_type: row.event_type as EventType,
    attempt: Number(row.attempt),
    attempted_at: toStamp(row.attempted_at),
    http_status: row.http_status,
    error: row.error,
    duration_ms: row.duration_ms,
  }));
}

/**
 * WebhookStore.deleteWebhookAttemptsBefore: at most `limit` attempts that ended before `before`,
 * smallest id first. Attempts are few beside check results (one per delivery try) and written in
 * time order, so the expired ones are the first rows by id: the primary key finds them without an
 * index of their own. On PostgreSQL rows another sweep is deleting are skipped, as for results.
 */
export async function deleteWebhookAttemptsBefore(
  db: Kysely<Database>,
  dialect: StoreDialect,
  before: Timestamp,
  limit: number,
): Promise<number> {
  if (limit <= 0) return 0;
  const skipLocked = sql.raw(sqlOf(dialect).skipLocked());
  const result = await sql`
    delete from webhook_attempts where id in (
      select id from webhook_attempts where attempted_at < ${stampText(before)}
      order by id limit ${limit} ${skipLocked}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
