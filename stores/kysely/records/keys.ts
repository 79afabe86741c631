import { sql, type RawBuilder } from 'kysely';
import type { ApiKey, NewApiKey, Timestamp, User } from '../../../core/index.ts';
import { apiKeyFromRow, apiKeyToRow, stampText, userFromRow, userToRow } from '../rows.ts';
import type { StoreContext } from '../store-context.ts';

/** Rows per statement in recordKeyUsage: two parameters each, far below every driver's cap. */
const USAGE_BATCH = 500;

/** Users and their API keys. No list answer is kept for them, so none of this counts as a write. */
export class KeyRecords {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  createUser(user: Omit<User, 'id'>): Promise<User> {
    return this.#ctx.run(async (db) => {
      const row = await db.insertInto('users').values(userToRow(user)).returningAll().executeTakeFirstOrThrow();
      return userFromRow(row);
    });
  }

  getUser(id: number): Promise<User | undefined> {
    return this.#ctx.run(async (db) => {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && userFromRow(row);
    });
  }

  createApiKey(key: NewApiKey): Promise<ApiKey> {
    return this.#ctx.run(async (db) => {
      const row = await db.insertInto('api_keys').values(apiKeyToRow(key)).returningAll().executeTakeFirstOrThrow();
      return apiKeyFromRow(row);
    });
  }

  findApiKeyByHash(tokenHash: string): Promise<ApiKey | undefined> {
    return this.#ctx.run(async (db) => {
      const row = await db.selectFrom('api_keys').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && apiKeyFromRow(row);
    });
  }

  getApiKey(id: number): Promise<ApiKey | undefined> {
    return this.#ctx.run(async (db) => {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
      return row && apiKeyFromRow(row);
    });
  }

  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.#ctx.run(async (db) => {
      const rows = await db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
      return rows.map(apiKeyFromRow);
    });
  }

  revokeApiKey(id: number, at: Timestamp): Promise<boolean> {
    return this.#ctx.run(async (db) => {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: stampText(at) })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  recordKeyUsage(usage: ReadonlyMap<number, Timestamp>): Promise<void> {
    return this.#ctx.run(async (db) => {
      const entries = [...usage];
      for (let start = 0; start < entries.length; start += USAGE_BATCH) {
        const batch = entries.slice(start, start + USAGE_BATCH);
        // One statement per batch; the condition keeps last_used_at from moving backwards when
        // two instances flush out of order.
        await sql`
          with key_usage (key_id, used_at) as (${this.#usageRows(batch)})
          update api_keys set last_used_at = key_usage.used_at
          from key_usage
          where api_keys.id = key_usage.key_id
            and (api_keys.last_used_at is null or api_keys.last_used_at < key_usage.used_at)
        `.execute(db);
      }
    });
  }

  #usageRows(batch: [number, Timestamp][]): RawBuilder<unknown> {
    // On PostgreSQL two array parameters, so the statement reads the same for any batch size and
    // is prepared once (a VALUES list would be a new statement for every size).
    if (this.#ctx.dialect === 'postgres') {
      return sql`select * from unnest(cast(${batch.map(([id]) => id)} as bigint[]), cast(${batch.map(([, at]) => stampText(at))} as timestamptz[]))`;
    }
    // SQLite has no arrays; it needs no casts either, and its CAST to an unknown type name would
    // mangle the text.
    return sql`values ${sql.join(batch.map(([id, at]) => sql`(${id}, ${stampText(at)})`))}`;
  }
}
