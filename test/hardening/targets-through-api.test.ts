/**
 * Issue 6, item 2: the address and name tricks behind real CVEs, through the API rather than the
 * parsing functions (test/api/ip-address, normalize-target and target-policy cover those):
 * target_value of both types on both resources, origin_host, and the key allow-list. Every IANA
 * special-purpose block is refused at its edges and inside, in plain and odd spellings, while its
 * public neighbours are accepted; long labels and names are refused; internationalised homographs
 * are stored as the punycode a URL parser uses.
 *
 * CVE-2021-28918 (netmask): octal `0177.0.0.1` read as decimal 177.0.0.1, a public address.
 * CVE-2023-42282 (ip): `0x7f.1` not recognised as loopback by isPublic().
 * CVE-2024-29415 (ip): `127.1`, `01200034567`, `000:0:0000::01`, `::fFFf:127.0.0.1` called public.
 * The defence is one strict reading: anything not a dotted quad or an RFC 4291 address is not an
 * address, and a name that any parser would read as an address is not a name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { createMonitoringApi, KeyAdminError, type CreatedApiKey, type MonitoringApi } from '../../core/index.ts';
import { v4Bounds, v4In, v4Spellings, v6Bounds, v6In, v6Short, v6Spellings } from './arbitraries.ts';
import {
  assertSafeHost,
  callRaw,
  checkAnswer,
  hostAsUrlSees,
  IANA_V4,
  IANA_V6,
  isPublicAddress,
  STORE_FACTORIES,
  type CheckedAnswer,
  type HardeningStore,
} from './support.ts';

type Where = 'device ip' | 'device domain' | 'monitor ip' | 'monitor domain' | 'origin_host';
const WHERE: readonly Where[] = ['device ip', 'device domain', 'monitor ip', 'monitor domain', 'origin_host'];

interface Env {
  strict: MonitoringApi;
  lax: MonitoringApi;
  key: CreatedApiKey;
}

let unique = 0;

/** Creates a resource with `host` in the named place and returns the checked answer. */
async function submit(api: MonitoringApi, key: CreatedApiKey, where: Where, host: string): Promise<CheckedAnswer> {
  let path = '/v1/devices/create';
  let body: Record<string, unknown>;
  if (where === 'origin_host') {
    body = {
      target_type: 'domain',
      target_value: `t${unique++}.targets.example.net`,
      proxy_enabled: true,
      origin_host: host,
    };
  } else {
    const [resource, type] = where.split(' ') as ['device' | 'monitor', 'ip' | 'domain'];
    if (resource === 'monitor') path = '/v1/blacklist-monitors/create';
    body = { target_type: type, target_value: host };
  }
  const res = await callRaw(api, {
    method: 'POST',
    url: path,
    body: JSON.stringify(body),
    headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
  });
  return checkAnswer(res);
}

const field = (where: Where) => (where === 'origin_host' ? 'origin_host' : 'target_value');

function storedHost(where: Where, answer: CheckedAnswer): unknown {
  const data = answer.body.data as Record<string, unknown>;
  return data[field(where)];
}

/** Asserts a 400 with one detail, on the host's field, with one of the codes. */
function assertRefused(answer: CheckedAnswer, where: Where, codes: readonly string[], input: string): void {
  assert.equal(
    answer.status,
    400,
    `${JSON.stringify(input)} as ${where} must be refused, got ${answer.status} ${JSON.stringify(answer.body)}`,
  );
  const details = answer.body.error?.details ?? [];
  assert.deepEqual(
    details.map((d) => d.field),
    [field(where)],
    JSON.stringify(details),
  );
  assert.ok(
    codes.includes(details[0]!.code),
    `${JSON.stringify(input)} as ${where}: ${details[0]!.code}, expected ${codes.join(' or ')}`,
  );
}

/**
 * Accepted, stored as `stored`, and that stored text is read alike by every parser. 409 counts (same stored record).
 */
function assertStored(answer: CheckedAnswer, where: Where, stored: string, allowPrivate: boolean, input: string): void {
  if (answer.status === 409) return;
  assert.equal(
    answer.status,
    201,
    `${JSON.stringify(input)} as ${where} should be stored as ${stored}: ${JSON.stringify(answer.body)}`,
  );
  assert.equal(storedHost(where, answer), stored);
  assertSafeHost(
    stored,
    where.endsWith('ip') ? 'ip' : where.endsWith('domain') ? 'domain' : 'either',
    allowPrivate,
    `${input} as ${where}`,
  );
}

/**
 * The CVE spellings. `lax` is what allowPrivateTargets: true does with the input as an ip target
 * or origin_host: `null` when it is no strict address at all (refused in every mode), else the
 * canonical address it is stored as. As a domain every one of them is invalid_value.
 */
const CVE_FORMS: readonly (readonly [input: string, lax: string | null, why: string])[] = [
  ['127.1', null, 'short form (ip CVE-2024-29415, netmask)'],
  ['127.0.1', null, 'three-part form'],
  ['0x7f.1', null, 'hex short form (ip CVE-2023-42282)'],
  ['0x7f.0.0.1', null, 'hex octet'],
  ['0x7f000001', null, 'hex integer'],
  ['0x7f.0x0.0x0.0x1', null, 'all-hex'],
  ['0177.0.0.1', null, 'octal octet (netmask CVE-2021-28918)'],
  ['0177.1', null, 'octal short form'],
  ['017700000001', null, 'octal integer'],
  ['01200034567', null, 'octal integer of 10.0.57.119 (ip CVE-2024-29415)'],
  ['012.0.0.1', null, 'octal 10.0.0.1 read as public 12.0.0.1 by a decimal parser'],
  ['127.000.000.001', null, 'zero-padded octets'],
  ['2130706433', null, 'integer form of 127.0.0.1'],
  ['167772161', null, 'integer form of 10.0.0.1'],
  ['2852039166', null, 'integer form of 169.254.169.254 (cloud metadata)'],
  ['0xa9.0xfe.0xa9.0xfe', null, 'hex form of 169.254.169.254'],
  ['0', null, 'single zero (0.0.0.0 to inet_aton)'],
  ['127.0.0.1.', null, 'trailing dot'],
  ['１２７.０.０.１', null, 'full-width digits'],
  ['127。0。0。1', null, 'ideographic full stops'],
  ['127.0.0.1\u0000.example.com', null, 'NUL truncation'],
  ['127.0.0.1:80', null, 'port'],
  ['[::1]', null, 'brackets'],
  ['[::ffff:127.0.0.1]', null, 'bracketed mapped'],
  ['fe80::1%eth0', null, 'zone id'],
  ['fe80::1%25eth0', null, 'percent-encoded zone id'],
  ['::1%lo', null, 'zone id on loopback'],
  ['::ffff:127.1', null, 'short form inside IPv6'],
  ['::ffff:0x7f.0.0.1', null, 'hex inside IPv6'],
  ['::ffff:0177.0.0.1', null, 'octal inside IPv6'],
  ['::ffff:7f00:1', '127.0.0.1', 'IPv4-mapped loopback in hex (ip CVE-2024-29415)'],
  ['::fFFf:127.0.0.1', '127.0.0.1', 'IPv4-mapped loopback, mixed case (ip CVE-2024-29415)'],
  ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1', 'IPv4-mapped loopback, long form'],
  ['::ffff:169.254.169.254', '169.254.169.254', 'IPv4-mapped metadata address'],
  ['000:0:0000::01', '::1', 'loopback with padded groups (ip CVE-2024-29415)'],
  ['0:0:0:0:0:0:0:1', '::1', 'loopback, long form'],
  ['::127.0.0.1', '::7f00:1', 'IPv4-compatible (deprecated) loopback'],
  ['64:ff9b::7f00:1', '64:ff9b::7f00:1', 'NAT64 of loopback'],
  ['64:ff9b::169.254.169.254', '64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
  ['2002:7f00:1::', '2002:7f00:1::', '6to4 of loopback'],
  ['fd00:ec2::254', 'fd00:ec2::254', 'the cloud metadata service over IPv6'],
  ['0.0.0.0', '0.0.0.0', 'unspecified ("this host" to many stacks)'],
  ['::', '::', 'unspecified IPv6'],
];

/** Public addresses in loose spellings: refused too, never stored as something a parser reads otherwise. */
const LOOSE_PUBLIC: readonly string[] = [
  '8.8.8.010',
  '0x08.0x08.0x08.0x08',
  '134744072',
  '8.8.2056',
  '010.8.8.8',
  '8.8.8.8.',
  '[2001:4860:4860::8888]',
  '2001:4860:4860::8888%0',
];

for (const factory of STORE_FACTORIES) {
  describe(`targets through the API (${factory.name})`, { concurrency: 1 }, () => {
    let opened: HardeningStore | undefined;
    let skip: string | undefined;
    let env: Env;

    before(async () => {
      const result = await factory.open();
      if ('skip' in result) {
        skip = result.skip;
        return;
      }
      opened = result;
      const options = { store: result.store, rateLimit: { limit: 1e6, windowSeconds: 60 } };
      const strict = createMonitoringApi(options);
      const lax = createMonitoringApi({ ...options, allowPrivateTargets: true });
      env = { strict, lax, key: await strict.keys.createApiKey({ userId: (await strict.keys.createUser()).id }) };
    });
    after(async () => {
      await env?.strict.close();
      await env?.lax.close();
      await opened?.close();
    });

    test('CVE spellings: never stored by default; with private targets allowed, only strict addresses, canonical', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      for (const [input, lax] of CVE_FORMS) {
        for (const where of WHERE) {
          assertRefused(
            await submit(env.strict, env.key, where, input),
            where,
            ['invalid_value', 'forbidden_target'],
            input,
          );
          const laxAnswer = await submit(env.lax, env.key, where, input);
          if (lax === null || where.endsWith('domain')) assertRefused(laxAnswer, where, ['invalid_value'], input);
          else assertStored(laxAnswer, where, lax, true, input);
        }
      }
    });

    test('CVE spellings: a strictly written special address is forbidden_target, a loose one invalid_value', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      for (const [input, lax] of CVE_FORMS) {
        for (const where of ['device ip', 'monitor ip', 'origin_host'] as const) {
          assertRefused(
            await submit(env.strict, env.key, where, input),
            where,
            [lax === null ? 'invalid_value' : 'forbidden_target'],
            input,
          );
        }
      }
    });

    test('public addresses in loose spellings are refused, not stored as what a parser makes of them', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      for (const input of LOOSE_PUBLIC) {
        for (const where of WHERE) {
          assertRefused(await submit(env.lax, env.key, where, input), where, ['invalid_value'], input);
        }
      }
      // The strict spellings of the same hosts are fine.
      assertStored(await submit(env.strict, env.key, 'device ip', '8.8.8.8'), 'device ip', '8.8.8.8', false, '8.8.8.8');
      assertStored(
        await submit(env.strict, env.key, 'origin_host', '2001:4860:4860:0:0:0:0:8888'),
        'origin_host',
        '2001:4860:4860::8888',
        false,
        'v6',
      );
    });

    test('over-long labels and names are refused; the longest legal ones are stored', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      const l63 = 'a'.repeat(63);
      const name253 = `${l63}.${l63}.${l63}.${'b'.repeat(57)}.com`;
      const name254 = `${l63}.${l63}.${l63}.${'b'.repeat(58)}.com`;
      assert.equal(name253.length, 253);
      const longIdnLabel = `${'a'.repeat(56)}ü.com`; // 63 characters typed, 64+ in punycode
      for (const where of ['device domain', 'monitor domain', 'origin_host'] as const) {
        assertStored(await submit(env.strict, env.key, where, `${l63}.com`), where, `${l63}.com`, false, 'label of 63');
        assertStored(await submit(env.strict, env.key, where, name253), where, name253, false, 'name of 253');
        assertRefused(
          await submit(env.strict, env.key, where, `${'a'.repeat(64)}.com`),
          where,
          ['invalid_value'],
          'label of 64',
        );
        assertRefused(
          await submit(env.strict, env.key, where, name254),
          where,
          ['invalid_value', 'too_long'],
          'name of 254',
        );
        assertRefused(
          await submit(env.strict, env.key, where, `${name253}.`.replace('com.', 'co.m')),
          where,
          ['invalid_value', 'too_long'],
          'name of 254 with dots',
        );
        assertRefused(
          await submit(env.strict, env.key, where, longIdnLabel),
          where,
          ['invalid_value'],
          'IDN label over 63 in punycode',
        );
        assertRefused(
          await submit(env.strict, env.key, where, `${'ü.'.repeat(60)}com`),
          where,
          ['invalid_value', 'too_long'],
          'IDN name over 253 in punycode',
        );
        assertRefused(
          await submit(env.strict, env.key, where, `${'a.'.repeat(5000)}com`),
          where,
          ['too_long'],
          '10 003 characters',
        );
      }
    });

    test('internationalised homographs are stored as the punycode a URL parser connects to, so they never pass for the Latin name', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      const homographs: [input: string, stored: string][] = [
        ['\u0430pple.com', 'xn--pple-43d.com'], // Cyrillic а
        ['\u0430\u0440\u0440\u04cf\u0435.com', 'xn--80ak6aa92e.com'], // all Cyrillic
        ['p\u0430yp\u0430l.com', 'xn--pypl-53dc.com'], // mixed script
        ['g\u03bfogle.com', 'xn--gogle-rce.com'], // Greek omicron
        ['\u0435x\u0430mple.org', 'xn--xmple-4ve7a.org'],
        ['ｇｏｏｇｌｅ.com', 'google.com'], // full-width Latin is Latin after IDNA mapping
        ['GOOGLE.com', 'google.com'],
      ];
      for (const [input, stored] of homographs) {
        assert.equal(hostAsUrlSees(input), stored, `the URL parser's reading of ${input}`);
        for (const where of ['device domain', 'monitor domain', 'origin_host'] as const) {
          assertStored(await submit(env.strict, env.key, where, input), where, stored, false, input);
        }
      }
      // The homograph and its punycode are one target; the Latin name is another.
      const first = await submit(env.strict, env.key, 'monitor domain', 'xn--pple-43d.com');
      assert.equal(first.status, 409, 'the punycode of a stored homograph is a duplicate');
      const latin = await submit(env.strict, env.key, 'monitor domain', 'apple.com');
      assertStored(latin, 'monitor domain', 'apple.com', false, 'apple.com');
      assert.notEqual(first.body.error?.existing_id, (latin.body.data as { id: number }).id);
    });

    // The policy is the core's, whatever the store: the sweep (some 1 500 requests) runs once.
    if (factory.name === 'memory')
      test('every IANA special-purpose block, v4 and v6: first, last and random addresses are forbidden_target; public neighbours are stored', async () => {
        const samples = (arb: fc.Arbitrary<string>) => fc.sample(arb, { seed: 6, numRuns: 3 });
        const v4Next = (address: string, delta: number) => {
          const n = address.split('.').reduce((acc, o) => acc * 256 + Number(o), 0) + delta;
          return n < 0 || n > 0xffffffff ? null : [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
        };
        for (const [cidr, name] of IANA_V4) {
          const [first, last] = v4Bounds(cidr);
          for (const address of [first, last, ...samples(v4In(cidr))]) {
            for (const where of ['device ip', 'monitor ip', 'origin_host'] as const) {
              assertRefused(
                await submit(env.strict, env.key, where, address),
                where,
                ['forbidden_target'],
                `${address} (${cidr} ${name})`,
              );
            }
            // And in every odd spelling: refused, whatever the reason.
            for (const spelling of v4Spellings(address)) {
              const answer = await submit(env.strict, env.key, 'device ip', spelling);
              assert.equal(answer.status, 400, `${JSON.stringify(spelling)} (${address}, ${cidr}) was accepted`);
            }
          }
          for (const neighbour of [v4Next(first, -1), v4Next(last, 1)]) {
            if (neighbour !== null && isPublicAddress(neighbour)) {
              assertStored(
                await submit(env.strict, env.key, 'monitor ip', neighbour),
                'monitor ip',
                neighbour,
                false,
                `neighbour of ${cidr}`,
              );
            }
          }
        }
        for (const [cidr, name] of IANA_V6) {
          const [first, last] = v6Bounds(cidr);
          for (const groups of [first, last, ...fc.sample(v6In(cidr), { seed: 6, numRuns: 3 })]) {
            const address = v6Short(groups);
            for (const where of ['device ip', 'monitor ip', 'origin_host'] as const) {
              const answer = await submit(env.strict, env.key, where, address);
              // An IPv4-mapped address is stored as IPv4: its verdict is the IPv4 one, and ::ffff:8.8.8.8 is public.
              if (cidr === '::ffff:0:0/96') {
                if (answer.status === 201) assertSafeHost(storedHost(where, answer), 'either', false, address);
                continue;
              }
              assertRefused(answer, where, ['forbidden_target'], `${address} (${cidr} ${name})`);
            }
            for (const spelling of v6Spellings(groups)) {
              const answer = await submit(env.strict, env.key, 'device ip', spelling);
              if (cidr !== '::ffff:0:0/96')
                assert.equal(answer.status, 400, `${JSON.stringify(spelling)} (${cidr}) was accepted`);
            }
          }
          const toBig = (g: number[]) => g.reduce((acc, x) => (acc << 16n) | BigInt(x), 0n);
          const fromBig = (n: bigint) =>
            v6Short(Array.from({ length: 8 }, (_, i) => Number((n >> BigInt((7 - i) * 16)) & 0xffffn)));
          for (const neighbour of [toBig(first) - 1n, toBig(last) + 1n]) {
            if (neighbour < 0n || neighbour >= 1n << 128n) continue;
            const address = fromBig(neighbour);
            if (isPublicAddress(address))
              assertStored(
                await submit(env.strict, env.key, 'monitor ip', address),
                'monitor ip',
                address,
                false,
                `neighbour of ${cidr}`,
              );
          }
        }
      });

    test('allow-list entries in odd forms are refused when the key is created', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      const user = await env.strict.keys.createUser();
      const refused = [
        '127.1',
        '0x7f.0.0.1',
        '0177.0.0.1',
        '2130706433',
        '127.000.000.001',
        '１２７.０.０.１',
        '127.0.0.1.',
        '127.0.0.1 ',
        ' 127.0.0.1',
        '127.0.0.1\n',
        '10/8',
        '10.0.0.0/08',
        '10.0.0.0/+8',
        '10.0.0.0/-1',
        '10.0.0.0/33',
        '10.0.0.0/0x8',
        '10.0.0.0/8/8',
        '10.0.0.0/',
        '::1/129',
        '::1/0128',
        'fe80::1%eth0',
        'fe80::1%eth0/64',
        '[::1]',
        '[::1]/128',
        '::ffff:127.1',
        '::ffff:0177.0.0.1',
        '',
        ' ',
        '*',
        'any',
        'localhost',
        '127.0.0.1,10.0.0.1',
        '10.0.0.0/8 10.0.0.1',
        '0.0.0.0/0.0.0.0',
        '10.0.0.0/255.0.0.0',
      ];
      for (const entry of refused) {
        await assert.rejects(
          env.strict.keys.createApiKey({ userId: user.id, allowedIps: [entry] }),
          KeyAdminError,
          `allow-list entry ${JSON.stringify(entry)} was accepted`,
        );
        // One bad entry among good ones spoils the whole key.
        await assert.rejects(
          env.strict.keys.createApiKey({ userId: user.id, allowedIps: ['10.0.0.0/8', entry] }),
          KeyAdminError,
        );
      }
      assert.deepEqual(await env.strict.keys.listApiKeys(user.id), [], 'a refused key must not be stored');
      const normalised: [entry: string, stored: string][] = [
        ['::ffff:7f00:1', '127.0.0.1'],
        ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
        ['10.1.2.3/8', '10.0.0.0/8'],
        ['2001:DB8:0:0::/32', '2001:db8::/32'],
        ['0:0:0:0:0:0:0:1', '::1'],
      ];
      for (const [entry, stored] of normalised) {
        const { key } = await env.strict.keys.createApiKey({ userId: user.id, allowedIps: [entry] });
        assert.deepEqual(key.allowed_ips, [stored], entry);
      }
    });

    test('the allow-list is matched on the canonical client address; odd forms in forwarding headers never match', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      const options = { store: opened!.store, trustProxy: ['10.0.0.0/8'] };
      const api = createMonitoringApi(options);
      try {
        const user = await api.keys.createUser();
        const key = await api.keys.createApiKey({ userId: user.id, allowedIps: ['127.0.0.1', '2001:db8:1::/48'] });
        const me = async (clientAddress: string | null, headers: Record<string, string> = {}) =>
          checkAnswer(
            await callRaw(api, {
              url: '/v1/me',
              clientAddress,
              headers: { authorization: `Bearer ${key.token}`, ...headers },
            }),
          ).status;
        // The peer itself, as sockets report it.
        assert.equal(await me('127.0.0.1'), 200);
        assert.equal(await me('::ffff:127.0.0.1'), 200);
        assert.equal(await me('2001:db8:1:ffff::1'), 200);
        for (const peer of [
          '127.0.0.2',
          '::1',
          '::ffff:127.0.0.2',
          '2001:db8:2::1',
          '0177.0.0.1',
          '127.1',
          '2130706433',
          'garbage',
          null,
        ]) {
          assert.equal(await me(peer), 403, `peer ${String(peer)}`);
        }
        // Through a trusted proxy: only a strict spelling of an allowed address is believed.
        const proxy = '10.0.0.5';
        for (const hop of ['127.0.0.1', '::ffff:7f00:1', '::ffff:127.0.0.1', '2001:db8:1::7']) {
          assert.equal(await me(proxy, { 'x-forwarded-for': hop }), 200, `X-Forwarded-For ${hop}`);
        }
        assert.equal(await me(proxy, { forwarded: 'for="[::ffff:127.0.0.1]"' }), 200);
        for (const hop of [
          '0177.0.0.1',
          '127.1',
          '2130706433',
          '0x7f.0.0.1',
          '127.0.0.1.',
          '[127.0.0.1]',
          'fe80::1%eth0',
          '１２７.０.０.１',
          '127.0.0.1 , garbage',
        ]) {
          assert.equal(await me(proxy, { 'x-forwarded-for': hop }), 403, `X-Forwarded-For ${JSON.stringify(hop)}`);
        }
        for (const forwarded of ['for=127.1', 'for=0177.0.0.1', 'for="127.0.0.1', 'for=2130706433;proto=https']) {
          assert.equal(await me(proxy, { forwarded }), 403, `Forwarded ${forwarded}`);
        }
        // From a peer that is not a trusted proxy, the headers are the client's own words.
        assert.equal(await me('203.0.113.5', { 'x-forwarded-for': '127.0.0.1', forwarded: 'for=127.0.0.1' }), 403);
      } finally {
        await api.close();
      }
    });
  });
}
