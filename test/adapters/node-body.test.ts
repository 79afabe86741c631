/**
 * How the node:http adapter hands a request body to the core: whole when it has all arrived by
 * the time the core reads it, through the stream otherwise. Raw sockets decide when each byte
 * arrives; the answers must not depend on it.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createNodeHandler } from '../../adapters/node/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';

/** Reads HTTP/1.1 answers off one connection: each as its status line and body. */
class Connection {
  readonly #socket: Socket;
  #buffered = '';
  #waiting: (() => void) | undefined;
  #closed = false;

  constructor(port: number) {
    this.#socket = connect(port, '127.0.0.1');
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (chunk: Buffer) => {
      this.#buffered += chunk.toString('latin1');
      this.#waiting?.();
    });
    this.#socket.on('close', () => {
      this.#closed = true;
      this.#waiting?.();
    });
  }

  /** Whether the server has closed the connection, once whatever it sent has been read. */
  async closedByServer(): Promise<boolean> {
    while (!this.#closed) await new Promise<void>((resolve) => (this.#waiting = resolve));
    return this.#buffered === '';
  }

  send(bytes: string): void {
    this.#socket.write(bytes);
  }

  /** The next whole answer (Content-Length framed, as every answer of the API is). */
  async answer(): Promise<{ status: number; body: string }> {
    for (;;) {
      const end = this.#buffered.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(this.#buffered.slice(0, end));
      if (end >= 0 && length !== null && this.#buffered.length >= end + 4 + Number(length[1])) {
        const status = Number(this.#buffered.slice(9, 12));
        const body = this.#buffered.slice(end + 4, end + 4 + Number(length[1]));
        this.#buffered = this.#buffered.slice(end + 4 + Number(length[1]));
        return { status, body };
      }
      if (this.#closed) throw new Error(`the connection closed before a whole answer: ${this.#buffered}`);
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
  }

  close(): void {
    this.#socket.destroy();
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('node adapter: request bodies, whole or still arriving', () => {
  let t: TestApi;
  let server: Server;
  let port: number;
  let token: string;
  before(async () => {
    t = createTestApi({ bodyLimit: 1024 });
    token = (await t.createKey()).token;
    server = createServer(createNodeHandler(t.api));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  const head = (length: number | 'chunked') =>
    [
      'POST /v1/devices/create HTTP/1.1',
      'Host: test',
      `Authorization: Bearer ${token}`,
      'Content-Type: application/json',
      length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`,
      '',
      '',
    ].join('\r\n');
  const device = (name: string) => JSON.stringify({ target_type: 'domain', target_value: `${name}.example.com` });
  const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;

  it('reads a body that came with its headers, and one whose second half comes later, alike', async () => {
    const connection = new Connection(port);
    try {
      const whole = device('whole');
      connection.send(head(whole.length) + whole);
      const first = await connection.answer();
      assert.equal(first.status, 201, first.body);
      assert.equal(JSON.parse(first.body).data.target_value, 'whole.example.com');

      const split = device('split');
      connection.send(head(split.length) + split.slice(0, 10));
      await pause(30);
      connection.send(split.slice(10));
      const second = await connection.answer();
      assert.equal(second.status, 201, second.body);
      assert.equal(JSON.parse(second.body).data.target_value, 'split.example.com');

      const chunked = device('chunked');
      connection.send(head('chunked') + chunk(chunked.slice(0, 5)));
      await pause(30);
      connection.send(chunk(chunked.slice(5)) + chunk(''));
      const third = await connection.answer();
      assert.equal(third.status, 201, third.body);
      assert.equal(JSON.parse(third.body).data.target_value, 'chunked.example.com');
    } finally {
      connection.close();
    }
  });

  it('frames a body by its chunks, not by a Content-Length sent beside them (a lenient parser lets both through)', async () => {
    // Node's own parser refuses the pair with 400; a host may relax it with insecureHTTPParser.
    const lenient = createServer({ insecureHTTPParser: true }, createNodeHandler(t.api));
    await new Promise<void>((resolve) => lenient.listen(0, '127.0.0.1', resolve));
    const connection = new Connection((lenient.address() as AddressInfo).port);
    try {
      const first = device('framed');
      const headers = head('chunked').replace('\r\n\r\n', `\r\nContent-Length: ${first.length}\r\n\r\n`);
      connection.send(headers + chunk(first) + chunk(',"x":1}') + chunk(''));
      const answer = await connection.answer();
      assert.equal(answer.status, 400, 'the whole body is read, and it is not JSON');
      assert.equal(JSON.parse(answer.body).error.code, 'invalid_json');
    } finally {
      connection.close();
      await new Promise((resolve) => lenient.close(resolve));
    }
  });

  it('refuses an empty body and an oversized one arriving whole', async () => {
    const connection = new Connection(port);
    const another = new Connection(port);
    try {
      connection.send(head(0));
      const empty = await connection.answer();
      assert.equal(empty.status, 400);
      assert.equal(JSON.parse(empty.body).error.code, 'invalid_json');

      // No Content-Length to refuse it by: the size is found while reading what has all arrived.
      const big = JSON.stringify({
        target_type: 'domain',
        target_value: 'big.example.com',
        location: 'x'.repeat(2000),
      });
      connection.send(head('chunked') + chunk(big) + chunk(''));
      const oversized = await connection.answer();
      assert.equal(oversized.status, 413);
      assert.equal(JSON.parse(oversized.body).error.code, 'payload_too_large');
      assert.ok(await connection.closedByServer(), 'a 413 closes its connection (docs/decisions.md §4)');

      const after413 = device('after');
      another.send(head(after413.length) + after413);
      const next = await another.answer();
      assert.equal(next.status, 201, next.body);
      assert.equal(JSON.parse(next.body).data.target_value, 'after.example.com');
    } finally {
      connection.close();
      another.close();
    }
  });
});
