import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { sshDevice, T0 } from './records.ts';

// Deleting a record deletes its results (docs/engine.md, "Scheduling"), also the results of a
// check whose write was committing while the delete waited for the record's lock: a worker's
// write (the record's new state and its result rows, in one transaction) holds that lock.
const database: TestDatabase = await createTestDatabase({ migrated: true });
let opened: OpenedKyselyStore;
let worker: pg.Client;

before(async () => {
  if (database.skip !== undefined) return;
  opened = await openKyselyStore(database.url);
  await migrateToLatest(opened.db);
  worker = new pg.Client({ connectionString: database.url });
  await worker.connect();
});
after(async () => {
  if (database.skip !== undefined) return;
  await worker.end();
  await opened.store.close();
  await database.drop();
});

it(
  'a delete that waited for a check being written leaves none of its results behind',
  { skip: database.skip },
  async () => {
    const user = await opened.store.createUser({ name: null, created_at: T0 });
    const created = await opened.store.createDevice(user.id, sshDevice());
    assert.ok('created' in created);
    const id = created.created.id;

    // A check's write, as the engine's statement makes it, not yet committed.
    await worker.query('begin');
    await worker.query(`update devices set status = 'up', last_checked_at = $1 where id = $2`, [T0, id]);
    await worker.query(
      `insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields)
    values ('device', $1, $2, 'service', true, 3, null, '{}')`,
      [id, T0],
    );

    const deleting = opened.store.deleteDevice(user.id, id);
    // The delete now waits for the worker's lock on the record.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await worker.query('commit');
    assert.equal(await deleting, true);

    const { rows } = await worker.query<{ n: number }>(
      `select count(*)::int as n from check_results where resource_kind = 'device' and resource_id = $1`,
      [id],
    );
    assert.equal(rows[0]!.n, 0, 'result rows of the deleted record');
  },
);
