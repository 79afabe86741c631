import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { requestLine } from '../../cli/request-log.ts';
import type { RequestLogEntry } from '../../core/index.ts';

const entry: fc.Arbitrary<RequestLogEntry> = fc.record({
  time: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  request_id: fc.string(),
  method: fc.string(),
  // Paths arrive as the client sent them: quotes, backslashes, control characters, lone surrogates.
  path: fc.oneof(fc.string({ unit: 'binary' }), fc.constant('/v1/"\\\u0000\u2028\ud800')),
  status: fc.integer({ min: 100, max: 599 }),
  duration_ms: fc.double({ min: 0, max: 1e6, noNaN: true }),
  client_ip: fc.option(fc.string(), { nil: null }),
  key_id: fc.option(fc.integer({ min: 1 }), { nil: null }),
  code: fc.option(fc.string(), { nil: undefined }),
}, { requiredKeys: ['time', 'request_id', 'method', 'path', 'status', 'duration_ms', 'client_ip', 'key_id'] });

test('a request log line is the entry as JSON: same fields, same order, same text as JSON.stringify', () => {
  fc.assert(fc.property(entry, (logged) => {
    const line = requestLine(logged);
    assert.equal(line, JSON.stringify(logged));
    assert.ok(!line.includes('\n'), 'one line');
  }), { seed: 20261123, numRuns: 2_000 });
});
