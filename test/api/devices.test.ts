/** docs/contract.md §6.1 Device: create (defaults, rules), the record, duplicates, delete and list. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlacklistMonitor, Device } from '../../core/index.ts';
import {
  assertError,
  assertSuccess,
  assertValidation,
  DEVICE_FIELDS,
  deviceBody,
  eachStore,
  START,
  validationOnly,
} from './helpers.ts';
import { UNCHECKED, UNCHECKED_PAUSED } from '../support/records.ts';
import { defineDeleteTests, defineListTests, DEVICES } from './resource-suites.ts';

const NON_WEB_PORTS: Readonly<Record<string, number>> = {
  ssh: 22,
  smtp: 25,
  smtps: 465,
  submission: 587,
  ftp: 21,
  imap: 143,
  imaps: 993,
  pop3: 110,
  pop3s: 995,
  dns: 53,
  mysql: 3306,
  postgresql: 5432,
  rdp: 3389,
};

/** Web-only fields with a value that is neither false nor null, as a client might send them. */
const WEB_ONLY: Readonly<Record<string, unknown>> = {
  scheme: 'https',
  host_header: 'www.example.com',
  proxy_enabled: true,
  origin_host: 'origin.example.net',
  origin_scheme: 'http',
  origin_port: 8080,
  check_public_http: true,
  check_public_https: true,
  check_origin_http: true,
  check_origin_tls: true,
  expect_status: 204,
};
const WEB_ONLY_FLAGS = [
  'proxy_enabled',
  'check_public_http',
  'check_public_https',
  'check_origin_http',
  'check_origin_tls',
] as const;

function assertDeviceRecord(record: Device): void {
  assert.deepEqual(
    Object.keys(record).sort(),
    [...DEVICE_FIELDS].sort(),
    `device record fields: ${JSON.stringify(record)}`,
  );
  for (const flag of [
    'proxy_enabled',
    'check_public_http',
    'check_public_https',
    'check_public_tls',
    'check_origin_http',
    'check_origin_tls',
    'is_enabled',
  ] as const) {
    assert.equal(typeof record[flag], 'boolean', `${flag} is a JSON boolean`);
  }
  assert.equal(typeof record.id, 'number');
  assert.equal(typeof record.port, 'number');
}

eachStore('devices', (env) => {
  test('only target_type and target_value are required; the web https defaults', async () => {
    const { t, key } = await env.setup();
    const record = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com' },
      }),
      201,
    );
    assertDeviceRecord(record);
    assert.deepEqual(record, {
      id: record.id,
      target_type: 'domain',
      target_value: 'example.com',
      service_type: 'web',
      scheme: 'https',
      port: 443,
      host_header: null,
      proxy_enabled: false,
      origin_host: null,
      origin_scheme: 'https',
      origin_port: 443,
      check_public_http: false,
      check_public_https: true,
      check_public_tls: true,
      check_origin_http: false,
      check_origin_tls: false,
      expect_status: 200,
      location: null,
      is_enabled: true,
      created_at: START,
      ...UNCHECKED,
    });
    // The list shows the same record.
    const listed = assertSuccess(await t.request('/v1/devices', { key }), 200);
    assert.deepEqual(listed, [record]);
  });

  test('web http defaults follow the scheme', async () => {
    const { t, key } = await env.setup();
    const record = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '8.8.8.8', service_type: 'web', scheme: 'http' },
      }),
      201,
    );
    assertDeviceRecord(record);
    assert.deepEqual(record, {
      id: record.id,
      target_type: 'ip',
      target_value: '8.8.8.8',
      service_type: 'web',
      scheme: 'http',
      port: 80,
      host_header: null,
      proxy_enabled: false,
      origin_host: null,
      origin_scheme: 'http',
      origin_port: 80,
      check_public_http: true,
      check_public_https: false,
      check_public_tls: false,
      check_origin_http: false,
      check_origin_tls: false,
      expect_status: 200,
      location: null,
      is_enabled: true,
      created_at: START,
      ...UNCHECKED,
    });
  });

  test("origin_scheme defaults to the scheme; origin_port to the origin scheme's port", async () => {
    const { t, key } = await env.setup();
    const post = (body: Record<string, unknown>) =>
      t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody(body) });
    const a = assertSuccess(await post({ target_value: 'a.example.com', scheme: 'https', origin_scheme: 'http' }), 201);
    assert.equal(a.origin_scheme, 'http');
    assert.equal(a.origin_port, 80);
    assert.equal(a.port, 443);
    const b = assertSuccess(await post({ target_value: 'b.example.com', scheme: 'http', origin_scheme: 'https' }), 201);
    assert.equal(b.origin_scheme, 'https');
    assert.equal(b.origin_port, 443);
    assert.equal(b.port, 80);
    const c = assertSuccess(await post({ target_value: 'c.example.com', scheme: 'http', port: 8080 }), 201);
    assert.equal(c.origin_scheme, 'http');
    assert.equal(c.origin_port, 80, 'origin_port follows origin_scheme, not the device port');
    const d = assertSuccess(await post({ target_value: 'd.example.com', origin_port: 8443 }), 201);
    assert.equal(d.origin_port, 8443);
    assert.equal(d.origin_scheme, 'https');
  });

  test('explicit values are stored as given', async () => {
    const { t, key } = await env.setup();
    const body = {
      target_type: 'domain',
      target_value: 'shop.example.com',
      service_type: 'web',
      scheme: 'https',
      port: 8443,
      host_header: 'www.example.com:8443',
      proxy_enabled: true,
      origin_host: 'origin.example.net',
      origin_scheme: 'http',
      origin_port: 8080,
      check_public_http: true,
      check_public_https: false,
      check_public_tls: false,
      check_origin_http: true,
      check_origin_tls: true,
      expect_status: 301,
      location: 'Frankfurt, rack 12',
      is_enabled: false,
    };
    const record = assertSuccess(await t.request<Device>('/v1/devices/create', { method: 'POST', key, body }), 201);
    assertDeviceRecord(record);
    assert.deepEqual(record, { ...body, id: record.id, created_at: START, ...UNCHECKED_PAUSED });
    const ints = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: {
          ...body,
          target_value: 'shop2.example.com',
          proxy_enabled: 1,
          check_public_http: 1,
          check_public_https: 0,
          check_public_tls: 0,
          check_origin_http: 1,
          check_origin_tls: 1,
          is_enabled: 0,
        },
      }),
      201,
    );
    assert.deepEqual(ints, {
      ...body,
      target_value: 'shop2.example.com',
      id: ints.id,
      created_at: START,
      ...UNCHECKED_PAUSED,
    });
  });

  test('every non-web service: its default port and no web defaults', async () => {
    const { t, key } = await env.setup();
    for (const [service, port] of Object.entries(NON_WEB_PORTS)) {
      const record = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'mail.example.com', service_type: service },
        }),
        201,
      );
      assertDeviceRecord(record);
      assert.deepEqual(
        record,
        {
          id: record.id,
          target_type: 'domain',
          target_value: 'mail.example.com',
          service_type: service,
          scheme: null,
          port,
          host_header: null,
          proxy_enabled: false,
          origin_host: null,
          origin_scheme: null,
          origin_port: null,
          check_public_http: false,
          check_public_https: false,
          check_public_tls: false,
          check_origin_http: false,
          check_origin_tls: false,
          expect_status: null,
          location: null,
          is_enabled: true,
          created_at: START,
          ...UNCHECKED,
        },
        service,
      );
    }
  });

  test('a non-web service takes an explicit port, location, is_enabled and check_public_tls', async () => {
    const { t, key } = await env.setup();
    const record = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: {
          target_type: 'ip',
          target_value: '1.1.1.1',
          service_type: 'ssh',
          port: 2222,
          location: 'bastion',
          is_enabled: 0,
          check_public_tls: true,
        },
      }),
      201,
    );
    assert.equal(record.port, 2222);
    assert.equal(record.location, 'bastion');
    assert.equal(record.is_enabled, false);
    assert.equal(record.check_public_tls, true);
    const smtps = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '1.1.1.1', service_type: 'smtps', check_public_tls: 1 },
      }),
      201,
    );
    assert.equal(smtps.check_public_tls, true);
    assert.equal(smtps.port, 465);
  });

  test('check_interval_s: 30 to 86400 seconds on any service, default 60; null means the default', async () => {
    const { t, key } = await env.setup();
    const post = (body: Record<string, unknown>) =>
      t.request<Device>('/v1/devices/create', { method: 'POST', key, body });
    let n = 0;
    for (const [given, stored] of [
      [30, 30],
      [86400, 86400],
      [300, 300],
      [null, 60],
      [undefined, 60],
    ] as const) {
      for (const service of ['web', 'ssh', 'tcp']) {
        const record = assertSuccess(
          await post({
            target_type: 'domain',
            target_value: `i${n++}.example.com`,
            service_type: service,
            port: 2200,
            check_interval_s: given,
          }),
          201,
        );
        assertDeviceRecord(record);
        assert.equal(record.check_interval_s, stored, `${service} ${String(given)}`);
      }
    }
    // The record as created is the record as listed.
    const listed = assertSuccess(await t.request<Device[]>('/v1/devices', { key }), 200);
    assert.deepEqual(
      listed.map((d) => d.check_interval_s),
      [30, 30, 30, 86400, 86400, 86400, 300, 300, 300, 60, 60, 60, 60, 60, 60],
    );
  });

  validationOnly(env, () => {
    test('check_interval_s: a number out of range is out_of_range, anything but a JSON integer is invalid_type', async () => {
      const { t, key } = await env.setup();
      const raw = (value: string) =>
        t.request('/v1/devices/create', {
          method: 'POST',
          key,
          headers: { 'content-type': 'application/json' },
          body: `{"target_type":"domain","target_value":"example.com","check_interval_s":${value}}`,
        });
      for (const value of ['29', '0', '-1', '-0', '86401', '604800', '9007199254740993']) {
        assertValidation(await raw(value), [['check_interval_s', 'out_of_range']]);
      }
      for (const value of ['"60"', '60.5', '60.0', '6e1', 'true', 'false', '[60]', '{}', '"1m"', '""']) {
        assertValidation(await raw(value), [['check_interval_s', 'invalid_type']]);
      }
      // The hint says what a valid value is, as for every other field.
      const error = assertError(await raw('10'), 400, 'validation_failed');
      assert.equal(error.details?.[0]?.message, 'check_interval_s must be an integer from 30 to 86400 (seconds).');
      // Listed with the other problems of the body, not instead of them.
      const both = await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com', port: 0, check_interval_s: 5 },
      });
      assertValidation(both, [
        ['port', 'out_of_range'],
        ['check_interval_s', 'out_of_range'],
      ]);
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });
  });

  test('check_locations and quorum: null by default; the quorum defaults to a majority; stored as given', async () => {
    const { t, key } = await env.setup();
    const post = (n: number, fields: Record<string, unknown>) =>
      t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: `q${n}.example.com`, ...fields },
      });
    const cases: [Record<string, unknown>, string[] | null, number | null][] = [
      [{}, null, null],
      [{ check_locations: null, quorum: null }, null, null],
      [{ check_locations: ['eu'] }, ['eu'], 1],
      [{ check_locations: ['eu', 'us'] }, ['eu', 'us'], 2],
      [{ check_locations: ['eu', 'us', 'ap-1'] }, ['eu', 'us', 'ap-1'], 2],
      [{ check_locations: ['a', 'b', 'c', 'd'] }, ['a', 'b', 'c', 'd'], 3],
      [{ check_locations: ['eu', 'us', 'ap-1'], quorum: 1 }, ['eu', 'us', 'ap-1'], 1],
      [{ check_locations: ['eu', 'us', 'ap-1'], quorum: 3 }, ['eu', 'us', 'ap-1'], 3],
      // A location no worker has ever named is accepted: it may be started later.
      [{ check_locations: ['never-seen'], quorum: null, service_type: 'ssh' }, ['never-seen'], 1],
    ];
    for (const [i, [fields, locations, quorum]] of cases.entries()) {
      const record = assertSuccess(await post(i, fields), 201);
      assertDeviceRecord(record);
      assert.deepEqual([record.check_locations, record.quorum], [locations, quorum], JSON.stringify(fields));
    }
    const listed = assertSuccess(await t.request<Device[]>('/v1/devices', { key }), 200);
    assert.deepEqual(
      listed.map((d) => [d.check_locations, d.quorum]),
      cases.map(([, locations, quorum]) => [locations, quorum]),
    );
  });

  validationOnly(env, () => {
    test('check_locations: 1 to 16 distinct names of [a-z0-9-]{1,32}; quorum: 1 to their number, only with them', async () => {
      const { t, key } = await env.setup();
      const post = (fields: Record<string, unknown>) =>
        t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com', ...fields },
        });
      const seventeen = Array.from({ length: 17 }, (_, i) => `l${i}`);
      for (const [value, code] of [
        [[], 'out_of_range'],
        [seventeen, 'out_of_range'],
        [['eu', 'eu'], 'invalid_value'],
        [['EU'], 'invalid_value'],
        [['eu west'], 'invalid_value'],
        [['a'.repeat(33)], 'invalid_value'],
        [[''], 'invalid_value'],
        [[1], 'invalid_type'],
        ['eu', 'invalid_type'],
        [{ eu: true }, 'invalid_type'],
        [true, 'invalid_type'],
      ] as const) {
        assertValidation(await post({ check_locations: value }), [['check_locations', code]]);
      }
      assertSuccess(await post({ check_locations: seventeen.slice(0, 16), target_value: 'sixteen.example.com' }), 201);
      for (const [fields, code] of [
        [{ check_locations: ['eu', 'us'], quorum: 3 }, 'out_of_range'],
        [{ check_locations: ['eu', 'us'], quorum: 0 }, 'out_of_range'],
        [{ check_locations: ['eu', 'us'], quorum: 1.5 }, 'invalid_type'],
        [{ check_locations: ['eu', 'us'], quorum: '2' }, 'invalid_type'],
        [{ quorum: 1 }, 'invalid_value'],
        [{ check_locations: null, quorum: 1 }, 'invalid_value'],
      ] as const) {
        assertValidation(await post(fields), [['quorum', code]]);
      }
      // A bad list is the only problem named: the quorum is not judged against it.
      assertValidation(await post({ check_locations: ['eu', 'eu'], quorum: 2 }), [
        ['check_locations', 'invalid_value'],
      ]);
      const error = assertError(await post({ quorum: 1 }), 400, 'validation_failed');
      assert.equal(
        error.details?.[0]?.message,
        'quorum must be an integer from 1 to the number of check_locations, given only with check_locations.',
      );
      const listed = assertSuccess(await t.request<Device[]>('/v1/devices', { key }), 200);
      assert.deepEqual(
        listed.map((d) => d.target_value),
        ['sixteen.example.com'],
      );
    });
  });

  test('check_interval_s does not make a device distinct: same target, other interval is a duplicate', async () => {
    const { t, key } = await env.setup();
    const first = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: deviceBody({ check_interval_s: 60 }),
      }),
      201,
    );
    const error = assertError(
      await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ check_interval_s: 600 }) }),
      409,
      'duplicate_device',
    );
    assert.equal(error.existing_id, first.id);
  });

  validationOnly(env, () => {
    test('tcp requires a port', async () => {
      const { t, key } = await env.setup();
      assertValidation(
        await t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com', service_type: 'tcp' },
        }),
        [['port', 'missing']],
      );
      assertValidation(
        await t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com', service_type: 'tcp', port: null },
        }),
        [['port', ['missing', 'invalid_type']]],
      );
      const record = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com', service_type: 'tcp', port: 6379 },
        }),
        201,
      );
      assertDeviceRecord(record);
      assert.equal(record.port, 6379);
      assert.equal(record.scheme, null);
      assert.equal(record.expect_status, null);
    });
  });

  validationOnly(env, () => {
    test('service_type is one of the fifteen values', async () => {
      const { t, key } = await env.setup();
      for (const service of [
        'http',
        'https',
        'WEB',
        'Ssh',
        'smtp ',
        'udp',
        'icmp',
        'ping',
        'postgres',
        'mssql',
        '',
        'web,ssh',
      ]) {
        assertValidation(
          await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ service_type: service }) }),
          [['service_type', 'invalid_value']],
        );
      }
      for (const scheme of ['HTTP', 'ftp', 'ws', 'wss', '']) {
        assertValidation(await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ scheme }) }), [
          ['scheme', 'invalid_value'],
        ]);
        assertValidation(
          await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ origin_scheme: scheme }) }),
          [['origin_scheme', 'invalid_value']],
        );
      }
    });
  });

  validationOnly(env, () => {
    test('every web-only field on every non-web service is not_applicable', async () => {
      const { t, key } = await env.setup({ rateLimit: { limit: 10_000, windowSeconds: 60 } });
      // Every web-only field on one service, and every service with one field (in turn).
      const fields = Object.entries(WEB_ONLY);
      for (const [field, value] of fields) {
        const body = { target_type: 'domain', target_value: 'example.com', service_type: 'smtp', [field]: value };
        assertValidation(await t.request('/v1/devices/create', { method: 'POST', key, body }), [
          [field, 'not_applicable'],
        ]);
      }
      for (const [i, service] of [...Object.keys(NON_WEB_PORTS), 'tcp'].entries()) {
        const [field, value] = fields[i % fields.length]!;
        const body = {
          target_type: 'domain',
          target_value: 'example.com',
          service_type: service,
          port: 1234,
          [field]: value,
        };
        assertValidation(await t.request('/v1/devices/create', { method: 'POST', key, body }), [
          [field, 'not_applicable'],
        ]);
      }
      // All at once: one detail per field.
      const res = await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com', service_type: 'ssh', ...WEB_ONLY },
      });
      assertValidation(
        res,
        Object.keys(WEB_ONLY).map((f) => [f, 'not_applicable'] as const),
      );
      assert.equal(res.body.error?.details?.length, Object.keys(WEB_ONLY).length);
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });
  });

  test('web-only fields as false or null are accepted on a non-web service', async () => {
    const { t, key } = await env.setup();
    const nulls = Object.fromEntries(Object.keys(WEB_ONLY).map((f) => [f, null]));
    const falses = Object.fromEntries(WEB_ONLY_FLAGS.map((f) => [f, false]));
    const zeros = Object.fromEntries(WEB_ONLY_FLAGS.map((f) => [f, 0]));
    for (const [i, extra] of [nulls, falses, { ...nulls, ...falses }, zeros].entries()) {
      const record = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: `s${i}.example.com`, service_type: 'ssh', ...extra },
        }),
        201,
      );
      assertDeviceRecord(record);
      assert.equal(record.scheme, null);
      assert.equal(record.port, 22);
      for (const flag of WEB_ONLY_FLAGS) assert.equal(record[flag], false);
      assert.equal(record.expect_status, null);
      assert.equal(record.origin_host, null);
    }
  });

  validationOnly(env, () => {
    test('origin_host is required when proxy_enabled or an origin check is on', async () => {
      const { t, key } = await env.setup();
      for (const on of [
        { proxy_enabled: true },
        { check_origin_http: true },
        { check_origin_tls: true },
        { proxy_enabled: 1 },
        { check_origin_http: 1, check_origin_tls: 1 },
      ]) {
        assertValidation(await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody(on) }), [
          ['origin_host', 'missing'],
        ]);
        assertValidation(
          await t.request('/v1/devices/create', {
            method: 'POST',
            key,
            body: deviceBody({ ...on, origin_host: null }),
          }),
          [['origin_host', ['missing', 'invalid_type']]],
        );
      }
      const off = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ proxy_enabled: false, check_origin_http: 0, check_origin_tls: false }),
        }),
        201,
      );
      assert.equal(off.origin_host, null);
      const withOrigin = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: 'w.example.com', origin_host: 'origin.example.net' }),
        }),
        201,
      );
      assert.equal(withOrigin.origin_host, 'origin.example.net');
      assert.equal(withOrigin.proxy_enabled, false);
      const ipOrigin = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: 'v.example.com', check_origin_tls: true, origin_host: '8.8.4.4' }),
        }),
        201,
      );
      assert.equal(ipOrigin.origin_host, '8.8.4.4');
      assertValidation(
        await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ origin_host: 'not a host' }) }),
        [['origin_host', 'invalid_value']],
      );
      assertValidation(
        await t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ origin_host: 'http://origin.example.net/' }),
        }),
        [['origin_host', 'invalid_value']],
      );
    });
  });

  validationOnly(env, () => {
    test('host_header is a host name, optionally with :port', async () => {
      const { t, key } = await env.setup();
      let n = 0;
      for (const header of [
        'www.example.com',
        'www.example.com:8080',
        'example.com:1',
        'example.com:65535',
        'a-b.example.org',
      ]) {
        const record = assertSuccess(
          await t.request<Device>('/v1/devices/create', {
            method: 'POST',
            key,
            body: deviceBody({ target_value: `h${n++}.example.com`, host_header: header }),
          }),
          201,
        );
        assert.equal(record.host_header, header);
      }
      for (const header of [
        'exa mple.com',
        'example.com:',
        'example.com:abc',
        'example.com:0',
        'example.com:65536',
        'example.com:-1',
        'http://example.com',
        'example.com/path',
        'user@example.com',
        'a:b:c',
        '',
        ':80',
        'example.com:80:80',
        'exa_mple.com',
      ]) {
        assertValidation(
          await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ host_header: header }) }),
          [['host_header', ['invalid_value', 'out_of_range']]],
        );
      }
    });
  });

  validationOnly(env, () => {
    test('fields that are not in the schema are unknown_field (typos, ids, timestamps)', async () => {
      const { t, key } = await env.setup();
      for (const field of [
        'expected_status',
        'id',
        'created_at',
        'user_id',
        'Port',
        'target',
        'checkPublicHttp',
        'enabled',
        'service',
        'last_status',
        'status',
        'status_since',
        'last_checked_at',
        'last_results',
        'interval',
        'check_interval',
      ]) {
        assertValidation(
          await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody({ [field]: 1 }) }),
          [[field, 'unknown_field']],
        );
      }
      assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), []);
    });
  });

  test('a duplicate is 409 duplicate_device with existing_id', async () => {
    const { t, key } = await env.setup();
    const first = assertSuccess(
      await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
      201,
    );
    const variants = [
      deviceBody(),
      deviceBody({ target_value: 'Example.COM.' }),
      deviceBody({ target_value: 'EXAMPLE.COM' }),
      deviceBody({ port: 443 }),
      deviceBody({ scheme: 'https' }),
      deviceBody({ service_type: 'web', scheme: 'https', port: 443 }),
      deviceBody({ is_enabled: false }),
      deviceBody({ location: 'elsewhere' }),
      deviceBody({ expect_status: 204 }),
      deviceBody({ check_public_tls: false }),
      deviceBody({ host_header: 'www.example.com' }),
      deviceBody({ origin_scheme: 'http' }),
    ];
    for (const body of variants) {
      const error = assertError(
        await t.request('/v1/devices/create', { method: 'POST', key, body }),
        409,
        'duplicate_device',
      );
      assert.equal(error.existing_id, first.id, JSON.stringify(body));
    }
    assert.deepEqual(assertSuccess(await t.request('/v1/devices', { key }), 200), [first]);
  });

  test('normalised duplicates: IDN, IPv6 spellings and IPv4-mapped addresses', async () => {
    const { t, key } = await env.setup();
    const pairs: [string, string, string][] = [
      ['domain', 'münchen.de', 'xn--mnchen-3ya.de'],
      ['domain', 'é.example.com', 'e\u0301.example.com'],
      ['ip', '2606:4700:4700::1111', '2606:4700:4700:0:0:0:0:1111'],
      ['ip', '2001:4860:4860::8888', '2001:4860:4860:0000:0000:0000:0000:8888'.toUpperCase()],
      ['ip', '8.8.8.8', '::ffff:8.8.8.8'],
      ['ip', '1.1.1.1', '::ffff:101:101'],
    ];
    for (const [type, a, b] of pairs) {
      const created = assertSuccess(
        await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: type, target_value: a },
        }),
        201,
      );
      const error = assertError(
        await t.request('/v1/devices/create', { method: 'POST', key, body: { target_type: type, target_value: b } }),
        409,
        'duplicate_device',
      );
      assert.equal(error.existing_id, created.id, `${a} vs ${b}`);
    }
  });

  test('a different port, scheme, service, target or user is not a duplicate', async () => {
    const t = env.api();
    const key = await t.createKey();
    const other = await t.createKey();
    const bodies = [
      deviceBody(),
      deviceBody({ port: 8443 }),
      deviceBody({ scheme: 'http' }),
      deviceBody({ scheme: 'http', port: 443 }),
      deviceBody({ service_type: 'ssh' }),
      deviceBody({ service_type: 'tcp', port: 443 }),
      deviceBody({ service_type: 'tcp', port: 22 }),
      deviceBody({ service_type: 'ssh', port: 443 }),
      deviceBody({ target_value: 'www.example.com' }),
      { target_type: 'ip', target_value: '8.8.8.8' },
      { target_type: 'ip', target_value: '8.8.4.4' },
    ];
    const ids = new Set<number>();
    for (const body of bodies) {
      const record = assertSuccess(await t.request<Device>('/v1/devices/create', { method: 'POST', key, body }), 201);
      ids.add(record.id);
      assertSuccess(await t.request<Device>('/v1/devices/create', { method: 'POST', key: other, body }), 201);
    }
    assert.equal(ids.size, bodies.length);
  });

  test('a deleted device may be created again, with a new id', async () => {
    const { t, key } = await env.setup();
    const first = assertSuccess(
      await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
      201,
    );
    assertSuccess(await t.request(`/v1/devices/delete?id=${first.id}`, { method: 'DELETE', key }), 200);
    const again = assertSuccess(
      await t.request<Device>('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
      201,
    );
    assert.ok(again.id > first.id, `ids are not reused: ${again.id} after ${first.id}`);
    const error = assertError(
      await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
      409,
      'duplicate_device',
    );
    assert.equal(error.existing_id, again.id);
  });

  test('concurrent identical creates give exactly one 201, the rest 409 naming it', async () => {
    const { t, key } = await env.setup();
    for (const body of [
      deviceBody({ target_value: 'race.example.com' }),
      { target_type: 'ip', target_value: '9.9.9.9', service_type: 'dns' },
    ]) {
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => t.request<Device>('/v1/devices/create', { method: 'POST', key, body })),
      );
      const created = answers.filter((a) => a.status === 201);
      assert.equal(created.length, 1, `statuses ${answers.map((a) => a.status).join(',')}`);
      const id = created[0]!.body.data!.id;
      for (const a of answers) {
        if (a.status === 201) continue;
        assert.equal(assertError(a, 409, 'duplicate_device').existing_id, id);
      }
    }
    assert.equal((assertSuccess(await t.request('/v1/devices', { key }), 200) as unknown[]).length, 2);
  });

  test("the duplicate rule is the store's own: a second identical insert names the first", async () => {
    const { t, key } = await env.setup();
    const record = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: deviceBody({ target_value: 'store.example.com' }),
      }),
      201,
    );
    const { id: _id, ...device } = record;
    const again = await env.store.createDevice(key.key.user_id, device);
    assert.deepEqual(again, { duplicateOf: record.id });
    const monitor = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: deviceBody({ target_value: 'store.example.com' }),
      }),
      201,
    );
    const { id: _mid, ...fields } = monitor;
    assert.deepEqual(await env.store.createBlacklistMonitor(key.key.user_id, { ...fields, is_enabled: false }), {
      duplicateOf: monitor.id,
    });
  });

  defineDeleteTests(env, DEVICES);
  defineListTests(env, DEVICES);
});
