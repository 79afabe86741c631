import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { ACCEPTED_DATABASE_URLS } from '../../stores/kysely/drivers/open-database.ts';
import { ROOT } from '../support/root.ts';
import { readEvents } from './outbox.ts';
import { ipMonitor } from './records.ts';
import { storeContract } from './store-contract.ts';
import { MIGRATION_NAMES } from './migration-names.ts';

const dir = mkdtempSync(join(tmpdir(), 'monitoring-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const nextFile = (): string => join(dir, `store-${++files}.db`);

async function openMigrated(url: string) {
  const opened = await openKyselyStore(url);
  await migrateToLatest(opened.db);
  return { store: opened.store, cleanup: () => opened.store.close(), events: () => readEvents(opened.db) };
}

async function openBare(url: string) {
  const { store } = await openKyselyStore(url);
  return { store, cleanup: () => store.close() };
}

storeContract('KyselyStore on a SQLite file', () => openMigrated(`sqlite:${nextFile()}`), {
  openUnmigrated: () => openBare(`sqlite:${nextFile()}`),
});

storeContract('KyselyStore on SQLite in memory', () => openMigrated('sqlite::memory:'), {
  openUnmigrated: () => openBare('sqlite::memory:'),
});

describe('SQLite database URLs and migrations', () => {
  it('applies the migrations once; a second run is a no-op', async () => {
    const { db, store, dialect } = await openKyselyStore(`sqlite:${nextFile()}`);
    try {
      assert.equal(dialect, 'sqlite');
      assert.deepEqual(await migrateToLatest(db), [...MIGRATION_NAMES]);
      assert.deepEqual(await migrateToLatest(db), []);
    } finally {
      await store.close();
    }
  });

  it('throws a clear error when a migration fails, keeping nothing of it', async () => {
    const { db, store } = await openKyselyStore(`sqlite:${nextFile()}`);
    try {
      await sql`create table users (id integer primary key)`.execute(db);
      await assert.rejects(
        migrateToLatest(db),
        /^Error: database migration 0001_initial failed: table "users" already exists$/,
      );
      const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
      assert.deepEqual(
        rows.map(({ name }) => name),
        ['users'],
      );
    } finally {
      await store.close();
    }
  });

  it('opens a path relative to the working directory, creating its parent folders', async () => {
    const file = join(dir, 'nested', 'deeper', 'monitoring.db');
    const { store } = await openKyselyStore(`sqlite:${relative(process.cwd(), file)}`);
    await store.close();
    await store.close(); // a second close, as a shutdown hook racing a signal would, is harmless
    assert.ok(existsSync(file));
  });

  it('sets WAL, busy_timeout and foreign keys on the connection', async () => {
    const { db, store } = await openKyselyStore(`sqlite:${nextFile()}`);
    try {
      const pragma = async (name: string) => {
        const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db);
        return { ...rows[0] }; // node:sqlite's rows have no prototype
      };
      assert.deepEqual(await pragma('journal_mode'), { journal_mode: 'wal' });
      assert.deepEqual(await pragma('busy_timeout'), { timeout: 5000 });
      assert.deepEqual(await pragma('foreign_keys'), { foreign_keys: 1 });
    } finally {
      await store.close();
    }
  });

  it('refuses other URL schemes with a message naming the accepted forms', async () => {
    for (const url of ['mysql://root:secret@localhost/db', 'sqlite3:x.db', 'data.db']) {
      await assert.rejects(openKyselyStore(url), (error: Error) => {
        assert.ok(error.message.endsWith(`not supported; use ${ACCEPTED_DATABASE_URLS}`), error.message);
        assert.match(ACCEPTED_DATABASE_URLS, /postgres:\/\/.*postgresql:\/\/.*sqlite:PATH.*sqlite::memory:/);
        assert.doesNotMatch(error.message, /secret/);
        return true;
      });
    }
    await assert.rejects(openKyselyStore('sqlite:'), /names no file/);
  });

  it("lets a second store on the same file see the first one's records", async () => {
    const url = `sqlite:${nextFile()}`;
    const a = await openKyselyStore(url);
    const b = await openKyselyStore(url);
    try {
      await migrateToLatest(a.db);
      const monitor = ipMonitor();
      const user = await a.store.createUser({ name: null, created_at: monitor.created_at });
      const first = await a.store.createBlacklistMonitor(user.id, monitor);
      assert.ok('created' in first);
      assert.deepEqual(await b.store.createBlacklistMonitor(user.id, monitor), { duplicateOf: first.created.id });
    } finally {
      await Promise.all([a.store.close(), b.store.close()]);
    }
  });

  it('lets processes migrate one file at the same time', async () => {
    const url = `sqlite:${nextFile()}`;
    // Each process loads and connects first, then all start migrating at the same instant.
    const script = `import { migrateToLatest, openKyselyStore } from './stores/kysely/index.ts';
      const { db, store } = await openKyselyStore(process.argv[1]);
      await new Promise((resolve) => setTimeout(resolve, Number(process.argv[2]) - Date.now()));
      console.log(JSON.stringify(await migrateToLatest(db)));
      await store.close();`;
    const startAt = String(Date.now() + 2_500);
    const args = ['--input-type=module', '-e', script, url, startAt];
    const run = () => promisify(execFile)(process.execPath, args, { cwd: ROOT });
    const outputs = await Promise.all([run(), run(), run(), run()]);
    const applied = outputs.map(({ stdout }) => JSON.parse(stdout) as string[]).sort((x, y) => y.length - x.length);
    assert.deepEqual(applied, [[...MIGRATION_NAMES], [], [], []]);
  });
});
