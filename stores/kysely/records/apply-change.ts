import type { Kysely } from 'kysely';
import type { RecordChange, UpdateResult } from '../../../core/index.ts';
import { toId } from '../rows.ts';
import type { Database, DbInteger, StoreDialect } from '../schema.ts';
import { isUniqueViolation, readOwnedRow, updateLockedRow, updateRow, type RowChange } from './update-record.ts';

/** What `applyChange` needs to know of one kind of record. */
export interface ChangedKind<T, New, Row, Out> {
  /**
   * The change as SQL: a compare-and-set (`expect`) on what the change was judged against.
   * `applyChange` drops the comparison when it writes under the row's lock.
   */
  rowChange(change: RecordChange<T, New>): RowChange;
  /** A row as the API judges a request against it. */
  judged(row: Row): T;
  /** A row as the store answers it. */
  answered(row: Row): Out;
  /** The user's record that `to` would duplicate; absent for a kind without duplicates. */
  findDuplicate?(to: New): Promise<{ id: DbInteger } | undefined>;
}

/**
 * A change of one record (core's RecordChange): first one compare-and-set UPDATE on what the
 * request was judged against, which is all a change costs when nobody changed the record since;
 * when the record no longer holds that, the request judged again (`reapply`) against the record
 * as it is, read and written under its lock, so concurrent changes of one record wait for each
 * other and each is written whole. A unique index's refusal answers the record it would
 * duplicate; one whose record was deleted before it could be named leaves nothing in the way, so
 * the change is made again under the lock.
 */
export async function applyChange<T, New, Row, Out>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  kind: ChangedKind<T, New, Row, Out>,
  change: RecordChange<T, New>,
): Promise<UpdateResult<Out>> {
  const duplicateOf = async (to: New): Promise<UpdateResult<Out> | undefined> => {
    const existing = await kind.findDuplicate?.(to);
    return existing === undefined ? undefined : { duplicateOf: toId(existing.id) };
  };
  const compared = kind.rowChange(change);
  const { table, userId, id } = compared;
  try {
    const row = await updateRow<Row>(db, dialect, compared);
    if (row !== undefined) return { updated: kind.answered(row) };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const duplicate = await duplicateOf(change.to);
    if (duplicate !== undefined) return duplicate;
  }
  const { reapply } = change;
  if (reapply === undefined) {
    const exists = await readOwnedRow<Row>(db, dialect, table, userId, id);
    return exists === undefined ? undefined : { stale: true };
  }
  for (;;) {
    let to: New | undefined;
    try {
      const row = await updateLockedRow<Row>(db, dialect, table, userId, id, (current) => {
        const from = kind.judged(current);
        const again = reapply(from);
        if (again === null) return null;
        to = again.to;
        // Held by this transaction, the row needs no comparison: it is what `again` was judged on.
        return { ...kind.rowChange({ ...again, from }), expect: {} };
      });
      return row === undefined ? undefined : { updated: kind.answered(row) };
    } catch (error) {
      if (!isUniqueViolation(error) || to === undefined) throw error;
      const duplicate = await duplicateOf(to);
      if (duplicate !== undefined) return duplicate;
    }
  }
}
