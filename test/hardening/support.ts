/**
 * Shared pieces of the hardening suites (issue 6): a raw caller of the core handler (no `Request`
 * object in between, so paths and header values reach the core exactly as node:http would hand
 * them over), the contract's closed set of answers, and an oracle for "is this stored target safe
 * to probe" that is written independently of core/ (node:net and the WHATWG URL parser, with the
 * IANA tables typed in again here), so that a bug in core/ cannot hide itself.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { BlockList, isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, type ApiResponse, type HeaderReader, type MonitoringApi, type Store } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { DETAIL_CODES } from '../support/contract-codes.ts';
import { createTestDatabase } from '../support/postgres.ts';

// ---------------------------------------------------------------------------------------------
// Calling the handler raw
// ---------------------------------------------------------------------------------------------

export interface RawRequest {
  method?: string;
  /** Origin-form or absolute, passed through untouched (node:http does not normalise it either). */
  url: string;
  /** Header names in any case; values as given, even ones `Headers` would refuse. */
  headers?: Record<string, string>;
  body?: string | Uint8Array | AsyncIterable<Uint8Array> | null;
  clientAddress?: string | null;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

class MapHeaders implements HeaderReader {
  readonly #values = new Map<string, string>();
  constructor(headers: Record<string, string>) {
    for (const [name, value] of Object.entries(headers)) this.#values.set(name.toLowerCase(), value);
  }
  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

function bodyOf(body: RawRequest['body']): AsyncIterable<Uint8Array> | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return once(new TextEncoder().encode(body));
  if (body instanceof Uint8Array) return once(body);
  return body;
}

export async function readBody(response: ApiResponse): Promise<string> {
  if (typeof response.body === 'string') return response.body;
  let text = '';
  for await (const chunk of response.body) text += chunk;
  return text;
}

/** Calls `api.handle` the way the node adapter does, and reads the whole answer. */
export async function callRaw(api: MonitoringApi, request: RawRequest): Promise<RawResponse> {
  const response = await api.handle(
    {
      method: request.method ?? 'GET',
      url: request.url,
      headers: new MapHeaders(request.headers ?? {}),
      body: bodyOf(request.body),
    },
    { clientAddress: request.clientAddress === undefined ? '127.0.0.1' : request.clientAddress },
  );
  return { status: response.status, headers: response.headers, text: await readBody(response) };
}

// ---------------------------------------------------------------------------------------------
// The contract's closed set of answers
// ---------------------------------------------------------------------------------------------

export const JSON_TYPE = 'application/json; charset=utf-8';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CALLER_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Every status the contract can answer with, and the codes allowed under it. 500 is not here. */
const CODES_BY_STATUS: ReadonlyMap<number, ReadonlySet<string> | null> = new Map([
  [200, null],
  [201, null],
  [400, new Set(['validation_failed', 'invalid_json', 'invalid_content_type', 'invalid_id'])],
  [401, new Set(['missing_api_key', 'invalid_api_key'])],
  [403, new Set(['ip_not_allowed', 'insufficient_scope'])],
  [
    404,
    new Set([
      'unknown_route',
      'unknown_me_route',
      'unknown_devices_route',
      'unknown_blacklist_monitors_route',
      'device_not_found',
      'blacklist_monitor_not_found',
    ]),
  ],
  [405, new Set(['method_not_allowed'])],
  [409, new Set(['duplicate_device', 'duplicate_blacklist_monitor'])],
  [413, new Set(['payload_too_large'])],
  [429, new Set(['rate_limit_exceeded'])],
]);

/**
 * Words that only appear in an answer when something internal leaked: a stack frame, a driver or
 * engine message, a file path. Checked against the answer minus what the client itself sent (a
 * detail names the client's own field names, which may be anything).
 */
export const LEAK_MARKERS: readonly string[] = [
  '    at ',
  'node_modules',
  '.ts:',
  '.js:',
  'Error:',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'SQLITE',
  'sqlite',
  'PostgreSQL',
  'postgres:',
  'postgres://',
  'pg-protocol',
  'kysely',
  'Kysely',
  'relation "',
  'duplicate key',
  'violates',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'timeout',
  'Connection terminated',
  'canceling statement',
  'valibot',
  'undefined',
  'NaN',
  '[object Object]',
  'stack',
];

export interface AnswerExpectation {
  /** Names the client chose (body keys, query names): they may legitimately be echoed in details. */
  echoes?: readonly string[];
  /** The X-Request-Id the client sent, if any. */
  requestId?: string;
}

export interface CheckedAnswer {
  status: number;
  code: string | null;
  body: {
    success: boolean;
    data?: unknown;
    error?: {
      code: string;
      message: string;
      details?: { field: string; code: string; message: string }[];
      existing_id?: number;
    };
  };
}

/** A header value node:http would send without complaint (no CR, LF or NUL, Latin-1 only). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Holds any answer of the API to docs/contract.md §2-§3: a status from the closed set and a code that
 * belongs to it (never 500), the exact Content-Type, an X-Request-Id that is the caller's own only
 * when safe to echo, the envelope's exact shape, and nothing internal in the text.
 */
export function checkAnswer(res: RawResponse, expectation: AnswerExpectation = {}): CheckedAnswer {
  const where = `${res.status} ${res.text.slice(0, 400)}`;
  assert.ok(CODES_BY_STATUS.has(res.status), `status outside the contract: ${where}`);
  assert.equal(res.headers['content-type'], JSON_TYPE, `content-type of ${where}`);
  for (const [name, value] of Object.entries(res.headers)) {
    assert.ok(
      FIELD_VALUE.test(value),
      `header ${name} carries a character no HTTP field may: ${JSON.stringify(value)}`,
    );
  }
  const id = res.headers['x-request-id'] ?? '';
  if (expectation.requestId !== undefined && CALLER_ID.test(expectation.requestId))
    assert.equal(id, expectation.requestId);
  else assert.match(id, UUID, `x-request-id of ${where}`);

  let body: CheckedAnswer['body'];
  try {
    body = JSON.parse(res.text) as CheckedAnswer['body'];
  } catch {
    assert.fail(`the answer is not JSON: ${where}`);
  }
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `not an envelope: ${where}`);
  const codes = CODES_BY_STATUS.get(res.status);
  if (codes === null) {
    assert.deepEqual(Object.keys(body).sort(), ['data', 'success'], where);
    assert.equal(body.success, true);
    assert.ok(typeof body.data === 'object' && body.data !== null, where);
    return { status: res.status, code: null, body };
  }
  assert.deepEqual(Object.keys(body).sort(), ['error', 'success'], where);
  assert.equal(body.success, false);
  const error = body.error;
  assert.ok(error !== undefined && typeof error === 'object' && error !== null, where);
  assert.ok(codes?.has(error.code), `code ${error.code} does not belong to status ${res.status}: ${where}`);
  assert.equal(typeof error.message, 'string');
  const allowed = new Set(['code', 'message']);
  if (error.code === 'validation_failed') allowed.add('details');
  if (res.status === 409) allowed.add('existing_id');
  for (const name of Object.keys(error)) assert.ok(allowed.has(name), `unexpected error field ${name}: ${where}`);
  if (res.status === 409) assert.ok(Number.isSafeInteger(error.existing_id) && error.existing_id! > 0, where);
  if (res.status === 401) assert.equal(res.headers['www-authenticate'], 'Bearer realm="monitoring"');
  if (res.status === 405) assert.ok(res.headers.allow !== undefined && res.headers.allow !== '', where);
  if (res.status === 429) assert.match(res.headers['retry-after'] ?? '', /^[0-9]+$/, where);
  if (error.code === 'validation_failed') {
    assert.ok(Array.isArray(error.details) && error.details.length > 0, where);
    const fields = new Set<string>();
    for (const detail of error.details) {
      assert.deepEqual(Object.keys(detail).sort(), ['code', 'field', 'message'], where);
      assert.ok(DETAIL_CODES.has(detail.code), `detail code ${detail.code}: ${where}`);
      assert.ok(!fields.has(detail.field), `two details for ${detail.field}: ${where}`);
      fields.add(detail.field);
      assert.ok(detail.message.startsWith(detail.field), `a detail message names its field first: ${where}`);
    }
  }
  // Whatever the client could have put into the answer is taken out before looking for leaks. Most
  // answers hold no marker at all, and need no scrubbing (it was a tenth of the hardening files'
  // CPU, with the fuzzer's many field names).
  if (LEAK_MARKERS.some((marker) => res.text.includes(marker))) {
    let scrubbed = res.text;
    const echoes = [...(expectation.echoes ?? [])].sort((a, b) => b.length - a.length);
    for (const echo of echoes) {
      if (echo !== '') scrubbed = scrubbed.replaceAll(JSON.stringify(echo).slice(1, -1), '');
    }
    for (const marker of LEAK_MARKERS) {
      assert.ok(!scrubbed.includes(marker), `the answer leaks ${JSON.stringify(marker)}: ${where}`);
    }
  }
  return { status: res.status, code: error.code, body };
}

// ---------------------------------------------------------------------------------------------
// An independent oracle for targets
// ---------------------------------------------------------------------------------------------

/**
 * IANA IPv4 Special-Purpose Address Registry (every entry, "globally reachable" or not) and the
 * multicast block (RFC 5771). Typed in again from the registries, not imported from core/.
 */
export const IANA_V4: readonly (readonly [cidr: string, name: string])[] = [
  ['0.0.0.0/8', 'this network'],
  ['0.0.0.0/32', 'this host'],
  ['10.0.0.0/8', 'private-use'],
  ['100.64.0.0/10', 'shared address space (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link local'],
  ['172.16.0.0/12', 'private-use'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.0.0/29', 'IPv4 service continuity prefix'],
  ['192.0.0.8/32', 'IPv4 dummy address'],
  ['192.0.0.9/32', 'PCP anycast'],
  ['192.0.0.10/32', 'TURN anycast'],
  ['192.0.0.170/32', 'NAT64/DNS64 discovery'],
  ['192.0.0.171/32', 'NAT64/DNS64 discovery'],
  ['192.0.2.0/24', 'TEST-NET-1'],
  ['192.31.196.0/24', 'AS112-v4'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private-use'],
  ['192.175.48.0/24', 'direct delegation AS112'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'TEST-NET-2'],
  ['203.0.113.0/24', 'TEST-NET-3'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'limited broadcast'],
];

/**
 * IANA IPv6 Special-Purpose Address Registry, multicast, and the deprecated blocks outside global
 * unicast that RFC 4291/3879 retired. Anything outside 2000::/3 is not public in any case.
 */
export const IANA_V6: readonly (readonly [cidr: string, name: string])[] = [
  ['::1/128', 'loopback'],
  ['::/128', 'unspecified'],
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['64:ff9b::/96', 'IPv4-IPv6 translation'],
  ['64:ff9b:1::/48', 'local-use IPv4-IPv6 translation'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy IPv6 prefix'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001::/32', 'TEREDO'],
  ['2001:1::1/128', 'PCP anycast'],
  ['2001:1::2/128', 'TURN anycast'],
  ['2001:1::3/128', 'DNS-SD SRP anycast'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:3::/32', 'AMT'],
  ['2001:4:112::/48', 'AS112-v6'],
  ['2001:10::/28', 'deprecated ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:30::/28', 'drone remote ID'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'direct delegation AS112'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'SRv6 SIDs'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
];

function blockListOf(entries: readonly (readonly [string, string])[], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [cidr] of entries) {
    const [network, bits] = cidr.split('/');
    list.addSubnet(network!, Number(bits), family);
  }
  return list;
}

const SPECIAL_V4 = blockListOf(IANA_V4, 'ipv4');
const SPECIAL_V6 = blockListOf(IANA_V6, 'ipv6');
const GLOBAL_UNICAST = blockListOf([['2000::/3', 'global unicast']], 'ipv6');

/** Whether an address (as node:net reads it) is public by the tables above. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !SPECIAL_V4.check(address, 'ipv4');
  if (family === 6) return GLOBAL_UNICAST.check(address, 'ipv6') && !SPECIAL_V6.check(address, 'ipv6');
  return false;
}

/** Special-use names of docs/contract.md §5: the name itself and everything under it. */
const SPECIAL_NAMES = ['localhost', 'local', 'internal', 'test', 'invalid', 'example', 'home.arpa'];

/** What a checker building `http://<host>/` would connect to, as the WHATWG URL parser reads it. */
export function hostAsUrlSees(host: string): string | null {
  try {
    const literal = host.includes(':') ? `[${host}]` : host;
    const hostname = new URL(`http://${literal}/`).hostname;
    return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  } catch {
    return null;
  }
}

/**
 * Asserts that a stored host (target_value or origin_host) is one spelling that every parser
 * reads alike and, unless private targets are allowed, a public one: the URL parser sees exactly
 * the stored text (no `127.1` turning into `127.0.0.1` later), an address is of the declared kind,
 * a name is plain lower-case ASCII that no parser takes for an address and is no special-use name.
 */
export function assertSafeHost(
  stored: unknown,
  kind: 'ip' | 'domain' | 'either',
  allowPrivate: boolean,
  context = '',
): void {
  assert.equal(typeof stored, 'string', context);
  const host = stored as string;
  const seen = hostAsUrlSees(host);
  assert.equal(
    seen,
    host,
    `${context}: stored ${JSON.stringify(host)} but a URL parser connects to ${JSON.stringify(seen)}`,
  );
  const family = isIP(host);
  if (kind === 'ip') assert.notEqual(family, 0, `${context}: an ip target that is no address: ${host}`);
  if (kind === 'domain') assert.equal(family, 0, `${context}: a domain target that is an address: ${host}`);
  if (family !== 0) {
    if (!allowPrivate) assert.ok(isPublicAddress(host), `${context}: ${host} is not publicly routable`);
    return;
  }
  assert.match(
    host,
    /^[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+$/,
    `${context}: ${JSON.stringify(host)} is not a plain ASCII name`,
  );
  assert.ok(host.length <= 253, `${context}: name longer than 253`);
  assert.ok(
    !/^(?:[0-9]+|0x[0-9a-f]*)$/.test(host.slice(host.lastIndexOf('.') + 1)),
    `${context}: numeric last label ${host}`,
  );
  if (!allowPrivate) {
    for (const suffix of SPECIAL_NAMES) {
      assert.ok(host !== suffix && !host.endsWith(`.${suffix}`), `${context}: ${host} is a special-use name`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

export type PostgresDatabase = { url: string; drop(): Promise<void> };

/** Says once, in the suite's output, that its PostgreSQL tests are skipped and why. */
export function warnPostgresSkipped(reason: string): void {
  console.warn(`[test/hardening] PostgreSQL tests skipped: ${reason} (set CI=true to make this a failure)`);
}

/**
 * A fresh database of its own (with `{ migrated: true }`, a copy of the run's migrated template),
 * or the reason why not. Under CI=true an unreachable server makes createTestDatabase throw, so
 * the calling suite fails rather than skipping.
 */
export async function postgresOrSkip(
  options: { migrated?: boolean } = {},
): Promise<PostgresDatabase | { skip: string }> {
  const database = await createTestDatabase(options);
  if (database.skip !== undefined) {
    warnPostgresSkipped(database.skip);
    return { skip: database.skip };
  }
  return database;
}

/** Same-port URL with a different host:port, to route a store through a proxy. */
export function viaPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}

// ---------------------------------------------------------------------------------------------
// Stores
// ---------------------------------------------------------------------------------------------

export interface HardeningStore {
  store: Store;
  close(): Promise<void>;
}

export interface HardeningStoreFactory {
  name: 'memory' | 'sqlite' | 'postgres';
  /** A new, empty, migrated store, or why it cannot run here (PostgreSQL outside CI only). */
  open(): Promise<HardeningStore | { skip: string }>;
}

/** The memory store, SQLite in a temporary file, and PostgreSQL in a database of its own. */
export const STORE_FACTORIES: readonly HardeningStoreFactory[] = [
  {
    name: 'memory',
    async open() {
      const store = new MemoryStore();
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'sqlite',
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'monitoring-hardening-'));
      const { store, db } = await openKyselyStore(`sqlite:${join(dir, 'test.db')}`);
      await migrateToLatest(db);
      return {
        store,
        async close() {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    async open() {
      const database = await postgresOrSkip({ migrated: true });
      if ('skip' in database) return database;
      const { store, db } = await openKyselyStore(database.url, { onPoolError: () => {} });
      await migrateToLatest(db);
      return {
        store,
        async close() {
          await store.close();
          await database.drop();
        },
      };
    },
  },
];

/**
 * A 500 exactly as docs/contract.md §2 step 8 words it: the envelope with `code` and `message` only, the
 * code given, and nothing internal (stack, SQL, driver or network text) anywhere in the answer.
 */
export function assertServerError(res: RawResponse, code: 'server_error' | 'missing_table' = 'server_error'): void {
  const where = `${res.status} ${res.text.slice(0, 300)}`;
  assert.equal(res.status, 500, where);
  assert.equal(res.headers['content-type'], JSON_TYPE);
  assert.match(res.headers['x-request-id'] ?? '', UUID);
  const body = JSON.parse(res.text) as { success: boolean; error: Record<string, unknown> };
  assert.deepEqual(Object.keys(body).sort(), ['error', 'success'], where);
  assert.equal(body.success, false);
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message'], where);
  assert.equal(body.error.code, code, where);
  const everything =
    res.text +
    Object.entries(res.headers)
      .map(([n, v]) => `${n}: ${v}`)
      .join('\n');
  for (const marker of LEAK_MARKERS)
    assert.ok(!everything.includes(marker), `the 500 leaks ${JSON.stringify(marker)}: ${everything}`);
}

// ---------------------------------------------------------------------------------------------
// Servers in processes of their own
// ---------------------------------------------------------------------------------------------
