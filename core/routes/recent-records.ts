/**
 * The records this API instance last answered (created, read or changed), by kind and id: the
 * first guess of a PATCH at the record it changes. A guess only: the change is written by
 * compare-and-set on the fields it was judged against, so a record changed elsewhere since (by
 * another instance, psql) makes the write find nothing to change, and the store then reads the
 * record under its lock and the body is judged again against that (`RecordChange.reapply`). A
 * right guess saves the read, which is half of a PATCH's round trips to the database
 * (docs/performance.md, "Changes"). Bounded: the oldest entry goes when a new one would pass the
 * limit.
 */
export class RecentRecords {
  readonly #entries = new Map<string, { userId: number; record: unknown }>();
  readonly #limit: number;

  constructor(limit = 4096) {
    this.#limit = limit;
  }

  get<T>(kind: string, userId: number, id: number): T | undefined {
    const entry = this.#entries.get(`${kind} ${id}`);
    return entry?.userId === userId ? (entry.record as T) : undefined;
  }

  set(kind: string, userId: number, id: number, record: unknown): void {
    const key = `${kind} ${id}`;
    this.#entries.delete(key);
    this.#entries.set(key, { userId, record });
    if (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value!);
  }

  forget(kind: string, id: number): void {
    this.#entries.delete(`${kind} ${id}`);
  }
}
