/**
 * The OpenAPI document itself: the committed copy is current, a maintained OpenAPI 3.1 validator
 * accepts it, every reference resolves, every schema compiles under a strict JSON Schema 2020-12
 * validator, it describes exactly the router's routes, and its request schemas judge bodies the way
 * the server's parsers do.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ROUTES } from '../../core/internal.ts';
import {
  createOpenApiDocument,
  renderReference,
  serializeOpenApiDocument,
  type OpenApiDocument,
} from '../../core/openapi/index.ts';
import { parseBlacklistMonitorInput } from '../../core/validation/blacklist-monitor-input.ts';
import { parseChannelInput } from '../../core/validation/channel-input.ts';
import { parseDeviceInput } from '../../core/validation/device-input.ts';
import { ApiError } from '../../core/http/api-error.ts';
import { runOpenApiCommand } from '../../cli/commands/openapi-command.ts';
import { ROOT } from '../support/root.ts';
import { createConformance } from './conformance.ts';

const COMMITTED = join(ROOT, 'openapi.json');

function references(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) references(item, found);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else references(value, found);
    }
  }
  return found;
}

function pointer(document: unknown, ref: string): unknown {
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

describe('OpenAPI document', () => {
  const document = createOpenApiDocument();

  test('the committed openapi.json equals the generated document (run `npm run openapi` after a change)', async () => {
    const committed = await readFile(COMMITTED, 'utf8');
    assert.equal(committed, serializeOpenApiDocument(document));
  });

  test('a maintained OpenAPI 3.1 validator accepts it', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(await readFile(COMMITTED, 'utf8')) as Record<string, unknown>);
    assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 1)?.slice(0, 3000));
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
  });

  test('the validator is not a rubber stamp: it refuses a broken document', async () => {
    const broken = JSON.parse(serializeOpenApiDocument(document)) as {
      paths: Record<string, Record<string, { responses: unknown }>>;
    };
    broken.paths['/me']!.get!.responses = { 200: { content: {} } }; // a response without its description
    const result = await new Validator().validate(broken as unknown as Record<string, unknown>);
    assert.equal(result.valid, false);
  });

  test('every $ref resolves inside the document', () => {
    const refs = references(document);
    assert.ok(refs.length > 50);
    for (const ref of refs) {
      assert.ok(ref.startsWith('#/'), `external reference ${ref}`);
      assert.notEqual(pointer(document, ref), undefined, `unresolvable ${ref}`);
    }
  });

  test('no component is unused: each is referenced from an operation, through components or not (security schemes by name)', () => {
    const used = new Set<string>();
    const { components, ...rest } = document;
    // References from the rest of the document, then from the components those lead to. Not from
    // an `x-` extension: a linter (Redocly's no-unused-components) or a generator reads only what
    // OpenAPI defines, so a component referenced from an extension alone is unused to them.
    const standard = Object.fromEntries(Object.entries(rest).filter(([key]) => !key.startsWith('x-')));
    assert.ok('paths' in standard);
    const queue = references(standard);
    while (queue.length > 0) {
      const ref = queue.pop()!;
      if (used.has(ref)) continue;
      used.add(ref);
      queue.push(...references(pointer(document, ref)));
    }
    const schemes = new Set(
      Object.values(document.paths)
        .flatMap((item) => Object.values(item))
        .flatMap((operation) => (operation.security ?? []).flatMap((requirement) => Object.keys(requirement))),
    );
    const unused: string[] = [];
    for (const [kind, entries] of Object.entries(components)) {
      for (const name of Object.keys(entries as object)) {
        const isUsed = kind === 'securitySchemes' ? schemes.has(name) : used.has(`#/components/${kind}/${name}`);
        if (!isUsed) unused.push(`${kind}/${name}`);
      }
    }
    assert.deepEqual(unused, []);
  });

  test('every operation lists the answers any request for it can meet: unknown route, wrong method, protocol errors', () => {
    const conformance = createConformance(document);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        const codesOf = (status: number) =>
          Object.keys(
            conformance.resolve(method, `/v1${path}`, '/v1', status).response?.content?.['application/json']
              ?.examples ?? {},
          );
        const where = `${method.toUpperCase()} ${path}`;
        for (const [status, code] of [
          [400, 'bad_request'],
          [401, 'missing_api_key'],
          [401, 'invalid_api_key'],
          [403, 'ip_not_allowed'],
          [404, 'unknown_route'],
          [404, `unknown_${path.split('/')[1]!.replaceAll('-', '_')}_route`],
          [405, 'method_not_allowed'],
          [408, 'request_timeout'],
          [417, 'expectation_failed'],
          [429, 'rate_limit_exceeded'],
          [431, 'request_header_fields_too_large'],
          [500, 'server_error'],
          [500, 'missing_table'],
        ] as const) {
          assert.ok(codesOf(status).includes(code), `${where} does not list ${status} ${code}`);
        }
      }
    }
    const unmatched = Object.keys(document['x-unmatched-request-responses']).sort();
    assert.deepEqual(unmatched, ['400', '401', '403', '404', '405', '408', '417', '429', '431', '500']);
  });

  test('every schema compiles under a strict JSON Schema 2020-12 validator (no unknown keywords or formats)', () => {
    const conformance = createConformance(document);
    for (const name of Object.keys(document.components.schemas)) {
      conformance.validator({ $ref: `#/components/schemas/${name}` });
    }
    for (const [path, item] of Object.entries(document.paths)) {
      for (const operation of Object.values(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const resolved =
            '$ref' in response
              ? (pointer(document, response.$ref) as { content: Record<string, { schema: object }> })
              : response;
          assert.ok(resolved.content?.['application/json'], `${path} ${status} has a JSON body`);
          conformance.validator(resolved.content['application/json']!.schema);
        }
      }
    }
  });

  test('it describes exactly the routes of the router, with their scopes', () => {
    const described: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        described.push(`${method.toUpperCase()} ${path}`);
        const route = ROUTES.find((r) => r.method === method.toUpperCase() && r.path === path);
        assert.ok(route, `${method} ${path} is a route`);
        assert.equal(operation['x-required-scope'], route.scope);
        assert.deepEqual(operation.security, [{ bearer: route.scope === null ? [] : [route.scope] }]);
        assert.ok(operation.responses['401'] && operation.responses['429'] && operation.responses['500']);
        if (route.scope !== null) {
          const forbidden = operation.responses['403'];
          assert.deepEqual(
            forbidden,
            { $ref: '#/components/responses/Forbidden' },
            'scoped operations document insufficient_scope',
          );
        }
      }
    }
    assert.deepEqual(described.sort(), ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    assert.deepEqual(document.components.securitySchemes.bearer, {
      type: 'http',
      scheme: 'bearer',
      description: document.components.securitySchemes.bearer!.description,
    });
  });

  test('the list operations document limit, after_id and Link; deletes document id', () => {
    const limit = document.components.parameters.Limit!;
    assert.deepEqual(
      [limit.name, limit.in, limit.schema],
      ['limit', 'query', { type: 'integer', minimum: 1, maximum: 1000 }],
    );
    assert.deepEqual(document.components.parameters.AfterId!.schema, {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    for (const path of ['/devices', '/blacklist-monitors']) {
      const list = document.paths[path]!.get!;
      assert.deepEqual(list.parameters?.slice(0, 2), [
        { $ref: '#/components/parameters/Limit' },
        { $ref: '#/components/parameters/AfterId' },
      ]);
      const ok = list.responses['200'] as { headers: Record<string, unknown> };
      assert.deepEqual(ok.headers.Link, { $ref: '#/components/headers/Link' });
      for (const name of [
        'RateLimit-Policy',
        'RateLimit',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'X-Request-Id',
      ]) {
        assert.ok(ok.headers[name], `${path} 200 documents ${name}`);
      }
      const remove = document.paths[`${path}/delete`]!.delete!;
      assert.deepEqual(remove.parameters?.[0], { $ref: '#/components/parameters/Id' });
      assert.equal(document.components.parameters.Id!.required, true);
    }
  });

  test('the results operations document id, limit, before_id, Link, and a result schema per probe', () => {
    assert.deepEqual(document.components.parameters.ResultsLimit!.schema, {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
    });
    assert.match(document.components.parameters.ResultsLimit!.description, /Default 100\./);
    assert.deepEqual(document.components.parameters.BeforeId!.schema, {
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    for (const [path, envelope, item] of [
      ['/devices/results', 'DeviceResultListEnvelope', 'DeviceProbeResult'],
      ['/blacklist-monitors/results', 'BlacklistMonitorResultListEnvelope', 'DnsblResult'],
    ] as const) {
      const operation = document.paths[path]!.get!;
      assert.deepEqual(operation.parameters?.slice(0, 3), [
        { $ref: '#/components/parameters/Id' },
        { $ref: '#/components/parameters/ResultsLimit' },
        { $ref: '#/components/parameters/BeforeId' },
      ]);
      const ok = operation.responses['200'] as {
        headers: Record<string, unknown>;
        content: Record<string, { schema: unknown }>;
      };
      assert.deepEqual(ok.headers.Link, { $ref: '#/components/headers/Link' });
      assert.deepEqual(ok.content['application/json']!.schema, { $ref: `#/components/schemas/${envelope}` });
      assert.deepEqual((document.components.schemas[envelope]!.properties as Record<string, unknown>).data, {
        type: 'array',
        items: { $ref: `#/components/schemas/${item}` },
      });
      assert.deepEqual(Object.keys(operation.responses).sort(), [
        '200',
        '400',
        '401',
        '403',
        '404',
        '405',
        '408',
        '417',
        '429',
        '431',
        '500',
      ]);
    }
    // Exactly one shape matches a result, chosen by its probe.
    const conformance = createConformance(document);
    const validate = conformance.validator({
      oneOf: [{ $ref: '#/components/schemas/DnsblResult' }, { $ref: '#/components/schemas/DeviceProbeResult' }],
    });
    const common = {
      id: 1,
      check_id: 1,
      checked_at: '2026-01-01T00:00:00.000Z',
      ok: true,
      response_ms: 3,
      error: null,
      check_location: null,
    };
    assert.equal(
      validate({
        ...common,
        probe: 'dnsbl',
        zone: 'zen.spamhaus.org',
        listed: false,
        answer: null,
        meaning: null,
        policy: false,
        delist_url: null,
        since: null,
      }),
      true,
    );
    assert.equal(validate({ ...common, probe: 'origin_http', http_status: 200, location: null }), true);
    // A result from a location: its check_location beside the HTTP probe's own Location header.
    assert.equal(
      validate({ ...common, check_location: 'eu-west', probe: 'public_http', http_status: 301, location: '/x' }),
      true,
    );
    assert.equal(
      validate({ ...common, probe: 'public_tls', tls_valid_to: null, tls_days_left: null, tls_error: null }),
      true,
    );
    assert.equal(validate({ ...common, probe: 'service', banner: 'SSH-2.0-x' }), true);
    assert.equal(
      validate({ ...common, probe: 'service', http_status: 200, location: null }),
      false,
      "a probe with another probe's fields",
    );
    assert.equal(validate({ ...common, probe: 'ping', banner: null }), false);
    const device = document.components.schemas.Device!.properties as Record<string, { enum?: unknown[] }>;
    assert.deepEqual(device.status!.enum, ['pending', 'up', 'validating', 'down', 'paused', 'maintenance']);
    assert.deepEqual(Object.keys(document.components.schemas.DeviceLastResults!.properties ?? {}).sort(), [
      'origin_http',
      'origin_tls',
      'public_http',
      'public_https',
      'public_tls',
      'service',
    ]);
  });

  test('request bodies: int/bool flags are boolean | 0 | 1, integers carry their ranges, unknown fields are refused', () => {
    const input = document.components.schemas.DeviceInput!;
    assert.equal(input.additionalProperties, false);
    assert.deepEqual(input.required, ['target_type', 'target_value']);
    const props = input.properties as Record<string, { anyOf?: unknown[]; maxLength?: number }>;
    assert.deepEqual(props.is_enabled!.anyOf, [
      { type: 'boolean' },
      { type: 'integer', enum: [0, 1] },
      { type: 'null' },
    ]);
    assert.deepEqual(props.port!.anyOf, [{ type: 'integer', minimum: 1, maximum: 65535 }, { type: 'null' }]);
    assert.deepEqual(props.expect_status!.anyOf?.[0], { type: 'integer', minimum: 100, maximum: 599 });
    assert.equal(props.target_value!.maxLength, 253);
    assert.equal((props.host_header!.anyOf?.[0] as { maxLength: number }).maxLength, 261);
    assert.equal((props.location!.anyOf?.[0] as { maxLength: number }).maxLength, 255);
    assert.equal(document.components.schemas.BlacklistMonitorInput!.additionalProperties, false);
  });

  test('request schemas judge field types and ranges as the server does', () => {
    const conformance = createConformance(document);
    const check = (
      schema: string,
      parse: (body: Record<string, unknown>) => unknown,
      body: Record<string, unknown>,
    ) => {
      const validate = conformance.validator({ $ref: `#/components/schemas/${schema}` }, false);
      const documentSays = validate(body);
      let serverSays = true;
      try {
        parse(body);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        // Rules between fields and the target policy are the server's alone; only field-level
        // verdicts are compared.
        const fieldLevel = (error.details ?? []).filter(
          (d) =>
            ['invalid_type', 'invalid_value', 'out_of_range', 'too_long', 'unknown_field', 'missing'].includes(
              d.code,
            ) && !(d.field === 'target_value' && d.code === 'invalid_value'),
        );
        serverSays = fieldLevel.length === 0;
      }
      assert.equal(
        documentSays,
        serverSays,
        `${schema} ${JSON.stringify(body).slice(0, 120)}: document ${documentSays}, server ${serverSays} ${JSON.stringify(validate.errors)}`,
      );
    };
    const options = {
      allowPrivateTargets: false,
      dnsblZones: { ip: ['zen.spamhaus.org'], domain: ['dbl.spamhaus.org'] },
    };
    const device = (body: Record<string, unknown>) => parseDeviceInput(body, options, '2026-01-01T00:00:00.000Z');
    const monitor = (body: Record<string, unknown>) =>
      parseBlacklistMonitorInput(body, options, '2026-01-01T00:00:00.000Z');
    const base = { target_type: 'domain', target_value: 'example.com' };
    const deviceCases: Record<string, unknown>[] = [
      base,
      { ...base, is_enabled: 1 },
      { ...base, is_enabled: 0 },
      { ...base, is_enabled: true },
      { ...base, is_enabled: null },
      { ...base, is_enabled: 2 },
      { ...base, is_enabled: 'true' },
      { ...base, is_enabled: 0.5 },
      { ...base, port: 1 },
      { ...base, port: 65535 },
      { ...base, port: 0 },
      { ...base, port: 65536 },
      { ...base, port: 80.5 },
      { ...base, port: '80' },
      { ...base, expect_status: 99 },
      { ...base, expect_status: 100 },
      { ...base, expect_status: 599 },
      { ...base, expect_status: 600 },
      { ...base, service_type: 'ssh' },
      { ...base, service_type: 'telnet' },
      { ...base, scheme: 'ftp' },
      { ...base, location: 'x'.repeat(255) },
      { ...base, location: 'x'.repeat(256) },
      { ...base, location: 'é'.repeat(255) },
      { ...base, location: 'a\u0007b' },
      { ...base, location: 'a\u0085b' },
      { ...base, expected_status: 200 },
      { target_type: 'domain' },
      { target_value: 'example.com' },
      { ...base, target_type: 'url' },
      { ...base, target_value: 7 },
      { ...base, check_interval_s: 30 },
      { ...base, check_interval_s: 29 },
      { ...base, check_interval_s: 86400 },
      { ...base, check_interval_s: 86401 },
      { ...base, check_interval_s: 60.5 },
      { ...base, check_interval_s: null },
      { ...base, check_interval_s: '60' },
      { ...base, name: 'Shop' },
      { ...base, name: '' },
      { ...base, name: 'x'.repeat(101) },
      { ...base, name: null },
      { ...base, channel_ids: [] },
      { ...base, channel_ids: [3, 1] },
      { ...base, channel_ids: [1, 1] },
      { ...base, channel_ids: [0] },
      { ...base, channel_ids: ['1'] },
      { ...base, channel_ids: Array.from({ length: 101 }, (_, i) => i + 1) },
      { ...base, channel_ids: null },
    ];
    for (const body of deviceCases) check('DeviceInput', device, body);
    for (const body of [
      base,
      { ...base, is_enabled: 0 },
      { ...base, is_enabled: 3 },
      { ...base, service_type: 'web' },
      { target_type: 'ip' },
      { ...base, check_interval_s: 300 },
      { ...base, check_interval_s: 299 },
      { ...base, check_interval_s: 86401 },
      { ...base, check_interval_s: '300' },
    ]) {
      check('BlacklistMonitorInput', monitor, body);
    }
    const channel = (body: Record<string, unknown>) => parseChannelInput(body, options, '2026-01-01T00:00:00.000Z');
    const slack = { name: 'ops', type: 'slack', config: { webhook_url: 'https://hooks.slack.com/services/x' } };
    for (const body of [
      slack,
      { ...slack, type: 'pigeon' },
      { ...slack, name: '' },
      { ...slack, name: 'x'.repeat(100) },
      { ...slack, name: 'x'.repeat(101) },
      { ...slack, config: [] },
      { ...slack, config: 'x' },
      { ...slack, config: {} },
      { ...slack, config: { webhook_url: 'https://hooks.slack.com/x', extra: 1 } },
      // The type decides the config: another type's config is refused by both.
      { ...slack, config: { to: ['a@example.com'] } },
      { ...slack, type: 'email', config: { to: ['a@example.com'] } },
      { ...slack, type: 'email', config: { to: [] } },
      { ...slack, type: 'email', config: { to: ['not an address'] } },
      { ...slack, type: 'telegram', config: { bot_token: '1:abcdefghijklmnopqrstu', chat_id: -100 } },
      { ...slack, type: 'telegram', config: { bot_token: '1:abcdefghijklmnopqrstu', chat_id: '@opsroom' } },
      { ...slack, type: 'telegram', config: { bot_token: 'nope', chat_id: 1 } },
      { ...slack, type: 'pagerduty', config: { routing_key: 'A'.repeat(32) } },
      { ...slack, type: 'pagerduty', config: { routing_key: 'A'.repeat(31) } },
      { ...slack, type: 'pagerduty', config: { routing_key: 'A'.repeat(32), severity: 'info' } },
      { ...slack, type: 'pagerduty', config: { routing_key: 'A'.repeat(32), severity: 'loud' } },
      { ...slack, type: 'ntfy', config: { server_url: 'https://ntfy.sh', topic: 'a_b-c' } },
      { ...slack, type: 'ntfy', config: { server_url: 'https://ntfy.sh', topic: 'a b' } },
      { ...slack, type: 'ntfy', config: { server_url: 'https://ntfy.sh', topic: 't', token: null } },
      { ...slack, type: 'ntfy', config: { server_url: 'https://ntfy.sh', topic: 't', token: 5 } },
      { ...slack, events: [] },
      { ...slack, events: ['device.down', 'device.down'] },
      { ...slack, events: ['channel.disabled'] },
      { ...slack, remind_every_s: 299 },
      { ...slack, remind_every_s: 300 },
      { ...slack, remind_every_s: 604801 },
      { ...slack, escalate_after_s: 59 },
      { ...slack, escalate_after_s: 86400 },
      { ...slack, is_default: 1, send_recovery: false, is_enabled: null },
      { ...slack, is_default: 2 },
      { ...slack, disabled_reason: null },
    ]) {
      check('ChannelInput', channel, body);
    }
  });

  test('the Markdown reference names every operation with its scope and every field of the bodies and records', () => {
    const reference = renderReference(document);
    for (const route of ROUTES)
      assert.match(
        reference,
        new RegExp(`\\| ${route.method} \\| \`${route.path}\` \\| ${route.scope ?? 'any valid key'} \\|`),
      );
    for (const name of ['DeviceInput', 'BlacklistMonitorInput', 'Device', 'BlacklistMonitor']) {
      for (const field of Object.keys(document.components.schemas[name]!.properties ?? {}))
        assert.ok(reference.includes(`| \`${field}\` |`), `${name}.${field}`);
    }
    for (const code of ['duplicate_device', 'invalid_id', 'rate_limit_exceeded', 'payload_too_large'])
      assert.ok(reference.includes(code), code);
  });

  test('basePath and serverUrl set the server URL only: paths stay relative to it', () => {
    assert.deepEqual(
      document.servers.map((s) => s.url),
      ['/v1'],
    );
    const mounted: OpenApiDocument = createOpenApiDocument({ basePath: '/api/monitoring/v1/' });
    assert.deepEqual(
      mounted.servers.map((s) => s.url),
      ['/api/monitoring/v1'],
    );
    assert.deepEqual(Object.keys(mounted.paths), Object.keys(document.paths));
    const absolute = createOpenApiDocument({ serverUrl: 'https://monitoring.example.com/v1' });
    assert.deepEqual(
      absolute.servers.map((s) => s.url),
      ['https://monitoring.example.com/v1'],
    );
    assert.throws(() => createOpenApiDocument({ basePath: 'no slash' }), TypeError);
  });

  test('`monitoring-api openapi` prints the document; bad flags exit 2', async () => {
    let out = '';
    let err = '';
    const io = { stdout: (text: string) => (out += text), stderr: (text: string) => (err += text) };
    assert.equal(await runOpenApiCommand([], io), 0);
    assert.equal(out, serializeOpenApiDocument(document));
    out = '';
    assert.equal(await runOpenApiCommand(['--server-url', 'https://api.example.com/v1'], io), 0);
    assert.equal((JSON.parse(out) as OpenApiDocument).servers[0]!.url, 'https://api.example.com/v1');
    out = '';
    assert.equal(await runOpenApiCommand(['--markdown'], io), 0);
    assert.equal(out, renderReference(document));
    assert.equal(await runOpenApiCommand(['--nope'], io), 2);
    assert.match(err, /--nope/);
    assert.equal(await runOpenApiCommand(['--server-url', 'not a url'], io), 2);
    for (const url of [
      'ftp://x',
      'file:///v1',
      'javascript:alert(1)',
      'ws://host/v1',
      'https://user:secret@host/v1',
      'https://host/v1?x=1',
      'https://host/v1#top',
    ]) {
      err = '';
      out = '';
      assert.equal(await runOpenApiCommand(['--server-url', url], io), 2, url);
      assert.match(err, /--server-url must be/);
      assert.equal(out, '');
    }
    assert.equal(await runOpenApiCommand(['--server-url', 'http://127.0.0.1:8080/v1'], io), 0);
    assert.equal(await runOpenApiCommand(['--base-path', 'v1 x'], io), 2);
  });
});
