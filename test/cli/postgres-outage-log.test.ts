/**
 * docs/operations.md, "Logs": when PostgreSQL ends the idle connections of `serve` or `worker`
 * (here pg_terminate_backend, as a restart or an administrator does), the command says so in its
 * log, as JSON lines on stderr like every other failure, and once for the outage: the first
 * failure in full, the other connections' counted, never a line per connection. Each process's
 * whole stderr is read once it has stopped, so every line it wrote is judged.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import pg from 'pg';
import { after, before, it } from 'node:test';
import { startServe, stopServe } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker } from '../support/worker-process.ts';

const database: TestDatabase = await createTestDatabase({ migrated: true });
const MESSAGE = 'idle PostgreSQL connection failed';

interface LogLine {
  level?: string;
  message?: string;
  error?: { message?: string; stack?: string };
}

/** Every line of a stderr as JSON; a line that is not JSON fails the test, naming it. */
function jsonLines(stderr: string): LogLine[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        assert.fail(`a stderr line that is not JSON: ${line}`);
      }
    });
}

suiteOrSkip('a PostgreSQL outage in the log of serve and worker', database.skip, { concurrency: 1 }, () => {
  let url = '';
  let admin: pg.Client;
  before(async () => {
    if (database.skip !== undefined) return;
    url = database.url;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  after(async () => {
    if (database.skip !== undefined) return;
    await admin.end();
    await database.drop();
  });

  /** The backends of the command's pool (application_name monitoring-api) on this database. */
  async function backends(): Promise<{ pid: number }[]> {
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and application_name = 'monitoring-api'`,
    );
    return rows;
  }

  /** Ends every backend of the pool; resolves, once they have exited, to how many there were. */
  async function endBackends(): Promise<number> {
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity, pg_terminate_backend(pid) where datname = current_database() and application_name = 'monitoring-api'`,
    );
    // pg_terminate_backend only signals: a backend has closed its connection once it is no longer listed.
    const pids = new Set(rows.map((row) => row.pid));
    await waitFor('the ended backends to exit', async () => (await backends()).every((b) => !pids.has(b.pid)));
    return pids.size;
  }

  /**
   * Ends the pool's backends until the command has logged an idle one's failure; resolves to how
   * many were ended. A backend busy with a query when it is ended fails that query instead (a
   * worker's first rounds of claims and sweeps), so the round is repeated on the pool's next
   * connections until one was idle.
   */
  async function endBackendsUntilLogged(stderr: () => string): Promise<number> {
    let ended = 0;
    await waitFor(
      () => `the failure to be logged: ${stderr()}`,
      async () => {
        if (stderr().includes(MESSAGE)) return true;
        ended += await endBackends();
        return false;
      },
      20,
    );
    return ended;
  }

  /**
   * The outage's lines: one error in full (its stack), whichever way each connection ended (the
   * server's notice, a reset, an unexpected close); the others counted, for at most `ended` failures.
   */
  function assertLoggedOnce(lines: LogLine[], ended: number, stderr: string): void {
    const about = lines.filter((line) => line.message?.startsWith(MESSAGE) === true);
    const full = about.filter((line) => line.message === MESSAGE);
    assert.equal(full.length, 1, `one line in full for the outage:\n${stderr}`);
    assert.equal(full[0]!.level, 'error');
    assert.ok(full[0]!.error?.stack !== undefined, stderr);
    const counts = about
      .filter((line) => line !== full[0])
      .map((line) => {
        const count = /^idle PostgreSQL connection failed \((\d+) more like this since the last line\)$/.exec(
          line.message!,
        );
        assert.ok(count !== null && line.level === 'warn', `a count line: ${JSON.stringify(line)}`);
        return Number(count[1]);
      });
    const failures = 1 + counts.reduce((sum, count) => sum + count, 0);
    assert.ok(failures <= ended, `${failures} failures reported for ${ended} connections:\n${stderr}`);
  }

  it('serve: the idle connections ended by PostgreSQL are one JSON error line, not one per connection', async () => {
    const server = await startServe(['--database', url]);
    try {
      // Requests side by side, so the pool holds several connections when they end.
      const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(`${new URL(server.url).origin}/readyz`)));
      for (const answer of answers) assert.equal(answer.status, 200);
      const ended = await endBackendsUntilLogged(server.stderr);
      // 'close' comes once the process has exited and its output has been read to the end.
      const closed = once(server.child, 'close');
      assert.equal(await stopServe(server), 0, server.stderr());
      await closed;
      assertLoggedOnce(jsonLines(server.stderr()), ended, server.stderr());
    } finally {
      await stopServe(server, 'SIGKILL');
    }
  });

  it('worker: likewise', async () => {
    // Nothing is due and the next poll is an hour away: the pool's connections are soon idle.
    const worker = await startWorker(['--database', url, '--poll-interval', '3600000']);
    try {
      const ended = await endBackendsUntilLogged(() => worker.stderr.join('\n'));
      const closed = once(worker.child, 'close');
      worker.child.kill('SIGTERM');
      assert.equal(await worker.exited, 0, worker.stderr.join('\n'));
      await closed;
      const stderr = worker.stderr.join('\n');
      assertLoggedOnce(jsonLines(stderr), ended, stderr);
    } finally {
      worker.child.kill('SIGKILL');
    }
  });
});
