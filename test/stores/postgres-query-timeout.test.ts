import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';

// The store's query timeout on PostgreSQL (queryTimeoutMs) is pg's own query_timeout, with the
// server's statement_timeout at five sixths of it. A server that stops answering altogether is
// test/hardening/postgres-faults.test.ts; here, a query the client gives up on costs its
// connection, and nothing else does. The timeout is short so the test is quick, yet long enough
// that the queries here that must finish, each a small fraction of it, do so on a loaded machine.
const TIMEOUT_MS = 1_500;
const database: TestDatabase = await createTestDatabase();

describe('PostgreSQL query timeout', { skip: database.skip }, () => {
  let opened: OpenedKyselyStore;
  const backend = async () =>
    (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db)).rows[0]!.pid;
  /** Longer than the timeout, with the server's own bound lifted, so only the client's can end it. */
  const unanswered = sql`select pg_sleep(${(TIMEOUT_MS * 3) / 1000})`;
  const liftServerBound = sql`select set_config('statement_timeout', '0', true)`;

  before(async () => {
    if (database.skip !== undefined) return;
    // One connection, so "the same backend" means the connection was kept.
    opened = await openKyselyStore(database.url, { queryTimeoutMs: TIMEOUT_MS, poolSize: 1 });
  });
  after(async () => {
    if (database.skip !== undefined) return;
    await opened.store.close();
    await database.drop();
  });

  it('keeps a connection that sat idle for longer than the timeout', async () => {
    const first = await backend();
    await sleep(TIMEOUT_MS * 2);
    assert.equal(await backend(), first);
  });

  it('keeps a connection whose queries, one after another, take longer than the timeout in all', async () => {
    const first = await backend();
    // Each well inside the timeout (and the server's statement_timeout, five sixths of it); pg_sleep
    // makes them last at least 2 s in all.
    for (let i = 0; i < 40; i++) await sql`select pg_sleep(0.05)`.execute(opened.db);
    assert.equal(await backend(), first);
  });

  it('fails a query unanswered at the timeout with "Query read timeout", and replaces its connection', async () => {
    const first = await backend();
    await assert.rejects(
      opened.db.transaction().execute(async (trx) => {
        await liftServerBound.execute(trx);
        await unanswered.execute(trx);
      }),
      (error: Error) => {
        // The timeout itself, not the rollback that could not run on a connection given up on.
        assert.equal(error.message, 'Query read timeout');
        return true;
      },
    );
    // The pool's one connection was closed, not handed back with the lost answer still to come.
    const second = await backend();
    assert.notEqual(second, first);
    await assert.rejects(
      opened.db.connection().execute(async (connection) => {
        await sql`select set_config('statement_timeout', '0', false)`.execute(connection);
        await unanswered.execute(connection);
      }),
      /Query read timeout/,
    );
    assert.notEqual(await backend(), second);
  });
});
