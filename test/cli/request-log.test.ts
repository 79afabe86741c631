import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it, test } from 'node:test';
import fc from 'fast-check';
import { jsonLogger, requestLine } from '../../cli/server/request-log.ts';
import type { RequestLogEntry } from '../../core/index.ts';

const entry: fc.Arbitrary<RequestLogEntry> = fc.record(
  {
    time: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    request_id: fc.string(),
    method: fc.string(),
    // Paths arrive as the client sent them: quotes, backslashes, control characters, lone surrogates
    // (any code point; the worst of them together are an example below).
    path: fc.string({ unit: 'binary' }),
    status: fc.integer({ min: 100, max: 599 }),
    duration_ms: fc.double({ min: 0, max: 1e6, noNaN: true }),
    client_ip: fc.option(fc.string(), { nil: null }),
    key_id: fc.option(fc.integer({ min: 1 }), { nil: null }),
    code: fc.option(fc.string(), { nil: undefined }),
  },
  { requiredKeys: ['time', 'request_id', 'method', 'path', 'status', 'duration_ms', 'client_ip', 'key_id'] },
);

test('a request log line is the entry as JSON: same fields, same order, same text as JSON.stringify', () => {
  fc.assert(
    fc.property(entry, (logged) => {
      const line = requestLine(logged);
      assert.equal(line, JSON.stringify(logged));
      assert.ok(!line.includes('\n'), 'one line');
    }),
    {
      seed: 20261123,
      numRuns: 2_000,
      // Not drawn from a oneof with the string above: fast-check then maps every code point back
      // to check the constant could be shrunk, 0.7 s of CPU for one test.
      examples: [
        [
          {
            time: '2026-01-01T00:00:00.000Z',
            request_id: 'r',
            method: 'GET',
            path: '/v1/"\\\u0000\u2028\ud800',
            status: 200,
            duration_ms: 1.5,
            client_ip: null,
            key_id: null,
          },
        ],
      ],
    },
  );
});

describe("the server's request log: lines gathered, then written together", () => {
  /** An output that records each write it was given. */
  function writes(): { stream: Writable; writes: string[] } {
    const seen: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        seen.push(chunk.toString());
        done();
      },
    });
    return { stream, writes: seen };
  }
  const logged = (n: number): RequestLogEntry => ({
    time: '2026-01-01T00:00:00.000Z',
    request_id: `r${n}`,
    method: 'GET',
    path: '/v1/me',
    status: 200,
    duration_ms: 1,
    client_ip: null,
    key_id: 1,
  });
  const lines = (texts: string[]) =>
    texts
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as RequestLogEntry).request_id);

  it('writes the lines of many requests in one write, within the flush interval', async (t) => {
    // The interval runs on mocked timers: on a busy machine real ones may fire before the turn ends.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const out = writes();
    const logger = jsonLogger(out.stream, writes().stream, { requestFlushMs: 5 });
    for (let i = 0; i < 3; i++) logger.request?.(logged(i));
    await new Promise((resolve) => setImmediate(resolve));
    t.mock.timers.tick(4);
    assert.deepEqual(out.writes, [], 'nothing within the interval, not even after the turn');
    t.mock.timers.tick(1);
    assert.equal(out.writes.length, 1);
    assert.deepEqual(lines(out.writes), ['r0', 'r1', 'r2'], 'each line whole, in order');
    logger.request?.(logged(3));
    t.mock.timers.tick(4);
    assert.equal(out.writes.length, 1, 'a later line waits an interval of its own');
    t.mock.timers.tick(1);
    assert.deepEqual(lines(out.writes), ['r0', 'r1', 'r2', 'r3']);
    logger.flush();
  });

  it('writes at once when the gathered lines reach their size limit, and flush() writes what is left', () => {
    const out = writes();
    const logger = jsonLogger(out.stream, writes().stream, { requestFlushMs: 60_000, requestFlushChars: 400 });
    let n = 0;
    while (out.writes.length === 0 && n < 100) logger.request?.(logged(n++));
    assert.equal(out.writes.length, 1, 'written within the turn, once 400 characters were gathered');
    assert.ok(out.writes[0]!.length >= 400 && out.writes[0]!.length < 600, `${out.writes[0]!.length} characters`);
    logger.request?.(logged(n++));
    logger.flush();
    assert.equal(out.writes.length, 2);
    assert.deepEqual(
      lines(out.writes),
      Array.from({ length: n }, (_, i) => `r${i}`),
    );
    logger.flush();
    assert.equal(out.writes.length, 2, 'nothing gathered, nothing written');
  });
});

describe("the server's request log at exit", () => {
  it('flush() resolves once the output has taken the lines, however slow it is', async () => {
    const taken: string[] = [];
    let release: (() => void) | undefined;
    // An output whose reader is behind: it takes a write only when the test says.
    const slow = new Writable({
      write(chunk: Buffer, _encoding, done) {
        release = () => {
          taken.push(chunk.toString());
          done();
        };
      },
    });
    const logger = jsonLogger(slow, new Writable({ write: (_chunk, _encoding, done) => done() }), {
      requestFlushMs: 60_000,
    });
    logger.request?.({
      time: '2026-01-01T00:00:00.000Z',
      request_id: 'last',
      method: 'GET',
      path: '/v1/me',
      status: 200,
      duration_ms: 1,
      client_ip: null,
      key_id: 1,
    });
    let flushed = false;
    const flushing = logger.flush().then(() => (flushed = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(flushed, false, 'not while the output still holds the line');
    release!();
    await flushing;
    assert.match(taken.join(''), /"request_id":"last"/);
    await logger.flush();
  });
});
