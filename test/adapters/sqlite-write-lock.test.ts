/**
 * A transaction of the SQLite store takes the database's write lock as it begins, on every
 * runtime's driver (stores/kysely/drivers/sqlite-transactions.ts): the claims of the engine and the
 * changes of a record read and then write in one transaction, and rely on nothing being written
 * by another process in between. A transaction that began deferred would only read at first, let
 * another process write, and then be refused its own write with SQLITE_BUSY at once, busy timeout
 * or not. Each runtime's child holds a transaction open between its read and its write while this
 * process, as another process on the same file, tries to write.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { openKyselyStore } from '../../stores/kysely/index.ts';
import { nodeArgs } from '../support/node-args.ts';
import { ROOT } from './harness.ts';

const FIXTURE = join('test', 'adapters', 'sqlite-held-transaction.ts');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

const RUNTIMES: Record<string, (file: string) => [string, string[]]> = {
  Node: (file) => [process.execPath, [...nodeArgs(FIXTURE), file]],
  Bun: (file) => [bin('bun'), ['run', join(ROOT, FIXTURE), file]],
  Deno: (file) => [bin('deno'), ['run', '--no-check', '--allow-env', '--allow-read', '--allow-write', FIXTURE, file]],
};

/** What happened: to this process's write while the child's transaction was open, and to the child's. */
async function holdAndWrite(runtime: string): Promise<{ whileOpen: string; child: string; after: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-write-lock-'));
  const file = join(dir, 'test.db');
  try {
    // The store sets the file up (WAL, as every store's connection does); the table is the test's own.
    const { store, db } = await openKyselyStore(`sqlite:${file}`);
    await db.schema.createTable('marks').addColumn('who', 'text').execute();
    await store.close();

    const [command, args] = RUNTIMES[runtime]!(file);
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => {
      const line = await lines.next();
      return line.done === true ? `(ended) ${stderr}` : line.value;
    };

    assert.equal(await next(), 'read');
    // Another process, which does not wait for the lock: refused at once while the child holds it.
    const other = new DatabaseSync(file, { timeout: 0 });
    let whileOpen: string;
    try {
      other.exec(`insert into marks (who) values ('other')`);
      whileOpen = 'written';
    } catch (error) {
      whileOpen = (error as Error).message;
    } finally {
      other.close();
    }
    child.stdin.end('go on\n');
    const outcome = await next();
    assert.equal(await exited, 0, stderr);
    const check = new DatabaseSync(file);
    try {
      const { n } = check.prepare('select count(*) as n from marks').get() as { n: number };
      return { whileOpen, child: outcome, after: n };
    } finally {
      check.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a SQLite transaction holds the write lock from its start', { concurrency: true }, () => {
  for (const runtime of Object.keys(RUNTIMES)) {
    it(`on ${runtime}: no other process writes while it is open, and its own write goes through`, async () => {
      assert.deepEqual(await holdAndWrite(runtime), {
        whileOpen: 'database is locked',
        child: 'committed',
        after: 1,
      });
    });
  }
});
