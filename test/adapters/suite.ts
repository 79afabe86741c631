/**
 * The checks every adapter passes in its real runtime, over HTTP on loopback: authentication,
 * create/list/delete, invalid JSON, the body limit, the client address feeding the IP allow-list,
 * requests outside the API, and a clean stop on SIGTERM.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  createDatabase,
  startExample,
  startExampleSource,
  type ExampleName,
  type Keys,
  type RunningExample,
  type TestDatabase,
} from './harness.ts';

export type Start = (databaseUrl: string, env?: Record<string, string>) => Promise<RunningExample>;

export const JSON_TYPE = 'application/json; charset=utf-8';
export const LIMIT = 16 * 1024;

export interface CallInit {
  method?: string;
  key?: string;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the body as a stream: chunked, without Content-Length. */
  chunked?: boolean;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: { success: boolean; data?: unknown; error?: { code: string } };
}

/** A body of `size` bytes in 1 KiB pieces, so no Content-Length can be known up front. */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 1024));
      offset += 1024;
    },
  });
}

export async function call(url: string, init: CallInit = {}): Promise<CallResult> {
  const headers = new Headers(init.headers);
  if (init.key !== undefined) headers.set('authorization', `Bearer ${init.key}`);
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  // `duplex` is what fetch needs for a streamed request body; the DOM lib here does not know it.
  const request: RequestInit & { duplex?: 'half' } = {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
  };
  if (body !== undefined) {
    if (init.chunked) {
      request.body = streamOf(new TextEncoder().encode(body));
      request.duplex = 'half';
    } else request.body = body;
  }
  const response = await fetch(url, request);
  const text = await response.text();
  let json: CallResult['json'];
  try {
    json = JSON.parse(text) as CallResult['json'];
  } catch {
    json = { success: false };
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Sends `request` as raw bytes to the server of `url` and resolves with all it answers until it closes. */
export function rawExchange(url: URL, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(request));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** A create body larger than the limit however it is serialised (one long string field). */
export const OVERSIZED = { target_type: 'domain', target_value: 'big.example.com', location: 'x'.repeat(LIMIT + 100) };

export function assertError(result: CallResult, status: number, code: string): void {
  assert.equal(result.status, status, result.text);
  assert.equal(result.json.success, false, result.text);
  assert.equal(result.json.error?.code, code, result.text);
  assert.equal(result.headers.get('content-type'), JSON_TYPE);
}

export interface SuiteContext {
  readonly server: RunningExample;
  readonly keys: Keys;
}

export interface SuiteOptions {
  /** Checks of requests outside the API; default: the standalone answer, 404 unknown_route. */
  outside?: (ctx: SuiteContext) => Promise<void>;
  /** More tests, run after the common ones and before the stop. */
  more?: (ctx: SuiteContext) => void;
}

/** An example, started as its npm script starts it, or a named server with its own start. */
export type Target = ExampleName | { name: string; start: Start };

/** Whether this machine can listen on `::` (IPv6 may be disabled in a container). */
function dualStackAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(0, '::', () => server.close(() => resolve(true)));
  });
}

function portRefuses(origin: string): Promise<boolean> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

export function adapterSuite(target: Target, options: SuiteOptions = {}): void {
  const { name, start }: { name: string; start: Start } =
    typeof target === 'string' ? { name: target, start: (url, env) => startExample(target, url, env) } : target;
  // A second server of the same code, for one test; the first start ran the script's own words.
  const startAgain: Start = typeof target === 'string' ? (url, env) => startExampleSource(target, url, env) : start;
  describe(
    typeof target === 'string' ? `the ${name} example, in its real runtime` : `${name}, in its real runtime`,
    () => {
      let database: TestDatabase | undefined;
      let running: RunningExample | undefined;
      const ctx: SuiteContext = {
        get server() {
          assert.ok(running, 'the example did not start');
          return running;
        },
        get keys() {
          assert.ok(database, 'the database was not created');
          return database.keys;
        },
      };

      before(async () => {
        database = await createDatabase();
        running = await start(database.url);
      });
      after(async () => {
        await running?.stop().catch(() => undefined);
        await database?.remove();
      });

      it('prints the base URL of the API', () => {
        assert.match(ctx.server.base, /^http:\/\/127\.0\.0\.1:\d+\/(api\/monitoring\/)?v1$/);
      });

      it('answers 401 missing_api_key without a key, 401 invalid_api_key with a wrong one', async () => {
        const missing = await call(`${ctx.server.base}/me`);
        assertError(missing, 401, 'missing_api_key');
        assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="monitoring"');
        assert.match(missing.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
        assertError(await call(`${ctx.server.base}/me`, { key: 'mapi_wrong' }), 401, 'invalid_api_key');
      });

      it('refuses two Authorization headers as one ambiguous credential, as every runtime reads them', async () => {
        // node:http keeps the first of a repeated Authorization and drops the rest; the Web's
        // Headers joins them. Either way the core must see both, or a runtime would let the first
        // one through that another refuses.
        const url = new URL(`${ctx.server.base}/me`);
        const answer = await rawExchange(
          url,
          `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n` +
            `Authorization: Bearer ${ctx.keys.readWrite}\r\nAuthorization: Bearer mapi_wrong\r\nConnection: close\r\n\r\n`,
        );
        assert.match(answer, /^HTTP\/1\.1 401 /, answer);
        assert.match(answer, /"code":"invalid_api_key"/);
      });

      it('creates (201), lists and deletes a device; a second delete is 404', async () => {
        const { base } = ctx.server;
        const key = ctx.keys.readWrite;
        const target = `${name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')}.example.com`;
        const created = await call(`${base}/devices/create`, {
          key,
          body: { target_type: 'domain', target_value: target },
        });
        assert.equal(created.status, 201, created.text);
        const device = created.json.data as { id: number; target_value: string };
        assert.equal(device.target_value, target);
        assert.ok(created.headers.get('ratelimit-policy'));

        const list = await call(`${base}/devices`, { key });
        assert.equal(list.status, 200, list.text);
        assert.deepEqual(
          (list.json.data as { id: number }[]).map((d) => d.id),
          [device.id],
        );

        const deleted = await call(`${base}/devices/delete?id=${device.id}`, { key, method: 'DELETE' });
        assert.equal(deleted.status, 200, deleted.text);
        assert.deepEqual(deleted.json, { success: true, data: { id: device.id, deleted: true } });
        assertError(
          await call(`${base}/devices/delete?id=${device.id}`, { key, method: 'DELETE' }),
          404,
          'device_not_found',
        );
        assert.deepEqual((await call(`${base}/devices`, { key })).json.data, []);
      });

      it('answers a list again, from its cache, with the same bytes and a Content-Length that counts UTF-8 bytes', async () => {
        const { base } = ctx.server;
        const key = ctx.keys.readWrite;
        const location = 'Zürich, 東京 🌍';
        const target = `utf8-${name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')}.example.com`;
        const created = await call(`${base}/devices/create`, {
          key,
          body: { target_type: 'domain', target_value: target, location },
        });
        assert.equal(created.status, 201, created.text);
        const url = new URL(`${base}/devices`);
        const exchange = () =>
          new Promise<Buffer>((resolve, reject) => {
            const request = `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`;
            // The client shuts its side once the request is sent, which node:http (Express too) and
            // Bun still answer. Deno's server drops such an answer when it is not ready yet, and a
            // list waits a turn for its marker (docs/embedding.md, "Deno"): there it only writes.
            const send =
              name === 'deno' ? (socket: Socket) => socket.write(request) : (socket: Socket) => socket.end(request);
            const socket = connect(Number(url.port), url.hostname, () => send(socket));
            const chunks: Buffer[] = [];
            socket.on('data', (chunk: Buffer) => chunks.push(chunk));
            socket.on('end', () => resolve(Buffer.concat(chunks)));
            socket.on('error', reject);
          });
        const first = await exchange();
        const again = await exchange();
        for (const answer of [first, again]) {
          const split = answer.indexOf('\r\n\r\n');
          const head = answer.subarray(0, split).toString('latin1');
          const body = answer.subarray(split + 4);
          assert.match(head, /^HTTP\/1\.1 200 /);
          assert.equal(Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]), body.length, head);
          const devices = JSON.parse(body.toString('utf8')).data as { target_value: string; location: string | null }[];
          assert.equal(devices.find((device) => device.target_value === target)?.location, location);
        }
        const bodyOf = (answer: Buffer) => answer.subarray(answer.indexOf('\r\n\r\n') + 4);
        assert.deepEqual(bodyOf(again), bodyOf(first));
        const id = (created.json.data as { id: number }).id;
        assert.equal((await call(`${base}/devices/delete?id=${id}`, { key, method: 'DELETE' })).status, 200);
      });

      it('answers a read-only key that writes with 403 insufficient_scope', async () => {
        const body = { target_type: 'ip', target_value: '8.8.8.8' };
        const refused = await call(`${ctx.server.base}/devices/create`, { key: ctx.keys.readOnly, body });
        assertError(refused, 403, 'insufficient_scope');
        assert.equal(
          refused.headers.get('www-authenticate'),
          'Bearer realm="monitoring", error="insufficient_scope", scope="write"',
        );
      });

      it('answers invalid JSON with 400 invalid_json, and a non-JSON media type with 400 invalid_content_type', async () => {
        const { base } = ctx.server;
        const key = ctx.keys.readWrite;
        assertError(
          await call(`${base}/blacklist-monitors/create`, { key, body: '{"target_type":' }),
          400,
          'invalid_json',
        );
        assertError(await call(`${base}/blacklist-monitors/create`, { key, body: '[1]' }), 400, 'invalid_json');
        const text = { key, body: '{}', headers: { 'content-type': 'text/plain' } };
        assertError(await call(`${base}/blacklist-monitors/create`, text), 400, 'invalid_content_type');
      });

      it('answers a body over 16 KiB with 413, from Content-Length and while reading without it', async () => {
        const { base } = ctx.server;
        const key = ctx.keys.readWrite;
        assertError(
          await call(`${base}/blacklist-monitors/create`, { key, body: OVERSIZED }),
          413,
          'payload_too_large',
        );
        assertError(
          await call(`${base}/blacklist-monitors/create`, { key, body: OVERSIZED, chunked: true }),
          413,
          'payload_too_large',
        );
        // The server goes on serving after refusing a body it did not read to the end.
        const after413 = await call(`${base}/blacklist-monitors/create`, {
          key,
          body: { target_type: 'ip', target_value: '9.9.9.9' },
          chunked: true,
        });
        assert.equal(after413.status, 201, after413.text);
      });

      it("feeds the connection's address to the IP allow-list; X-Forwarded-For is not believed", async () => {
        const url = `${ctx.server.base}/me`;
        const loopback = await call(url, { key: ctx.keys.loopback });
        assert.equal(loopback.status, 200, loopback.text);
        assertError(await call(url, { key: ctx.keys.tenNet }), 403, 'ip_not_allowed');
        // No proxy is trusted by default: a client cannot claim another address.
        const spoofed = { key: ctx.keys.tenNet, headers: { 'x-forwarded-for': '10.1.2.3', forwarded: 'for=10.1.2.3' } };
        assertError(await call(url, spoofed), 403, 'ip_not_allowed');
      });

      it('answers requests outside the API as the host decides', async () => {
        if (options.outside) return options.outside(ctx);
        assertError(await call(`${ctx.server.origin}/elsewhere`, { key: ctx.keys.readWrite }), 404, 'unknown_route');
        assertError(await call(`${ctx.server.base}/nothing-here`, { key: ctx.keys.readWrite }), 404, 'unknown_route');
      });

      it('on a dual-stack listener, matches the IPv4-mapped peer address against IPv4 entries', async (t) => {
        if (!(await dualStackAvailable())) return t.skip('this machine cannot listen on ::');
        assert.ok(database);
        const dual = await startAgain(database.url, { HOST: '::' });
        try {
          // The peer is reported as ::ffff:127.0.0.1 here; the allow-list entry is 127.0.0.1.
          const base = dual.base.replace('[::]', '127.0.0.1');
          const loopback = await call(`${base}/me`, { key: ctx.keys.loopback });
          assert.equal(loopback.status, 200, loopback.text);
          assertError(await call(`${base}/me`, { key: ctx.keys.tenNet }), 403, 'ip_not_allowed');
        } finally {
          assert.deepEqual(await dual.stop(), { code: 0, signal: null }, dual.output());
        }
      });

      options.more?.(ctx);

      it('stops cleanly on SIGTERM: exit code 0, and the port is closed', async () => {
        const { origin } = ctx.server;
        const exit = await ctx.server.stop();
        assert.deepEqual(exit, { code: 0, signal: null }, ctx.server.output());
        assert.equal(await portRefuses(origin), true);
      });
    },
  );
}
