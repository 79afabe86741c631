import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** The store's statements are a few dozen shapes; the bound keeps odd ones from growing the map. */
const MAX_STATEMENTS = 200;

/**
 * A SQLite database whose `prepare` hands out one compiled statement per SQL text. Kysely's
 * SqliteDriver prepares every query anew, and compiling the device INSERT (30 columns, ON CONFLICT,
 * RETURNING) anew costs a third of the server's CPU for a create on SQLite. A statement is reusable
 * once it has run; the driver runs one query at a time on its single connection and reads results
 * at once (`all`, `run`), so a cached statement is never handed out while it is still busy, and
 * SQLite recompiles it by itself after a schema change (a driver whose statements then keep their
 * old columns must not use this: sqlite-node.ts asks). When the map is full the oldest goes.
 */
export function cachingStatements<D extends SqliteDatabase>(database: D): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      return database.close();
    },
  };
}
