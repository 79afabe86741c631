import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { ResultsPage, Timestamp } from '../../core/index.ts';
import { sqlOf } from './drivers/sql-of.ts';
import { stampText } from './rows.ts';
import type { Database, StoreDialect } from './schema.ts';

// Delivery attempts, a webhook's (`webhook_attempts`, migration 0007) and a channel's
// (`channel_attempts`, migration 0014): one table per owner, read and expired alike.

/** Where one owner's attempts are kept: the owners' table, the attempts' table, its owner column. */
export interface AttemptTables {
  owners: 'webhooks' | 'channels';
  attempts: 'webhook_attempts' | 'channel_attempts';
  owner: 'webhook_id' | 'channel_id';
}

/**
 * The attempts of owner `id`, newest first, below `page.beforeId` (the deliveries routes' pages);
 * undefined when `id` is not one of the user's.
 */
export async function listOwnedAttempts<Row>(
  db: Kysely<Database>,
  tables: AttemptTables,
  userId: number,
  id: number,
  page: ResultsPage,
): Promise<Row[] | undefined> {
  const owned = await sql`select id from ${sql.table(tables.owners)}
    where id = ${id} and user_id = ${userId}`.execute(db);
  if (owned.rows.length === 0) return undefined;
  const below = page.beforeId === undefined ? sql`` : sql`and id < ${page.beforeId}`;
  const { rows } = await sql<Row>`select * from ${sql.table(tables.attempts)}
    where ${sql.ref(tables.owner)} = ${id} ${below}
    order by id desc limit ${page.limit}`.execute(db);
  return rows;
}

/**
 * At most `limit` attempts that ended before `before`, smallest id first. Attempts are few beside
 * check results (one per delivery try) and written in time order, so the expired ones are the
 * first rows by id: the primary key finds them without an index of their own. On PostgreSQL rows
 * another sweep is deleting are skipped, as for results.
 */
export async function deleteAttemptsBefore(
  db: Kysely<Database>,
  dialect: StoreDialect,
  table: AttemptTables['attempts'],
  before: Timestamp,
  limit: number,
): Promise<number> {
  if (limit <= 0) return 0;
  const skipLocked = sql.raw(sqlOf(dialect).skipLocked());
  const result = await sql`
    delete from ${sql.table(table)} where id in (
      select id from ${sql.table(table)} where attempted_at < ${stampText(before)}
      order by id limit ${limit} ${skipLocked}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
