import { CompiledQuery } from 'kysely';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.ts';

type Table = 'devices' | 'blacklist_monitors';

/**
 * The most column sets one table keeps a statement for: a device or a monitor leaves out its
 * `name` and its `channel_ids` when null (rows.ts), which makes four.
 */
const SHAPES = 4;

/**
 * `INSERT ... ON CONFLICT DO NOTHING RETURNING *` for one table, compiled by Kysely once per set
 * of columns. Rows with the same columns differ only in values, which Kysely sends as parameters
 * in column order; building and compiling the query anew for each create was a tenth of a
 * create's CPU. Each compilation is checked against that assumption, and a row that does not fit
 * it (a column left undefined, so omitted), or of a set of columns past the first few, is
 * compiled the ordinary way.
 */
export class InsertIfAbsent<T extends Table> {
  /** By the row's column names, joined: the statement, or null when that shape did not fit. */
  readonly #compiled = new Map<string, string | null>();

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
    const complete = !parameters.includes(undefined);
    // Column names never hold a comma, so the joined names tell the sets apart.
    const shape = Object.keys(values).join(',');
    let compiled = this.#compiled.get(shape);
    if (compiled === undefined && complete && this.#compiled.size < SHAPES) {
      const query = this.#build(db, values).compile();
      const fits =
        query.parameters.length === parameters.length &&
        query.parameters.every((parameter, i) => parameter === parameters[i]);
      compiled = fits ? query.sql : null;
      this.#compiled.set(shape, compiled);
    }
    if (compiled == null || !complete) {
      return (await this.#build(db, values).executeTakeFirst()) as Selectable<Database[T]> | undefined;
    }
    const result = await db.executeQuery<Selectable<Database[T]>>(CompiledQuery.raw(compiled, parameters));
    return result.rows[0];
  }
}
