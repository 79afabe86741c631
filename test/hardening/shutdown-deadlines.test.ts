/**
 * Shutdown answers what it accepted: a request in flight at SIGTERM gets its answer, a 500 at
 * worst, before the process exits, also when PostgreSQL has stalled under it; a server with no
 * connection open exits at once. Timeouts are given short (--query-timeout, --shutdown-timeout)
 * so that nothing waits real seconds.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bootstrapToken, startServe, type ServerProcess } from '../support/cli.ts';
import { nodeArgs } from '../support/node-args.ts';
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

/**
 * A connection to `port` that says nothing until the test writes on it, opened a little before
 * the test goes on so that the server has accepted it; `answer` resolves, once the server closes
 * it, with everything the server sent.
 */
async function silentConnection(port: number): Promise<{ client: Socket; answer: Promise<string> }> {
  const client = connect(port, '127.0.0.1');
  await once(client, 'connect');
  let received = '';
  client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const answer = once(client, 'close').then(() => received);
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { client, answer };
}

describe('shutdown deadlines', { concurrency: true }, () => {
  // Seen in full runs as a request answered by a closed connection: after a stall, the sweep of
  // unused connections ran before the loop had read the request waiting on one.
  test('a request that arrived before the grace ended is answered, even when the process stalled past it', async () => {
    const child = spawn(process.execPath, nodeArgs(join('test', 'hardening', 'fixtures', 'busy-after-sigterm.ts')), { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    const exited = once(child, 'exit') as Promise<[number | null]>;
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const port = Number(/^port (\d+)$/.exec(String((await lines.next()).value))?.[1]);
    assert.ok(port > 0, err);
    // A connection the server accepts before the signal, silent until the stall has begun.
    const { client, answer: answered } = await silentConnection(port);
    child.kill('SIGTERM');
    assert.equal((await lines.next()).value, 'busy', err);
    client.write('GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n');
    const answer = await answered;
    assert.equal(answer.split('\r\n')[0], 'HTTP/1.1 401 Unauthorized', `the request went unanswered: ${JSON.stringify(answer)} ${err}`);
    assert.equal((await exited)[0], 0, err);
  });

  test('a first request on an old connection, begun within the grace and finished after it, is answered', async () => {
    const server = await startServe(['--database', `sqlite:${join(dir, 'late-first.db')}`]);
    const token = bootstrapToken(server);
    assert.ok(token);
    // Opened before the signal, and silent until the shutdown has begun.
    const { client, answer: answered } = await silentConnection(Number(new URL(server.url).port));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const body = JSON.stringify({ target_type: 'domain', target_value: 'late-first.example.org' });
    client.write(`POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n`
      + `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    // The rest after the grace (1 s) has ended and the sweeps of unused connections have begun.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    client.write(body.slice(10));
    const answer = await answered;
    assert.equal(answer.split('\r\n')[0], 'HTTP/1.1 201 Created', `the request went unanswered: ${JSON.stringify(answer)} ${server.stderr()}`);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.equal(await server.exited, 0, server.stderr());
  });

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
