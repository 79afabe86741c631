/**
 * Shared scaffolding of the API suites: run a suite once per store, make an API over that store,
 * and check envelopes exactly as docs/contract.md §3 words them. Every API made here checks each
 * of its answers against the OpenAPI document as it gives them (test/openapi/conforming-api.ts).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe } from 'node:test';
import type { Store } from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import {
  createTestApi as createKitTestApi,
  type TestApi,
  type TestApiOptions,
  type TestBody,
  type TestResponse,
} from '../../core/testing/index.ts';
import { checkAnswersAgainstDocument } from '../openapi/conforming-api.ts';
import { availableStores, type OpenedStore, type StoreFactory, type StoreName } from '../support/stores.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';

export { DEVICE_FIELDS, MONITOR_FIELDS } from '../support/record-fields.ts';

export const STORES: StoreFactory[] = await availableStores();

export const JSON_TYPE = 'application/json; charset=utf-8';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const START = '2026-01-01T00:00:00.000Z';

/**
 * The engine's fields of a device that was never checked (docs/engine.md, "What the API shows"),
 * and the name and channels of one created without them (docs/notifications.md, "Which channels").
 */
export const UNCHECKED = {
  check_interval_s: 60,
  check_locations: null,
  quorum: null,
  quorum_state: null,
  locations: null,
  status: 'pending',
  status_since: null,
  last_checked_at: null,
  last_results: {},
  name: null,
  channel_ids: null,
} as const;
/** The same, for a device created disabled. */
export const UNCHECKED_PAUSED = { ...UNCHECKED, status: 'paused' } as const;

export const DETAIL_CODES = [
  'missing',
  'invalid_type',
  'invalid_value',
  'out_of_range',
  'too_long',
  'unknown_field',
  'forbidden_target',
  'not_applicable',
  'read_only_field',
] as const;

/**
 * The testing kit's API, checking every answer it gives against the OpenAPI document: the API
 * suites make their APIs with this, never with the kit's own `createTestApi`.
 */
export function createTestApi(options: TestApiOptions = {}): TestApi {
  const t = createKitTestApi(options);
  checkAnswersAgainstDocument(t.api);
  return t;
}

export interface Env {
  readonly name: StoreName;
  /** This suite's store (opened in `before`, shared by the suite's tests). */
  readonly store: Store;
  /** A new API over this suite's store: its own manual clock, rate limiter and key cache. */
  api(options?: TestApiOptions): TestApi;
  /** An API and a read+write key of a fresh user. */
  setup(options?: TestApiOptions): Promise<{ t: TestApi; key: CreatedApiKey }>;
}

/**
 * Defines `body`'s tests once per store, as `title (memory)`, `title (sqlite)`, `title (postgres)`.
 * One store per suite; each test isolates itself by making its own users and keys.
 */
export function eachStore(
  title: string,
  body: (env: Env) => void,
  stores: readonly StoreName[] = ['memory', 'sqlite', 'postgres'],
): void {
  // The stores' suites run side by side (each is sequential inside): the database ones mostly wait.
  describe(title, { concurrency: true }, () => {
    for (const factory of STORES.filter((f) => stores.includes(f.name))) {
      suiteOrSkip(`${title} (${factory.name})`, factory.skip, { concurrency: 1 }, () => {
        let opened: OpenedStore | undefined;
        const apis: TestApi[] = [];
        const env: Env = {
          name: factory.name,
          get store(): Store {
            if (opened === undefined) throw new Error('the store is not open yet');
            return opened.store;
          },
          api(options = {}) {
            const t = createTestApi({ ...options, store: options.store ?? env.store });
            apis.push(t);
            return t;
          },
          async setup(options = {}) {
            const t = env.api(options);
            return { t, key: await t.createKey() };
          },
        };
        before(async () => {
          opened = await factory.open();
        });
        afterEach(async () => {
          for (const t of apis.splice(0)) await t.close();
        });
        after(async () => {
          for (const t of apis.splice(0)) await t.close();
          await opened?.cleanup();
        });
        body(env);
      });
    }
  });
}

/**
 * The stores of a suite whose every answer is decided before a record is written or read back
 * (request validation, formats, routing, headers, the order of the pipeline's steps): the memory
 * store only. What the stores do with records is the store contract's (test/stores, every store),
 * and each resource keeps its create, list and delete tests on every store.
 */
export const VALIDATION_ONLY: readonly StoreName[] = ['memory'];

/** Defines tests of the same kind inside a suite that otherwise runs on every store. */
export function validationOnly(env: Env, define: () => void): void {
  if (VALIDATION_ONLY.includes(env.name)) define();
}

/** Like `eachStore` but for suites that open their own stores (fault injection, unmigrated). */
export function eachFactory(title: string, body: (factory: StoreFactory) => void): void {
  describe(title, { concurrency: true }, () => {
    for (const factory of STORES) {
      suiteOrSkip(`${title} (${factory.name})`, factory.skip, { concurrency: 1 }, () => body(factory));
    }
  });
}

/** Calls `api.fetch` with a hand-made Request (streams, raw bytes, odd headers). */
export async function raw<T = unknown>(
  t: TestApi,
  path: string,
  init: RequestInit & { duplex?: 'half' } = {},
  clientAddress: string | null = '127.0.0.1',
): Promise<TestResponse<T>> {
  const response = await t.api.fetch(new Request(new URL(path, 'http://monitoring.test'), init), { clientAddress });
  const text = await response.text();
  let body: TestBody<T>;
  try {
    body = JSON.parse(text) as TestBody<T>;
  } catch {
    assert.fail(`the answer (${response.status}) is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  return { status: response.status, headers: response.headers, body, text };
}

export function auth(key: CreatedApiKey | string): Record<string, string> {
  return { authorization: `Bearer ${typeof key === 'string' ? key : key.token}` };
}

function describeResponse(res: TestResponse): string {
  return `${res.status} ${res.text.slice(0, 500)}`;
}

/** Every answer: exact Content-Type and an X-Request-Id (docs/contract.md §3). */
export function assertCommonHeaders(res: TestResponse): void {
  assert.equal(res.headers.get('content-type'), JSON_TYPE, `Content-Type of ${describeResponse(res)}`);
  const id = res.headers.get('x-request-id');
  assert.ok(id !== null && id !== '', `X-Request-Id missing on ${describeResponse(res)}`);
}

/** A success envelope, exactly `{"success": true, "data": ...}`; returns data, typed as the request's `T` claims. */
export function assertSuccess<T>(res: TestResponse<T>, status: number): T {
  assert.equal(res.status, status, `expected ${status}, got ${describeResponse(res)}`);
  assertCommonHeaders(res);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'success'], `envelope keys of ${describeResponse(res)}`);
  assert.equal(res.body.success, true);
  assert.ok(typeof res.body.data === 'object' && res.body.data !== null, 'data is an object or an array');
  return res.body.data;
}

/**
 * An error envelope, exactly `{"success": false, "error": {"code", "message"[, "details"][, "existing_id"]}}`,
 * with `details` present on validation_failed only.
 */
export function assertError(res: TestResponse, status: number, code: string): NonNullable<TestBody['error']> {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${describeResponse(res)}`);
  assertCommonHeaders(res);
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'success'], `envelope keys of ${describeResponse(res)}`);
  assert.equal(res.body.success, false);
  const error = res.body.error;
  assert.ok(error !== undefined && typeof error === 'object' && error !== null);
  assert.equal(error.code, code, `code of ${describeResponse(res)}`);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.trim().length > 0, 'the message is a human sentence');
  const allowed = ['code', 'message'];
  if (code === 'validation_failed') allowed.push('details');
  if (code.startsWith('duplicate_')) allowed.push('existing_id');
  for (const name of Object.keys(error)) {
    assert.ok(allowed.includes(name), `unexpected error field ${name} on ${code}: ${describeResponse(res)}`);
  }
  if (code === 'validation_failed') {
    assert.ok(Array.isArray(error.details) && error.details.length > 0, 'validation_failed lists its details');
    for (const detail of error.details) {
      assert.deepEqual(
        Object.keys(detail).sort(),
        ['code', 'field', 'message'],
        `detail keys ${JSON.stringify(detail)}`,
      );
      assert.equal(typeof detail.field, 'string');
      assert.ok((DETAIL_CODES as readonly string[]).includes(detail.code), `detail code ${detail.code}`);
      assert.equal(typeof detail.message, 'string');
      assert.ok(detail.message.trim().length > 0);
    }
  } else {
    assert.ok(!('details' in error), `details appear on validation_failed only, not on ${code}`);
  }
  if (status === 401) assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="monitoring"');
  return error;
}

export type Expected = readonly [field: string, code: string | readonly string[]];

/**
 * A 400 validation_failed whose details hold an entry for each expected (field, code). With
 * `exact`, no other field is named. A code given as a list accepts any of them (for the cases
 * where the contract does not say which of two codes fits).
 */
export function assertValidation(res: TestResponse, expected: readonly Expected[], exact = true): void {
  const error = assertError(res, 400, 'validation_failed');
  const details = error.details ?? [];
  for (const [field, code] of expected) {
    const codes = typeof code === 'string' ? [code] : code;
    const found = details.filter((d) => d.field === field);
    assert.ok(found.length > 0, `no detail for ${field} in ${JSON.stringify(details)}`);
    assert.ok(
      found.some((d) => codes.includes(d.code)),
      `detail for ${field} should be ${codes.join(' or ')}: ${JSON.stringify(details)}`,
    );
  }
  if (exact) {
    const fields = new Set(expected.map(([field]) => field));
    for (const d of details)
      assert.ok(fields.has(d.field), `unexpected detail ${JSON.stringify(d)} in ${JSON.stringify(details)}`);
  }
}

/** A web device on a public name, for tests that do not care about the target. */
export function deviceBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { target_type: 'domain', target_value: 'example.com', ...overrides };
}
