/** Texts seen before one is named: a statement run once (a migration, say) is not worth a name. */
const USES_BEFORE_NAMING = 2;
/** The store's statements are a few dozen shapes; the bound keeps odd ones from growing the map. */
const MAX_TEXTS = 1_000;
const MAX_NAMED = 200;

/**
 * The names under which statement texts are prepared on PostgreSQL, so each connection parses and
 * plans a statement once and then only binds and executes it (pg sends a query with a `name` as a
 * prepared statement, and prepares it on a connection the first time that connection sees the
 * name). Kysely sends every statement as text plus parameters, which PostgreSQL otherwise parses
 * and plans anew each time: on a create, that was a third of the database's work.
 *
 * One registry serves the whole pool, so a text has the same name on every connection. After a
 * schema change made a prepared plan stale, `restart` starts the names afresh: every later use
 * prepares anew under a new name, and the stale statements stay unused.
 */
export class StatementNames {
  readonly #uses = new Map<string, number>();
  readonly #names = new Map<string, string>();
  #generation = 0;

  /** The name to prepare `text` under, or undefined to send it unprepared (seen once, or too many names). */
  nameOf(text: string): string | undefined {
    const name = this.#names.get(text);
    if (name !== undefined) return name;
    const uses = (this.#uses.get(text) ?? 0) + 1;
    if (uses < USES_BEFORE_NAMING || this.#names.size >= MAX_NAMED) {
      if (this.#uses.size < MAX_TEXTS || this.#uses.has(text)) this.#uses.set(text, uses);
      return undefined;
    }
    this.#uses.delete(text);
    const named = `mapi_${this.#generation}_${this.#names.size}`;
    this.#names.set(text, named);
    return named;
  }

  /** Starts the names afresh once `name`, the current name of `text`, was found stale. */
  restart(text: string, name: string): void {
    // Another connection may have found it stale first, and restarted already.
    if (this.#names.get(text) !== name) return;
    this.#generation++;
    this.#names.clear();
  }
}
