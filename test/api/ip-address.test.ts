import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalIp, isIpLiteral } from '../../core/net/ip-address.ts';

describe('canonicalIp', () => {
  const valid: [input: string, canonical: string][] = [
    ['1.2.3.4', '1.2.3.4'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['10.0.0.1', '10.0.0.1'],
    ['::1', '::1'],
    ['::', '::'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['0::0', '::'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8::1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['1::2:3:4:5:6:7', '1:0:2:3:4:5:6:7'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
    ['FE80::ABCD', 'fe80::abcd'],
    ['2606:4700:4700::1111', '2606:4700:4700::1111'],
    // IPv4-mapped IPv6 is the IPv4 host (CVE-2024-29415 relied on it not being seen as loopback).
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    // RFC 4291 IPv4-compatible: an IPv6 address, not the IPv4 one (ipaddr.js alone maps it).
    ['::127.0.0.1', '::7f00:1'],
    ['::1.2.3.4', '::102:304'],
    ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    // Not mapped (IPv4-translated, ::ffff:0:0:0/96): stays IPv6.
    ['::ffff:0:7f00:1', '::ffff:0:7f00:1'],
  ];
  for (const [input, canonical] of valid) {
    test(`${JSON.stringify(input)} → ${canonical}`, () => {
      assert.equal(canonicalIp(input), canonical);
    });
  }

  const invalid: [input: string, why: string][] = [
    ['127.1', 'short form (CVE-2021-28918 family)'],
    ['127.0.1', 'three-part form'],
    ['0x7f.0.0.1', 'hex octet'],
    ['0x7f000001', 'hex integer'],
    ['0177.0.0.1', 'octal octet (CVE-2021-28918)'],
    ['2130706433', 'single integer'],
    ['017700000001', 'octal integer'],
    ['1.2.3.04', 'leading zero'],
    ['01.2.3.4', 'leading zero'],
    ['00.0.0.0', 'leading zero'],
    ['1.2.3.4.', 'trailing dot'],
    ['.1.2.3.4', 'leading dot'],
    ['1..2.3', 'empty octet'],
    ['256.0.0.1', 'octet out of range'],
    ['1.2.3.4.5', 'five parts'],
    ['1.2.3', 'three parts'],
    [' 1.2.3.4', 'leading space'],
    ['1.2.3.4 ', 'trailing space'],
    ['1.2.3.4\n', 'trailing newline'],
    ['１.２.３.４', 'full-width digits'],
    ['+1.2.3.4', 'sign'],
    ['1.2.3.4/32', 'CIDR'],
    ['1.2.3.4:80', 'port'],
    ['', 'empty'],
    ['fe80::1%eth0', 'zone id'],
    ['fe80::1%1', 'numeric zone id'],
    ['[::1]', 'brackets'],
    ['[::1]:80', 'brackets and port'],
    ['::ffff:127.1', 'short embedded IPv4'],
    ['::ffff:0177.0.0.1', 'octal embedded IPv4'],
    ['::ffff:1.2.3.04', 'leading zero in embedded IPv4'],
    ['::ffff:0x7f.0.0.1', 'hex embedded IPv4'],
    ['::0x7f.0.0.1', 'hex IPv4-compatible'],
    ['::1.2.3.4:5', 'dotted quad not last'],
    ['1.2.3.4::', 'dotted quad first'],
    ['1:2:3:4:5:6:7:1.2.3.4', 'nine groups with dotted quad'],
    ['1:2:3:4:5:6:7:8:9', 'nine groups'],
    ['1:2:3:4:5:6:7', 'seven groups without ::'],
    ['1:2:3:4:5:6:7:8::', ':: compressing nothing'],
    ['::1:2:3:4:5:6:7:8', ':: compressing nothing'],
    ['1::2::3', 'two ::'],
    [':::', 'triple colon'],
    ['1:::2', 'triple colon'],
    [':1::2', 'single leading colon'],
    ['1::2:', 'single trailing colon'],
    ['12345::', 'five hex digits'],
    ['00001::', 'five hex digits with leading zeros'],
    ['g::1', 'not hex'],
    ['::-1', 'sign'],
    ['::1 ', 'trailing space'],
    ['localhost', 'name'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255x', 'too long'],
  ];
  for (const [input, why] of invalid) {
    test(`${JSON.stringify(input)} refused: ${why}`, () => {
      assert.equal(canonicalIp(input), null);
    });
  }
});

describe('isIpLiteral', () => {
  const literals = [
    '1.2.3.4',
    '127.1',
    '127.0.1',
    '0x7f.0.0.1',
    '0x7f.1',
    '0177.0.0.1',
    '2130706433',
    '1.2.3.04',
    '1.2.3.4.',
    '::1',
    '[::1]',
    '[2001:db8::1]',
    '::ffff:127.0.0.1',
    'fe80::1%eth0',
  ];
  for (const input of literals) {
    test(`${JSON.stringify(input)} is an IP literal`, () => {
      assert.equal(isIpLiteral(input), true);
    });
  }

  const names = ['example.com', 'a.b', '1.2.3.com', 'localhost', '0x7f.example', '', '[example.com]', 'deadbeef.'];
  for (const input of names) {
    test(`${JSON.stringify(input)} is not an IP literal`, () => {
      assert.equal(isIpLiteral(input), false);
    });
  }
});
