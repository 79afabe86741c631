import type { Kysely } from 'kysely';
import { MissingTableError, type CreateResult } from '../../core/index.ts';
import { ChangeFeed } from '../../core/internal.ts';
import { toId } from './rows.ts';
import type { Database, DbInteger, StoreDialect } from './schema.ts';

/**
 * How often a create retries when its insert hit a duplicate that was deleted before it could be
 * read back. Each retry needs another concurrent delete of the same identity, so a few suffice.
 */
const CREATE_ATTEMPTS = 5;

function isMissingTable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // 42P01 is PostgreSQL's undefined_table; SQLite only says it in the message.
  if ('code' in error && error.code === '42P01') return true;
  return error.message.startsWith('no such table');
}

/** A store operation's failure as core should see it: "no such table" as missing_table's error. */
export function storeError(error: unknown): unknown {
  return isMissingTable(error) ? new MissingTableError({ cause: error }) : error;
}

/** What tells a store of every change by any writer: PostgreSQL's LISTEN (drivers/pg-change-listener.ts). */
export interface ChangeSource {
  /** Whether changes are heard now. */
  readonly live: boolean;
  /** Begins listening, once; changes and hearing go to the feed it was made with. */
  start(): void;
  close(): Promise<void>;
}

export interface KyselyStoreOptions {
  /** Whether close() destroys the Kysely instance; false when the host owns it. Default true. */
  destroyOnClose?: boolean;
  /**
   * SQLite's `PRAGMA data_version` on the store's one connection (openKyselyStore supplies it).
   * With it the store can say cheaply whether anything changed, so list answers can be reused.
   */
  dataVersion?: () => number;
  /**
   * What tells `feed` of changes by every writer (openKyselyStore makes PostgreSQL's LISTEN
   * connection). Without it, `watchChanges` never hears: status answers are read afresh.
   */
  listenForChanges?: (feed: ChangeFeed) => ChangeSource;
}

/**
 * What every part of KyselyStore shares: the database and its dialect, the translation of a
 * missing table into core's error, and the count of this store's own writes to what lists show,
 * which SQLite's change marker adds to `data_version` (that counts other connections' only).
 */
export class StoreContext {
  readonly db: Kysely<Database>;
  readonly dialect: StoreDialect;
  /** Writes to listed records through this store (see KyselyStore.changeMarker). */
  writes = 0;
  /** Who watches the records' changes (Store.watchChanges), and what tells them. */
  readonly changes = new ChangeFeed();
  readonly #source: ChangeSource | undefined;

  constructor(db: Kysely<Database>, dialect: StoreDialect, listen?: (feed: ChangeFeed) => ChangeSource) {
    this.db = db;
    this.dialect = dialect;
    this.#source = listen?.(this.changes);
  }

  /** Store.watchChanges: told true at once when changes are heard already, and listening begun. */
  watchChanges(listener: Parameters<ChangeFeed['watch']>[0]): () => void {
    const unwatch = this.changes.watch(listener);
    if (this.#source?.live === true) listener.hearing(true);
    this.#source?.start();
    return unwatch;
  }

  closeChanges(): Promise<void> {
    return this.#source?.close() ?? Promise.resolve();
  }

  /** Runs a store operation, turning "no such table" into the error core answers as missing_table. */
  async run<T>(operation: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    try {
      return await operation(this.db);
    } catch (error) {
      throw storeError(error);
    }
  }

  /** A write to what a list shows: counted once it is done, before its caller hears of it. */
  write<T>(operation: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.run(operation).finally(() => {
      this.writes++;
    });
  }

  /**
   * Report rows rolled up or deleted by this store, which report answers show: counted as a write
   * when there were any (on PostgreSQL the triggers of migration 0012 count them for every writer).
   */
  async changedReports(changed: Promise<number>): Promise<number> {
    const count = await changed;
    if (count > 0) this.writes++;
    return count;
  }

  /**
   * Inserts unless the unique index already holds the record, and then names the one it holds. The
   * index decides, so concurrent identical creates make one record; when the holder is deleted
   * between the two statements, the insert is tried again. Counted as a write and with run's error
   * translation, in one async frame: every create runs it, and nested helpers would cost a promise
   * and a closure each.
   */
  async createUnique<Values, Row, T>(
    what: string,
    toRow: () => Values,
    insert: (values: Values) => Promise<Row | undefined>,
    fromRow: (row: Row) => T,
    findExisting: () => Promise<{ id: DbInteger } | undefined>,
  ): Promise<CreateResult<T>> {
    try {
      // Inside the async frame: a record that cannot become a row rejects, as a Store promises.
      const values = toRow();
      for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        const row = await insert(values);
        if (row !== undefined) return { created: fromRow(row) };
        const existing = await findExisting();
        if (existing) return { duplicateOf: toId(existing.id) };
      }
      throw new Error(`creating a ${what}: the conflicting record kept disappearing; giving up`);
    } catch (error) {
      throw storeError(error);
    } finally {
      this.writes++;
    }
  }
}
