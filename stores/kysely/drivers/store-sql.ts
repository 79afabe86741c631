import type { RawBuilder } from 'kysely';
import type { DbFlag } from '../schema.ts';

/**
 * The pieces of SQL in which PostgreSQL and SQLite differ, one object per database
 * (postgres-sql.ts, sqlite-sql.ts, chosen by sql-of.ts), so a query says what it needs and each database's spelling
 * of it lives with its driver. Statements whose whole shape differs (the batched result writes,
 * the claims) keep a file per database instead.
 */
export interface StoreSql {
  /** The n-th parameter (from 1) of a statement's raw text. */
  parameter(n: number): string;
  /** The comparison that also holds when both sides are null. */
  readonly same: string;
  /**
   * What a select of rows to be changed appends so its transaction holds them: PostgreSQL's row
   * lock; nothing on SQLite, whose transactions hold the database's write lock from their first
   * statement (drivers/sqlite-transactions.ts).
   */
  readonly forUpdate: string;
  /**
   * What a select of rows to be claimed appends so that concurrent claimers pass over each other's
   * rows: PostgreSQL's `for update [of <alias>] skip locked`; nothing on SQLite, where one writer
   * at a time holds the database.
   */
  skipLocked(alias?: string): string;
  /** A timestamp's text as a value the database compares as one, where no column gives its type. */
  stamp(text: string): RawBuilder<unknown>;
  /** The database's clock `ms` ago (0: now), as the store writes or compares a timestamp. */
  ago(ms: number): RawBuilder<unknown>;
  /** A flag as the driver binds it. */
  flag(value: boolean): DbFlag;
  /** The hidden column that names a row of any table, for deleting a bounded number of rows. */
  readonly rowKey: string;
}
