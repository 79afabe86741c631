import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';

// The store's query timeout on PostgreSQL is one watchdog per pool (stores/kysely/query-watchdog.ts):
// it ends a connection busy for the whole timeout without a pause, and nothing else. A server
// that stops answering is test/hardening/postgres-faults.test.ts; here, what it must leave alone.
// The timeout is short so the test is quick, yet long enough that the queries here, each a small
// fraction of it, finish inside it on a loaded machine; the waits are a multiple of it.
const TIMEOUT_MS = 1_500;
const database: TestDatabase = await createTestDatabase();

describe('PostgreSQL query watchdog', { skip: database.skip }, () => {
  let opened: OpenedKyselyStore;
  const backend = async () =>
    (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db)).rows[0]!.pid;

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
    // makes them last at least 2 s in all, past the timeout by more than the watchdog's interval
    // between checks (an eighth of it).
    for (let i = 0; i < 40; i++) await sql`select pg_sleep(0.05)`.execute(opened.db);
    assert.equal(await backend(), first);
  });
});
