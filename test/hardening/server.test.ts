/**
 * Issue 6, items 3 and 4 (process half) and 5 (logs): the standalone server as an operator runs
 * it (`monitoring-api serve` as a process, from `dist/` when it is fresh: test/support/built-cli.ts),
 * attacked over raw sockets: oversized headers and URLs, slow clients, endless and oversized
 * bodies, idle keep-alive; SIGTERM with a request in flight; SIGKILL during a burst of creates; two
 * processes on one SQLite file; the schema dropped under a running server; PostgreSQL cut off under
 * a running server; and what the server writes to its log.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { SERVER_TIMEOUTS } from '../../cli/server/http-server.ts';
import { startServe, type ServerProcess } from '../support/cli.ts';
import { startFaultProxy } from './fault-proxy.ts';
import { connectUntilRefused } from '../support/ports.ts';
import { postgresOrSkip, viaPort } from './support.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { waitFor } from '../support/wait-for.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

interface Served {
  server: ServerProcess;
  port: number;
  token: string;
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-server-hardening-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts `serve` on a database and reads the bootstrap token it prints on an empty one. */
async function serve(database: string, args: string[] = []): Promise<Served> {
  const server = await startServe(['--database', database, ...args]);
  const token =
    server.lines.map((line) => /(mapi_[A-Za-z0-9_-]{43})/.exec(line)?.[1]).find((t) => t !== undefined) ?? '';
  return { server, port: Number(new URL(server.url).port), token };
}

async function stop(served: Served): Promise<number | null> {
  if (served.server.child.exitCode === null && served.server.child.signalCode === null)
    served.server.child.kill('SIGTERM');
  return served.server.exited;
}

const sqliteUrl = (name: string) => `sqlite:${join(dir, name)}`;

/**
 * How long a test waits for an answer or a close that it does not time: the wait ends with the
 * close, so only a failing test waits it out, and a busy machine never does.
 */
const ANSWER_MS = HANG_GUARD_MS;

interface RawAnswer {
  status: number | null;
  head: string;
  body: string;
  /** Milliseconds from the first byte sent to the server's close, or null if still open at the end. */
  closedAfter: number | null;
  error: string | null;
}

/**
 * Sends bytes over a fresh socket and collects what comes back until the server closes the
 * connection or `waitMs` passes. `then` may send more on the open socket.
 */
function raw(
  port: number,
  payload: string | Buffer,
  waitMs: number,
  then?: (socket: Socket) => void,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let error: string | null = null;
    let closedAfter: number | null = null;
    const finish = () => {
      clearTimeout(timer);
      // An interim 100 Continue is not the answer.
      const [head = '', ...rest] = data.replace(/^HTTP\/1\.1 100 [^\r]*\r\n\r\n/, '').split('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      resolve({
        status: status === undefined ? null : Number(status),
        head,
        body: rest.join('\r\n\r\n'),
        closedAfter,
        error,
      });
      socket.destroy();
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('error', (e) => {
      error = e.message;
    });
    socket.on('close', () => {
      closedAfter = performance.now() - started;
      finish();
    });
    socket.write(payload);
    then?.(socket);
  });
}

async function api(
  port: number,
  path: string,
  init: RequestInit & { token?: string } = {},
): Promise<{
  status: number;
  body: { success: boolean; data?: unknown; error?: { code: string } };
  type: string | null;
}> {
  const { token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  if (rest.body !== undefined) headers.set('content-type', 'application/json');
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { ...rest, headers });
  return {
    status: res.status,
    body: (await res.json()) as { success: boolean },
    type: res.headers.get('content-type'),
  };
}

const device = (name: string) => JSON.stringify({ target_type: 'domain', target_value: name });

// The groups run one after another: the client timeouts are timed, and the bursts of creates of the
// last group would hold up both this process and the servers. Within each, the tests run side by side.
describe('the standalone server', () => {
  describe('under hostile clients', { concurrency: true }, () => {
    let s: Served;
    before(async () => {
      s = await serve(sqliteUrl('shared.db'));
    });
    after(async () => {
      await stop(s);
    });

    test('oversized headers and URLs get a 4xx (431 or 414) and close; the server carries on', async () => {
      const cases = [
        `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
        `GET /v1/me?${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET /v1/${'a/'.repeat(40 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET /v1/me HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`,
      ];
      const payloads = Array.from({ length: 10 }, () => cases).flat();
      const answers = await Promise.all(payloads.map((payload) => raw(s.port, payload, ANSWER_MS)));
      for (const answer of answers) {
        assert.ok(
          answer.status === 431 || answer.status === 414 || answer.status === null,
          `got ${answer.head.split('\r\n')[0]}`,
        );
        assert.notEqual(answer.closedAfter, null, 'the connection must be closed');
      }
      assert.ok(
        answers.some((a) => a.status === 431 || a.status === 414),
        'at least some were answered with a status',
      );
      const ok = await api(s.port, '/v1/me', { token: s.token });
      assert.equal(ok.status, 200);
      assert.equal(s.server.child.exitCode, null);
    });

    test('what node:http would answer itself gets the API envelope, an X-Request-Id, and a close', async () => {
      const cases: [what: string, payload: string, status: number, code: string][] = [
        ['not HTTP', 'HELLO\r\n\r\n', 400, 'bad_request'],
        [
          'HTTP/1.1 without Host (RFC 9112 §3.2)',
          `GET /v1/me HTTP/1.1\r\nAuthorization: Bearer ${s.token}\r\n\r\n`,
          400,
          'bad_request',
        ],
        [
          'an expectation other than 100-continue',
          `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}`,
          417,
          'expectation_failed',
        ],
        ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 400, 'bad_request'],
        [
          'headers over the limit',
          `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
          431,
          'request_header_fields_too_large',
        ],
      ];
      for (const [what, payload, status, code] of cases) {
        const answer = await raw(s.port, payload, ANSWER_MS);
        assert.equal(answer.status, status, `${what}: ${answer.head.split('\r\n')[0]}`);
        assert.match(answer.head, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i, what);
        assert.match(
          answer.head,
          /\r\nx-request-id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\r\n/i,
          what,
        );
        const body = JSON.parse(answer.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, '')) as {
          success: boolean;
          error: { code: string; message: string };
        };
        assert.equal(body.success, false, what);
        assert.equal(body.error.code, code, what);
        assert.ok(body.error.message.length > 0, what);
        assert.notEqual(answer.closedAfter, null, `${what}: the connection must be closed`);
      }
      // An HTTP/1.0 request needs no Host.
      const old = await raw(s.port, `GET /v1/me HTTP/1.0\r\nAuthorization: Bearer ${s.token}\r\n\r\n`, ANSWER_MS);
      assert.match(old.head, /^HTTP\/1\.1 200 /);
      assert.equal(s.server.child.exitCode, null);
    });

    test('the answers of what node:http refuses echo a safe caller X-Request-Id where headers were read', async () => {
      for (const payload of [
        'GET /v1/me HTTP/1.1\r\nX-Request-Id: my-id-1\r\n\r\n',
        'POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nX-Request-Id: my-id-1\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}',
      ]) {
        const answer = await raw(s.port, payload, ANSWER_MS);
        assert.match(answer.head, /\r\nx-request-id: my-id-1\r\n/i, answer.head);
      }
    });

    test('a refused CONNECT or malformed request does not hold the connection open, even if the client does', async () => {
      for (const payload of ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 'HELLO\r\n\r\n']) {
        // allowHalfOpen: this client never closes its side by itself. Once the server has said its
        // piece, bytes the client goes on sending must meet a closed socket (a reset), not one the
        // server still holds open half-closed.
        const closed = await new Promise<boolean>((resolve) => {
          const socket = connect({ port: s.port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write(payload));
          socket.resume();
          let probe: NodeJS.Timeout | undefined;
          const timer = setTimeout(() => {
            clearInterval(probe);
            resolve(false);
            socket.destroy();
          }, ANSWER_MS);
          const done = () => {
            clearTimeout(timer);
            clearInterval(probe);
            resolve(true);
          };
          socket.on('end', () => {
            probe = setInterval(() => socket.write('x'), 100);
          });
          socket.on('error', done);
          socket.on('close', done);
        });
        assert.ok(closed, `the server still holds the connection after ${JSON.stringify(payload.slice(0, 7))}`);
      }
    });

    test("a CONNECT or garbage pipelined behind a create never answers in the create's place", async () => {
      for (const [i, tail] of [
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
        'HELLO\r\n\r\n',
      ].entries()) {
        const body = device(`pipelined-${i}.example.com`);
        const answer = await raw(
          s.port,
          `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}${tail}`,
          ANSWER_MS,
        );
        // The create was applied: its own 201 is the first answer on the connection.
        assert.equal(answer.status, 201, answer.head);
        assert.notEqual(answer.closedAfter, null, 'the connection closes after it');
      }
    });

    test('garbage behind a slow create and a quick read never answers before them', async (t) => {
      // PostgreSQL, so the create can wait on a lock while the server goes on (SQLite's busy wait
      // would stop the whole process): the /me behind it is answered, and node holds that answer
      // until the create's is written. The garbage arrives meanwhile, in pieces.
      const database = await postgresOrSkip({ migrated: true });
      if ('skip' in database) return t.skip(database.skip);
      const locker = new pg.Client({ connectionString: database.url });
      let slow: Served | undefined;
      try {
        slow = await serve(database.url);
        const { port, token } = slow;
        await locker.connect();
        await locker.query('begin');
        await locker.query('lock table devices in exclusive mode');
        const body = device('behind-a-lock.example.com');
        const answer = await raw(
          port,
          `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
            `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
          ANSWER_MS,
          (socket) => {
            for (let i = 1; i <= 20; i++) setTimeout(() => socket.write('HELLO\r\n\r\n'), 400 + i * 10);
            setTimeout(() => void locker.query('rollback'), 1_000);
          },
        );
        assert.equal(answer.status, 201, `the create's own answer comes first: ${answer.head.split('\r\n')[0]}`);
        const statuses = [...`${answer.head}\r\n\r\n${answer.body}`.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) =>
          Number(m[1]),
        );
        assert.deepEqual(statuses.slice(0, 2), [201, 200], `answers in order: ${statuses.join(', ')}`);
        assert.notEqual(answer.closedAfter, null, 'then the connection closes');
        assert.doesNotMatch(slow.server.stderr(), /MaxListenersExceeded/);
      } finally {
        await locker.end().catch(() => undefined);
        if (slow !== undefined) await stop(slow);
        await database.drop();
      }
    });

    test('200 slow clients holding half-sent headers do not delay a normal request', async () => {
      const sockets: Socket[] = [];
      let closed = 0;
      try {
        await Promise.all(
          Array.from(
            { length: 200 },
            (_, i) =>
              new Promise<void>((resolve) => {
                const socket = connect(s.port, '127.0.0.1', () => {
                  socket.write(`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Slow-${i}: `);
                  resolve();
                });
                socket.on('error', () => {});
                socket.on('close', () => closed++);
                sockets.push(socket);
              }),
          ),
        );
        // Keep them trickling, one byte at a time, as slowloris does.
        const trickle = setInterval(() => {
          for (const socket of sockets) socket.write('a');
        }, 200);
        try {
          for (let i = 0; i < 5; i++) {
            const res = await api(s.port, '/v1/me', { token: s.token });
            assert.equal(res.status, 200);
            // Not delayed: answered while every slow client is still connected, none of them
            // finished or dropped first (no clock is asked, so a loaded machine cannot fail it).
            assert.equal(closed, 0, `answer ${i + 1} came after ${closed} slow clients were gone`);
          }
        } finally {
          clearInterval(trickle);
        }
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    });

    test('a body larger than the limit is refused while it streams in: 413 before the client has sent it all', async () => {
      const head = `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
      // 16 KiB + a little, then nothing more: a server that waited for the end would never answer.
      const answer = await raw(s.port, head + chunk(`{"location":"${'a'.repeat(16 * 1024)}`), ANSWER_MS);
      assert.equal(answer.status, 413, answer.head);
      assert.match(answer.head, /content-type: application\/json; charset=utf-8/i);
      assert.equal(
        JSON.parse(answer.body.replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, '')).error.code,
        'payload_too_large',
      );
      // A declared length over the limit is refused before a byte of the body is sent.
      const oversized =
        `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n';
      const declared = await raw(s.port, oversized, ANSWER_MS);
      assert.equal(declared.status, 413, declared.head);
      assert.match(declared.head, /connection: close/i);
      // Closed, not drained: a server reading on would hold it until the request timeout (30 s).
      assert.ok(
        declared.closedAfter !== null && declared.closedAfter < 10_000,
        'the connection is closed, not drained',
      );
    });

    test('the token never reaches the server log (stdout or stderr), whatever the client does with it', async () => {
      const variant = `${s.token.slice(0, -1)}${s.token.endsWith('A') ? 'B' : 'A'}`;
      await api(s.port, '/v1/me', { token: s.token });
      await api(s.port, '/v1/me', { token: variant });
      await api(s.port, `/v1/me?api_key=${s.token}`, { token: s.token });
      await api(s.port, `/v1/devices?token=${s.token}&limit=x`);
      await api(s.port, '/v1/devices/create', { token: s.token, method: 'POST', body: '{"broken' });
      const basic = Buffer.from(`u:${s.token}`).toString('base64');
      const last =
        `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${basic}\r\n` +
        'X-Request-Id: token-log-last\r\nConnection: close\r\n\r\n';
      await raw(s.port, last, ANSWER_MS);
      // The log is written in batches: once the last request's line is out, so are the others'.
      await s.server.waitForLine(/"request_id":"token-log-last"/);
      const banner = s.server.lines.findIndex((line) => line.startsWith('listening on '));
      const logged = [...s.server.lines.slice(banner + 1), s.server.stderr()].join('\n');
      assert.ok(s.server.lines.length > banner + 5, 'requests are logged');
      const secret = s.token.slice('mapi_'.length);
      for (let at = 0; at + 12 <= secret.length; at += 4) {
        assert.ok(!logged.includes(secret.slice(at, at + 12)), `a piece of the token is in the log:\n${logged}`);
      }
      for (const line of s.server.lines.slice(banner + 1)) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        assert.ok(!('authorization' in entry) && !('headers' in entry) && !('query' in entry), line);
      }
    });
  });

  // The client timeouts, on a server of their own started with the flags an operator has: shorter
  // than the defaults (SERVER_TIMEOUTS: 10, 30 and 5 s), and each told apart from the default it
  // replaces and from the other timeouts. They stay long enough for the group's ordinary requests:
  // node:http counts the header timeout from the accept, and a server held up on a busy machine may
  // read a request's headers late. The defaults themselves are checked in test/cli/serve.test.ts.
  describe('client timeouts (--keep-alive-timeout, --header-timeout, --request-timeout)', { concurrency: true }, () => {
    const KEEP_ALIVE_MS = 2_000;
    const HEADER_MS = 4_000;
    const REQUEST_MS = 10_000;
    let s: Served;
    before(async () => {
      s = await serve(sqliteUrl('timeouts.db'), [
        '--keep-alive-timeout',
        String(KEEP_ALIVE_MS),
        '--header-timeout',
        String(HEADER_MS),
        '--request-timeout',
        String(REQUEST_MS),
      ]);
    });
    after(async () => {
      await stop(s);
    });

    test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
      const request = `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n\r\n`;
      const answer = await raw(s.port, request, KEEP_ALIVE_MS + ANSWER_MS);
      assert.equal(answer.status, 200);
      // node:http announces the keep-alive timeout it applies: the flag's.
      assert.match(
        answer.head,
        new RegExp(`\r\nkeep-alive: timeout=${KEEP_ALIVE_MS / 1_000}(?:\r\n|$)`, 'i'),
        answer.head,
      );
      // Closed, not left open until the hang guard: node:http holds an idle connection to its
      // keep-alive timeout alone (the header and request timeouts bound requests in progress).
      assert.ok(answer.closedAfter !== null, 'the idle connection was never closed');
      // Not before the timeout: the server answered after the request was sent, and waited from then on.
      assert.ok(
        answer.closedAfter > KEEP_ALIVE_MS * 0.9,
        `closed ${Math.round(answer.closedAfter)} ms after the request`,
      );
    });

    test('a client that never finishes its headers is cut at the header timeout', async () => {
      const answer = await raw(s.port, 'GET /v1/me HTTP/1.1\r\nHost: x\r\n', ANSWER_MS);
      // Not before it (no other limit cuts it), and before the default header timeout, which an
      // ignored flag would leave in place (the request timeout, longer still, would cut it later).
      const { headersTimeout } = SERVER_TIMEOUTS;
      const closedAfter = answer.closedAfter ?? ANSWER_MS;
      assert.ok(
        closedAfter > HEADER_MS * 0.9 && closedAfter < headersTimeout,
        `closed after ${Math.round(closedAfter)} ms`,
      );
      if (answer.status !== null) assert.equal(answer.status, 408);
      const next = await api(s.port, '/v1/me', { token: s.token });
      assert.equal(next.status, 200, 'the server carries on after the cut');
    });

    test('a request whose body never finishes is cut at the request timeout, not at the header one', async () => {
      const { requestTimeout } = SERVER_TIMEOUTS;
      const answer = await raw(
        s.port,
        `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}` +
          '\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
        requestTimeout + ANSWER_MS,
      );
      // After the header timeout has long passed, and before the default request timeout, which an
      // ignored flag would leave in place.
      const closedAfter = answer.closedAfter ?? requestTimeout + ANSWER_MS;
      assert.ok(
        closedAfter > REQUEST_MS * 0.9 && closedAfter < requestTimeout,
        `closed after ${Math.round(closedAfter)} ms`,
      );
      const next = await api(s.port, '/v1/me', { token: s.token });
      assert.equal(next.status, 200, 'the server carries on after the cut');
    });
  });

  describe('shutdown, crashes and concurrency', { concurrency: true }, () => {
    test('SIGTERM: refuses new connections, finishes the request in flight, closes the store, exits 0', async () => {
      const file = join(dir, 'sigterm.db');
      const s = await serve(`sqlite:${file}`);
      // A create in flight: headers and half of the body sent. It asks for 100-continue, which
      // node:http sends once it has read the headers and taken the request in: from then on the
      // request is in flight, and the signal comes.
      const body = device('in-flight.example.org');
      const half = Math.floor(body.length / 2);
      let rest!: () => void;
      let continued!: Promise<boolean>;
      const head =
        `POST /v1/devices/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n` +
        `Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`;
      const inFlight = raw(s.port, head + body.slice(0, half), ANSWER_MS, (socket) => {
        rest = () => socket.write(body.slice(half));
        continued = new Promise((resolve) => {
          socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1').startsWith('HTTP/1.1 100 ')));
          socket.once('close', () => resolve(false));
        });
      });
      assert.ok(await continued, 'no 100 Continue: the request was not taken in');
      s.server.child.kill('SIGTERM');
      // Refused once the signal is handled: serve closes its listener first.
      await connectUntilRefused(s.port);
      assert.equal(s.server.child.exitCode, null, 'exited with a request in flight');
      rest();
      const answer = await inFlight;
      // What the server said, should the answer not come.
      const silence =
        `no answer (error ${answer.error}, closed after ${answer.closedAfter} ms, server exit ${s.server.child.exitCode}); ` +
        `stdout:\n${s.server.lines.join('\n')}\nstderr:\n${s.server.stderr()}`;
      assert.equal(answer.status, 201, answer.head === '' ? silence : answer.head);
      assert.equal(await s.server.exited, 0, s.server.stderr());
      // The store was closed: SQLite checkpoints and removes its write-ahead log on the last close.
      assert.equal(existsSync(`${file}-wal`), false, 'the SQLite WAL is still there: the store was not closed');
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        assert.deepEqual(
          db
            .prepare('select target_value from devices')
            .all()
            .map((row) => row.target_value),
          ['in-flight.example.org'],
        );
      } finally {
        db.close();
      }
    });

    for (const kind of ['sqlite', 'postgres'] as const) {
      test(`SIGKILL during a burst of creates loses none that were answered 201 (${kind})`, async (t) => {
        let url = sqliteUrl('sigkill.db');
        let drop = async () => {};
        if (kind === 'postgres') {
          const database = await postgresOrSkip({ migrated: true });
          if ('skip' in database) return t.skip(database.skip);
          url = database.url;
          drop = () => database.drop();
        }
        try {
          const first = await serve(url, ['--rate-limit', '100000/60']);
          const answered = new Map<string, number>();
          const unexpected: string[] = [];
          let stopped = false;
          let sent = 0;
          const worker = async (w: number) => {
            for (let i = 0; !stopped; i++) {
              const name = `k${w}-${i}.burst.example.org`;
              sent++;
              try {
                const res = await api(first.port, '/v1/devices/create', {
                  token: first.token,
                  method: 'POST',
                  body: device(name),
                });
                if (res.status === 201) answered.set(name, (res.body.data as { id: number }).id);
                else unexpected.push(`${res.status} ${JSON.stringify(res.body)}`);
              } catch {
                return; // the connection died with the process: no answer, no promise made
              }
            }
          };
          const workers = Array.from({ length: 16 }, (_, w) => worker(w));
          // Killed in the middle of the burst: once enough have been answered, with 16 more in flight.
          await waitFor('thirty creates answered', () => answered.size >= 30 || unexpected.length > 0, 10);
          first.server.child.kill('SIGKILL');
          stopped = true;
          await Promise.all(workers);
          await first.server.exited;
          assert.deepEqual(unexpected, []);
          assert.ok(answered.size > 20, `too few creates were answered before the kill (${answered.size} of ${sent})`);

          const second = await serve(url);
          try {
            const list = await api(second.port, '/v1/devices', { token: first.token });
            assert.equal(list.status, 200);
            const stored = new Map(
              (list.body.data as { id: number; target_value: string }[]).map((d) => [d.target_value, d.id]),
            );
            for (const [name, id] of answered)
              assert.equal(stored.get(name), id, `${name} was answered 201 (id ${id}) and is gone`);
            // Anything beyond was in flight at the kill: stored or not, but never half-stored.
            assert.ok(stored.size <= sent);
          } finally {
            await stop(second);
          }
        } finally {
          await drop();
        }
      });
    }

    test('two server processes writing one SQLite file never surface SQLITE_BUSY to a client', async () => {
      const url = sqliteUrl('two-writers.db');
      // The per-key limit is per process (memory limiter) and not what this test is about.
      const a = await serve(url, ['--rate-limit', '100000/60']);
      const b = await serve(url, ['--rate-limit', '100000/60']);
      try {
        const statuses = new Map<number, number>();
        const created: number[] = [];
        const worker = async (port: number, w: number) => {
          for (let i = 0; i < 40; i++) {
            const res = await api(port, '/v1/devices/create', {
              token: a.token,
              method: 'POST',
              body: device(`w${port}-${w}-${i}.two.example.org`),
            });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status === 201) created.push((res.body.data as { id: number }).id);
            if (i % 5 === 0) {
              const listed = await api(port, '/v1/devices?limit=50', { token: a.token });
              statuses.set(listed.status, (statuses.get(listed.status) ?? 0) + 1);
            }
            if (i % 7 === 0 && created.length > 0) {
              const removed = await api(port, `/v1/devices/delete?id=${created.shift()!}`, {
                token: a.token,
                method: 'DELETE',
              });
              statuses.set(removed.status, (statuses.get(removed.status) ?? 0) + 1);
            }
          }
        };
        await Promise.all([a.port, b.port].flatMap((port) => Array.from({ length: 8 }, (_, w) => worker(port, w))));
        assert.deepEqual(
          [...statuses.keys()].filter((status) => status >= 500),
          [],
          `answers: ${JSON.stringify([...statuses])}`,
        );
        assert.ok((statuses.get(201) ?? 0) === 2 * 8 * 40, `every create succeeded: ${JSON.stringify([...statuses])}`);
        for (const served of [a, b]) assert.doesNotMatch(served.server.stderr(), /SQLITE_BUSY|database is locked/);
        const all = await api(a.port, '/v1/devices', { token: a.token });
        assert.equal((all.body.data as unknown[]).length, created.length);
      } finally {
        await stop(a);
        await stop(b);
      }
    });

    test('a schema dropped under the running server: 500 missing_table, as JSON, and the server stays up', async () => {
      const file = join(dir, 'dropped.db');
      const s = await serve(`sqlite:${file}`);
      try {
        assert.equal((await api(s.port, '/v1/devices', { token: s.token })).status, 200);
        const db = new DatabaseSync(file);
        db.exec('drop table devices; drop table blacklist_monitors');
        db.close();
        for (const path of ['/v1/devices', '/v1/blacklist-monitors']) {
          const res = await api(s.port, path, { token: s.token });
          assert.equal(res.status, 500);
          assert.equal(res.type, JSON_TYPE);
          assert.equal(res.body.success, false);
          assert.deepEqual(Object.keys(res.body.error ?? {}).sort(), ['code', 'message']);
          assert.equal(res.body.error?.code, 'missing_table');
        }
        assert.equal((await api(s.port, '/v1/me', { token: s.token })).status, 200);
        assert.equal(s.server.child.exitCode, null);
      } finally {
        await stop(s);
      }
    });

    test('PostgreSQL cut off under the running server: JSON 500s, no crash, served again when it returns', async (t) => {
      const database = await postgresOrSkip({ migrated: true });
      if ('skip' in database) return t.skip(database.skip);
      const proxy = await startFaultProxy(Number(new URL(database.url).port || '5432'));
      let s: Served | undefined;
      try {
        // No timeout of the store's ends a request here before the test's hang guard but the
        // connect timeout, which is logged as a failure of its own kind when it does.
        s = await serve(viaPort(database.url, proxy.port), ['--query-timeout', String(HANG_GUARD_MS)]);
        await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            api(s!.port, '/v1/devices/create', {
              token: s!.token,
              method: 'POST',
              body: device(`pg${i}.srv.example.org`),
            }),
          ),
        );
        proxy.cut();
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (let i = 0; i < 5; i++) {
          const res = await api(s.port, '/v1/devices', { token: s.token });
          assert.equal(res.status, 500);
          assert.equal(res.type, JSON_TYPE);
          assert.equal(res.body.error?.code, 'server_error');
        }
        assert.equal(s.server.child.exitCode, null, `the server died: ${s.server.stderr()}`);
        assert.doesNotMatch(
          JSON.stringify(s.server.lines),
          /ECONNRESET|Connection terminated/,
          'driver text on stdout (the request log)',
        );
        proxy.restore();
        assert.equal((await api(s.port, '/v1/devices', { token: s.token })).status, 200);
        assert.equal(
          (
            await api(s.port, '/v1/devices/create', {
              token: s.token,
              method: 'POST',
              body: device('back.srv.example.org'),
            })
          ).status,
          201,
        );
        // Fast: every 500 came from the refused connection. One left hanging would have waited out
        // the pool's connect timeout, a failure the log writes in full the first time it comes.
        assert.match(s.server.stderr(), /"unexpected failure".*(?:ECONNRESET|Connection terminated)/);
        assert.doesNotMatch(s.server.stderr(), /timeout/i, s.server.stderr());
      } finally {
        if (s !== undefined) await stop(s);
        await proxy.close();
        await database.drop();
      }
    });
  });
});
