/**
 * Shutdown answers what it accepted: a request in flight at SIGTERM gets its answer, a 500 at
 * worst, before the process exits, also when PostgreSQL has stalled under it; a server with no
 * connection open exits at once. The timeouts a test waits out are given short (--query-timeout,
 * --shutdown-timeout), and the signal comes once what it is about has happened, never after a
 * guessed while.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bootstrapToken, startServe, type ServerProcess } from '../support/cli.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { nodeArgs } from '../support/node-args.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import { connectUntilRefused } from '../support/ports.ts';
import { postgresOrSkip, viaPort } from './support.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-shutdown-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const create = (server: ServerProcess, token: string, name: string) =>
  fetch(`${server.url}/devices/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ target_type: 'domain', target_value: `${name}.example.org` }),
  });

/**
 * A connection to `port` that says nothing until the test writes on it, and that the server has
 * taken in when this resolves: a request on a second connection, opened after it, has been
 * answered, and a server takes connections in the order they came (its accept queue). `answer`
 * resolves, once the server closes it, with everything the server sent.
 */
async function silentConnection(port: number): Promise<{ client: Socket; answer: Promise<string> }> {
  const client = connect(port, '127.0.0.1');
  await once(client, 'connect');
  let received = '';
  client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const answer = once(client, 'close').then(() => received);
  const after = connect(port, '127.0.0.1');
  after.write('GET /v1/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  let answered = '';
  after.on('data', (chunk: Buffer) => (answered += chunk.toString('latin1')));
  after.on('error', () => {});
  await once(after, 'close');
  assert.match(answered, /^HTTP\/1\.1 /, 'the connection opened after the silent one was not answered');
  return { client, answer };
}

describe('shutdown deadlines', { concurrency: true }, () => {
  // Seen in full runs as a request answered by a closed connection: after a stall, the sweep of
  // unused connections ran before the loop had read the request waiting on one.
  test('a request that arrived before the grace ended is answered, even when the process stalled past it', async () => {
    // The fixture's stall lasts until this file exists: the test creates it once its request is sent.
    const sent = join(dir, 'request-sent');
    const fixture = nodeArgs(join('test', 'hardening', 'busy-after-sigterm.ts'));
    const child = spawn(process.execPath, [...fixture, sent], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
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
      client.write('GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n', () => writeFileSync(sent, ''));
      const answer = await answered;
      assert.equal(
        answer.split('\r\n')[0],
        'HTTP/1.1 401 Unauthorized',
        `the request went unanswered: ${JSON.stringify(answer)} ${err}`,
      );
      assert.equal((await exited)[0], 0, err);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  test('a first request on an old connection, begun within the grace and finished after it, is answered', async () => {
    const server = await startServe(['--database', `sqlite:${join(dir, 'late-first.db')}`]);
    const token = bootstrapToken(server);
    assert.ok(token);
    const port = Number(new URL(server.url).port);
    // Opened before the signal, and silent until the shutdown has begun. The second stays silent:
    // the sweep of unused connections that begins when the grace (1 s) ends closes it.
    const { client, answer: answered } = await silentConnection(port);
    const { answer: unused } = await silentConnection(port);
    server.child.kill('SIGTERM');
    // The shutdown has begun once new connections are refused; the request begins right then.
    await connectUntilRefused(port);
    const body = JSON.stringify({ target_type: 'domain', target_value: 'late-first.example.org' });
    client.write(
      `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    // The rest once the grace has ended and the sweeps have begun.
    assert.equal(await unused, '', 'the unused connection was answered');
    client.write(body.slice(10));
    const answer = await answered;
    assert.equal(
      answer.split('\r\n')[0],
      'HTTP/1.1 201 Created',
      `the request went unanswered: ${JSON.stringify(answer)} ${server.stderr()}`,
    );
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.equal(await server.exited, 0, server.stderr());
  });

  test('with no connection open, SIGTERM exits 0 at once', { timeout: HANG_GUARD_MS }, async () => {
    // The drain deadline is the test's hang guard: a shutdown waiting on anything but itself would
    // hang into the guard, and the deadline, had it ended the wait, exits 1.
    const server = await startServe([
      '--database',
      `sqlite:${join(dir, 'idle.db')}`,
      '--shutdown-timeout',
      String(HANG_GUARD_MS),
    ]);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
  });

  /** A server on PostgreSQL behind a proxy the test stalls, with a create in flight at SIGTERM. */
  async function stalledCreateAtSigterm(
    args: string[],
  ): Promise<
    | { status: number; code: string | undefined; answeredMs: number; exit: number | null; stderr: string }
    | { skip: string }
  > {
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
        status: res.status,
        code: ((await res.json()) as { error?: { code: string } }).error?.code,
        answeredMs: performance.now() - started,
      }));
      // In flight once its query is held at the proxy: then the signal comes.
      const held = proxy;
      await waitFor('the create to send its query', () => held.held, 10);
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

  test("PostgreSQL stalled: the request in flight gets the query timeout's 500 within the drain deadline", async (t) => {
    // The query timeout also bounds serve's own start (the migrations' check, the bootstrap).
    const result = await stalledCreateAtSigterm(['--query-timeout', '2000']);
    if ('skip' in result) return t.skip(result.skip);
    assert.equal(result.status, 500);
    assert.equal(result.code, 'server_error');
    // Ended by the query timeout (pg's query_timeout) ...
    assert.match(result.stderr, /Query read timeout/);
    // ... within the drain deadline (5 + 2 + 3 s here): at the deadline the process would exit 1.
    assert.equal(result.exit, 0, result.stderr);
  });

  test(
    'a drain deadline shorter than the query timeout answers the request in flight 500 before exiting',
    { timeout: HANG_GUARD_MS },
    async (t) => {
      // The query timeout is the test's hang guard: only the drain deadline can answer the request
      // in time, and its line says it did.
      const result = await stalledCreateAtSigterm([
        '--query-timeout',
        String(HANG_GUARD_MS),
        '--shutdown-timeout',
        '400',
      ]);
      if ('skip' in result) return t.skip(result.skip);
      assert.equal(result.status, 500);
      assert.equal(result.code, 'server_error');
      assert.equal(result.exit, 1);
      assert.match(result.stderr, /answered 1 request\(s\) still in flight after 400 ms with 500/);
      assert.doesNotMatch(result.stderr, /Query read timeout/);
      // Not before the deadline.
      assert.ok(result.answeredMs >= 400, `answered after ${Math.round(result.answeredMs)} ms`);
    },
  );

  test('bad timeouts are usage errors', async () => {
    const server = startServe(['--database', `sqlite:${join(dir, 'bad.db')}`, '--shutdown-timeout', '0']);
    await assert.rejects(server, /--shutdown-timeout must be an integer/);
  });
});
