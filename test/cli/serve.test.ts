/**
 * `monitoring-api serve` as an operator runs it, on temporary SQLite files: the first-start key,
 * the listening line, the request log, the flags reaching the API, and graceful shutdown. The
 * server is a process (startServe); the admin commands beside it run in this process through the
 * CLI's command code (runCommand), on the same database file.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openKyselyStore } from '../../stores/kysely/index.ts';
import { createApiServer, SERVER_TIMEOUTS } from '../../cli/server/http-server.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { bootstrapToken, getMe, startServe, stopServe } from '../support/cli.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { connectUntilRefused } from '../support/ports.ts';
import { runCommand, runCommandJson } from '../support/run-command.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-cli-serve-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const db = (name: string) => `sqlite:${join(dir, `${name}.db`)}`;
const auth = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });

describe('the server serve runs', () => {
  // serve passes only the timeouts given as flags (test/hardening/server.test.ts waits them out
  // with short ones); without them these are node:http's settings.
  it('without timeout flags: headers within 10 s, the whole request within 30 s, idle keep-alive 5 s', async () => {
    assert.deepEqual(SERVER_TIMEOUTS, { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 });
    const t = createTestApi();
    const { server } = createApiServer(t.api);
    assert.equal(server.headersTimeout, 10_000);
    assert.equal(server.requestTimeout, 30_000);
    assert.equal(server.keepAliveTimeout, 5_000);
    const short = createApiServer(t.api, { headersTimeout: 300, requestTimeout: 500, keepAliveTimeout: 200 }).server;
    assert.deepEqual([short.headersTimeout, short.requestTimeout, short.keepAliveTimeout], [300, 500, 200]);
    await t.close();
  });
});

describe('serve', { concurrency: 4 }, () => {
  it('prints a first key on an empty database only, serves /v1, logs each request as JSON without the token', async () => {
    const database = db('first');
    const first = await startServe(['--database', database]);
    const token = bootstrapToken(first);
    assert.ok(token, `the first start prints a key: ${first.lines.join('\n')}`);
    assert.equal(first.lines.filter((line) => line.includes(token)).length, 1, 'the token is printed once');
    assert.ok(
      first.lines.some((line) => /read\+write/.test(line)),
      'the banner says what the key may do',
    );
    assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.equal(first.lines.filter((line) => line.startsWith('listening on ')).length, 1);

    const me = await getMe(first.url, token);
    assert.equal(me.status, 200);
    const { user_id, key_id, scopes } = (await me.json()).data;
    assert.deepEqual({ user_id, key_id, scopes }, { user_id: 1, key_id: 1, scopes: ['read', 'write'] });
    const outside = await fetch(first.url.replace(/\/v1$/, '/status'));
    assert.equal(outside.status, 404);
    assert.equal((await outside.json()).error.code, 'unknown_route');
    const refused = await fetch(`${first.url}/me`, { headers: auth(`${token}x`) });
    assert.equal(refused.status, 401);

    await first.waitForLine(/"status":401/);
    const listening = first.lines.findIndex((line) => line.startsWith('listening on '));
    const log = first.lines.slice(listening + 1).map((line) => JSON.parse(line));
    assert.deepEqual(
      log.map((entry) => [entry.method, entry.path, entry.status]),
      [
        ['GET', '/v1/me', 200],
        ['GET', '/status', 404],
        ['GET', '/v1/me', 401],
      ],
      'one JSON line per request',
    );
    assert.deepEqual(Object.keys(log[0]).sort(), [
      'client_ip',
      'duration_ms',
      'key_id',
      'method',
      'path',
      'request_id',
      'status',
      'time',
    ]);
    assert.equal(log[2].code, 'invalid_api_key');
    assert.ok(
      !first.lines.slice(listening + 1).some((line) => line.includes(token.slice(5, 20))),
      'no part of the token is logged',
    );
    assert.equal(first.stderr(), '');
    assert.equal(await stopServe(first, 'SIGINT'), 0, 'SIGINT ends it cleanly');

    // Flags win over the environment: a PORT that would be refused is never read.
    const second = await startServe(['--database', database], { PORT: 'not-a-port' });
    assert.equal(bootstrapToken(second), undefined, 'no second first key');
    assert.equal((await getMe(second.url, token)).status, 200);
    assert.equal(await stopServe(second, 'SIGTERM'), 0);
  });

  // One pair of servers for both claims: a process start saved.
  it(
    'two instances started together on one empty database make one first key between them; ' +
      'a key revoked with the CLI before its first use is refused as invalid_api_key',
    async () => {
      const database = db('twins');
      const servers = await Promise.all([startServe(['--database', database]), startServe(['--database', database])]);
      const tokens = servers.map(bootstrapToken).filter((token) => token !== undefined);
      assert.equal(tokens.length, 1);
      const users = await runCommand(['keys', 'list', '--user', '2', '--database', database]);
      assert.equal(users.code, 1, 'there is no second user');
      for (const server of servers) assert.equal((await getMe(server.url, tokens[0]!)).status, 200);

      const key = await runCommandJson<{ key_id: number; token: string }>([
        'keys',
        'create',
        '--user',
        '1',
        '--database',
        database,
      ]);
      assert.equal((await runCommand(['keys', 'revoke', String(key.key_id), '--database', database])).code, 0);
      const answer = await getMe(servers[1]!.url, key.token);
      assert.equal(answer.status, 401);
      assert.equal((await answer.json()).error.code, 'invalid_api_key');
      assert.deepEqual(await Promise.all(servers.map((server) => stopServe(server))), [0, 0]);
    },
  );

  it('serve and keys create flags reach the API: scopes, allow-list, trusted proxy, limits, private targets', async () => {
    const database = db('flags');
    const server = await startServe([
      '--database',
      database,
      '--trust-proxy',
      '127.0.0.0/8',
      '--rate-limit',
      '5/60',
      '--body-limit',
      '200',
      '--allow-private-targets',
    ]);
    const admin = bootstrapToken(server)!;
    const key = await runCommandJson<{ token: string }>([
      'keys',
      'create',
      '--user',
      '1',
      '--scopes',
      'read',
      '--allow-ip',
      '203.0.113.7',
      '--rate-limit',
      '2/60',
      '--name',
      'reader',
      '--expires',
      '2099-12-31',
      '--database',
      database,
    ]);
    const viaProxy = { 'x-forwarded-for': '203.0.113.7' };

    assert.equal((await (await getMe(server.url, key.token)).json()).error.code, 'ip_not_allowed');
    const me = await fetch(`${server.url}/me`, { headers: auth(key.token, viaProxy) });
    assert.equal(me.status, 200, "the trusted proxy's X-Forwarded-For names the client");
    assert.equal(me.headers.get('ratelimit-policy'), '"key";q=2;w=60', "the key's own limit");
    const write = await fetch(`${server.url}/devices/create`, {
      method: 'POST',
      headers: auth(key.token, { ...viaProxy, 'content-type': 'application/json' }),
      body: '{}',
    });
    assert.equal((await write.json()).error.code, 'insufficient_scope');
    const third = await fetch(`${server.url}/me`, { headers: auth(key.token, viaProxy) });
    assert.equal((await third.json()).error.code, 'rate_limit_exceeded');

    const create = (body: object) =>
      fetch(`${server.url}/devices/create`, {
        method: 'POST',
        headers: auth(admin, { 'content-type': 'application/json' }),
        body: JSON.stringify(body),
      });
    const privateTarget = await create({ target_type: 'ip', target_value: '10.0.0.1', service_type: 'ssh' });
    assert.equal(privateTarget.status, 201, '--allow-private-targets');
    assert.equal(privateTarget.headers.get('ratelimit-policy'), '"key";q=5;w=60', '--rate-limit');
    const large = await create({ target_type: 'domain', target_value: 'example.com', location: 'x'.repeat(200) });
    assert.equal((await large.json()).error.code, 'payload_too_large', '--body-limit');
    assert.equal(await stopServe(server), 0);
  });

  it(
    'SIGTERM: stops accepting, lets a request in flight finish on its keep-alive connection, exits 0 at once',
    { timeout: HANG_GUARD_MS },
    async () => {
      // Idle keep-alive connections, the request and the drain deadline all last as long as the
      // test's hang guard: the process can only exit in time by closing the connection itself once
      // the request is answered, and exit 0 says the deadline did not end it.
      const guard = String(HANG_GUARD_MS);
      const server = await startServe([
        '--database',
        db('drain'),
        '--keep-alive-timeout',
        guard,
        '--request-timeout',
        guard,
        '--shutdown-timeout',
        guard,
      ]);
      const token = bootstrapToken(server)!;
      const body = JSON.stringify({ target_type: 'domain', target_value: 'drain.example.com' });
      const agent = new Agent({ keepAlive: true });
      // The headers and part of the body go first; SIGTERM arrives while the server waits for the
      // rest. Its 100 Continue says it has taken the request in (node sends it on parsing the headers).
      const answer = new Promise<{ status: number; connection: string | undefined; text: string }>(
        (resolve, reject) => {
          const req = request(
            `${server.url}/devices/create`,
            {
              method: 'POST',
              agent,
              headers: auth(token, {
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(body)),
                expect: '100-continue',
              }),
            },
            (res) => {
              let text = '';
              res
                .on('data', (chunk: Buffer) => (text += chunk))
                .on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }));
            },
          );
          req.on('error', reject);
          req.once('continue', () => {
            req.write(body.slice(0, 10));
            server.child.kill('SIGTERM');
            // Not accepting any more: a new connection is refused while the old request is open.
            connectUntilRefused(Number(new URL(server.url).port)).then(() => req.end(body.slice(10)), reject);
          });
          req.flushHeaders();
        },
      );
      const { status, connection, text } = await answer;
      assert.equal(status, 201, text);
      assert.equal(connection, 'close', 'the answer closes its connection');
      assert.equal(await server.exited, 0);
      agent.destroy();
    },
  );

  it('SIGTERM under keep-alive load: no request is reset; every 201 was stored, nothing else was', async () => {
    const server = await startServe(['--database', db('drain-load'), '--rate-limit', '1000000/60']);
    const token = bootstrapToken(server)!;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const outcomes = new Map<string, number>();
    let stopping = false;
    let n = 0;
    const post = () =>
      new Promise<string>((resolve) => {
        const body = JSON.stringify({ target_type: 'domain', target_value: `load-${n++}.example.com` });
        const req = request(
          `${server.url}/devices/create`,
          {
            method: 'POST',
            agent,
            headers: auth(token, {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
            }),
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(`${res.statusCode}`));
          },
        );
        // A new connection refused is unambiguous: nothing was sent. A reset on a reused one is not.
        req.on('error', (error: NodeJS.ErrnoException) =>
          resolve(req.reusedSocket ? `reset ${error.code}` : 'refused'),
        );
        req.end(body);
      });
    const loops = Array.from({ length: 4 }, async () => {
      while (!stopping) {
        const outcome = await post();
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    });
    // The signal comes under load: once twenty creates are answered, or as soon as anything else
    // comes back (the outcomes then say what came instead).
    await waitFor(
      'twenty creates answered',
      () => (outcomes.get('201') ?? 0) >= 20 || [...outcomes.keys()].some((outcome) => outcome !== '201'),
      10,
    );
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    stopping = true;
    await Promise.all(loops);
    agent.destroy();
    const created = outcomes.get('201') ?? 0;
    assert.deepEqual(
      [...outcomes.keys()].filter((outcome) => outcome !== '201' && outcome !== 'refused'),
      [],
      JSON.stringify(Object.fromEntries(outcomes)),
    );
    assert.ok(created > 0);
    // Every answered create is in the database, and no unanswered one slipped in.
    const { store } = await openKyselyStore(db('drain-load'));
    try {
      assert.equal((await store.listDevices(1, { afterId: 0, limit: Number.POSITIVE_INFINITY })).length, created);
    } finally {
      await store.close();
    }
  });

  it('SIGTERM with pipelined requests: what is processed is answered; after the closing answer nothing is processed', async () => {
    const server = await startServe(['--database', db('drain-pipelined'), '--rate-limit', '1000000/60']);
    const token = bootstrapToken(server)!;
    const { hostname, port } = new URL(server.url);
    const post = (name: string) => {
      const body = JSON.stringify({ target_type: 'domain', target_value: `${name}.example.com` });
      return (
        `POST /v1/devices/create HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    };
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(post('first'));
    await waitFor(
      () => `an answer to the first request: ${received}`,
      () => received.includes('201 Created'),
      10,
    );
    server.child.kill('SIGTERM');
    // Once the server stops accepting it is draining: five requests in one write, within the
    // grace, on the connection that stayed open.
    await connectUntilRefused(Number(new URL(server.url).port));
    socket.write(['p1', 'p2', 'p3', 'p4', 'p5'].map(post).join(''));
    await closed;
    assert.equal(await server.exited, 0);
    // Answers follow one another with nothing between a body and the next status line.
    assert.equal(received.split('HTTP/1.1 ').length - 1, 2, received);
    assert.equal(received.split('HTTP/1.1 201 ').length - 1, 2, received);
    assert.match(received.split('HTTP/1.1 201 ')[2]!, /\r\nConnection: close\r\n/i);
    const { store } = await openKyselyStore(db('drain-pipelined'));
    try {
      const stored = await store.listDevices(1, { afterId: 0, limit: Number.POSITIVE_INFINITY });
      assert.deepEqual(
        stored.map((device) => device.target_value),
        ['first.example.com', 'p1.example.com'],
      );
    } finally {
      await store.close();
    }
  });

  it(
    'SIGTERM with a connection that never sent a byte: it is closed after the grace, exit 0',
    { timeout: HANG_GUARD_MS },
    async () => {
      // The header and request timeouts and the drain deadline last as long as the test's hang
      // guard: only the sweep of unused connections after the grace can close the connection in
      // time, and exit 0 says the deadline did not end the wait (it exits 1).
      const guard = String(HANG_GUARD_MS);
      const server = await startServe([
        '--database',
        db('drain-silent'),
        '--header-timeout',
        guard,
        '--request-timeout',
        guard,
        '--shutdown-timeout',
        guard,
      ]);
      const { hostname, port } = new URL(server.url);
      const socket = connect(Number(port), hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.stderr());
      await closed;
      assert.equal(received, '', 'closed unanswered: it never sent a request');
    },
  );
});
