/**
 * fast-check generators of hostile input for the hardening suites: JSON texts built token by token
 * (so that numbers like `1e400`, escapes like `\u005f_proto__`, duplicate keys and lone surrogates
 * reach the server exactly as written), and host spellings of the kinds that broke IP parsers
 * (inet_aton forms, IPv4-mapped/compatible IPv6, zone ids, brackets, full-width digits).
 */
import fc from 'fast-check';
import { DEVICE_BODY_FIELDS } from '../support/record-fields.ts';
import { IANA_V4, IANA_V6 } from './support.ts';

// ---------------------------------------------------------------------------------------------
// Run parameters
// ---------------------------------------------------------------------------------------------

export interface FuzzParameters {
  seed: number;
  runs: number;
}

/**
 * FUZZ_SEED: a number, or `random` for a new one (printed so that a failure can be replayed);
 * unset, a fixed seed so that CI is reproducible. FUZZ_RUNS: runs per property (default modest).
 */
export function fuzzParameters(defaultRuns: number): FuzzParameters {
  const given = process.env.FUZZ_SEED;
  const seed =
    given === undefined || given === ''
      ? 20_261_122
      : given === 'random'
        ? (Math.random() * 2 ** 31) | 0
        : Number(given);
  if (!Number.isSafeInteger(seed))
    throw new Error(`FUZZ_SEED must be an integer or "random", not ${JSON.stringify(given)}`);
  const runsText = process.env.FUZZ_RUNS;
  const runs = runsText === undefined || runsText === '' ? defaultRuns : Number(runsText);
  if (!Number.isSafeInteger(runs) || runs < 1)
    throw new Error(`FUZZ_RUNS must be a positive integer, not ${JSON.stringify(runsText)}`);
  return { seed, runs };
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

/**
 * Any UTF-16 text, lone surrogates included, weighted towards ASCII. Built by hand because
 * fast-check's own `unit: 'binary'` takes seconds to set up, on every use.
 */
const codeUnit = fc
  .oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 0x7f }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) },
  )
  .map((code) => String.fromCodePoint(code));

export function binaryString(maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: codeUnit, maxLength });
}

// ---------------------------------------------------------------------------------------------
// Addresses and names
// ---------------------------------------------------------------------------------------------

function v4FromInt(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 0xff).join('.');
}

function parseV4(text: string): number {
  return text.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function v6Groups(text: string): number[] {
  // Only for the registry's own spellings (no embedded dotted quads).
  const [head = '', tail] = text.split('::');
  const h = head === '' ? [] : head.split(':').map((g) => parseInt(g, 16));
  const t = tail === undefined || tail === '' ? [] : tail.split(':').map((g) => parseInt(g, 16));
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

function groupsToBig(groups: number[]): bigint {
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

function bigToGroups(n: bigint): number[] {
  return Array.from({ length: 8 }, (_, i) => Number((n >> BigInt((7 - i) * 16)) & 0xffffn));
}

/** A uniformly drawn address inside an IPv4 block. */
export function v4In(cidr: string): fc.Arbitrary<string> {
  const [network = '', bitsText = '32'] = cidr.split('/');
  const bits = Number(bitsText);
  const size = 2 ** (32 - bits);
  const base = parseV4(network);
  return fc.integer({ min: 0, max: size - 1 }).map((offset) => v4FromInt(base + offset));
}

/** A uniformly drawn address inside an IPv6 block, as its eight groups. */
export function v6In(cidr: string): fc.Arbitrary<number[]> {
  const [network = '', bitsText = '128'] = cidr.split('/');
  const bits = BigInt(bitsText);
  const base = groupsToBig(v6Groups(network));
  const hostBits = 128n - bits;
  if (hostBits === 0n) return fc.constant(bigToGroups(base));
  return fc.bigInt({ min: 0n, max: (1n << hostBits) - 1n }).map((offset) => bigToGroups(base | offset));
}

/** The first and last address of a block, as text. */
export function v4Bounds(cidr: string): [string, string] {
  const [network = '', bitsText = '32'] = cidr.split('/');
  const base = parseV4(network);
  return [v4FromInt(base), v4FromInt(base + 2 ** (32 - Number(bitsText)) - 1)];
}

export function v6Bounds(cidr: string): [number[], number[]] {
  const [network = '', bitsText = '128'] = cidr.split('/');
  const base = groupsToBig(v6Groups(network));
  const hostBits = 128n - BigInt(bitsText);
  return [bigToGroups(base), bigToGroups(base | ((1n << hostBits) - 1n))];
}

/** Eight groups written out in full (`0000:...`), the longest legal spelling. */
export function v6Full(groups: number[]): string {
  return groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
}

/** Eight groups in the shortest form (as the WHATWG URL parser writes IPv6: RFC 5952). */
export function v6Short(groups: number[]): string {
  return new URL(`http://[${v6Full(groups)}]/`).hostname.slice(1, -1);
}

/** Every spelling some parser reads as the given IPv4 address (inet_aton forms, v6 wrappers...). */
export function v4Spellings(address: string): string[] {
  const octets = address.split('.').map(Number) as [number, number, number, number];
  const [a, b, c, d] = octets;
  const n = parseV4(address);
  const hex = (x: number) => `0x${x.toString(16)}`;
  const oct = (x: number) => `0${x.toString(8)}`;
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  return [
    String(n),
    hex(n),
    `0${n.toString(8)}`,
    octets.map(hex).join('.'),
    octets.map(oct).join('.'),
    octets.map((x) => String(x).padStart(3, '0')).join('.'),
    `${a}.${(b << 16) | (c << 8) | d}`,
    `${a}.${b}.${(c << 8) | d}`,
    `${hex(a)}.${b}.${c}.${d}`,
    `${oct(a)}.${b}.${c}.${d}`,
    `${address}.`,
    `[${address}]`,
    `${address}%eth0`,
    ` ${address}`,
    `${address}\t`,
    address.replace(/[0-9]/g, (digit) => String.fromCharCode(0xff10 + Number(digit))),
    address.replaceAll('.', '\u3002'),
    `::ffff:${address}`,
    `::FFFF:${address}`,
    `::ffff:${hi}:${lo}`,
    `0:0:0:0:0:ffff:${address}`,
    `0000:0000:0000:0000:0000:ffff:${hi}:${lo}`,
    `[::ffff:${address}]`,
    `::ffff:${address}%0`,
    `::${address}`,
    `::${hi}:${lo}`,
    `64:ff9b::${address}`,
    `64:ff9b::${hi}:${lo}`,
    `2002:${hi}:${lo}::1`,
    `::ffff:0:${address}`,
    `::ffff:${hex(a)}.${b}.${c}.${d}`,
  ];
}

/** Spellings of an IPv6 address: full, short, upper-case, bracketed, with a zone, with a trailing dotted quad. */
export function v6Spellings(groups: number[]): string[] {
  const full = v6Full(groups);
  const short = v6Short(groups);
  const tail = `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  return [
    full,
    short,
    short.toUpperCase(),
    `[${short}]`,
    `${short}%eth0`,
    `${short}%25eth0`,
    `${short}%1`,
    `${groups
      .slice(0, 6)
      .map((g) => g.toString(16))
      .join(':')}:${tail}`,
    ` ${short}`,
    `${short}.`,
  ];
}

/** An address in one of the special-purpose blocks, v4 or v6, drawn at random. */
export const specialAddress: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...IANA_V4.map(([cidr]) => cidr)).chain(v4In),
  fc
    .constantFrom(...IANA_V6.map(([cidr]) => cidr))
    .chain(v6In)
    .map(v6Short),
);

/** A special-purpose address in any spelling. */
export const specialSpelling: fc.Arbitrary<string> = fc.oneof(
  fc
    .constantFrom(...IANA_V4.map(([cidr]) => cidr))
    .chain(v4In)
    .chain((a) => fc.constantFrom(a, ...v4Spellings(a))),
  fc
    .constantFrom(...IANA_V6.map(([cidr]) => cidr))
    .chain(v6In)
    .chain((g) => fc.constantFrom(...v6Spellings(g))),
);

const label = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/),
  fc.constantFrom(
    'xn--pple-43d',
    'xn--',
    'xn--zz',
    '0x7f',
    '0x',
    '127',
    '0',
    'localhost',
    'local',
    'internal',
    'test',
    'example',
    'arpa',
    'home',
    '-a',
    'a-',
    '_a',
    'A',
    'ＡＢＣ',
    'аpple',
    'münchen',
    'ß',
    'ǆ',
    '\u200b',
    'a'.repeat(63),
    'a'.repeat(64),
  ),
);

/** Names: plausible, special-use, over-long, homographs, numeric last labels, odd separators. */
export const nameSpelling: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.array(label, { minLength: 1, maxLength: 5 }),
      fc.constantFrom('.', '.', '.', '\u3002', '\uff0e', '\uff61'),
      fc.constantFrom('', '', '.', '..'),
    )
    .map(([labels, separator, end]) => labels.join(separator) + end),
  fc.domain(),
  fc.integer({ min: 240, max: 270 }).map((length) => `${'a.'.repeat(Math.floor(length / 2))}com`.slice(-length)),
);

/** Anything that may be given as a host: addresses in every spelling, names, junk. */
export const hostSpelling: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: specialSpelling },
  { weight: 1, arbitrary: fc.ipV4Extended() },
  { weight: 1, arbitrary: fc.ipV6() },
  { weight: 1, arbitrary: fc.ipV4() },
  { weight: 3, arbitrary: nameSpelling },
  { weight: 1, arbitrary: binaryString(20) },
);

// ---------------------------------------------------------------------------------------------
// JSON texts, token by token
// ---------------------------------------------------------------------------------------------

/** A JSON value as text will be written; objects are entry lists, so keys may repeat. */
export type JsonTree =
  | { kind: 'raw'; text: string }
  | { kind: 'string'; value: string; escaped: boolean }
  | { kind: 'array'; items: JsonTree[] }
  | { kind: 'object'; entries: [key: JsonTree & { kind: 'string' }, value: JsonTree][] };

/** Writes a string; `escaped` writes every character as `\uXXXX` (so `__proto__` becomes `\u005f\u005f...`). */
function writeString(value: string, escaped: boolean): string {
  if (!escaped) return JSON.stringify(value);
  let out = '"';
  for (let i = 0; i < value.length; i++) out += `\\u${value.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return `${out}"`;
}

export function writeJson(tree: JsonTree): string {
  switch (tree.kind) {
    case 'raw':
      return tree.text;
    case 'string':
      return writeString(tree.value, tree.escaped);
    case 'array':
      return `[${tree.items.map(writeJson).join(',')}]`;
    case 'object':
      return `{${tree.entries.map(([k, v]) => `${writeJson(k)}:${writeJson(v)}`).join(',')}}`;
  }
}

/** Number tokens as a client may write them, including ones JSON.parse reads as Infinity or 0. */
const NUMBER_TOKENS = [
  '0',
  '1',
  '-0',
  '0.0',
  '1.0',
  '443',
  '443.0',
  '443.0001',
  '443.5',
  '4.43e2',
  '4.43E+2',
  '44300e-2',
  '1e400',
  '-1e400',
  '1e-400',
  '65535',
  '65536',
  '65535.0',
  '9007199254740993',
  '1e21',
  '100',
  '599',
  '600',
  '99.9999999999999999',
  '22',
  '-22',
  '0.5',
  '1E0',
  '1e0',
  '2',
];

const numberToken = fc.oneof(
  fc.constantFrom(...NUMBER_TOKENS),
  fc.integer({ min: -100_000, max: 100_000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
);

/** Strings that mean something to the API or to a parser, plus arbitrary UTF-16 (lone surrogates included). */
const INTERESTING_STRINGS = [
  '',
  ' ',
  'domain',
  'ip',
  'web',
  'ssh',
  'tcp',
  'http',
  'https',
  'HTTPS',
  'example.com',
  '8.8.8.8',
  '127.0.0.1',
  '::1',
  'true',
  'false',
  '1',
  '0',
  'null',
  '__proto__',
  'constructor',
  'prototype',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u0085',
  '\ud800',
  '\udfff',
  '\ud83d\ude00',
  '\ufeff',
  '\u202e',
  'a'.repeat(253),
  'a'.repeat(254),
  'x'.repeat(300),
  "'; drop table devices; --",
  '" or 1=1 --',
  '${jndi:ldap://x}',
  '<script>',
  '%00',
  '\\',
  '../../etc/passwd',
];

const anyString = fc.oneof(
  fc.constantFrom(...INTERESTING_STRINGS),
  binaryString(30),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);

const stringTree = (value: fc.Arbitrary<string>) =>
  fc.record({ kind: fc.constant('string' as const), value, escaped: fc.boolean() });

const leaf: fc.Arbitrary<JsonTree> = fc.oneof(
  numberToken.map((text) => ({ kind: 'raw' as const, text })),
  fc.constantFrom('true', 'false', 'null').map((text) => ({ kind: 'raw' as const, text })),
  stringTree(anyString),
);

export const jsonTree: fc.Arbitrary<JsonTree> = fc.letrec<{ tree: JsonTree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('tree'), { maxLength: 4 }).map((items) => ({ kind: 'array' as const, items })),
    fc
      .array(fc.tuple(stringTree(anyString), tie('tree')), { maxLength: 4 })
      .map((entries) => ({ kind: 'object' as const, entries })),
  ),
})).tree;

/** Names that pass the target policy, for bodies meant to be stored. */
const publicName = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/), fc.constantFrom('com', 'net', 'org', 'io', 'de'))
  .map(([name, tld]) => `${name}.${tld}`);
const publicIp = fc.constantFrom(
  '8.8.8.8',
  '1.1.1.1',
  '9.9.9.9',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.4.4',
);

/**
 * A value for a field: mostly valid (so that bodies get past validation and are stored, with
 * their strings, flags and numbers in every legal spelling), sometimes a hostile one.
 */
function plausible(field: (typeof DEVICE_BODY_FIELDS)[number]): fc.Arbitrary<JsonTree> {
  const str = (valid: fc.Arbitrary<string>, hostile: fc.Arbitrary<string>) =>
    stringTree(fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile }));
  const raw = (a: fc.Arbitrary<string>) => a.map((text) => ({ kind: 'raw' as const, text }));
  const number = (min: number, max: number) =>
    raw(
      fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min, max }).map(String) },
        { weight: 1, arbitrary: fc.integer({ min, max }).map((n) => `${n}.0`) },
        { weight: 1, arbitrary: fc.integer({ min, max }).map((n) => `${n / 100}e2`) },
        { weight: 2, arbitrary: numberToken },
      ),
    );
  switch (field) {
    case 'target_type':
      return str(fc.constantFrom('domain', 'ip'), fc.constantFrom('Domain', 'IP', '', 'url'));
    case 'target_value':
    case 'origin_host':
      return str(fc.oneof(publicName, publicIp), hostSpelling);
    case 'host_header':
      return str(
        fc.oneof(
          publicName,
          publicName.map((h) => `${h}:8080`),
        ),
        hostSpelling,
      );
    case 'service_type':
      return str(
        fc.constantFrom('web', 'web', 'web', 'ssh', 'smtp', 'tcp', 'dns', 'rdp'),
        fc.constantFrom('gopher', 'WEB', ''),
      );
    case 'scheme':
    case 'origin_scheme':
      return str(fc.constantFrom('http', 'https'), fc.constantFrom('ftp', 'HTTP', ''));
    case 'port':
    case 'origin_port':
      return number(1, 65535);
    case 'expect_status':
      return number(100, 599);
    case 'location':
      return str(fc.string({ unit: 'grapheme', maxLength: 40 }), anyString);
    default:
      return raw(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('true', 'false', '0', '1', '1.0', '0.0', '-0', '1e0', 'null') },
          { weight: 1, arbitrary: fc.constantFrom('2', '"true"', '[]', '{}') },
        ),
      );
  }
}

/**
 * A create body: mostly the schema's fields with plausible or junk values, sometimes strangers
 * (`__proto__`, `constructor`, typos, escaped spellings), sometimes a key twice.
 */
export const createBodyTree: fc.Arbitrary<JsonTree & { kind: 'object' }> = fc
  .tuple(
    fc
      .subarray([...DEVICE_BODY_FIELDS], { minLength: 0, maxLength: 5 })
      .chain((fields) =>
        fc.tuple(
          ...fields.map((field) =>
            fc.tuple(
              stringTree(fc.constant(field)),
              fc.oneof({ weight: 12, arbitrary: plausible(field) }, { weight: 1, arbitrary: jsonTree }),
            ),
          ),
        ),
      ),
    fc.array(
      fc.tuple(
        stringTree(
          fc.oneof(
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'expected_status', 'toString', 'id', ''),
            anyString,
          ),
        ),
        jsonTree,
      ),
      { maxLength: 2 },
    ),
    fc.option(
      fc.oneof(
        publicName.map((value) => ['domain', value] as const),
        publicIp.map((value) => ['ip', value] as const),
      ),
      { nil: undefined },
    ),
  )
  .map(([known, extra, target]) => {
    const entries: [JsonTree & { kind: 'string' }, JsonTree][] = [...known, ...extra];
    // Most of the time a valid target comes first, so that the stored path is exercised; a later
    // duplicate key from the fields above then overrides it, as JSON.parse keeps the last one.
    if (target !== undefined) {
      const [type, value] = target;
      entries.unshift(
        [
          { kind: 'string', value: 'target_type', escaped: false },
          { kind: 'string', value: type, escaped: false },
        ],
        [
          { kind: 'string', value: 'target_value', escaped: false },
          { kind: 'string', value, escaped: false },
        ],
      );
    }
    return { kind: 'object' as const, entries };
  });

/** A JSON text, or one broken on purpose: cut short, with trailing garbage, nested deep, not an object. */
export const bodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 20, arbitrary: createBodyTree.map(writeJson) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(createBodyTree.map(writeJson), fc.nat())
      .map(([text, at]) => text.slice(0, at % (text.length + 1))),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        createBodyTree.map(writeJson),
        fc.constantFrom('x', '}', ',', '{}', ' null', '\u0000', '//', '/* */', '\n]'),
      )
      .map(([t, g]) => t + g),
  },
  { weight: 1, arbitrary: jsonTree.map(writeJson) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 9_000 }), fc.constantFrom('[', '{"a":'))
      .map(([depth, open]) => open.repeat(depth)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '{}',
      '""',
      '0',
      'true',
      '\ufeff{}',
      '{"a":1}{"b":2}',
      '{,}',
      "{'a':1}",
    ),
  },
);

/** Bytes: the text above, or arbitrary bytes (invalid UTF-8, NULs, overlong forms). */
export const bodyBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 14, arbitrary: bodyText.map((t) => new TextEncoder().encode(t)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(bodyText, fc.uint8Array({ minLength: 1, maxLength: 4 }), fc.nat()).map(([t, junk, at]) => {
      const bytes = new TextEncoder().encode(t);
      const cut = at % (bytes.length + 1);
      const out = new Uint8Array(bytes.length + junk.length);
      out.set(bytes.subarray(0, cut));
      out.set(junk, cut);
      out.set(bytes.subarray(cut), cut + junk.length);
      return out;
    }),
  },
);
