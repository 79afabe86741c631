/**
 * The Express adapter's handling of bodies the host's parser already read: written back exactly
 * as JSON.stringify would (however deep), and only the host parser's own inflate failures taken
 * over by the API.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { bodyAfterParserError, serialiseParsed } from '../../adapters/express/host-parsed-body.ts';

describe('serialiseParsed', () => {
  it('writes what JSON.stringify writes, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(serialiseParsed(value), JSON.stringify(value));
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('writes ±Infinity (an overflowing literal, parsed) back as such a literal', () => {
    assert.equal(serialiseParsed(JSON.parse('{"a":1e400,"b":[-1e400]}')), '{"a":1e400,"b":[-1e400]}');
  });

  it('writes a body nested 100,000 deep without overflowing the stack', () => {
    const text = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    assert.equal(serialiseParsed(JSON.parse(text)), text);
  });

  it('treats what a host reviver made as JSON.stringify does', () => {
    const self = {
      a: 1,
      toJSON() {
        return this;
      },
    };
    const odd = {
      d: new Date(0),
      s: new String('x'),
      n: new Number(2),
      f: () => 1,
      u: undefined,
      list: [() => 1, undefined],
      self,
    };
    assert.equal(serialiseParsed(odd), JSON.stringify(odd));
  });

  it('refuses a cycle with the TypeError JSON.stringify throws, deep or not', () => {
    const shallow: Record<string, unknown> = {};
    shallow.self = shallow;
    assert.throws(() => serialiseParsed(shallow), TypeError);
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 100_000; i++) deep = (deep.next = {}) as Record<string, unknown>;
    deep.next = top;
    assert.throws(() => serialiseParsed(top), TypeError);
  });
});

describe('bodyAfterParserError', () => {
  const request = (encoding: string | undefined) =>
    ({
      headers: encoding === undefined ? {} : { 'content-encoding': encoding },
      readableDidRead: true,
    }) as unknown as IncomingMessage;
  /** As body-parser passes a failed inflate on: zlib's own error, given status 400. */
  const inflateFailure = (): Error => {
    try {
      gunzipSync(Buffer.from('{}'));
    } catch (error) {
      return Object.assign(error as Error, { status: 400, statusCode: 400, expose: true });
    }
    throw new Error('gunzip accepted a body that is not gzip');
  };

  it("takes over the host parser's failed inflate", () => {
    assert.notEqual(bodyAfterParserError(inflateFailure(), request('gzip')), undefined);
  });

  it("leaves any other 400 to the host's error handlers, whatever the request's Content-Encoding", () => {
    const hostError = Object.assign(new Error('host says no'), { status: 400, statusCode: 400, expose: true });
    assert.equal(bodyAfterParserError(hostError, request('gzip')), undefined);
    assert.equal(bodyAfterParserError(inflateFailure(), request(undefined)), undefined);
  });
});
