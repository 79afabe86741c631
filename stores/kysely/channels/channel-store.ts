import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  Channel,
  ChannelAttempt,
  ChannelStore,
  NewChannel,
  NewChannelAttempt,
  PageRequest,
  RecordChange,
  ResultsPage,
  Timestamp,
  UpdateResult,
} from '../../../core/index.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { applyChange } from '../records/apply-change.ts';
import { changedColumns, fieldColumns, listOwnedRows, readOwnedRow } from '../records/update-record.ts';
import { flagFor, toId } from '../rows.ts';
import type { Database } from '../schema.ts';
import type { ChannelsTable } from './channel-tables.ts';
import type { StoreContext } from '../store-context.ts';
import { deleteChannelAttemptsBefore, listChannelAttempts, recordChannelAttempt } from './channel-attempts.ts';
import { channelFromRow, channelToRow } from './channel-rows.ts';

type ChannelRow = Selectable<ChannelsTable>;

/** The records that may name a channel in their `channel_ids`. */
const NAMING = ['devices', 'blacklist_monitors', 'heartbeats'] as const;

/**
 * The channels part of `KyselyStore` (docs/notifications.md), on PostgreSQL and SQLite alike:
 * every write to a channel counted as one, since lists show channels.
 */
export class KyselyChannels implements ChannelStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  createChannel(userId: number, channel: NewChannel): Promise<Channel> {
    return this.#ctx.write(async (db) => {
      const row = await db
        .insertInto('channels')
        .values(channelToRow(this.#ctx.dialect, userId, channel))
        .returningAll()
        .executeTakeFirstOrThrow();
      return channelFromRow(row);
    });
  }

  listChannels(userId: number, page: PageRequest): Promise<Channel[]> {
    return this.#ctx.run(async (db) =>
      (await listOwnedRows<ChannelRow>(db, this.#ctx.dialect, 'channels', userId, page)).map(channelFromRow),
    );
  }

  getChannel(userId: number, id: number): Promise<Channel | undefined> {
    return this.#ctx.run(async (db) => {
      const row = await readOwnedRow<ChannelRow>(db, this.#ctx.dialect, 'channels', userId, id);
      return row && channelFromRow(row);
    });
  }

  /** A change as for webhooks (records/apply-change.ts): the fields it changes, compared with what they held. */
  updateChannel(userId: number, id: number, change: RecordChange<Channel, NewChannel>): Promise<UpdateResult<Channel>> {
    const { dialect } = this.#ctx;
    return this.#ctx.write((db) =>
      applyChange(
        db,
        dialect,
        {
          rowChange: (c: RecordChange<Channel, NewChannel>) => {
            const before = fieldColumns(dialect, c.from, c.fields);
            const after = fieldColumns(dialect, c.to, c.fields);
            return {
              table: 'channels',
              userId,
              id,
              set: changedColumns(before, after, c.fields, before),
              expect: before,
              effect: 'none',
              at: c.at,
              events: [],
            };
          },
          judged: channelFromRow,
          answered: channelFromRow,
        },
        change,
      ),
    );
  }

  /**
   * Deletes the channel (its attempts go by the foreign key) and takes its id out of the
   * `channel_ids` of the user's devices, blacklist monitors and heartbeats, in one transaction. The records
   * naming it are found by their list's text and held (a row lock on PostgreSQL) while the lists
   * are written; records with the same list are written in one statement.
   */
  deleteChannel(userId: number, id: number): Promise<boolean> {
    const { dialect } = this.#ctx;
    return this.#ctx.write((db) =>
      db.transaction().execute(async (trx) => {
        const deleted = await trx
          .deleteFrom('channels')
          .where('id', '=', id)
          .where('user_id', '=', userId)
          .executeTakeFirst();
        if (deleted.numDeletedRows === 0n) return false;
        for (const table of NAMING) await dropFromLists(trx, dialect, table, userId, id);
        return true;
      }),
    );
  }

  ownedChannelIds(userId: number, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.#ctx.run(async (db) => {
      const rows = await db
        .selectFrom('channels')
        .select('id')
        .where('user_id', '=', userId)
        .where('id', 'in', [...ids])
        .execute();
      const owned = new Set(rows.map((row) => toId(row.id)));
      return ids.filter((x) => owned.has(x));
    });
  }

  channelsServing(userId: number, channelIds: readonly number[] | null): Promise<Channel[]> {
    if (channelIds !== null && channelIds.length === 0) return Promise.resolve([]);
    return this.#ctx.run(async (db) => {
      const rows = await db
        .selectFrom('channels')
        .selectAll()
        .where('user_id', '=', userId)
        .$if(channelIds === null, (q) => q.where('is_default', '=', flagFor(this.#ctx.dialect, true)))
        .$if(channelIds !== null, (q) => q.where('id', 'in', [...channelIds!]))
        .orderBy('id')
        .execute();
      return rows.map(channelFromRow);
    });
  }

  listChannelAttempts(userId: number, id: number, page: ResultsPage): Promise<ChannelAttempt[] | undefined> {
    return this.#ctx.run((db) => listChannelAttempts(db, userId, id, page));
  }

  // A channel's last_delivery_* is in its lists' answers: a write.
  recordChannelAttempt(channelId: number, attempt: NewChannelAttempt): Promise<boolean> {
    return this.#ctx.write((db) => recordChannelAttempt(db, this.#ctx.dialect, channelId, attempt));
  }

  // Attempts are read fresh, never from a kept answer: expiring them counts no write.
  deleteChannelAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#ctx.run((db) => deleteChannelAttemptsBefore(db, this.#ctx.dialect, before, limit));
  }
}

/**
 * Takes channel `id` out of the `channel_ids` of the user's records in `table`. A list is JSON text
 * (`[3,7]`), so `,3,7,` holds `,<id>,` exactly when the list names the id.
 */
async function dropFromLists(
  trx: Kysely<Database>,
  dialect: 'postgres' | 'sqlite',
  table: (typeof NAMING)[number],
  userId: number,
  id: number,
): Promise<void> {
  const { rows } = await sql<{ id: unknown; channel_ids: string }>`
    select id, channel_ids from ${sql.table(table)}
    where user_id = ${userId} and channel_ids is not null
      and (',' || substr(channel_ids, 2, length(channel_ids) - 2) || ',') like ${`%,${id},%`}
    ${sql.raw(sqlOf(dialect).forUpdate)}`.execute(trx);
  const byList = new Map<string, number[]>();
  for (const row of rows) {
    const kept = (JSON.parse(row.channel_ids) as number[]).filter((x) => x !== id);
    const text = JSON.stringify(kept);
    byList.set(text, [...(byList.get(text) ?? []), toId(row.id as number)]);
  }
  for (const [text, ids] of byList) {
    for (let start = 0; start < ids.length; start += 500) {
      await trx
        .updateTable(table)
        .set({ channel_ids: text })
        .where('id', 'in', ids.slice(start, start + 500))
        .execute();
    }
  }
}
