/** docs/engine.md, "Blacklist monitors (DNSBL)": what each reply of a zone means. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyReply, REFUSED_BY_LIST, TIMEOUT, UNEXPECTED_ANSWER } from '../../engine/dnsbl/classify.ts';

const ZEN = 'zen.spamhaus.org';
const listed = (answer: string) => ({ ok: true, listed: true, answer, error: null });
const notListed = { ok: true, listed: false, answer: null, error: null };
const failed = (error: string, answer: string | null = null) => ({ ok: false, listed: false, answer, error });

describe("classifying a zone's reply", () => {
  it('NXDOMAIN and NODATA: not listed', () => {
    assert.deepEqual(classifyReply(ZEN, { code: 'ENOTFOUND' }), notListed);
    assert.deepEqual(classifyReply(ZEN, { code: 'ENODATA' }), notListed);
    assert.deepEqual(classifyReply(ZEN, { addresses: [] }), notListed);
  });

  it('an answer in 127.0.0.0/8: listed, every record kept', () => {
    assert.deepEqual(classifyReply(ZEN, { addresses: ['127.0.0.2'] }), listed('127.0.0.2'));
    assert.deepEqual(classifyReply(ZEN, { addresses: ['127.0.0.4', '127.0.0.10'] }), listed('127.0.0.4,127.0.0.10'));
    assert.deepEqual(
      classifyReply('bl.spamcop.net', { addresses: ['127.0.0.1'] }),
      listed('127.0.0.1'),
      '127.0.0.1 lists outside URIBL',
    );
    assert.deepEqual(classifyReply('multi.surbl.org', { addresses: ['127.0.0.1'] }), listed('127.0.0.1'));
  });

  it('127.255.255.0/24 on any zone: refused, not listed', () => {
    for (const code of ['127.255.255.252', '127.255.255.254', '127.255.255.255', '127.255.255.0']) {
      assert.deepEqual(classifyReply(ZEN, { addresses: [code] }), failed(REFUSED_BY_LIST, code));
      assert.deepEqual(classifyReply('bl.spamcop.net', { addresses: [code] }), failed(REFUSED_BY_LIST, code));
    }
  });

  it('127.0.1.255 is refused on Spamhaus DBL (public and DQS), a listing elsewhere', () => {
    assert.deepEqual(
      classifyReply('dbl.spamhaus.org', { addresses: ['127.0.1.255'] }),
      failed(REFUSED_BY_LIST, '127.0.1.255'),
    );
    assert.deepEqual(
      classifyReply('k3y.dbl.dq.spamhaus.net', { addresses: ['127.0.1.255'] }),
      failed(REFUSED_BY_LIST, '127.0.1.255'),
    );
    assert.deepEqual(classifyReply('dbl.spamhaus.org', { addresses: ['127.0.1.2'] }), listed('127.0.1.2'));
    assert.deepEqual(classifyReply(ZEN, { addresses: ['127.0.1.255'] }), listed('127.0.1.255'));
  });

  it('127.0.0.1 is refused on URIBL', () => {
    assert.deepEqual(
      classifyReply('multi.uribl.com', { addresses: ['127.0.0.1'] }),
      failed(REFUSED_BY_LIST, '127.0.0.1'),
    );
    assert.deepEqual(
      classifyReply('black.uribl.com', { addresses: ['127.0.0.1'] }),
      failed(REFUSED_BY_LIST, '127.0.0.1'),
    );
    assert.deepEqual(classifyReply('multi.uribl.com', { addresses: ['127.0.0.2'] }), listed('127.0.0.2'));
  });

  it('one refusal among listings spoils the answer', () => {
    assert.deepEqual(
      classifyReply(ZEN, { addresses: ['127.0.0.2', '127.255.255.254'] }),
      failed(REFUSED_BY_LIST, '127.0.0.2,127.255.255.254'),
    );
  });

  it('an answer outside 127.0.0.0/8 is an error (a wildcard or a hijacking resolver)', () => {
    assert.deepEqual(classifyReply(ZEN, { addresses: ['192.0.2.1'] }), failed(UNEXPECTED_ANSWER, '192.0.2.1'));
    assert.deepEqual(
      classifyReply(ZEN, { addresses: ['127.0.0.2', '10.0.0.1'] }),
      failed(UNEXPECTED_ANSWER, '127.0.0.2,10.0.0.1'),
    );
  });

  it('SERVFAIL, REFUSED and transport failures are errors named by their code; timeouts are "timeout"', () => {
    assert.deepEqual(classifyReply(ZEN, { code: 'ESERVFAIL' }), failed('ESERVFAIL'));
    assert.deepEqual(classifyReply(ZEN, { code: 'EREFUSED' }), failed('EREFUSED'));
    assert.deepEqual(classifyReply(ZEN, { code: 'ECONNREFUSED' }), failed('ECONNREFUSED'));
    assert.deepEqual(classifyReply(ZEN, { code: 'ETIMEOUT' }), failed(TIMEOUT));
    assert.deepEqual(classifyReply(ZEN, { code: 'ECANCELLED' }), failed(TIMEOUT));
  });
});
