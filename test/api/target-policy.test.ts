import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isForbiddenName, isPublicIp } from '../../core/targets/target-policy.ts';

describe('isPublicIp refuses one address of every special-purpose range', () => {
  const refused: [address: string, range: string][] = [
    ['0.0.0.0', '0.0.0.0/8 this network'],
    ['0.1.2.3', '0.0.0.0/8 this network'],
    ['10.0.0.1', '10.0.0.0/8 private'],
    ['100.64.0.1', '100.64.0.0/10 CGNAT'],
    ['100.127.255.254', '100.64.0.0/10 CGNAT'],
    ['127.0.0.1', '127.0.0.0/8 loopback'],
    ['127.255.255.254', '127.0.0.0/8 loopback'],
    ['169.254.169.254', '169.254.0.0/16 link-local (cloud metadata)'],
    ['172.16.0.1', '172.16.0.0/12 private'],
    ['172.31.255.255', '172.16.0.0/12 private'],
    ['192.0.0.9', '192.0.0.0/24 IETF protocol assignments'],
    ['192.0.2.1', '192.0.2.0/24 TEST-NET-1'],
    ['192.31.196.1', '192.31.196.0/24 AS112-v4'],
    ['192.52.193.1', '192.52.193.0/24 AMT'],
    ['192.88.99.1', '192.88.99.0/24 6to4 relay anycast'],
    ['192.168.1.1', '192.168.0.0/16 private'],
    ['192.175.48.1', '192.175.48.0/24 AS112 direct delegation'],
    ['198.18.0.1', '198.18.0.0/15 benchmarking'],
    ['198.19.255.255', '198.18.0.0/15 benchmarking'],
    ['198.51.100.1', '198.51.100.0/24 TEST-NET-2'],
    ['203.0.113.1', '203.0.113.0/24 TEST-NET-3'],
    ['224.0.0.1', '224.0.0.0/4 multicast'],
    ['239.255.255.250', '224.0.0.0/4 multicast'],
    ['240.0.0.1', '240.0.0.0/4 reserved'],
    ['255.255.255.255', '255.255.255.255/32 broadcast'],
    ['::', '::/128 unspecified'],
    ['::1', '::1/128 loopback'],
    ['::7f00:1', '::/96 IPv4-compatible'],
    ['::ffff:0:7f00:1', '::ffff:0:0:0/96 IPv4-translated'],
    ['64:ff9b::808:808', '64:ff9b::/96 NAT64'],
    ['64:ff9b:1::1', '64:ff9b:1::/48 local NAT64'],
    ['100::1', '100::/64 discard-only'],
    ['100:0:0:1::1', '100:0:0:1::/64 dummy prefix'],
    ['2001::1', '2001::/32 Teredo'],
    ['2001:1::1', '2001:1::1/128 PCP anycast'],
    ['2001:1::2', '2001:1::2/128 TURN anycast'],
    ['2001:1::3', '2001:1::3/128 DNS-SD SRP anycast'],
    ['2001:2::1', '2001:2::/48 benchmarking'],
    ['2001:3::1', '2001:3::/32 AMT'],
    ['2001:4:112::1', '2001:4:112::/48 AS112-v6'],
    ['2001:10::1', '2001:10::/28 ORCHID'],
    ['2001:20::1', '2001:20::/28 ORCHIDv2'],
    ['2001:30::1', '2001:30::/28 drone remote ID'],
    ['2001:1ff::1', '2001::/23 IETF protocol assignments'],
    ['2001:db8::1', '2001:db8::/32 documentation'],
    ['2002:7f00:1::1', '2002::/16 6to4'],
    ['2620:4f:8000::1', '2620:4f:8000::/48 AS112 direct delegation'],
    ['3fff::1', '3fff::/20 documentation'],
    ['3fff:fff::1', '3fff::/20 documentation'],
    ['5f00::1', '5f00::/16 SRv6 SIDs'],
    ['fc00::1', 'fc00::/7 unique-local'],
    ['fd12:3456::1', 'fc00::/7 unique-local'],
    ['fe80::1', 'fe80::/10 link-local'],
    ['fec0::1', 'fec0::/10 site-local'],
    ['ff02::1', 'ff00::/8 multicast'],
    ['ff0e::1', 'ff00::/8 multicast'],
    ['4000::1', 'outside global unicast 2000::/3'],
    ['1::1', 'outside global unicast 2000::/3'],
  ];
  for (const [address, range] of refused) {
    test(`${address} (${range})`, () => {
      assert.equal(isPublicIp(address), false);
    });
  }
});

describe('isPublicIp accepts public addresses', () => {
  const accepted = [
    '1.1.1.1',
    '8.8.8.8',
    '9.9.9.9',
    '1.0.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2001:200::1',
    '2001:db9::1',
    '2003::1',
    '2620:4f:8001::1',
    '3ffe:ffff::1',
    '3fff:1000::1',
  ];
  for (const address of accepted) {
    test(address, () => {
      assert.equal(isPublicIp(address), true);
    });
  }
});

describe('isPublicIp on text that is not a canonical address', () => {
  const cases: [input: string, expected: boolean][] = [
    ['::ffff:8.8.8.8', true],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['127.1', false],
    ['0x7f.0.0.1', false],
    ['2130706433', false],
    ['', false],
    ['example.com', false],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => {
      assert.equal(isPublicIp(input), expected);
    });
  }
});

describe('isForbiddenName', () => {
  const forbidden = [
    'localhost',
    'a.localhost',
    'deep.sub.localhost',
    'printer.local',
    'db.internal',
    'www.test',
    'foo.invalid',
    'www.example',
    'router.home.arpa',
    'home.arpa',
    'LOCALHOST',
    'localhost.',
  ];
  for (const name of forbidden) {
    test(`${name} is forbidden`, () => {
      assert.equal(isForbiddenName(name), true);
    });
  }

  const allowed = [
    'example.com',
    'localhost.com',
    'notlocalhost',
    'mylocal.com',
    'local.example.com',
    'internal.company.com',
    'test.com',
    'example.org',
    'arpa',
    'in-addr.arpa',
    'xhome.arpa',
  ];
  for (const name of allowed) {
    test(`${name} is allowed`, () => {
      assert.equal(isForbiddenName(name), false);
    });
  }
});
