/** docs/contract.md §5: target_type and target_value of devices and blacklist monitors alike. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { BlacklistMonitor, Device } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { assertError, assertSuccess, assertValidation, eachStore, type Env, VALIDATION_ONLY } from './helpers.ts';

type TargetType = 'domain' | 'ip';
const ENDPOINTS = [
  { create: '/v1/devices/create', remove: '/v1/devices/delete' },
  { create: '/v1/blacklist-monitors/create', remove: '/v1/blacklist-monitors/delete' },
] as const;

interface Ctx {
  t: TestApi;
  key: CreatedApiKey;
}

/** Creates the target on both endpoints, expects 201 and the stored value, then deletes it again. */
async function accepts({ t, key }: Ctx, type: TargetType, input: string, stored: string): Promise<void> {
  for (const endpoint of ENDPOINTS) {
    const res = await t.request<Device | BlacklistMonitor>(endpoint.create, {
      method: 'POST',
      key,
      body: { target_type: type, target_value: input },
    });
    const record = assertSuccess(res, 201);
    assert.equal(record.target_type, type, `${type} ${JSON.stringify(input)}`);
    assert.equal(record.target_value, stored, `${type} ${JSON.stringify(input)} should be stored as ${stored}`);
    assertSuccess(await t.request(`${endpoint.remove}?id=${record.id}`, { method: 'DELETE', key }), 200);
  }
}

/** Expects the target to be refused on both endpoints with the given detail code on target_value. */
async function refuses(
  { t, key }: Ctx,
  type: TargetType,
  input: string,
  code: string | readonly string[],
): Promise<void> {
  for (const endpoint of ENDPOINTS) {
    const res = await t.request(endpoint.create, {
      method: 'POST',
      key,
      body: { target_type: type, target_value: input },
    });
    assert.equal(
      res.status,
      400,
      `${type} ${JSON.stringify(input)} should be refused (${String(code)}), got ${res.status} ${res.text}`,
    );
    assertValidation(res, [['target_value', code]]);
  }
}

async function ctx(env: Env, allowPrivateTargets = false): Promise<Ctx> {
  const t = env.api({ allowPrivateTargets, rateLimit: { limit: 100_000, windowSeconds: 60 } });
  return { t, key: await t.createKey() };
}

// Public addresses used where the policy must let a target through.
const PUBLIC_V4 = [
  '8.8.8.8',
  '1.1.1.1',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '192.0.1.1',
  '192.0.3.1',
  '198.51.99.1',
  '198.51.101.1',
  '203.0.112.1',
  '203.0.114.1',
  '1.0.0.0',
];
const PUBLIC_V6 = [
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001::1',
  '2001:200::1',
  '2c0f:fb50::1',
  '2400:cb00::1',
  '2620:4f:8001::1',
  '2001:200:dff:fff1:216:3eff:feb1:44d7',
];

// docs/contract.md §5: loopback, private, link-local, CGNAT, multicast, unspecified, broadcast, documentation,
// benchmarking and other IANA special-purpose ranges.
const FORBIDDEN_V4: readonly [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['127.1.2.3', 'loopback'],
  ['10.0.0.0', 'private'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['169.254.255.255', 'link-local'],
  ['100.64.0.1', 'CGNAT'],
  ['100.127.255.255', 'CGNAT'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this network'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.1', 'documentation TEST-NET-2'],
  ['203.0.113.1', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.0.0.1', 'IETF protocol assignments'],
  ['192.0.0.8', 'IPv4 dummy address'],
  ['192.0.0.170', 'NAT64 discovery'],
  ['240.0.0.1', 'reserved'],
  ['254.255.255.255', 'reserved'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.31.196.1', 'AS112-v4'],
  ['192.52.193.1', 'AMT'],
  ['192.175.48.1', 'AS112 direct delegation'],
];
const FORBIDDEN_V6: readonly [string, string][] = [
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['ff0e::101', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff:ffff::1', 'documentation'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['2001:2::1', 'benchmarking'],
  ['2001::1', 'Teredo'],
  ['2001:0:4136:e378::1', 'Teredo'],
  ['2002:c000:201::1', '6to4'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::808:808', 'NAT64 well-known prefix'],
  ['64:ff9b:1::1', 'local NAT64'],
  ['100::1', 'discard-only'],
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
  ['4000::1', 'outside global unicast'],
  ['5f00::1', 'SRv6 SIDs'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['0:0:0:0:0:ffff:192.168.1.1', 'IPv4-mapped private, long form'],
];

const FORBIDDEN_NAMES: readonly string[] = [
  'foo.localhost',
  'a.b.localhost',
  'LOCALHOST.localhost',
  'printer.local',
  'PRINTER.LOCAL',
  'printer.local.',
  'svc.internal',
  'db.prod.internal',
  'x.test',
  'www.test',
  'a.invalid',
  'www.example',
  'router.home.arpa',
  'home.arpa',
  'nas.HOME.ARPA.',
  'bücher.test',
  'foo。local',
  'ｆｏｏ.ｌｏｃａｌ',
  'xn--bcher-kva.test',
  'localhost.internal',
];

// Validation, formats and routing: decided before any record is stored (see VALIDATION_ONLY).
eachStore(
  'targets',
  (env) => {
    test('target_type must be domain or ip; target_value is required', async () => {
      const { t, key } = await ctx(env);
      for (const endpoint of ENDPOINTS) {
        for (const type of ['Domain', 'IP', 'ipv4', 'hostname', 'url', '']) {
          assertValidation(
            await t.request(endpoint.create, {
              method: 'POST',
              key,
              body: { target_type: type, target_value: 'example.com' },
            }),
            [['target_type', 'invalid_value']],
          );
        }
        assertValidation(await t.request(endpoint.create, { method: 'POST', key, body: { target_type: 'domain' } }), [
          ['target_value', 'missing'],
        ]);
        assertValidation(
          await t.request(endpoint.create, { method: 'POST', key, body: { target_value: 'example.com' } }),
          [['target_type', 'missing']],
        );
        assertValidation(await t.request(endpoint.create, { method: 'POST', key, body: {} }), [
          ['target_type', 'missing'],
          ['target_value', 'missing'],
        ]);
        assertValidation(
          await t.request(endpoint.create, {
            method: 'POST',
            key,
            body: { target_type: 'domain', target_value: null },
          }),
          [['target_value', ['missing', 'invalid_type']]],
        );
      }
    });

    test('domain: lower-cased, one trailing dot dropped', async () => {
      const c = await ctx(env);
      await accepts(c, 'domain', 'example.com', 'example.com');
      await accepts(c, 'domain', 'Example.COM', 'example.com');
      await accepts(c, 'domain', 'EXAMPLE.COM.', 'example.com');
      await accepts(c, 'domain', 'www.Example.Org.', 'www.example.org');
      await accepts(c, 'domain', 'a-b.c-d.example.net', 'a-b.c-d.example.net');
      await accepts(c, 'domain', '123.com', '123.com');
      await accepts(c, 'domain', '1.2.3.com', '1.2.3.com');
      await accepts(c, 'domain', 'ab--cd.com', 'ab--cd.com');
      await accepts(c, 'domain', 'x.co', 'x.co');
      await accepts(c, 'domain', 'localhost.com', 'localhost.com');
      await accepts(c, 'domain', 'test.com', 'test.com');
      await accepts(c, 'domain', 'local.example.com', 'local.example.com');
      await accepts(c, 'domain', 'internal.io', 'internal.io');
      await accepts(c, 'domain', 'mytest.dev', 'mytest.dev');
      await accepts(c, 'domain', 'home.arpa.example.com', 'home.arpa.example.com');
      await accepts(c, 'domain', 'a.b.c.d.e.f.g.example.com', 'a.b.c.d.e.f.g.example.com');
    });

    test('domain: internationalised names are stored in punycode', async () => {
      const c = await ctx(env);
      await accepts(c, 'domain', 'münchen.de', 'xn--mnchen-3ya.de');
      await accepts(c, 'domain', 'MÜNCHEN.DE', 'xn--mnchen-3ya.de');
      await accepts(c, 'domain', 'münchen.de.', 'xn--mnchen-3ya.de');
      await accepts(c, 'domain', 'xn--mnchen-3ya.de', 'xn--mnchen-3ya.de');
      await accepts(c, 'domain', 'XN--MNCHEN-3YA.DE', 'xn--mnchen-3ya.de');
      await accepts(c, 'domain', 'bücher.example.com', 'xn--bcher-kva.example.com');
      await accepts(c, 'domain', 'é.com', 'xn--9ca.com');
      // NFD input is the same name as NFC input.
      await accepts(c, 'domain', 'e\u0301.com', 'xn--9ca.com');
      await accepts(c, 'domain', '例え.jp', 'xn--r8jz45g.jp');
      await accepts(c, 'domain', 'пример.рф', 'xn--e1afmkfd.xn--p1ai');
    });

    test('domain: full-width forms are either refused or stored as the ASCII name they map to', async () => {
      const { t, key } = await ctx(env);
      const res = await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'ｅｘａｍｐｌｅ。ｃｏｍ' },
      });
      if (res.status === 201) assert.equal(res.body.data!.target_value, 'example.com');
      else assertValidation(res, [['target_value', 'invalid_value']]);
    });

    test('domain: label and name rules', async () => {
      const c = await ctx(env);
      const label63 = 'a'.repeat(63);
      await accepts(c, 'domain', `${label63}.com`, `${label63}.com`);
      await accepts(c, 'domain', `x.${label63}`, `x.${label63}`);
      const invalid = [
        'com',
        'localhostx',
        'example',
        '',
        '.',
        '..',
        '.example.com',
        'example..com',
        'example.com..',
        '-example.com',
        'example-.com',
        'www.-x.com',
        'www.x-.com',
        'example.-com',
        'example.com-',
        `${'a'.repeat(64)}.com`,
        `x.${'a'.repeat(64)}`,
        'exa_mple.com',
        '_dmarc.example.com',
        'exa mple.com',
        ' example.com',
        'example.com ',
        'example.com\u00a0',
        'example.com/',
        'example.com/path',
        'example.com:443',
        'user@example.com',
        'http://example.com',
        'https://example.com/',
        '*.example.com',
        'exam*ple.com',
        'example.com?x',
        'example.com#x',
        'exa%6dple.com',
        'example,com',
        'example;com',
        'example.123',
        'example.0',
        'a.b.c.1',
        'foo.com\\bar',
        '[example.com]',
        'ex"ample.com',
        "ex'ample.com",
        'xn--zz.com',
        'xn--.com',
        'xn--a.com',
      ];
      for (const value of invalid) await refuses(c, 'domain', value, 'invalid_value');
      // Over 253 characters in ASCII form, though fewer as typed.
      const idnLabel = `${'a'.repeat(55)}ü`;
      const longIdn = [idnLabel, idnLabel, idnLabel, idnLabel].join('.') + '.com';
      assert.ok(longIdn.length <= 253);
      await refuses(c, 'domain', longIdn, ['invalid_value', 'too_long']);
      // A label of 64 characters once in punycode.
      await refuses(c, 'domain', `${'a'.repeat(56)}ü.com`, 'invalid_value');
    });

    test('domain: an IP literal is invalid_value, with or without the target policy', async () => {
      for (const allowPrivate of [false, true]) {
        const c = await ctx(env, allowPrivate);
        const literals = [
          '8.8.8.8',
          '1.1.1.1',
          '8.8.8.8.',
          '127.0.0.1',
          '10.0.0.1',
          '::1',
          '2606:4700:4700::1111',
          '[2606:4700:4700::1111]',
          '[::1]',
          '::ffff:8.8.8.8',
          '127.1',
          '0x7f.0.0.1',
          '2130706433',
          '0177.0.0.1',
          '１２７。０。０。１',
          '８.８.８.８',
        ];
        for (const value of literals) await refuses(c, 'domain', value, 'invalid_value');
      }
    });

    test('ip: strict IPv4 dotted quad, stored as written', async () => {
      const c = await ctx(env);
      for (const ip of ['8.8.8.8', '1.1.1.1', '100.128.0.1', '223.255.255.254', '9.9.9.9'])
        await accepts(c, 'ip', ip, ip);
      const loose = [
        '08.8.8.8',
        '8.08.8.8',
        '010.8.8.8',
        '0x08.8.8.8',
        '0x8.0x8.0x8.0x8',
        '134744072',
        '8.8.2056',
        '8.526344',
        '8.8.8',
        '8.8',
        '8.8.8.8.8',
        '256.8.8.8',
        '8.8.8.256',
        '8.8.8.-1',
        '-8.8.8.8',
        '8.8.8.8.',
        '.8.8.8.8',
        '8..8.8',
        ' 8.8.8.8',
        '8.8.8.8 ',
        '8.8.8.8\n',
        '8.8.8.8/32',
        '8.8.8.8:53',
        '[8.8.8.8]',
        '８.８.８.８',
        '8.8.8.8e0',
        '+8.8.8.8',
        '8,8,8,8',
        '',
        'example.com',
        'one.two.three.four',
        '1.1.1.01',
        '1.1.1.00',
      ];
      for (const ip of loose) await refuses(c, 'ip', ip, 'invalid_value');
    });

    test('ip: IPv6 stored in canonical RFC 5952 form', async () => {
      const c = await ctx(env);
      const cases: [string, string][] = [
        ['2606:4700:4700::1111', '2606:4700:4700::1111'],
        ['2606:4700:4700:0:0:0:0:1111', '2606:4700:4700::1111'],
        ['2606:4700:4700:0000:0000:0000:0000:1111', '2606:4700:4700::1111'],
        ['2606:4700:4700::0:1111', '2606:4700:4700::1111'],
        ['2606:4700:4700:0::1111', '2606:4700:4700::1111'],
        ['2001:4860:4860:0000:0000:0000:0000:8888', '2001:4860:4860::8888'],
        ['2001:4860:4860::8888'.toUpperCase(), '2001:4860:4860::8888'],
        ['2A00:1450:4001:0:0:1:0:0', '2a00:1450:4001::1:0:0'],
        ['2a00:1450:0:0:1:0:0:0', '2a00:1450:0:0:1::'],
        ['2a00:1450:0:1:2:3:4:5', '2a00:1450:0:1:2:3:4:5'],
        ['2a00:1450:4001:0000:0000:0000:0000:0000', '2a00:1450:4001::'],
        ['2a00:1450:4001::1', '2a00:1450:4001::1'],
        ['2a00:1450:4001:00ab::1', '2a00:1450:4001:ab::1'],
        ['2a00:1450:4001:0:0:0:0:1', '2a00:1450:4001::1'],
        ['2a00:1450:4001::8.8.8.8', '2a00:1450:4001::808:808'],
        ['2a00:0:0:1:0:0:0:1', '2a00:0:0:1::1'],
        ['2a00:0:0:1:1:0:0:1', '2a00::1:1:0:0:1'],
      ];
      for (const [input, stored] of cases) await accepts(c, 'ip', input, stored);
    });

    test('ip: IPv4-mapped IPv6 is stored as the IPv4 address', async () => {
      const c = await ctx(env);
      await accepts(c, 'ip', '::ffff:8.8.8.8', '8.8.8.8');
      await accepts(c, 'ip', '::FFFF:8.8.8.8', '8.8.8.8');
      await accepts(c, 'ip', '::ffff:808:808', '8.8.8.8');
      await accepts(c, 'ip', '0:0:0:0:0:ffff:8.8.8.8', '8.8.8.8');
      await accepts(c, 'ip', '0000:0000:0000:0000:0000:ffff:0101:0101', '1.1.1.1');
    });

    test('ip: malformed IPv6 and zone ids are refused, even with allowPrivateTargets', async () => {
      for (const allowPrivate of [false, true]) {
        const c = await ctx(env, allowPrivate);
        const bad = [
          'fe80::1%eth0',
          'fe80::1%1',
          'fe80::1%25eth0',
          '2606:4700::1111%eth0',
          '2606:4700::1111%0',
          'ff02::1%lo',
          '2606:4700::1::1',
          '2606:4700:4700:1111',
          '2606:4700:4700::11111',
          '[2606:4700::1111]',
          'gggg::1',
          ':1::',
          '1:::2',
          '1:2:3:4:5:6:7:8:9',
          '1:2:3:4:5:6:7:8::',
          '::ffff:8.8.8',
          '::ffff:8.8.8.08',
          '2606:4700::1111/128',
          ' ::1',
          '2606:4700::1111 ',
          ':::',
          '2606:4700::1111:',
          ':2606:4700::1111',
          '2606:4700:0:0:0:0:0:0:1111',
          '::ffff:256.8.8.8',
          '0x2606::1',
        ];
        for (const ip of bad) await refuses(c, 'ip', ip, 'invalid_value');
      }
    });

    test('policy: every named IPv4 range is forbidden_target', async () => {
      const c = await ctx(env);
      for (const [ip, range] of FORBIDDEN_V4) {
        const res = await c.t.request('/v1/devices/create', {
          method: 'POST',
          key: c.key,
          body: { target_type: 'ip', target_value: ip },
        });
        assert.equal(res.status, 400, `${ip} (${range}) must be refused, got ${res.status} ${res.text}`);
        await refuses(c, 'ip', ip, 'forbidden_target');
      }
      for (const ip of PUBLIC_V4) await accepts(c, 'ip', ip, ip);
    });

    test('policy: every named IPv6 range is forbidden_target', async () => {
      const c = await ctx(env);
      for (const [ip, range] of FORBIDDEN_V6) {
        const res = await c.t.request('/v1/devices/create', {
          method: 'POST',
          key: c.key,
          body: { target_type: 'ip', target_value: ip },
        });
        assert.equal(res.status, 400, `${ip} (${range}) must be refused, got ${res.status} ${res.text}`);
        await refuses(c, 'ip', ip, 'forbidden_target');
      }
      for (const ip of PUBLIC_V6) await accepts(c, 'ip', ip, ip);
    });

    test('policy: localhost and names under .localhost .local .internal .test .invalid .example .home.arpa', async () => {
      const c = await ctx(env);
      for (const name of FORBIDDEN_NAMES) await refuses(c, 'domain', name, 'forbidden_target');
      // The bare name `localhost` is named by the policy; it is also a single label. Either reading refuses it.
      for (const name of ['localhost', 'LOCALHOST', 'localhost.'])
        await refuses(c, 'domain', name, ['forbidden_target', 'invalid_value']);
    });

    test('policy: origin_host is held to it as well', async () => {
      const { t, key } = await ctx(env);
      for (const origin of [
        '10.0.0.1',
        '127.0.0.1',
        '::1',
        '169.254.169.254',
        'printer.local',
        'foo.localhost',
        'svc.internal',
        '::ffff:192.168.0.1',
      ]) {
        const res = await t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com', proxy_enabled: true, origin_host: origin },
        });
        assertValidation(res, [['origin_host', 'forbidden_target']]);
      }
      const ok = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: {
            target_type: 'domain',
            target_value: 'example.com',
            proxy_enabled: true,
            origin_host: 'origin.example.net',
          },
        }),
        201,
      );
      assert.equal(ok.origin_host, 'origin.example.net');
    });

    test('allowPrivateTargets: true lifts the policy for every range and name', async () => {
      const c = await ctx(env, true);
      for (const [ip] of FORBIDDEN_V4) await accepts(c, 'ip', ip, ip);
      const v6: [string, string][] = [
        ['::1', '::1'],
        ['::', '::'],
        ['fe80::1', 'fe80::1'],
        ['fd12:3456:789a::1', 'fd12:3456:789a::1'],
        ['2001:db8::1', '2001:db8::1'],
        ['ff02::1', 'ff02::1'],
        ['::ffff:10.0.0.1', '10.0.0.1'],
        ['::ffff:127.0.0.1', '127.0.0.1'],
        ['FE80:0:0:0:0:0:0:1', 'fe80::1'],
        ['64:ff9b::a00:1', '64:ff9b::a00:1'],
      ];
      for (const [input, stored] of v6) await accepts(c, 'ip', input, stored);
      const names: [string, string][] = [
        ['foo.localhost', 'foo.localhost'],
        ['Printer.Local.', 'printer.local'],
        ['svc.internal', 'svc.internal'],
        ['x.test', 'x.test'],
        ['a.invalid', 'a.invalid'],
        ['www.example', 'www.example'],
        ['router.home.arpa', 'router.home.arpa'],
        ['bücher.test', 'xn--bcher-kva.test'],
      ];
      for (const [input, stored] of names) await accepts(c, 'domain', input, stored);
      const origin = assertSuccess(
        await c.t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key: c.key,
          body: { target_type: 'domain', target_value: 'example.com', proxy_enabled: true, origin_host: '10.1.2.3' },
        }),
        201,
      );
      assert.equal(origin.origin_host, '10.1.2.3');
    });

    test('a domain value under target_type ip and an IP under target_type domain are invalid_value', async () => {
      const c = await ctx(env);
      await refuses(c, 'ip', 'example.com', 'invalid_value');
      await refuses(c, 'ip', 'localhost', 'invalid_value');
      await refuses(c, 'domain', '2001:4860:4860::8888', 'invalid_value');
    });

    test('a refused target leaves nothing behind', async () => {
      const { t, key } = await ctx(env);
      await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '10.0.0.1' },
      });
      await t.request('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'printer.local' },
      });
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
      assert.deepEqual(assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200), []);
      assertError(await t.request('/v1/devices/delete?id=1', { method: 'DELETE', key }), 404, 'device_not_found');
    });
  },
  VALIDATION_ONLY,
);
