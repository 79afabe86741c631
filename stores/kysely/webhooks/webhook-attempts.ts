import type { Kysely, Selectable } from 'kysely';
import type { EventType, ResultsPage, Timestamp, WebhookAttempt } from '../../../core/index.ts';
import { deleteAttemptsBefore, listOwnedAttempts, type AttemptTables } from '../delivery-attempts.ts';
import { toId, toStamp } from '../rows.ts';
import type { Database, StoreDialect } from '../schema.ts';
import type { WebhookAttemptsTable } from './webhook-tables.ts';

// A webhook's delivery attempts (`webhook_attempts`, migration 0007): what `GET /webhooks/deliveries`
// lists, and their expiry with the raw results (docs/engine.md, "Scheduling").

const TABLES: AttemptTables = { owners: 'webhooks', attempts: 'webhook_attempts', owner: 'webhook_id' };

function attemptFromRow(row: Selectable<WebhookAttemptsTable>): WebhookAttempt {
  return {
    id: toId(row.id),
    event_id: toId(row.event_id),
    event_type: row.event_type as EventType,
    attempt: Number(row.attempt),
    attempted_at: toStamp(row.attempted_at),
    http_status: row.http_status,
    error: row.error,
    duration_ms: row.duration_ms,
  };
}

/** WebhookStore.listWebhookAttempts: newest first, below `page.beforeId`; undefined for another user's webhook. */
export async function listWebhookAttempts(
  db: Kysely<Database>,
  userId: number,
  id: number,
  page: ResultsPage,
): Promise<WebhookAttempt[] | undefined> {
  return (await listOwnedAttempts<Selectable<WebhookAttemptsTable>>(db, TABLES, userId, id, page))?.map(attemptFromRow);
}

/** WebhookStore.deleteWebhookAttemptsBefore: the oldest first, at most `limit` (delivery-attempts.ts). */
export function deleteWebhookAttemptsBefore(
  db: Kysely<Database>,
  dialect: StoreDialect,
  before: Timestamp,
  limit: number,
): Promise<number> {
  return deleteAttemptsBefore(db, dialect, TABLES.attempts, before, limit);
}
