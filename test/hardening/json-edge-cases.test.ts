/**
 * Issue 6, item 1: the JSON edge cases the fuzzer may or may not hit, each pinned to its exact
 * answer, on every store: deep nesting, lone surrogates, escaped `\u005f_proto__`,
 * `constructor.prototype`, numbers such as `1e400` and `443.0001`, trailing garbage, an empty body,
 * `null`, duplicate keys, bytes that are not UTF-8.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMonitoringApi, type CreatedApiKey, type MonitoringApi } from '../../core/index.ts';
import { callRaw, checkAnswer, STORE_FACTORIES, type CheckedAnswer, type HardeningStore } from './support.ts';

const DEVICE = '/v1/devices/create';
const MONITOR = '/v1/blacklist-monitors/create';
const TARGET = '"target_type":"domain","target_value":"example.com"';

type Detail = readonly [field: string, code: string];
interface Expect {
  status: number;
  code?: string;
  /** validation_failed: exactly these (field, code) pairs, in any order. */
  details?: readonly Detail[];
  /** 201: checks on the stored record. */
  stored?: (data: Record<string, unknown>) => void;
}

const bytes = (...parts: (string | number[])[]) => {
  const chunks = parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
};

const nest = (depth: number, open: string, close: string, inner = '') =>
  open.repeat(depth) + inner + close.repeat(depth);

/** Unique target names, so that no case runs into another's 409. */
let n = 0;
const fresh = () => `"target_type":"domain","target_value":"e${n++}.example.org"`;

function cases(): [name: string, path: string, body: string | Uint8Array | null, expect: Expect, bodyLimit?: number][] {
  return [
    // Deep nesting: JSON.parse is not recursive, and nothing after it walks into a value.
    [
      '5 000 nested arrays as a field value',
      DEVICE,
      `{${fresh()},"location":${nest(5000, '[', ']')}}`,
      { status: 400, details: [['location', 'invalid_type']] },
    ],
    [
      '2 500 nested objects as an unknown field',
      DEVICE,
      `{${fresh()},"x":${nest(2500, '{"a":', '}', '1')}}`,
      { status: 400, details: [['x', 'unknown_field']] },
    ],
    ['8 000 nested arrays as the whole body', DEVICE, nest(8000, '[', ']'), { status: 400, code: 'invalid_json' }],
    ['3 000 unclosed objects', DEVICE, '{"a":'.repeat(3000), { status: 400, code: 'invalid_json' }],
    [
      'a million nested arrays under a 4 MiB limit',
      DEVICE,
      `{${fresh()},"location":${nest(1_000_000, '[', ']')}}`,
      { status: 400, details: [['location', 'invalid_type']] },
      4 * 1024 * 1024,
    ],
    [
      'a million nested arrays as the body under a 4 MiB limit',
      MONITOR,
      nest(1_000_000, '[', ']'),
      { status: 400, code: 'invalid_json' },
      4 * 1024 * 1024,
    ],

    // Lone surrogates: escaped they parse, and are then refused; raw they are not UTF-8.
    [
      'an escaped lone high surrogate in location',
      DEVICE,
      `{${fresh()},"location":"a\\ud800b"}`,
      { status: 400, details: [['location', 'invalid_value']] },
    ],
    [
      'an escaped lone low surrogate in target_value',
      MONITOR,
      '{"target_type":"domain","target_value":"\\udc00.example.com"}',
      { status: 400, details: [['target_value', 'invalid_value']] },
    ],
    [
      'a lone surrogate as a key',
      DEVICE,
      `{${fresh()},"\\udc00":1}`,
      { status: 400, details: [['\udc00', 'unknown_field']] },
    ],
    [
      'a lone surrogate encoded as UTF-8 bytes (CESU)',
      DEVICE,
      bytes(`{${fresh()},"location":"`, [0xed, 0xa0, 0x80], '"}'),
      { status: 400, code: 'invalid_json' },
    ],
    [
      'an escaped surrogate pair is one character',
      DEVICE,
      `{${fresh()},"location":"\\ud83d\\ude00"}`,
      { status: 201, stored: (d) => assert.equal(d.location, '\u{1f600}') },
    ],

    // Prototype names, however spelled, are strangers and change nothing.
    [
      'escaped __proto__',
      DEVICE,
      `{${fresh()},"\\u005f_proto__":{"service_type":"ssh","polluted":1}}`,
      { status: 400, details: [['__proto__', 'unknown_field']] },
    ],
    [
      'fully escaped __proto__',
      MONITOR,
      `{${fresh()},"\\u005f\\u005f\\u0070\\u0072\\u006f\\u0074\\u006f\\u005f\\u005f":{"is_enabled":false}}`,
      { status: 400, details: [['__proto__', 'unknown_field']] },
    ],
    [
      '__proto__ carrying the required fields',
      DEVICE,
      '{"__proto__":{"target_type":"domain","target_value":"example.com"}}',
      {
        status: 400,
        details: [
          ['__proto__', 'unknown_field'],
          ['target_type', 'missing'],
          ['target_value', 'missing'],
        ],
      },
    ],
    [
      'constructor.prototype',
      DEVICE,
      `{${fresh()},"constructor":{"prototype":{"polluted":1}}}`,
      { status: 400, details: [['constructor', 'unknown_field']] },
    ],
    [
      'a key named constructor.prototype',
      DEVICE,
      `{${fresh()},"constructor.prototype":{"polluted":1}}`,
      { status: 400, details: [['constructor.prototype', 'unknown_field']] },
    ],
    [
      '__proto__: null',
      MONITOR,
      `{${fresh()},"__proto__":null}`,
      { status: 400, details: [['__proto__', 'unknown_field']] },
    ],
    [
      'an escaped spelling of a real field is that field',
      DEVICE,
      '{"target\\u005ftype":"domain","target_value":"escaped.example.org"}',
      { status: 201, stored: (d) => assert.equal(d.target_type, 'domain') },
    ],

    // Numbers: JSON has one number type; only integral values in range are integers.
    [
      'port 1e400 (Infinity once parsed)',
      DEVICE,
      `{${fresh()},"port":1e400}`,
      { status: 400, details: [['port', 'invalid_type']] },
    ],
    ['port -1e400', DEVICE, `{${fresh()},"port":-1e400}`, { status: 400, details: [['port', 'invalid_type']] }],
    ['port 443.0001', DEVICE, `{${fresh()},"port":443.0001}`, { status: 400, details: [['port', 'invalid_type']] }],
    // docs/contract.md §4: integers must be JSON integers, so a fraction or exponent is refused even when whole.
    [
      'port 443.0 (whole, but not an integer literal)',
      DEVICE,
      `{${fresh()},"port":443.0}`,
      { status: 400, details: [['port', 'invalid_type']] },
    ],
    [
      'port 4.43e2 (whole, but not an integer literal)',
      DEVICE,
      `{${fresh()},"port":4.43e2}`,
      { status: 400, details: [['port', 'invalid_type']] },
    ],
    [
      'port 1e-400 (0 once parsed)',
      DEVICE,
      `{${fresh()},"port":1e-400}`,
      { status: 400, details: [['port', 'invalid_type']] },
    ],
    ['port -0', DEVICE, `{${fresh()},"port":-0}`, { status: 400, details: [['port', 'out_of_range']] }],
    [
      'port 2^53+1',
      DEVICE,
      `{${fresh()},"port":9007199254740993}`,
      { status: 400, details: [['port', 'out_of_range']] },
    ],
    ['port "443"', DEVICE, `{${fresh()},"port":"443"}`, { status: 400, details: [['port', 'invalid_type']] }],
    [
      'expect_status 2e2 (whole, but not an integer literal)',
      DEVICE,
      `{${fresh()},"expect_status":2e2}`,
      { status: 400, details: [['expect_status', 'invalid_type']] },
    ],
    [
      'is_enabled 1e400',
      MONITOR,
      `{${fresh()},"is_enabled":1e400}`,
      { status: 400, details: [['is_enabled', 'invalid_type']] },
    ],
    // int/bool fields accept exactly true, false, 0 and 1: 1.0 is not 1 as written.
    [
      'is_enabled 1.0',
      MONITOR,
      `{${fresh()},"is_enabled":1.0}`,
      { status: 400, details: [['is_enabled', 'invalid_type']] },
    ],
    [
      'is_enabled 0.5',
      MONITOR,
      `{${fresh()},"is_enabled":0.5}`,
      { status: 400, details: [['is_enabled', 'invalid_type']] },
    ],
    [
      'is_enabled 2',
      MONITOR,
      `{${fresh()},"is_enabled":2}`,
      { status: 400, details: [['is_enabled', 'invalid_value']] },
    ],
    [
      'a number literal JSON does not have (NaN)',
      DEVICE,
      `{${fresh()},"port":NaN}`,
      { status: 400, code: 'invalid_json' },
    ],
    ['a hexadecimal number literal', DEVICE, `{${fresh()},"port":0x1bb}`, { status: 400, code: 'invalid_json' }],

    // Around the object.
    ['trailing garbage', DEVICE, `{${TARGET}}x`, { status: 400, code: 'invalid_json' }],
    ['a second object', DEVICE, `{${TARGET}}{}`, { status: 400, code: 'invalid_json' }],
    ['a trailing comma', DEVICE, `{${TARGET},}`, { status: 400, code: 'invalid_json' }],
    ['a trailing NUL byte', DEVICE, bytes(`{${TARGET}}`, [0]), { status: 400, code: 'invalid_json' }],
    ['a comment', DEVICE, `{${TARGET}} // c`, { status: 400, code: 'invalid_json' }],
    ['single quotes', DEVICE, "{'target_type':'domain'}", { status: 400, code: 'invalid_json' }],
    ['an empty body', DEVICE, '', { status: 400, code: 'invalid_json' }],
    ['no body at all', MONITOR, null, { status: 400, code: 'invalid_json' }],
    ['white space only', DEVICE, ' \n\t ', { status: 400, code: 'invalid_json' }],
    ['null', DEVICE, 'null', { status: 400, code: 'invalid_json' }],
    ['an array', MONITOR, `[{${TARGET}}]`, { status: 400, code: 'invalid_json' }],
    ['a string', DEVICE, '"{}"', { status: 400, code: 'invalid_json' }],
    ['a number', DEVICE, '1', { status: 400, code: 'invalid_json' }],
    ['true', DEVICE, 'true', { status: 400, code: 'invalid_json' }],
    ['white space around the object is fine', DEVICE, `\r\n {${fresh()}} \n`, { status: 201 }],

    // Encodings.
    [
      'UTF-16LE',
      DEVICE,
      bytes(
        [0xff, 0xfe],
        Array.from(new TextEncoder().encode(`{${TARGET}}`)).flatMap((b) => [b, 0]),
      ),
      { status: 400, code: 'invalid_json' },
    ],
    [
      'an overlong encoding of "/"',
      DEVICE,
      bytes(`{${fresh()},"location":"a`, [0xc0, 0xaf], '"}'),
      { status: 400, code: 'invalid_json' },
    ],
    [
      'a truncated multi-byte character',
      DEVICE,
      bytes(`{${fresh()},"location":"`, [0xe2, 0x82], '"}'),
      { status: 400, code: 'invalid_json' },
    ],
    [
      'an escaped NUL in a string',
      DEVICE,
      `{${fresh()},"location":"a\\u0000b"}`,
      { status: 400, details: [['location', 'invalid_value']] },
    ],
    [
      'an escaped C1 control in a string',
      DEVICE,
      `{${fresh()},"location":"a\\u0085b"}`,
      { status: 400, details: [['location', 'invalid_value']] },
    ],
    [
      'a raw tab inside a string (JSON forbids it)',
      DEVICE,
      `{${fresh()},"location":"a\tb"}`,
      { status: 400, code: 'invalid_json' },
    ],

    // Duplicate keys: JSON.parse keeps the last, and the last is what is judged and stored.
    [
      'a private target_value hidden behind a public one',
      DEVICE,
      '{"target_type":"ip","target_value":"8.8.8.8","target_value":"10.0.0.1"}',
      { status: 400, details: [['target_value', 'forbidden_target']] },
    ],
    [
      'a public target_value after a private one',
      DEVICE,
      '{"target_type":"ip","target_value":"10.0.0.1","target_value":"9.9.9.9"}',
      { status: 201, stored: (d) => assert.equal(d.target_value, '9.9.9.9') },
    ],

    // Size and shape.
    [
      '1 500 unknown fields are each reported once',
      DEVICE,
      `{${fresh()},${Array.from({ length: 1500 }, (_, i) => `"f${i}":0`).join(',')}}`,
      { status: 400, details: Array.from({ length: 1500 }, (_, i) => [`f${i}`, 'unknown_field'] as const) },
    ],
    [
      'a 16 000-character key',
      DEVICE,
      `{${fresh()},"${'k'.repeat(16_000)}":0}`,
      { status: 400, details: [['k'.repeat(16_000), 'unknown_field']] },
    ],
    [
      'one byte over the limit',
      DEVICE,
      `{${fresh()},"location":"${'a'.repeat(16 * 1024)}"}`,
      { status: 413, code: 'payload_too_large' },
    ],
  ];
}

function judge(answer: CheckedAnswer, expect: Expect): void {
  assert.equal(answer.status, expect.status, JSON.stringify(answer.body).slice(0, 300));
  if (expect.code !== undefined) assert.equal(answer.code, expect.code);
  if (expect.details !== undefined) {
    assert.equal(answer.code, 'validation_failed');
    const got = (answer.body.error?.details ?? []).map((d) => `${d.field}:${d.code}`).sort();
    assert.deepEqual(got, expect.details.map(([f, c]) => `${f}:${c}`).sort());
  }
  if (expect.stored !== undefined) expect.stored(answer.body.data as Record<string, unknown>);
}

for (const factory of STORE_FACTORIES) {
  describe(`JSON edge cases (${factory.name})`, { concurrency: 1 }, () => {
    let opened: HardeningStore | undefined;
    let skip: string | undefined;
    const apis = new Map<number, MonitoringApi>();
    let key: CreatedApiKey;
    const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

    before(async () => {
      const result = await factory.open();
      if ('skip' in result) {
        skip = result.skip;
        return;
      }
      opened = result;
      const api = createMonitoringApi({ store: result.store, rateLimit: { limit: 1e6, windowSeconds: 60 } });
      apis.set(16 * 1024, api);
      key = await api.keys.createApiKey({ userId: (await api.keys.createUser()).id });
    });
    after(async () => {
      for (const api of apis.values()) await api.close();
      await opened?.close();
    });

    function apiWith(bodyLimit: number): MonitoringApi {
      let api = apis.get(bodyLimit);
      if (api === undefined) {
        api = createMonitoringApi({ store: opened!.store, bodyLimit, rateLimit: { limit: 1e6, windowSeconds: 60 } });
        apis.set(bodyLimit, api);
      }
      return api;
    }

    for (const [name, path, body, expect, bodyLimit] of cases()) {
      // The megabyte bodies never reach a store: once, on the memory store, is enough.
      if (bodyLimit !== undefined && factory.name !== 'memory') continue;
      test(`${name} → ${expect.status} ${expect.code ?? (expect.details ? 'validation_failed' : '')}`, async (t) => {
        if (skip !== undefined) return t.skip(skip);
        const res = await callRaw(apiWith(bodyLimit ?? 16 * 1024), {
          method: 'POST',
          url: path,
          body,
          headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
        });
        judge(checkAnswer(res, { echoes: (expect.details ?? []).map(([field]) => field) }), expect);
        assert.deepEqual(
          Object.getOwnPropertyNames(Object.prototype).sort(),
          prototypeNames,
          'Object.prototype was changed',
        );
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
        assert.equal(({} as Record<string, unknown>).service_type, undefined, 'Object.prototype was polluted');
      });
    }
  });
}
