/**
 * Shutdown answers what it accepted: a request in flight at SIGTERM gets its answer, a 500 at
 * worst, before the process exits, also when PostgreSQL has stalled under it; a server with no
 * connection open exits at once. Timeouts are given short (--query-timeout, --shutdown-timeout)
 * so that nothing waits real seconds.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bootstrapToken, startServe, type ServerProcess } from '../support/cli.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import { postgresOrSkip, viaPort } from './support.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-shutdown-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const create = (server: ServerProcess, token: string, name: string) => fetch(`${server.url}/devices/create`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ target_type: 'domain', target_value: `${name}.example.org` }),
});

describe('shutdown deadlines', { concurrency: true }, () => {
  test('with no connection open, SIGTERM exits 0 at once', async () => {
    const server = await startServe(['--database', `sqlite:${join(dir, 'idle.db')}`]);
    const started = performance.now();
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.ok(performance.now() - started < 500, `exited after ${performance.now() - started} ms`);
  });

  /** A server on PostgreSQL behind a proxy the test stalls, with a create in flight at SIGTERM. */
  async function stalledCreateAtSigterm(args: string[]): Promise<{ status: number; code: string | undefined; answeredMs: number; exit: number | null; stderr: string } | { skip: string }> {
    const database = await postgresOrSkip({ migrated: true });
    if ('skip' in database) return database;
    let proxy: FaultProxy | undefined;
    let server: ServerProcess | undefined;
    try {
      proxy = await startFaultProxy(Number(new URL(database.url).port || '5432'));
      server = await startServe(['--database', viaPort(database.url, proxy.port), ...args]);
      const token = bootstrapToken(server)!;
      // The key is cached now: the create below waits on its INSERT alone.
      assert.equal((await create(server, token, 'before')).status, 201);
      proxy.stall();
      const started = performance.now();
      const answer = create(server, token, 'in-flight').then(async (res) => ({
        status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code, answeredMs: performance.now() - started,
      }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      server.child.kill('SIGTERM');
      const answered = await answer;
      const exit = await server.exited;
      return { ...answered, exit, stderr: server.stderr() };
    } finally {
      if (server !== undefined && server.child.exitCode === null) server.child.kill('SIGKILL');
      proxy?.restore();
      await proxy?.close();
      await database.drop();
    }
  }

  test('PostgreSQL stalled: the request in flight gets the query timeout\'s 500 within the drain deadline', async (t) => {
    const result = await stalledCreateAtSigterm(['--query-timeout', '300']);
    if ('skip' in result) return t.skip(result.skip);
    assert.equal(result.status, 500);
    assert.equal(result.code, 'server_error');
    assert.ok(result.answeredMs < 2_000, `answered after ${result.answeredMs} ms`);
    assert.equal(result.exit, 0, result.stderr);
  });

  test('a drain deadline shorter than the query timeout answers the request in flight 500 before exiting', async (t) => {
    const result = await stalledCreateAtSigterm(['--query-timeout', '60000', '--shutdown-timeout', '400']);
    if ('skip' in result) return t.skip(result.skip);
    assert.equal(result.status, 500);
    assert.equal(result.code, 'server_error');
    assert.ok(result.answeredMs >= 400 && result.answeredMs < 2_000, `answered after ${result.answeredMs} ms`);
    assert.equal(result.exit, 1);
    assert.match(result.stderr, /answered 1 request\(s\) still in flight after 400 ms with 500/);
  });

  test('bad timeouts are usage errors', async () => {
    const server = startServe(['--database', `sqlite:${join(dir, 'bad.db')}`, '--shutdown-timeout', '0']);
    await assert.rejects(server, /--shutdown-timeout must be an integer/);
  });
});
