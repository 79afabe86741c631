// The fair create baseline on SQLite: the hand-written server of create-handler.ts running the
// API's INSERT as one node:sqlite prepared statement, on a connection set up as the store
// sets up its own (WAL, busy timeout, foreign keys). BENCH_DATABASE is a migrated file's path.
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { configureSqlite } from '../../stores/kysely/drivers/sqlite-pragmas.ts';
import { serveCreates } from './create-handler.ts';
import { deviceInsert } from './device-insert.ts';

const database = configureSqlite(
  new DatabaseSync(process.env.BENCH_DATABASE!, { timeout: 5000, enableForeignKeyConstraints: true }),
);
const statement = deviceInsert('sqlite', Number(process.env.BENCH_USER));
const insert = database.prepare(statement.sql);
serveCreates(
  async (type, value, at) => insert.get(...(statement.values(type, value, at) as SQLInputValue[])),
  async () => {
    database.close();
  },
);
