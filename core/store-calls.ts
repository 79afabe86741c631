/** The request and answer shapes that the `Store` interfaces (store.ts, webhook-store.ts) share. */

/** One page of a list, in ascending id order: records with `id > afterId`, at most `limit` of them. */
export interface PageRequest {
  afterId: number;
  /**
   * A positive integer: the core asks for at most 1001 (a page of up to 1000 and one more, or a stream batch of up to
   * 1000).
   */
  limit: number;
}

/**
 * The answer to a create: the new record, or the id of the record it duplicates. Duplicates are
 * decided by the store itself (a unique index), so concurrent identical creates yield one record.
 */
export type CreateResult<T> = { created: T } | { duplicateOf: number };
