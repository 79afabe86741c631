/** docs/contract.md §4: request bodies (media type, size, UTF-8 JSON object, field rules). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlacklistMonitor, Device } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import {
  assertError,
  assertSuccess,
  assertValidation,
  auth,
  deviceBody,
  eachStore,
  raw,
  VALIDATION_ONLY,
} from './helpers.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

const CREATE_PATHS = ['/v1/devices/create', '/v1/blacklist-monitors/create'] as const;
const FLAGS = [
  'proxy_enabled',
  'check_public_http',
  'check_public_https',
  'check_public_tls',
  'check_origin_http',
  'check_origin_tls',
  'is_enabled',
] as const;

/** A JSON text of exactly `size` bytes: a valid device padded with spaces. */
function paddedDevice(size: number): string {
  const json = JSON.stringify(deviceBody());
  assert.ok(size >= json.length);
  return json.slice(0, -1) + ' '.repeat(size - json.length) + '}';
}

function send(t: TestApi, key: CreatedApiKey, path: string, body: BodyInit, headers: Record<string, string> = {}) {
  return raw(t, path, { method: 'POST', body, headers: { ...auth(key), ...headers } });
}

function bytes(...parts: (string | number[])[]): Uint8Array<ArrayBuffer> {
  const chunks = parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(new ArrayBuffer(chunks.reduce((n, c) => n + c.length, 0)));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** A body stream with no Content-Length: `total` bytes (Infinity: never ends), counting what was pulled. */
function stream(total: number, chunk = 1024): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let produced = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (produced >= total) {
        controller.close();
        return;
      }
      const size = Math.min(chunk, total - produced);
      const piece = new Uint8Array(size).fill(0x20);
      if (produced === 0) piece[0] = 0x7b; // '{'
      produced += size;
      controller.enqueue(piece);
    },
  });
  return { body, pulled: () => produced };
}

// Validation, formats and routing: decided before any record is stored (see VALIDATION_ONLY).
eachStore(
  'request bodies',
  (env) => {
    test('Content-Type application/json is accepted, with parameters and in any case', async () => {
      const { t, key } = await env.setup();
      const types = [
        'application/json',
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'Application/JSON',
        'APPLICATION/JSON; CHARSET=UTF-8',
        'application/json; charset="utf-8"',
        'application/json; version=1',
        // utf8 is not IANA's name, but it is how many clients spell UTF-8; nothing else is meant by it.
        'application/json; charset=utf8',
        'application/json; charset="UTF8"',
      ];
      for (const [i, type] of types.entries()) {
        const body = JSON.stringify(deviceBody({ target_value: `host${i}.example.com` }));
        assertSuccess(await send(t, key, '/v1/devices/create', body, { 'content-type': type }), 201);
        assertSuccess(await send(t, key, '/v1/blacklist-monitors/create', body, { 'content-type': type }), 201);
      }
    });

    test('any other or no Content-Type is 400 invalid_content_type', async () => {
      const { t, key } = await env.setup();
      const body = JSON.stringify(deviceBody());
      const types = [
        'text/plain',
        'text/plain; charset=utf-8',
        'text/json',
        'application/jsonx',
        'application/json-patch+json',
        'application/ld+json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'json',
        '',
        'application/javascript',
        'application/xml',
        // A declared charset other than UTF-8: the body would be read as something the client did not send.
        'application/json; charset=iso-8859-1',
        'application/json; charset=utf-16',
        'application/json; charset="latin1"',
        'application/json; charset=',
        'application/json; charset=utf-8; charset=iso-8859-1',
      ];
      for (const path of CREATE_PATHS) {
        for (const type of types) {
          assertError(await send(t, key, path, body, { 'content-type': type }), 400, 'invalid_content_type');
        }
        // A byte body has no Content-Type unless one is given.
        assertError(await send(t, key, path, new TextEncoder().encode(body)), 400, 'invalid_content_type');
      }
      assertSuccess(await t.request('/v1/devices', { key }), 200);
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });

    test('a body of exactly 16 KiB is read; one byte more is 413 payload_too_large', async () => {
      const { t, key } = await env.setup();
      const json = { 'content-type': 'application/json' };
      assertSuccess(await send(t, key, '/v1/devices/create', paddedDevice(16 * 1024), json), 201);
      assertError(
        await send(t, key, '/v1/devices/create', paddedDevice(16 * 1024 + 1), json),
        413,
        'payload_too_large',
      );
      // Multi-byte characters count as bytes, not characters.
      const location = 'é'.repeat(200);
      const body = JSON.stringify(deviceBody({ target_value: 'x.example.com', location }));
      const padded = body.slice(0, -1) + ' '.repeat(16 * 1024 - new TextEncoder().encode(body).length + 1) + '}';
      assert.equal(padded.length, 16 * 1024 + 1 - 200);
      assertError(await send(t, key, '/v1/devices/create', padded, json), 413, 'payload_too_large');
    });

    test('413 is judged from Content-Length when present, before reading', async () => {
      const { t, key } = await env.setup();
      const res = await send(t, key, '/v1/devices/create', JSON.stringify(deviceBody()), {
        'content-type': 'application/json',
        'content-length': String(16 * 1024 + 1),
      });
      assertError(res, 413, 'payload_too_large');
      // Nothing was created from the small body that came with the large declaration.
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });

    test('413 while reading a body without Content-Length', async () => {
      const { t, key } = await env.setup();
      for (const path of CREATE_PATHS) {
        const { body } = stream(17_000);
        const res = await raw(t, path, {
          method: 'POST',
          body,
          duplex: 'half',
          headers: { ...auth(key), 'content-type': 'application/json' },
        });
        assertError(res, 413, 'payload_too_large');
      }
    });

    test('413 while reading even when Content-Length understates the body', async () => {
      const { t, key } = await env.setup();
      const { body } = stream(40_000);
      const res = await raw(t, '/v1/devices/create', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { ...auth(key), 'content-type': 'application/json', 'content-length': '100' },
      });
      assertError(res, 413, 'payload_too_large');
    });

    test('an endless body is refused without reading far past the limit', { timeout: HANG_GUARD_MS }, async () => {
      const { t, key } = await env.setup();
      const { body, pulled } = stream(Number.POSITIVE_INFINITY);
      const res = await raw(t, '/v1/devices/create', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { ...auth(key), 'content-type': 'application/json' },
      });
      assertError(res, 413, 'payload_too_large');
      assert.ok(pulled() <= 16 * 1024 + 8 * 1024, `pulled ${pulled()} bytes for a 16 KiB limit`);
    });

    test('a streamed body within the limit is read', async () => {
      const { t, key } = await env.setup();
      const text = paddedDevice(10_000);
      const encoded = new TextEncoder().encode(text);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < encoded.length; i += 333) controller.enqueue(encoded.slice(i, i + 333));
          controller.close();
        },
      });
      assertSuccess(
        await raw(t, '/v1/devices/create', {
          method: 'POST',
          body,
          duplex: 'half',
          headers: { ...auth(key), 'content-type': 'application/json' },
        }),
        201,
      );
    });

    test('the body limit is configurable', async () => {
      const { t, key } = await env.setup({ bodyLimit: 100 });
      const json = { 'content-type': 'application/json' };
      assertSuccess(await send(t, key, '/v1/devices/create', paddedDevice(100), json), 201);
      assertError(await send(t, key, '/v1/devices/create', paddedDevice(101), json), 413, 'payload_too_large');
      assertError(
        await send(t, key, '/v1/blacklist-monitors/create', paddedDevice(101), json),
        413,
        'payload_too_large',
      );
    });

    test('invalid UTF-8 is 400 invalid_json', async () => {
      const { t, key } = await env.setup();
      const json = { 'content-type': 'application/json' };
      const bodies = [
        bytes('{"target_type":"domain","target_value":"ex', [0xff], 'ample.com"}'),
        bytes('{"target_type":"domain","target_value":"example.com","location":"', [0xc0, 0xaf], '"}'),
        bytes('{"target_type":"domain","target_value":"example.com","location":"', [0xed, 0xa0, 0x80], '"}'),
        bytes('{"target_type":"domain","target_value":"example.com","location":"', [0xe2, 0x82], '"}'),
        bytes(
          '{"target_type":"domain","target_value":"example.com","location":"',
          [0xf8, 0x88, 0x80, 0x80, 0x80],
          '"}',
        ),
        bytes('{"target_type":"domain","target_value":"example.com","location":"', [0x80], '"}'),
        // UTF-16LE is not UTF-8.
        bytes([...new TextEncoder().encode('{}')].flatMap((b) => [b, 0])),
      ];
      for (const path of CREATE_PATHS) {
        for (const body of bodies) assertError(await send(t, key, path, body, json), 400, 'invalid_json');
      }
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });

    test('broken JSON, trailing garbage and an empty body are 400 invalid_json', async () => {
      const { t, key } = await env.setup();
      const json = { 'content-type': 'application/json' };
      const valid = JSON.stringify(deviceBody());
      const bodies = [
        '',
        ' ',
        '{',
        '{"target_type":"domain",}',
        "{'target_type':'domain'}",
        `${valid} x`,
        `${valid}{}`,
        `${valid}]`,
        `${valid},`,
        `{"target_type":"domain","target_value":"example.com"`,
        'undefined',
        'NaN',
        '{"port": NaN}',
        '{"port": 0x1BB}',
        '{"port": 01}',
        '{"port": +1}',
        '{"port": .5}',
        '/* */ {}',
        '{"a":1}\u0000',
      ];
      for (const path of CREATE_PATHS) {
        for (const body of bodies) {
          assertError(await send(t, key, path, body, json), 400, 'invalid_json');
        }
      }
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });

    test('JSON that is not an object is 400 invalid_json', async () => {
      const { t, key } = await env.setup();
      for (const path of CREATE_PATHS) {
        for (const body of [
          '[]',
          'null',
          '"x"',
          '1',
          'true',
          'false',
          '[{"target_type":"domain","target_value":"example.com"}]',
          '0',
          '""',
        ]) {
          assertError(await send(t, key, path, body, { 'content-type': 'application/json' }), 400, 'invalid_json');
        }
      }
    });

    test('white space around the JSON object is fine', async () => {
      const { t, key } = await env.setup();
      assertSuccess(
        await send(t, key, '/v1/devices/create', ` \n\t${JSON.stringify(deviceBody())}\r\n `, {
          'content-type': 'application/json',
        }),
        201,
      );
    });

    test('each detail code of docs/contract.md §3 is produced', async () => {
      const { t, key } = await env.setup();
      const post = (body: Record<string, unknown>) => t.request('/v1/devices/create', { method: 'POST', key, body });
      assertValidation(await post({ target_value: 'example.com' }), [['target_type', 'missing']]);
      assertValidation(await post({ target_type: 'domain' }), [['target_value', 'missing']]);
      assertValidation(await post(deviceBody({ port: '443' })), [['port', 'invalid_type']]);
      assertValidation(await post(deviceBody({ target_type: 'hostname' })), [['target_type', 'invalid_value']]);
      assertValidation(await post(deviceBody({ service_type: 'gopher' })), [['service_type', 'invalid_value']]);
      assertValidation(await post(deviceBody({ port: 0 })), [['port', 'out_of_range']]);
      assertValidation(await post(deviceBody({ location: 'x'.repeat(256) })), [['location', 'too_long']]);
      assertValidation(await post(deviceBody({ expected_status: 200 })), [['expected_status', 'unknown_field']]);
      assertValidation(await post(deviceBody({ target_value: 'localhost.localhost' })), [
        ['target_value', 'forbidden_target'],
      ]);
      assertValidation(await post(deviceBody({ service_type: 'ssh', scheme: 'https' })), [
        ['scheme', 'not_applicable'],
      ]);
    });

    test('all problems of a body are listed at once', async () => {
      const { t, key } = await env.setup();
      const res = await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: {
          target_type: 'x',
          port: 70000,
          location: 5,
          expect_status: 99,
          is_enabled: 2,
          foo: 1,
          bar: null,
          service_type: 'web',
          scheme: 'ftp',
        },
      });
      assertValidation(res, [
        ['target_type', 'invalid_value'],
        ['target_value', 'missing'],
        ['port', 'out_of_range'],
        ['location', 'invalid_type'],
        ['expect_status', 'out_of_range'],
        ['is_enabled', ['invalid_value', 'invalid_type']],
        ['foo', 'unknown_field'],
        ['bar', 'unknown_field'],
        ['scheme', 'invalid_value'],
      ]);
      const monitor = await t.request('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: 'nope', is_enabled: 'yes', port: 1 },
      });
      assertValidation(monitor, [
        ['target_value', 'invalid_value'],
        ['is_enabled', ['invalid_type', 'invalid_value']],
        ['port', 'unknown_field'],
      ]);
    });

    test('__proto__, constructor and prototype are unknown fields and pollute nothing', async () => {
      const { t, key } = await env.setup();
      const bodies = [
        '{"target_type":"domain","target_value":"example.com","__proto__":{"polluted":"yes","service_type":"ssh"}}',
        '{"target_type":"domain","target_value":"example.com","constructor":{"prototype":{"polluted":"yes"}}}',
        '{"target_type":"domain","target_value":"example.com","prototype":{"polluted":"yes"}}',
        '{"__proto__":{"target_type":"domain","target_value":"example.com"}}',
      ];
      const expected: string[][] = [
        ['__proto__'],
        ['constructor'],
        ['prototype'],
        ['__proto__', 'target_type', 'target_value'],
      ];
      for (const path of CREATE_PATHS) {
        for (const [i, body] of bodies.entries()) {
          const res = await send(t, key, path, body, { 'content-type': 'application/json' });
          const [field, ...missing] = expected[i]!;
          assertValidation(res, [[field!, 'unknown_field'], ...missing.map((m) => [m, 'missing'] as const)]);
        }
      }
      const probe: Record<string, unknown> = {};
      assert.equal(probe.polluted, undefined, 'Object.prototype was polluted');
      assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
      assert.equal(({} as Record<string, unknown>).service_type, undefined);
      // Other inherited names are unknown fields too.
      for (const name of ['toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf']) {
        assertValidation(
          await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ [name]: 1 }) }),
          [[name, 'unknown_field']],
        );
      }
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
      assert.deepEqual(assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200), []);
      // The API still works normally afterwards.
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
        201,
      );
      assert.equal(device.service_type, 'web');
      assert.equal(Object.hasOwn(device, 'polluted'), false);
    });

    test('int/bool fields accept exactly true, false, 0 and 1, stored as booleans', async () => {
      const { t, key } = await env.setup();
      let n = 0;
      for (const flag of FLAGS) {
        for (const [given, stored] of [
          [true, true],
          [false, false],
          [1, true],
          [0, false],
        ] as const) {
          const body = deviceBody({
            target_value: `f${n++}.example.com`,
            [flag]: given,
            origin_host: 'origin.example.net',
          });
          const device = assertSuccess(
            await t.request<Device>('/v1/devices/create', { method: 'POST', key, body }),
            201,
          );
          assert.equal(device[flag], stored, `${flag}: ${given}`);
        }
      }
      for (const [given, stored] of [
        [true, true],
        [false, false],
        [1, true],
        [0, false],
      ] as const) {
        const monitor = assertSuccess(
          await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
            method: 'POST',
            key,
            body: { target_type: 'domain', target_value: `m${n++}.example.com`, is_enabled: given },
          }),
          201,
        );
        assert.equal(monitor.is_enabled, stored);
      }
    });

    test('int/bool fields refuse anything but true, false, 0 and 1', async () => {
      const { t, key } = await env.setup();
      const bad: unknown[] = [2, -1, 0.5, 1.5, '1', '0', 'true', 'false', 'yes', '', [], {}, [1]];
      // Every refused value on one flag, and a few on every flag.
      for (const value of bad) {
        const res = await t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ check_public_https: value }),
        });
        assertValidation(res, [['check_public_https', ['invalid_type', 'invalid_value']]]);
      }
      for (const flag of FLAGS) {
        for (const value of [2, '1', 'true', -1]) {
          const res = await t.request('/v1/devices/create', {
            method: 'POST',
            key,
            body: deviceBody({ [flag]: value, origin_host: 'origin.example.net' }),
          });
          assertValidation(res, [[flag, ['invalid_type', 'invalid_value']]]);
        }
      }
      for (const value of bad) {
        const res = await t.request('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com', is_enabled: value },
        });
        assertValidation(res, [['is_enabled', ['invalid_type', 'invalid_value']]]);
      }
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });

    test('integers must be JSON integers', async () => {
      const { t, key } = await env.setup();
      const json = { 'content-type': 'application/json' };
      for (const field of ['port', 'origin_port', 'expect_status']) {
        for (const [text, code] of [
          ['443.5', ['invalid_type', 'invalid_value']],
          ['"443"', 'invalid_type'],
          ['1e400', ['invalid_type', 'out_of_range', 'invalid_value']],
          ['-1e400', ['invalid_type', 'out_of_range', 'invalid_value']],
          ['true', 'invalid_type'],
          ['[443]', 'invalid_type'],
          ['{}', 'invalid_type'],
          ['200.000001', ['invalid_type', 'invalid_value']],
          ['"200"', 'invalid_type'],
        ] as const) {
          const body = `{"target_type":"domain","target_value":"example.com","${field}":${text}}`;
          assertValidation(await send(t, key, '/v1/devices/create', body, json), [[field, code]]);
        }
      }
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });

    test('integer ranges: port and origin_port 1-65535, expect_status 100-599', async () => {
      const { t, key } = await env.setup();
      const post = (body: Record<string, unknown>) =>
        t.request<Device>('/v1/devices/create', { method: 'POST', key, body });
      for (const [field, low, high] of [
        ['port', 1, 65535],
        ['origin_port', 1, 65535],
        ['expect_status', 100, 599],
      ] as const) {
        for (const value of [low - 1, high + 1, -1, 2 ** 31, Number.MAX_SAFE_INTEGER + 2]) {
          assertValidation(await post(deviceBody({ [field]: value })), [[field, 'out_of_range']]);
        }
        for (const value of [low, high]) {
          const device = assertSuccess(
            await post(
              deviceBody({ target_value: `${field.replaceAll('_', '-')}-${value}.example.com`, [field]: value }),
            ),
            201,
          );
          assert.equal(device[field], value);
        }
      }
    });

    test('strings refuse control characters', async () => {
      const { t, key } = await env.setup();
      const controls = [
        '\u0000',
        '\u0001',
        '\n',
        '\r',
        '\t',
        '\u001b',
        '\u001f',
        '\u007f',
        '\u0080',
        '\u0085',
        '\u009f',
      ];
      for (const c of controls) {
        for (const [field, value] of [
          ['location', `rack${c}1`],
          ['target_value', `exa${c}mple.com`],
          ['host_header', `www${c}.example.com`],
          ['origin_host', `origin${c}.example.net`],
        ] as const) {
          const res = await t.request('/v1/devices/create', {
            method: 'POST',
            key,
            body: deviceBody({ [field]: value }),
          });
          assertValidation(res, [[field, ['invalid_value', 'invalid_type']]]);
        }
        const res = await t.request('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: `exa${c}mple.com` },
        });
        assertValidation(res, [['target_value', ['invalid_value', 'invalid_type']]]);
      }
      // Printable non-ASCII is not a control character.
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ location: 'Zürich – Rack 4 ✓ 🚀' }),
        }),
        201,
      );
      assert.equal(device.location, 'Zürich – Rack 4 ✓ 🚀');
    });

    test('a lone surrogate is refused with a 400, never stored or a 500', async () => {
      const { t, key } = await env.setup();
      const body = '{"target_type":"domain","target_value":"example.com","location":"a\\ud800b"}';
      const res = await send(t, key, '/v1/devices/create', body, { 'content-type': 'application/json' });
      assert.equal(res.status, 400, res.text);
      assert.ok(['invalid_json', 'validation_failed'].includes(res.body.error?.code ?? ''), res.text);
    });

    test('maximum lengths: location 255', async () => {
      const { t, key } = await env.setup();
      const post = (location: string, target = 'example.com') =>
        t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: target, location }),
        });
      assert.equal(assertSuccess(await post('x'.repeat(255), 'a.example.com'), 201).location, 'x'.repeat(255));
      assert.equal(assertSuccess(await post('é'.repeat(255), 'b.example.com'), 201).location, 'é'.repeat(255));
      // 255 characters outside the BMP are still 255 characters.
      assert.equal(assertSuccess(await post('🚀'.repeat(255), 'c.example.com'), 201).location, '🚀'.repeat(255));
      assertValidation(await post('x'.repeat(256)), [['location', 'too_long']]);
      assertValidation(await post('é'.repeat(256)), [['location', 'too_long']]);
      assertValidation(await post('🚀'.repeat(256)), [['location', 'too_long']]);
    });

    test('maximum lengths: target_value 253 (devices and monitors), origin_host 253', async () => {
      const { t, key } = await env.setup();
      const name253 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      assert.equal(name253.length, 253);
      const name254 = `e${name253}`;
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: name253 }),
        }),
        201,
      );
      assert.equal(device.target_value, name253);
      assertValidation(
        await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ target_value: name254 }) }),
        [['target_value', 'too_long']],
      );
      assertValidation(
        await t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: 'x'.repeat(300) }),
        }),
        [['target_value', 'too_long']],
      );
      const monitor = assertSuccess(
        await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: name253 },
        }),
        201,
      );
      assert.equal(monitor.target_value, name253);
      assertValidation(
        await t.request('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: name254 },
        }),
        [['target_value', 'too_long']],
      );
      const origin = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: 'o.example.com', origin_host: name253 }),
        }),
        201,
      );
      assert.equal(origin.origin_host, name253);
      assertValidation(
        await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ origin_host: name254 }) }),
        [['origin_host', 'too_long']],
      );
    });

    test('maximum lengths: host_header 261', async () => {
      const { t, key } = await env.setup();
      const name253 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      // The longest sensible value: a 253-character name, its root dot and a five-digit port.
      const header260 = `${name253}.:65535`;
      assert.equal(header260.length, 260);
      const device = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ host_header: header260 }),
        }),
        201,
      );
      assert.equal(device.host_header, header260);
      const header262 = `${'h'.repeat(262 - 4)}.com`;
      assert.equal(header262.length, 262);
      assertValidation(
        await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ host_header: header262 }) }),
        [['host_header', 'too_long']],
      );
      // 261 characters is within the length limit: whatever else is wrong, it is not too_long.
      const header261 = `${'h'.repeat(256)}.com:`;
      const res = await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: deviceBody({ host_header: header261 }),
      });
      const details = res.body.error?.details ?? [];
      assert.ok(!details.some((d) => d.code === 'too_long'), JSON.stringify(details));
    });

    test('string fields refuse other JSON types', async () => {
      const { t, key } = await env.setup();
      for (const field of [
        'target_type',
        'target_value',
        'service_type',
        'scheme',
        'host_header',
        'origin_host',
        'origin_scheme',
        'location',
      ]) {
        for (const value of [1, true, ['x'], { a: 1 }]) {
          assertValidation(
            await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ [field]: value }) }),
            [[field, 'invalid_type']],
          );
        }
      }
    });
  },
  VALIDATION_ONLY,
);
