import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { ChannelAttempt, NewChannelAttempt, ResultsPage, Timestamp } from '../../../core/index.ts';
import { deleteAttemptsBefore, listOwnedAttempts, type AttemptTables } from '../delivery-attempts.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { stampText } from '../rows.ts';
import type { Database, StoreDialect } from '../schema.ts';
import { attemptFromRow } from './channel-rows.ts';
import type { ChannelAttemptsTable } from './channel-tables.ts';

// A channel's delivery attempts (`channel_attempts`, migration 0014): what `GET /channels/deliveries`
// lists, the write that records one with the channel's `last_delivery_*`, and their expiry.

const TABLES: AttemptTables = { owners: 'channels', attempts: 'channel_attempts', owner: 'channel_id' };

/** ChannelStore.listChannelAttempts: newest first, below `page.beforeId`; undefined for another user's channel. */
export async function listChannelAttempts(
  db: Kysely<Database>,
  userId: number,
  id: number,
  page: ResultsPage,
): Promise<ChannelAttempt[] | undefined> {
  return (await listOwnedAttempts<Selectable<ChannelAttemptsTable>>(db, TABLES, userId, id, page))?.map(attemptFromRow);
}

/**
 * ChannelStore.recordChannelAttempt: the attempt's row and the channel's delivery fields in one
 * transaction; the newest attempt wins, and a failure keeps the `failing_since` of the run it
 * continues.
 */
export function recordChannelAttempt(
  db: Kysely<Database>,
  dialect: StoreDialect,
  channelId: number,
  attempt: NewChannelAttempt,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const at = stampText(attempt.attempted_at);
    const channel = await sql<{ id: unknown }>`select id from channels where id = ${channelId}${sql.raw(
      sqlOf(dialect).forUpdate,
    )}`.execute(trx);
    if (channel.rows.length === 0) return false;
    await trx
      .insertInto('channel_attempts')
      .values({
        channel_id: channelId,
        kind: attempt.kind,
        event_ids: JSON.stringify(attempt.event_ids),
        event_types: JSON.stringify(attempt.event_types),
        attempt: attempt.attempt,
        attempted_at: at,
        http_status: attempt.http_status,
        error: attempt.error,
        duration_ms: attempt.duration_ms,
      })
      .execute();
    const delivered = attempt.error === null;
    await trx
      .updateTable('channels')
      .set({
        last_delivery_at: at,
        last_delivery_status: delivered ? 'delivered' : 'failing',
        last_delivery_error: attempt.error,
        failing_since: delivered ? null : sql<string>`coalesce(failing_since, ${sqlOf(dialect).stamp(at)})`,
      })
      .where('id', '=', channelId)
      .where((eb) => eb.or([eb('last_delivery_at', 'is', null), eb('last_delivery_at', '<=', at)]))
      .execute();
    return true;
  });
}

/** ChannelStore.deleteChannelAttemptsBefore, as a webhook's (delivery-attempts.ts). */
export function deleteChannelAttemptsBefore(
  db: Kysely<Database>,
  dialect: StoreDialect,
  before: Timestamp,
  limit: number,
): Promise<number> {
  return deleteAttemptsBefore(db, dialect, TABLES.attempts, before, limit);
}
