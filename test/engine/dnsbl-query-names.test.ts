/** docs/engine.md, "Blacklist monitors (DNSBL)": what is asked of which zone. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { queryPrefix, zonesFor } from '../../engine/dnsbl/query-name.ts';
import {
  DEFAULT_DNSBL_DOMAIN_ZONES,
  DEFAULT_DNSBL_ZONES,
  normalizeZone,
  normalizeZones,
} from '../../engine/dnsbl/zones.ts';

describe('query names', () => {
  it('IPv4 a.b.c.d is asked as d.c.b.a', () => {
    assert.equal(queryPrefix({ target_type: 'ip', target_value: '192.0.2.99' }), '99.2.0.192');
    assert.equal(queryPrefix({ target_type: 'ip', target_value: '1.22.133.4' }), '4.133.22.1');
  });

  it('every IPv4 text is asked as ipaddr.js reads it, the zero-led and odd forms included', () => {
    const viaParse = (text: string) => ipaddr.parse(text).toByteArray().reverse().join('.');
    fc.assert(
      fc.property(fc.ipV4(), (text) => queryPrefix({ target_type: 'ip', target_value: text }) === viaParse(text)),
    );
    for (const text of ['0.0.0.0', '255.255.255.255', '010.1.2.3', '1.2.3.04', '0x7f.0.0.1']) {
      assert.equal(queryPrefix({ target_type: 'ip', target_value: text }), viaParse(text), text);
    }
  });

  it('IPv6 is asked as its 32 nibbles reversed, zeros written out', () => {
    // The example of RFC 5782, section 2.4.
    assert.equal(
      queryPrefix({ target_type: 'ip', target_value: '2001:db8:1:2:3:4:567:89ab' }),
      'b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2',
    );
    const compressed = queryPrefix({ target_type: 'ip', target_value: '2a00:1450::1' });
    assert.equal(compressed.split('.').length, 32);
    assert.equal(compressed, '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.5.4.1.0.0.a.2');
  });

  it('a domain is asked as itself', () => {
    assert.equal(queryPrefix({ target_type: 'domain', target_value: 'mail.example.com' }), 'mail.example.com');
  });

  it('domains go to the domain zones only, IPs to the IP zones only', () => {
    const zones = { ip: ['zen.spamhaus.org'], domain: ['dbl.spamhaus.org'] };
    assert.deepEqual(zonesFor({ target_type: 'ip', zones: null }, zones), ['zen.spamhaus.org']);
    assert.deepEqual(zonesFor({ target_type: 'domain', zones: null }, zones), ['dbl.spamhaus.org']);
  });
});

describe('zones', () => {
  it('the defaults are the documented lists', () => {
    assert.deepEqual(DEFAULT_DNSBL_ZONES, [
      'zen.spamhaus.org',
      'bl.spamcop.net',
      'bl.mailspike.net',
      'psbl.surriel.com',
      'ix.dnsbl.manitu.net',
      'bl.spameatingmonkey.net',
    ]);
    assert.deepEqual(DEFAULT_DNSBL_DOMAIN_ZONES, ['dbl.spamhaus.org', 'multi.uribl.com', 'multi.surbl.org']);
  });

  it('a zone is lower-cased and loses one trailing dot; a DQS key is just a label', () => {
    assert.equal(normalizeZone('ZEN.Spamhaus.org.'), 'zen.spamhaus.org');
    assert.equal(
      normalizeZone('abcdef0123456789abcdef0123.zen.dq.spamhaus.net'),
      'abcdef0123456789abcdef0123.zen.dq.spamhaus.net',
    );
  });

  for (const bad of [
    '',
    '.',
    'localhost',
    'zen..spamhaus.org',
    '-a.example.org',
    'a b.org',
    '127.0.0.1',
    'zen.spamhaus.org/x',
    `${'a'.repeat(64)}.org`,
  ]) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      assert.equal(normalizeZone(bad), null);
      assert.throws(() => normalizeZones([bad], 'a DNSBL zone'), RangeError);
    });
  }

  it('a list keeps one of each zone, in the order given', () => {
    assert.deepEqual(normalizeZones(['b.org', 'A.org', 'b.org.'], 'z'), ['b.org', 'a.org']);
  });
});
