import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createIpMatcher, normalizeCidr } from '../../core/net/ip-matcher.ts';
import { ipAllowList } from '../../core/net/ip-allow-list.ts';

describe('normalizeCidr', () => {
  const valid: [entry: string, canonical: string][] = [
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['192.168.1.77/24', '192.168.1.0/24'],
    ['172.31.255.255/12', '172.16.0.0/12'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['1.2.3.4/0', '0.0.0.0/0'],
    ['10.0.0.1', '10.0.0.1'],
    ['10.0.0.1/32', '10.0.0.1/32'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['2001:DB8:1:2::3/32', '2001:db8::/32'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8::1/128', '2001:db8::1/128'],
    ['::/0', '::/0'],
    ['fe80::1/10', 'fe80::/10'],
    ['2001:db8::ff/121', '2001:db8::80/121'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::ffff:10.1.2.3/104', '10.0.0.0/8'],
    ['::ffff:1.2.3.4/128', '1.2.3.4/32'],
    ['::ffff:1.2.3.4/96', '0.0.0.0/0'],
    ['::ffff:1.2.3.4/80', '::/80'],
  ];
  for (const [entry, canonical] of valid) {
    test(`${JSON.stringify(entry)} → ${canonical}`, () => {
      assert.equal(normalizeCidr(entry), canonical);
    });
  }

  const invalid = [
    '',
    '/8',
    '10.0.0.0/',
    '10.0.0.0/33',
    '10.0.0.0/08',
    '10.0.0.0/-1',
    '10.0.0.0/+8',
    '10.0.0.0/8/8',
    '10.0.0.0/ 8',
    '10.0.0.0 /8',
    '10/8',
    '127.1/32',
    '0x7f.0.0.1/32',
    '0177.0.0.1',
    '2130706433',
    '1.2.3.04/32',
    '::1/129',
    '::1/0128',
    '::ffff:1.2.3.4/129',
    'fe80::1%eth0/64',
    '[::1]/128',
    'example.com/8',
  ];
  for (const entry of invalid) {
    test(`${JSON.stringify(entry)} refused`, () => {
      assert.equal(normalizeCidr(entry), null);
    });
  }
});

describe('createIpMatcher', () => {
  test('throws a TypeError naming the bad entry', () => {
    assert.throws(
      () => createIpMatcher(['10.0.0.0/8', '127.1']),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /"127\.1"/);
        return true;
      },
    );
  });

  test('exposes its entries in canonical form', () => {
    const matcher = createIpMatcher(['10.1.2.3/8', '2001:DB8::/32', '::ffff:1.2.3.4']);
    assert.deepEqual(matcher.entries, ['10.0.0.0/8', '2001:db8::/32', '1.2.3.4']);
  });

  const entries = ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32', '::1', '::ffff:198.51.100.0/120'];
  const matcher = createIpMatcher(entries);
  const cases: [address: string | null, expected: boolean][] = [
    ['10.0.0.1', true],
    ['10.255.255.255', true],
    ['11.0.0.0', false],
    ['9.255.255.255', false],
    ['192.0.2.7', true],
    ['192.0.2.8', false],
    ['198.51.100.200', true],
    ['198.51.101.1', false],
    // A dual-stack socket reports IPv4 clients as IPv4-mapped IPv6.
    ['::ffff:10.1.2.3', true],
    ['::ffff:a01:203', true],
    ['::ffff:192.0.2.7', true],
    ['::ffff:11.0.0.1', false],
    ['2001:db8::1', true],
    ['2001:DB8:ffff::1', true],
    ['2001:db9::1', false],
    ['::1', true],
    ['::2', false],
    // The same number in the other family is not the same host.
    ['::a00:1', false],
    [null, false],
    ['', false],
    ['garbage', false],
    ['10.0.0.1 ', false],
    ['010.0.0.1', false],
    ['10.1', false],
    ['167772161', false],
    ['[::1]', false],
    ['fe80::1%eth0', false],
  ];
  for (const [address, expected] of cases) {
    test(`matches(${JSON.stringify(address)}) is ${expected}`, () => {
      assert.equal(matcher.matches(address), expected);
    });
  }

  test('an empty matcher matches nothing', () => {
    const none = createIpMatcher([]);
    assert.equal(none.matches('1.2.3.4'), false);
    assert.equal(none.matches(null), false);
  });

  test('0.0.0.0/0 matches every IPv4 client, ::/0 every IPv6 client', () => {
    const all = createIpMatcher(['0.0.0.0/0', '::/0']);
    for (const address of ['1.2.3.4', '::ffff:1.2.3.4', '2001:db8::1', '::']) {
      assert.equal(all.matches(address), true, address);
    }
    assert.equal(createIpMatcher(['::/0']).matches('1.2.3.4'), false);
  });
});

describe('ipAllowList', () => {
  test('an empty list allows every address, even an unknown one', () => {
    const allowed = ipAllowList([]);
    for (const address of ['1.2.3.4', '::1', 'garbage', null]) {
      assert.equal(allowed(address), true, String(address));
    }
  });

  const allowed = ipAllowList(['203.0.113.0/24', '2001:db8::42']);
  const cases: [address: string | null, expected: boolean][] = [
    ['203.0.113.9', true],
    ['::ffff:203.0.113.9', true],
    ['203.0.114.9', false],
    ['2001:db8::42', true],
    ['2001:db8:0:0:0:0:0:42', true],
    ['2001:db8::43', false],
    [null, false],
    ['garbage', false],
  ];
  for (const [address, expected] of cases) {
    test(`allows ${JSON.stringify(address)}: ${expected}`, () => {
      assert.equal(allowed(address), expected);
    });
  }

  test('an invalid entry throws a TypeError', () => {
    assert.throws(() => ipAllowList(['10.0.0.0/33']), TypeError);
  });
});
