import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clientIp, type HeaderReader } from '../../core/net/client-ip.ts';
import { createIpMatcher } from '../../core/net/ip-matcher.ts';

function headers(values: Record<string, string> = {}): HeaderReader {
  const lower = new Map(Object.entries(values).map(([name, value]) => [name.toLowerCase(), value]));
  return { get: (name) => lower.get(name.toLowerCase()) ?? null };
}

/** The load balancer (10.0.0.0/8) and the CDN edge (2001:db8:cafe::/48) are ours. */
const trusted = createIpMatcher(['10.0.0.0/8', '2001:db8:cafe::/48']);

describe('clientIp without trusted proxies', () => {
  const cases: [peer: string | null, expected: string | null][] = [
    ['203.0.113.5', '203.0.113.5'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['::ffff:cb00:7105', '203.0.113.5'],
    ['2001:DB8::1', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    [null, null],
    ['', null],
    ['garbage', null],
  ];
  for (const [peer, expected] of cases) {
    test(`peer ${JSON.stringify(peer)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(clientIp(peer, headers(), null), expected);
    });
  }

  test('forwarding headers are ignored when no proxy is trusted', () => {
    const spoof = headers({ 'X-Forwarded-For': '1.1.1.1', Forwarded: 'for=8.8.8.8' });
    assert.equal(clientIp('203.0.113.5', spoof, null), '203.0.113.5');
  });
});

describe('clientIp: spoofing attempts from an untrusted peer are ignored', () => {
  const attempts: Record<string, string>[] = [
    { 'X-Forwarded-For': '10.0.0.1' },
    { 'X-Forwarded-For': '127.0.0.1' },
    { 'X-Forwarded-For': '1.1.1.1, 10.0.0.1' },
    { Forwarded: 'for=10.0.0.1' },
    { Forwarded: 'for="[2001:db8:cafe::1]"' },
    { 'X-Real-IP': '10.0.0.1' },
  ];
  for (const values of attempts) {
    test(JSON.stringify(values), () => {
      assert.equal(clientIp('198.51.100.9', headers(values), trusted), '198.51.100.9');
    });
  }
});

describe('clientIp behind trusted proxies', () => {
  const cases: [name: string, peer: string, values: Record<string, string>, expected: string][] = [
    ['no header: the proxy itself', '10.0.0.1', {}, '10.0.0.1'],
    ['empty header: the proxy itself', '10.0.0.1', { 'X-Forwarded-For': ' ' }, '10.0.0.1'],
    ['one hop', '10.0.0.1', { 'X-Forwarded-For': '203.0.113.5' }, '203.0.113.5'],
    ['IPv4-mapped peer is trusted as IPv4', '::ffff:10.0.0.1', { 'X-Forwarded-For': '203.0.113.5' }, '203.0.113.5'],
    ['chain through two trusted proxies', '10.0.0.1', { 'X-Forwarded-For': '203.0.113.5, 10.0.0.2' }, '203.0.113.5'],
    [
      'chain through two trusted proxies across families',
      '2001:db8:cafe::1',
      { 'X-Forwarded-For': '2001:db8:1::5,10.0.0.2' },
      '2001:db8:1::5',
    ],
    [
      'client-supplied hops left of the real client are ignored',
      '10.0.0.1',
      { 'X-Forwarded-For': '127.0.0.1, 8.8.8.8, 203.0.113.5, 10.0.0.2' },
      '203.0.113.5',
    ],
    ['every hop trusted: the leftmost', '10.0.0.1', { 'X-Forwarded-For': '10.0.0.3, 10.0.0.2' }, '10.0.0.3'],
    [
      'a hop that is not an address stops the walk at the last trusted one',
      '10.0.0.1',
      { 'X-Forwarded-For': '203.0.113.5, unknown, 10.0.0.2' },
      '10.0.0.2',
    ],
    ['garbage right away: the peer', '10.0.0.1', { 'X-Forwarded-For': '203.0.113.5, 127.1' }, '10.0.0.1'],
    ['empty hop', '10.0.0.1', { 'X-Forwarded-For': '203.0.113.5,' }, '10.0.0.1'],
    ['hops are canonicalised', '10.0.0.1', { 'X-Forwarded-For': '::FFFF:203.0.113.5' }, '203.0.113.5'],
    ['X-Forwarded-For with a port', '10.0.0.1', { 'X-Forwarded-For': '203.0.113.5:4711' }, '203.0.113.5'],
    ['X-Forwarded-For bracketed', '10.0.0.1', { 'X-Forwarded-For': '[2001:db8::7]:4711' }, '2001:db8::7'],
    ['Forwarded', '10.0.0.1', { Forwarded: 'for=203.0.113.5' }, '203.0.113.5'],
    ['Forwarded FOR is case-insensitive', '10.0.0.1', { Forwarded: 'For=203.0.113.5;proto=https' }, '203.0.113.5'],
    ['Forwarded quoted IPv4 with port', '10.0.0.1', { Forwarded: 'for="203.0.113.5:4711"' }, '203.0.113.5'],
    ['Forwarded quoted IPv6 with port', '10.0.0.1', { Forwarded: 'for="[2001:db8::1]:4711"' }, '2001:db8::1'],
    ['Forwarded quoted IPv6', '10.0.0.1', { Forwarded: 'for="[2001:DB8::1]"' }, '2001:db8::1'],
    ['Forwarded obfuscated port', '10.0.0.1', { Forwarded: 'for="203.0.113.5:_p1"' }, '203.0.113.5'],
    [
      'Forwarded with several elements and parameters',
      '10.0.0.1',
      { Forwarded: 'for=198.51.100.1;proto=http, for=203.0.113.5;by=10.0.0.2;proto=https, for=10.0.0.2' },
      '203.0.113.5',
    ],
    [
      'Forwarded quoted values may hold separators',
      '10.0.0.1',
      { Forwarded: 'for=203.0.113.5;host="a,b;c", for=10.0.0.2' },
      '203.0.113.5',
    ],
    [
      'Forwarded wins over X-Forwarded-For',
      '10.0.0.1',
      { Forwarded: 'for=203.0.113.5', 'X-Forwarded-For': '198.51.100.1' },
      '203.0.113.5',
    ],
    [
      'Forwarded without any for= leaves it to X-Forwarded-For',
      '10.0.0.1',
      { Forwarded: 'proto=https;by=10.0.0.1', 'X-Forwarded-For': '198.51.100.1' },
      '198.51.100.1',
    ],
    ['Forwarded unknown stops the walk', '10.0.0.1', { Forwarded: 'for=203.0.113.5, for=unknown' }, '10.0.0.1'],
    [
      'Forwarded obfuscated node stops the walk',
      '10.0.0.1',
      { Forwarded: 'for=203.0.113.5, for=_hidden, for=10.0.0.2' },
      '10.0.0.2',
    ],
    [
      'Forwarded element without for= stops the walk',
      '10.0.0.1',
      { Forwarded: 'for=203.0.113.5, proto=https' },
      '10.0.0.1',
    ],
    ['Forwarded with an unterminated quote', '10.0.0.1', { Forwarded: 'for="203.0.113.5' }, '10.0.0.1'],
    ['Forwarded IPv4 in brackets', '10.0.0.1', { Forwarded: 'for="[203.0.113.5]"' }, '10.0.0.1'],
    ['Forwarded repeated for=', '10.0.0.1', { Forwarded: 'for=203.0.113.5;for=198.51.100.1' }, '10.0.0.1'],
    ['Forwarded zone id', '10.0.0.1', { Forwarded: 'for="[fe80::1%eth0]"' }, '10.0.0.1'],
  ];
  for (const [name, peer, values, expected] of cases) {
    test(name, () => {
      assert.equal(clientIp(peer, headers(values), trusted), expected);
    });
  }

  test('several header lines count as one list, in order', () => {
    const lines = new Headers();
    lines.append('X-Forwarded-For', '198.51.100.1, 203.0.113.5');
    lines.append('X-Forwarded-For', '10.0.0.3');
    assert.equal(clientIp('10.0.0.1', lines, trusted), '203.0.113.5');

    const forwarded = new Headers();
    forwarded.append('Forwarded', 'for=198.51.100.1');
    forwarded.append('Forwarded', 'for="[2001:db8:cafe::9]:443"');
    assert.equal(clientIp('10.0.0.1', forwarded, trusted), '198.51.100.1');
  });
});
