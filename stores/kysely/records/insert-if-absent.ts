import { CompiledQuery } from 'kysely';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.ts';

type Table = 'devices' | 'blacklist_monitors';

/**
 * `INSERT ... ON CONFLICT DO NOTHING RETURNING *` for one table, compiled by Kysely once. Rows of
 * a table have the same columns every time and differ only in values, which Kysely sends as
 * parameters in column order; building and compiling the query anew for each create was a tenth
 * of a create's CPU. The first compilation is checked against that assumption, and a row that
 * does not fit it (a column left undefined, so omitted) is compiled the ordinary way.
 */
export class InsertIfAbsent<T extends Table> {
  #compiled: { sql: string; columns: readonly string[] } | null | undefined;

  private readonly table: T;
  constructor(table: T) {
    this.table = table;
  }

  #build(db: Kysely<Database>, values: Insertable<Database[T]>) {
    // The generic table name makes Kysely's value types unresolvable here; the caller's row type
    // is the table's own, so the widening is sound.
    return db
      .insertInto(this.table as Table)
      .values(values as never)
      .onConflict((oc) => oc.doNothing())
      .returningAll();
  }

  async run(db: Kysely<Database>, values: Insertable<Database[T]>): Promise<Selectable<Database[T]> | undefined> {
    const parameters = Object.values(values);
    const columns = Object.keys(values);
    const complete = !parameters.includes(undefined);
    if (this.#compiled === undefined) {
      const compiled = this.#build(db, values).compile();
      const fits =
        complete &&
        compiled.parameters.length === parameters.length &&
        compiled.parameters.every((parameter, i) => parameter === parameters[i]);
      this.#compiled = fits ? { sql: compiled.sql, columns } : null;
    }
    if (this.#compiled === null || !sameNames(this.#compiled.columns, columns) || !complete) {
      return (await this.#build(db, values).executeTakeFirst()) as Selectable<Database[T]> | undefined;
    }
    const result = await db.executeQuery<Selectable<Database[T]>>(CompiledQuery.raw(this.#compiled.sql, parameters));
    return result.rows[0];
  }
}

/** Whether a row has the compiled row's columns, in its order (compared name by name, not joined). */
function sameNames(compiled: readonly string[], columns: readonly string[]): boolean {
  if (compiled.length !== columns.length) return false;
  for (let i = 0; i < columns.length; i++) if (compiled[i] !== columns[i]) return false;
  return true;
}
