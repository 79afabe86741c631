import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import type { SqliteDatabase } from 'kysely';
import { NodeSqliteDatabase } from '../../stores/kysely/drivers/sqlite-node.ts';
import { cachingStatements } from '../../stores/kysely/drivers/sqlite-statement-cache.ts';

// Kysely's SQLite driver prepares every query it runs; the store hands it a database that
// compiles each SQL text once and reuses the statement.

/** node:sqlite's rows have no prototype; a copy compares with plain object literals. */
const plain = (rows: unknown[]) => rows.map((row) => ({ ...(row as object) }));

describe('SQLite statements compiled once per text', () => {
  it('prepares a text once, however often it runs, and each text apart', () => {
    const database = new NodeSqliteDatabase(new DatabaseSync(':memory:'));
    let prepared = 0;
    const counting: SqliteDatabase = {
      prepare: (sql: string) => {
        prepared++;
        return database.prepare(sql);
      },
      close: () => database.close(),
    };
    const cached = cachingStatements(counting);
    cached.prepare('create table t (x integer)').run([]);
    for (let i = 0; i < 5; i++) cached.prepare('insert into t (x) values (?)').run([i]);
    assert.deepEqual(plain(cached.prepare('select sum(x) as s from t').all([])), [{ s: 10 }]);
    assert.equal(prepared, 3);
    cached.close();
  });

  it('a cached statement still works after the schema changed under it', () => {
    const cached = cachingStatements(new NodeSqliteDatabase(new DatabaseSync(':memory:')));
    cached.prepare('create table t (x integer)').run([]);
    cached.prepare('insert into t (x) values (?)').run([1]);
    assert.deepEqual(plain(cached.prepare('select * from t').all([])), [{ x: 1 }]);
    cached.prepare('alter table t add column y text').run([]);
    assert.deepEqual(plain(cached.prepare('select * from t').all([])), [{ x: 1, y: null }]);
    cached.close();
  });
});
