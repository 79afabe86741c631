import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { jsonLogger } from '../../cli/server/request-log.ts';
import { ManualClock, RepeatedErrorLog, type RepeatedError } from '../../core/internal.ts';

/** A stream that keeps what was written, as stderr would. */
function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

/** The error a stalled PostgreSQL gives every request, with a stack as deep as a real one. */
function outage(): Error {
  const error = new Error('Query read timeout');
  error.stack = `Error: Query read timeout\n${'    at Timeout._onTimeout (/app/node_modules/pg/lib/client.js:552:21)\n'.repeat(12)}`;
  return error;
}

describe('RepeatedErrorLog', () => {
  function recorded(options: { maxKinds?: number } = {}) {
    const clock = new ManualClock();
    const written: RepeatedError[] = [];
    const log = new RepeatedErrorLog({ write: (entry) => written.push(entry), intervalMs: 10_000, clock, ...options });
    return { clock, written, log };
  }

  it('writes the first failure of a kind in full, then one count per interval while it repeats', () => {
    const { clock, written, log } = recorded();
    assert.equal(log.report('unexpected failure', outage(), 'r1'), true);
    for (let i = 0; i < 999; i++) {
      clock.advance(10);
      assert.equal(log.report('unexpected failure', outage(), `r${i}`), false);
    }
    // 9.99 s in: nothing but the first line yet.
    assert.deepEqual(
      written.map((entry) => entry.repeats),
      [0],
    );
    assert.equal(written[0]!.requestId, 'r1');
    clock.advance(10);
    log.report('unexpected failure', outage());
    assert.deepEqual(
      written.map((entry) => entry.repeats),
      [0, 999],
    );
    log.close();
    assert.deepEqual(
      written.map((entry) => entry.repeats),
      [0, 999, 1],
    );
  });

  it('writes different failures each in full', () => {
    const { written, log } = recorded();
    log.report('unexpected failure', outage());
    log.report('unexpected failure', new Error('relation "devices" does not exist'));
    log.report('the store has no schema', outage());
    log.report('unexpected failure', Object.assign(new Error('Query read timeout'), { code: 'ECONNRESET' }));
    log.report('unexpected failure', 'a thrown string');
    assert.equal(written.length, 5);
    assert.ok(written.every((entry) => entry.repeats === 0));
  });

  it('kindOf: failures in different words are one kind when it says so (one dependency, one outage)', () => {
    const clock = new ManualClock();
    const written: RepeatedError[] = [];
    const log = new RepeatedErrorLog({ write: (entry) => written.push(entry), clock, kindOf: (message) => message });
    log.report('idle connection failed', new Error('terminating connection due to administrator command'));
    log.report('idle connection failed', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    log.report('idle connection failed', new Error('Connection terminated unexpectedly'));
    log.report('another dependency failed', new Error('read ECONNRESET'));
    log.close();
    assert.deepEqual(
      written.map((entry) => [entry.message, (entry.error as Error).message, entry.repeats]),
      [
        ['idle connection failed', 'terminating connection due to administrator command', 0],
        ['another dependency failed', 'read ECONNRESET', 0],
        ['idle connection failed', 'terminating connection due to administrator command', 2],
      ],
    );
  });

  it('forgets a kind that stayed quiet for a whole interval: the next outage is written in full', () => {
    const { clock, written, log } = recorded();
    log.report('unexpected failure', outage());
    clock.advance(10_000);
    log.flush();
    clock.advance(1);
    log.report('unexpected failure', outage());
    assert.deepEqual(
      written.map((entry) => entry.repeats),
      [0, 0],
    );
  });

  it('past maxKinds, new kinds are counted together after the first of them', () => {
    const { written, log } = recorded({ maxKinds: 2 });
    for (let i = 0; i < 1_000; i++) log.report('unexpected failure', new Error(`failure number ${i}`));
    assert.equal(written.length, 3);
    log.close();
    assert.deepEqual(
      written.map((entry) => entry.repeats),
      [0, 0, 0, 997],
    );
  });
});

describe("the server's JSON log", () => {
  it('10,000 identical failures in 10 s write less than 50 KB to stderr; the first keeps its stack', () => {
    const clock = new ManualClock();
    const err = sink();
    const logger = jsonLogger(sink().stream, err.stream, { clock, errorIntervalMs: 1_000 });
    for (let i = 0; i < 10_000; i++) {
      clock.advance(1);
      logger.error?.('unexpected failure', outage(), `request-${i}`);
    }
    logger.flush();
    const lines = err
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(err.text().length < 50_000, `${err.text().length} bytes`);
    assert.match(String((lines[0]!.error as { stack: string }).stack), /pg\/lib\/client\.js/);
    assert.equal(lines[0]!.request_id, 'request-0');
    const counted = lines.slice(1).reduce((sum, line) => sum + Number(line.repeated), 0);
    assert.equal(counted, 9_999, 'every failure is accounted for');
    assert.ok(
      lines.slice(1).every((line) => !('stack' in (line.error as object))),
      'count lines carry no stack',
    );
    assert.ok(lines.length <= 12, `${lines.length} lines: one per interval`);
  });
});
