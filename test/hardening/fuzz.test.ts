/**
 * Issue 6, item 1: property-based fuzzing of everything a client controls (create bodies, query
 * strings, paths and methods, headers, hosts) through the core handler, on the memory store and on
 * the database stores. Every answer must be one the contract names (never a 500), in the exact
 * envelope, with nothing internal in it; whatever is stored must be safe to probe.
 *
 * FUZZ_SEED (default fixed; `random` for a new one) and FUZZ_RUNS (runs per property) steer it:
 * `npm test` runs the fixed seed briefly, `npm run fuzz` a long run with a random seed. A failure
 * prints the seed and the shrunk counterexample; rerun with FUZZ_SEED=<seed> to replay it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { createMonitoringApi, type CreatedApiKey, type MonitoringApi, type Store } from '../../core/index.ts';
import { binaryString, bodyBytes, fuzzParameters, hostSpelling, specialSpelling } from './arbitraries.ts';
import {
  assertSafeHost,
  callRaw,
  checkAnswer,
  STORE_FACTORIES,
  type CheckedAnswer,
  type RawResponse,
} from './support.ts';
import { DEVICE_FIELDS, MONITOR_FIELDS } from '../support/record-fields.ts';
import { DETAIL_CODES } from '../support/contract-codes.ts';

const { seed, runs } = fuzzParameters(100);
console.log(`[fuzz] seed=${seed} runs=${runs} (replay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs})`);

/** Runs per property on a database store: each run is a round trip or two. */
const dbRuns = Math.max(10, Math.ceil(runs / 4));

const BODY_LIMIT = 16 * 1024;
const DEVICE_KEYS = [...DEVICE_FIELDS].sort();
const MONITOR_KEYS = [...MONITOR_FIELDS].sort();
/** Fields the server fills in itself: never part of a create body. */
const READ_ONLY = new Set([
  'id',
  'created_at',
  'status',
  'status_since',
  'last_checked_at',
  'last_results',
  'quorum_state',
  'locations',
]);
const DEVICE_INPUT = new Set(DEVICE_KEYS.filter((k) => !READ_ONLY.has(k)));
const MONITOR_INPUT = new Set([
  'target_type',
  'target_value',
  'is_enabled',
  'check_interval_s',
  'zones',
  'count_policy_listings',
]);
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

interface Fixture {
  name: string;
  api: MonitoringApi;
  /** The same store, with allowPrivateTargets: true. */
  lax: MonitoringApi;
  key: CreatedApiKey;
  /** Anything the API logged as an unexpected failure: must stay empty. */
  failures: unknown[];
  close(): Promise<void>;
}

async function fixture(name: string, store: Store, closeStore: () => Promise<void>): Promise<Fixture> {
  const failures: unknown[] = [];
  const options = {
    store,
    // Limits out of the way: the fuzzer sends thousands of requests with one key from one address.
    rateLimit: { limit: 1e9, windowSeconds: 60 },
    authFailureLimit: { limit: 1e9, windowSeconds: 60 },
    trustProxy: ['127.0.0.0/8', '::1'],
    logger: { error: (_message: string, error: unknown) => void failures.push(error) },
  };
  const api = createMonitoringApi(options);
  const lax = createMonitoringApi({ ...options, allowPrivateTargets: true });
  const user = await api.keys.createUser({ name: 'fuzz' });
  const key = await api.keys.createApiKey({ userId: user.id });
  return {
    name,
    api,
    lax,
    key,
    failures,
    async close() {
      await api.close();
      await lax.close();
      await closeStore();
    },
  };
}

const auth = (key: CreatedApiKey) => ({ authorization: `Bearer ${key.token}` });

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decode(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A stored record holds what the contract says and nothing a checker could be tricked by. */
function checkStored(
  kind: 'device' | 'monitor',
  input: Record<string, unknown>,
  data: unknown,
  allowPrivate: boolean,
): void {
  assert.ok(isPlainObject(data));
  assert.deepEqual(Object.keys(data).sort(), kind === 'device' ? DEVICE_KEYS : MONITOR_KEYS);
  assert.ok(Number.isSafeInteger(data.id) && (data.id as number) > 0);
  // What was validated is what is stored: with a key given twice, JSON.parse keeps the last one.
  assert.equal(data.target_type, input.target_type);
  assertSafeHost(data.target_value, data.target_type as 'ip' | 'domain', allowPrivate, 'target_value');
  assert.equal(typeof data.is_enabled, 'boolean');
  const interval = data.check_interval_s;
  assert.ok(
    Number.isInteger(interval) &&
      (interval as number) >= (kind === 'device' ? 30 : 300) &&
      (interval as number) <= 86400,
    'check_interval_s',
  );
  if (kind === 'monitor') {
    assert.equal(data.last_status, null);
    assert.deepEqual(data.listed_on, []);
    assert.deepEqual(data.failed_zones, []);
    assert.deepEqual([data.listings, data.rdns], [[], null]);
    assert.equal(typeof data.count_policy_listings, 'boolean');
    assert.ok(data.zones === null || (Array.isArray(data.zones) && data.zones.length > 0), 'zones');
    return;
  }
  // Never checked yet: the engine's fields as a create leaves them.
  assert.equal(data.status, data.is_enabled === true ? 'pending' : 'paused');
  assert.deepEqual([data.status_since, data.last_checked_at, data.last_results], [null, null, {}]);
  for (const flag of [
    'proxy_enabled',
    'check_public_http',
    'check_public_https',
    'check_public_tls',
    'check_origin_http',
    'check_origin_tls',
  ]) {
    assert.equal(typeof data[flag], 'boolean', flag);
  }
  assert.ok(Number.isInteger(data.port) && (data.port as number) >= 1 && (data.port as number) <= 65535, 'port');
  if (data.origin_host !== null) assertSafeHost(data.origin_host, 'either', allowPrivate, 'origin_host');
  for (const field of ['location', 'host_header'] as const) {
    const value: unknown = data[field];
    if (value === null) continue;
    assert.equal(typeof value, 'string');
    assert.ok(
      (value as string).isWellFormed() && !CONTROL.test(value as string),
      `${field} stored with a control character or a lone surrogate`,
    );
    assert.equal(value, input[field], `${field} is stored as given`);
  }
}

/**
 * One create through the handler, judged against an oracle that reads the same bytes itself: wrong
 * media type or a charset other than UTF-8 → 400 invalid_content_type, too big → 413, not UTF-8
 * JSON of an object → 400 invalid_json, else 201 (safe record), 409, or 400 validation_failed
 * naming only fields the body had or the schema knows, every stranger as unknown_field.
 */
async function fuzzCreate(
  api: MonitoringApi,
  key: CreatedApiKey,
  kind: 'device' | 'monitor',
  bytes: Uint8Array,
  contentType: string,
  allowPrivate: boolean,
): Promise<CheckedAnswer> {
  const path = kind === 'device' ? '/v1/devices/create' : '/v1/blacklist-monitors/create';
  const res = await callRaw(api, {
    method: 'POST',
    url: path,
    headers: { ...auth(key), 'content-type': contentType },
    body: bytes,
  });
  const text = decode(bytes);
  let parsed: unknown;
  let parses = false;
  if (text !== undefined) {
    try {
      parsed = JSON.parse(text);
      parses = true;
    } catch {
      parses = false;
    }
  }
  const echoes = isPlainObject(parsed) ? Object.keys(parsed) : [];
  const answer = checkAnswer(res, { echoes });
  // JSON, and UTF-8 when a charset is declared at all.
  const json =
    /^application\/json\s*(;|$)/i.test(contentType.trim()) &&
    !/;\s*charset\s*=\s*(?!"?utf-?8"?\s*(;|$))/i.test(contentType);
  if (!json) {
    assert.equal(answer.code, 'invalid_content_type');
  } else if (bytes.byteLength > BODY_LIMIT) {
    assert.equal(answer.code, 'payload_too_large');
  } else if (!parses || !isPlainObject(parsed)) {
    assert.equal(answer.code, 'invalid_json', `not a JSON object, yet ${res.status} ${res.text.slice(0, 200)}`);
  } else {
    assert.ok([201, 400, 409].includes(res.status), `${res.status} ${res.text.slice(0, 200)}`);
    const known = kind === 'device' ? DEVICE_INPUT : MONITOR_INPUT;
    if (res.status === 400) {
      assert.equal(answer.code, 'validation_failed');
      const details = answer.body.error?.details ?? [];
      for (const detail of details) {
        assert.ok(
          known.has(detail.field) || Object.hasOwn(parsed, detail.field),
          `a detail for a field nobody sent: ${detail.field}`,
        );
        assert.ok(DETAIL_CODES.has(detail.code));
      }
      for (const name of Object.keys(parsed)) {
        if (!known.has(name))
          assert.ok(
            details.some((d) => d.field === name && d.code === 'unknown_field'),
            `stranger ${JSON.stringify(name)} not reported`,
          );
      }
    } else if (res.status === 201) {
      for (const name of Object.keys(parsed))
        assert.ok(known.has(name), `stored despite the stranger ${JSON.stringify(name)}`);
      checkStored(kind, parsed, answer.body.data, allowPrivate);
    }
  }
  return answer;
}

const contentTypes = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json;charset=utf-16',
      ' application/json ',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'application/json-patch+json',
      '',
      'multipart/form-data; boundary=x',
    ),
  },
);

function noPollution(before: readonly string[]): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before, 'Object.prototype was changed');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
}

// ---------------------------------------------------------------------------------------------

const queryName = fc.oneof(
  fc.constantFrom(
    'limit',
    'after_id',
    'id',
    'LIMIT',
    'limit ',
    'limit[]',
    'id[]',
    '',
    'after-id',
    '__proto__',
    'constructor',
  ),
  binaryString(8),
);
const queryValue = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '50',
    '1000',
    '1001',
    '0',
    '-1',
    '01',
    '1e3',
    '0x10',
    ' 1',
    '1 ',
    '１',
    '9007199254740991',
    '9007199254740992',
    '99999999999999999',
    '',
    '+1',
    '1.0',
    'NaN',
    'Infinity',
    '1,2',
    '00000000000000001',
  ),
  binaryString(10),
);
/** encodeURIComponent, except that a lone surrogate becomes U+FFFD instead of a URIError. */
const percentEncode = (text: string) => encodeURIComponent(text.toWellFormed());

const query = fc
  .array(fc.tuple(queryName, queryValue, fc.constantFrom('encoded', 'raw', 'bare')), { maxLength: 4 })
  .chain((pairs) =>
    fc.constantFrom('', '&', '&&').map((sep) =>
      pairs
        .map(([n, v, how]) => {
          if (how === 'bare') return n;
          return how === 'encoded' ? `${percentEncode(n)}=${percentEncode(v)}` : `${n}=${v}`;
        })
        .join(sep || '&'),
    ),
  );

const ROUTES = [
  { method: 'GET', path: '/v1/devices' },
  { method: 'GET', path: '/v1/blacklist-monitors' },
  { method: 'GET', path: '/v1/me' },
  { method: 'DELETE', path: '/v1/devices/delete' },
  { method: 'DELETE', path: '/v1/blacklist-monitors/delete' },
  { method: 'POST', path: '/v1/devices/create' },
  { method: 'POST', path: '/v1/blacklist-monitors/create' },
  { method: 'GET', path: '/v1/devices/results' },
  { method: 'GET', path: '/v1/blacklist-monitors/results' },
] as const;
const RESOURCES = new Set(['devices', 'blacklist-monitors', 'me']);

const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'devices',
    'blacklist-monitors',
    'me',
    'create',
    'delete',
    'results',
    '',
    '.',
    '..',
    '%2e%2e',
    '%2F',
    'V1',
    'Devices',
    'blacklist_monitors',
    'devices;x',
    'me.json',
    '%00',
    '\\',
    'devices%2Fcreate',
    '%76%31',
  ),
  binaryString(8),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,40}$/),
);
const rawPath = fc
  .tuple(
    fc.constantFrom('', '', '', 'http://evil.example', 'https://127.0.0.1:1', '//'),
    fc.array(segment, { minLength: 0, maxLength: 5 }),
    fc.constantFrom('', '', '/', '?', '?x=1', '#frag', '?#'),
    fc.boolean(),
  )
  .map(([prefix, segments, end, v1]) => `${prefix}/${v1 ? ['v1', ...segments] : segments}`.replaceAll(',', '/') + end);
const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'get', 'M-SEARCH', 'PROPFIND'),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,12}$/) },
);

/** The path the core routes on, cut like node:http hands it over (scheme and authority, then ?/#). */
function routedPath(raw: string): string {
  const withoutAuthority = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw)
    ? raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/'
    : raw;
  return withoutAuthority.split(/[?#]/, 1)[0]!;
}

// ---------------------------------------------------------------------------------------------

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A token that differs from `token`: one character changed, case flipped, cut, extended, or padded. */
function nearMiss(token: string): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc
        .tuple(fc.integer({ min: 0, max: token.length - 1 }), fc.integer({ min: 1, max: B64URL.length - 1 }))
        .map(([at, shift]) => {
          const char = token[at]!;
          const index = B64URL.indexOf(char);
          const replacement = index === -1 ? 'A' : B64URL[(index + shift) % B64URL.length]!;
          return token.slice(0, at) + replacement + token.slice(at + 1);
        }),
      fc.constant(token.toUpperCase()),
      fc.constant(token.toLowerCase()),
      fc.integer({ min: 0, max: token.length - 1 }).map((n) => token.slice(0, n)),
      fc.constantFrom('A', '=', '==', '.', '~', '+', '/').map((x) => token + x),
      fc.constant(token.slice(1)),
      fc.constant(`${token}${token}`),
    )
    .filter((t) => t !== token);
}

// ---------------------------------------------------------------------------------------------

for (const factory of STORE_FACTORIES) {
  describe(`fuzz (${factory.name})`, { concurrency: 1 }, () => {
    let f: Fixture | undefined;
    let skip: string | undefined;
    const n = factory.name === 'memory' ? runs : dbRuns;
    const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

    before(async () => {
      const opened = await factory.open();
      if ('skip' in opened) skip = opened.skip;
      else f = await fixture(factory.name, opened.store, () => opened.close());
    });
    after(async () => {
      await f?.close();
    });

    /** What stores nothing is fuzzed on the memory store only: a database would add nothing to it. */
    const requestTest = (name: string, fn: (t: TestContext) => Promise<void>): void => {
      if (factory.name === 'memory') test(name, fn);
    };

    /** The fixture, or a skip of this test with the reason (PostgreSQL missing outside CI). */
    function ready(t: { skip(message?: string): void }): Fixture | undefined {
      if (skip !== undefined) t.skip(skip);
      return f;
    }

    test('create bodies: any bytes, any media type, never a 500, and whatever is stored is safe', async (t) => {
      const fx = ready(t);
      if (fx === undefined) return;
      let executed = 0;
      await fc.assert(
        fc.asyncProperty(
          bodyBytes,
          contentTypes,
          fc.constantFrom('device', 'monitor'),
          fc.boolean(),
          async (bytes, contentType, kind, lax) => {
            executed++;
            await fuzzCreate(lax ? fx.lax : fx.api, fx.key, kind as 'device' | 'monitor', bytes, contentType, lax);
          },
        ),
        { seed, numRuns: n * 4, includeErrorInReport: true },
      );
      assert.ok(executed >= n * 4, `only ${executed} of ${n * 4} runs happened`);
      noPollution(prototypeNames);
      assert.deepEqual(fx.failures, []);
    });

    test('hosts: no spelling of a special-purpose address or name is ever stored; what is stored is one unambiguous spelling', async (t) => {
      const fx = ready(t);
      if (fx === undefined) return;
      let unique = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(hostSpelling, specialSpelling),
          fc.constantFrom('ip', 'domain', 'origin_host', 'monitor-ip', 'monitor-domain'),
          fc.boolean(),
          async (host, where, lax) => {
            const api = lax ? fx.lax : fx.api;
            let path = '/v1/devices/create';
            let body: Record<string, unknown>;
            let field = 'target_value';
            if (where === 'origin_host') {
              field = 'origin_host';
              body = {
                target_type: 'domain',
                target_value: `o${unique++}.fuzz.example.net`,
                proxy_enabled: true,
                origin_host: host,
              };
            } else if (where.startsWith('monitor-')) {
              path = '/v1/blacklist-monitors/create';
              body = { target_type: where.slice('monitor-'.length), target_value: host };
            } else {
              body = { target_type: where, target_value: host };
            }
            const res = await callRaw(api, {
              method: 'POST',
              url: path,
              headers: { ...auth(fx.key), 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            const answer = checkAnswer(res);
            assert.ok([201, 400, 409].includes(res.status), `${res.status} ${res.text}`);
            if (res.status === 400) {
              const details = answer.body.error?.details ?? [];
              assert.deepEqual(
                details.map((d) => d.field),
                [field],
                res.text,
              );
              assert.ok(['invalid_value', 'forbidden_target', 'too_long'].includes(details[0]!.code), res.text);
            }
            if (res.status === 201) {
              const data = answer.body.data as Record<string, unknown>;
              const stored = field === 'origin_host' ? data.origin_host : data.target_value;
              const kind = field === 'origin_host' ? 'either' : (body.target_type as 'ip' | 'domain');
              assertSafeHost(stored, kind, lax, `${JSON.stringify(host)} as ${where}`);
            }
          },
        ),
        { seed, numRuns: n * 4, includeErrorInReport: true },
      );
      assert.deepEqual(fx.failures, []);
    });

    requestTest('query strings on every route: only documented parameters, once each, pass', async (t) => {
      const fx = ready(t);
      if (fx === undefined) return;
      // Something to list and delete.
      for (let i = 0; i < 5; i++) {
        await callRaw(fx.api, {
          method: 'POST',
          url: '/v1/devices/create',
          headers: { ...auth(fx.key), 'content-type': 'application/json' },
          body: `{"target_type":"domain","target_value":"q${i}.example.org"}`,
        });
      }
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ROUTES), query, async (route, q) => {
          const url = `${route.path}?${q}`;
          const body = route.method === 'POST' ? `{"target_type":"domain","target_value":"qs.example.org"}` : undefined;
          const res = await callRaw(fx.api, {
            method: route.method,
            url,
            headers: { ...auth(fx.key), 'content-type': 'application/json' },
            body,
          });
          // A fragment is never part of the query (RFC 3986 §3.5); the core cuts it off like a URL parser.
          const sent = q.split('#', 1)[0]!;
          const params = [...new URLSearchParams(sent)];
          const answer = checkAnswer(res, { echoes: params.map(([name]) => name) });
          const names = params.map(([name]) => name);
          const allowed = route.path.endsWith('/delete')
            ? ['id']
            : route.path.endsWith('/results')
              ? ['id', 'limit', 'before_id']
              : route.path === '/v1/devices' || route.path === '/v1/blacklist-monitors'
                ? ['limit', 'after_id']
                : [];
          const clean = names.every((name) => allowed.includes(name)) && new Set(names).size === names.length;
          if (res.status < 300 || res.status === 404 || res.status === 409) {
            assert.ok(clean, `${route.method} ${url} passed with parameters ${JSON.stringify(names)}: ${res.status}`);
          }
          if (route.path.endsWith('/delete') || route.path.endsWith('/results')) {
            assert.ok([200, 400, 404].includes(res.status), `${res.status} ${res.text}`);
            if (res.status !== 400) assert.match(new URLSearchParams(sent).get('id') ?? '', /^0*[0-9]{1,16}$/);
          } else if (route.method === 'GET') {
            assert.ok([200, 400].includes(res.status), `${res.status} ${res.text}`);
            if (res.status === 400) assert.equal(answer.code, 'validation_failed');
            const limit = new URLSearchParams(sent).get('limit');
            if (res.status === 200 && limit !== null && route.path !== '/v1/me') {
              assert.ok((answer.body.data as unknown[]).length <= Number(limit));
            }
          } else {
            assert.ok([201, 400, 409].includes(res.status), `${res.status} ${res.text}`);
          }
        }),
        { seed, numRuns: n * 3, includeErrorInReport: true },
      );
      assert.deepEqual(fx.failures, []);
    });

    requestTest(
      'paths and methods: only the exact routes answer 2xx; everything else is 404/405 with the right code',
      async (t) => {
        const fx = ready(t);
        if (fx === undefined) return;
        await fc.assert(
          fc.asyncProperty(rawPath, method, async (url, verb) => {
            const res = await callRaw(fx.api, {
              method: verb,
              url,
              headers: { ...auth(fx.key), 'content-type': 'application/json' },
              body:
                verb === 'GET' || verb === 'HEAD'
                  ? undefined
                  : `{"target_type":"domain","target_value":"p.example.org"}`,
            });
            const answer = checkAnswer(res);
            const path = routedPath(url);
            const relative = path.startsWith('/v1/') ? path.slice(3) : null;
            const routePath = relative?.endsWith('/') && relative.length > 1 ? relative.slice(0, -1) : relative;
            const matches = ROUTES.filter((route) => route.path === `/v1${routePath ?? '\u0000'}`);
            if (res.status < 300) {
              assert.ok(
                matches.some((route) => route.method === verb),
                `${verb} ${JSON.stringify(url)} answered ${res.status}`,
              );
            }
            if (matches.length > 0 && !matches.some((route) => route.method === verb)) {
              assert.equal(res.status, 405, `${verb} ${JSON.stringify(url)}: ${res.status} ${res.text}`);
              assert.equal(res.headers.allow, matches.map((route) => route.method).join(', '));
            }
            if (res.status === 404) {
              const code = answer.code ?? '';
              if (code.startsWith('unknown_') && code !== 'unknown_route') {
                const first = (routePath ?? '').split('/')[1] ?? '';
                assert.ok(RESOURCES.has(first), `${code} names no resource of the API for ${JSON.stringify(url)}`);
                assert.equal(code, `unknown_${first.replaceAll('-', '_')}_route`);
              }
              if (code.endsWith('_not_found')) {
                assert.ok(
                  routePath?.endsWith('/delete') === true || routePath?.endsWith('/results') === true,
                  `${code} outside a delete or results: ${JSON.stringify(url)}`,
                );
              }
            }
          }),
          { seed, numRuns: n * 3, includeErrorInReport: true },
        );
        assert.deepEqual(fx.failures, []);
      },
    );

    requestTest(
      'headers: only Bearer <the exact token> authenticates; request ids, media types, lengths and forwarding headers never break an answer',
      async (t) => {
        const fx = ready(t);
        if (fx === undefined) return;
        const token = fx.key.token;
        const tokenVariant = fc.oneof(
          { weight: 2, arbitrary: fc.constant(token) },
          { weight: 3, arbitrary: nearMiss(token) },
          { weight: 1, arbitrary: binaryString(60) },
        );
        const authorization = fc.oneof(
          {
            weight: 4,
            arbitrary: fc
              .tuple(
                fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token', 'Bearer:', '', 'Bearer\t'),
                fc.constantFrom(' ', '  ', '\t', ''),
                tokenVariant,
                fc.constantFrom('', ' ', '  ', '\t', ',', `, Bearer ${token}`, '\r\n'),
              )
              .map(([scheme, space, value, trailing]) => `${scheme}${space}${value}${trailing}`),
          },
          { weight: 1, arbitrary: binaryString(80) },
        );
        const requestId = fc.oneof(
          fc.constantFrom('abc', 'a'.repeat(64), 'a'.repeat(65), 'x\r\nSet-Cookie: a=b', '../../x', 'trace-1.2_3', ''),
          binaryString(70),
        );
        const forwarded = fc.oneof(
          fc.constantFrom(
            'for=127.1',
            'for="[::1]"',
            'for=unknown',
            'for=0x7f.1;proto=https',
            'for="',
            'for=1.2.3.4, for=_hidden',
          ),
          binaryString(40),
        );
        const xff = fc.oneof(
          fc.constantFrom('127.1', '2130706433', '::ffff:7f00:1', '1.2.3.4, 10.0.0.1', ',,,', '[::1]:80'),
          binaryString(40),
        );
        const contentLength = fc.oneof(
          fc.constantFrom('0', '-1', '1e3', 'abc', '99999999999999999999', '16385', ' 5', '0x10', 'Infinity'),
          fc.nat().map(String),
        );
        const peer = fc.constantFrom(
          '127.0.0.1',
          '::1',
          '::ffff:127.0.0.1',
          '203.0.113.9',
          'fe80::1%eth0',
          null,
          'garbage',
        );
        await fc.assert(
          fc.asyncProperty(
            fc.option(authorization, { nil: undefined }),
            fc.option(requestId, { nil: undefined }),
            fc.option(forwarded, { nil: undefined }),
            fc.option(xff, { nil: undefined }),
            fc.option(contentLength, { nil: undefined }),
            peer,
            fc.constantFrom('GET /v1/me', 'POST /v1/blacklist-monitors/create'),
            async (authz, id, fwd, xf, length, clientAddress, call) => {
              const headers: Record<string, string> = { 'content-type': 'application/json' };
              if (authz !== undefined) headers.authorization = authz;
              if (id !== undefined) headers['x-request-id'] = id;
              if (fwd !== undefined) headers.forwarded = fwd;
              if (xf !== undefined) headers['x-forwarded-for'] = xf;
              if (length !== undefined) headers['content-length'] = length;
              const [verb, url] = call.split(' ') as [string, string];
              const res: RawResponse = await callRaw(fx.api, {
                method: verb,
                url,
                headers,
                clientAddress,
                body: verb === 'POST' ? `{"target_type":"domain","target_value":"h.example.org"}` : undefined,
              });
              const answer = checkAnswer(res, { requestId: id });
              // The scheme is case-insensitive (RFC 9110), the token is not.
              const authenticates = authz !== undefined && /^bearer +(\S+) *$/i.exec(authz)?.[1] === token;
              if (authenticates) {
                assert.notEqual(res.status, 401, `${JSON.stringify(authz)} was refused`);
              } else {
                assert.equal(res.status, 401, `${JSON.stringify(authz)} got ${res.status}`);
                const blank = authz === undefined || authz.trim() === '';
                assert.equal(answer.code, blank ? 'missing_api_key' : 'invalid_api_key');
              }
            },
          ),
          { seed, numRuns: n * 4, includeErrorInReport: true },
        );
        assert.deepEqual(fx.failures, []);
      },
    );
  });
}
