/**
 * docs/contract.md §2 step 8: a failure nobody planned for is 500 server_error with nothing internal in the
 * answer; a store without its schema is 500 missing_table. Faults are injected into a real store
 * through a Proxy that makes one method fail; everything else runs for real.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateToken, MissingTableError, type Store } from '../../core/internal.ts';
import type { TestApi, TestResponse } from '../../core/testing/index.ts';
import type { OpenedStore } from '../support/stores.ts';
import { assertError, assertSuccess, auth, deviceBody, eachFactory, JSON_TYPE, createTestApi } from './helpers.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { newDevice } from '../support/records.ts';

type Method = keyof Store;

/** The store, except that `method` fails with `fault()` (from its `after`-th call on). */
function failing(
  store: Store,
  method: Method,
  fault: () => unknown,
  options: { after?: number; sync?: boolean } = {},
): Store {
  let calls = 0;
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property !== method) return value.bind(target);
      return (...args: unknown[]) => {
        calls++;
        if (calls <= (options.after ?? 0)) return (value as (...a: unknown[]) => unknown).apply(target, args);
        if (options.sync) throw fault();
        return Promise.reject(fault());
      };
    },
  });
}

const SECRET_SQL = "SELECT token_hash FROM api_keys WHERE user_id = 42 AND password = 'hunter2'";

/** An error like a database driver's: SQL in the message, a stack, a code, a detail and a cause. */
function sqlError(): Error {
  const error = new Error(`syntax error at or near "FROM" in ${SECRET_SQL}`) as Error & Record<string, unknown>;
  error.stack = `error: syntax error at or near "FROM"\n    at Parser.parseErrorMessage (/srv/app/node_modules/pg-protocol/dist/parser.js:287:98)\n    at KyselyStore.listDevices (/srv/app/stores/kysely/kysely-store.ts:170:7)`;
  error.code = '42601';
  error.detail = 'Key (user_id, target_value)=(42, secret.example.com) already exists.';
  error.hint = 'hint: check /etc/monitoring/secret.conf';
  error.cause = new Error('connect ECONNREFUSED 10.1.2.3:5432 (postgres://admin:s3cr3t@db.internal/monitoring)');
  return error;
}

const LEAKS = [
  'SELECT',
  'token_hash',
  'hunter2',
  'syntax error',
  'FROM',
  'parser.js',
  'node_modules',
  'kysely-store',
  '/srv/app',
  '    at ',
  '42601',
  'Key (',
  'secret.example.com',
  '/etc/monitoring',
  'ECONNREFUSED',
  's3cr3t',
  'db.internal',
  'stack',
  'cause',
];

function assertNoLeak(res: TestResponse): void {
  const everything = res.text + [...res.headers].map(([n, v]) => `${n}: ${v}`).join('\n');
  for (const leak of LEAKS)
    assert.ok(!everything.includes(leak), `the answer leaks ${JSON.stringify(leak)}: ${everything}`);
}

function assertServerError(res: TestResponse, code = 'server_error'): void {
  const error = assertError(res, 500, code);
  assert.deepEqual(Object.keys(error).sort(), ['code', 'message']);
  assertNoLeak(res);
}

eachFactory('errors', (factory) => {
  let opened: OpenedStore;
  const apis: TestApi[] = [];
  before(async () => {
    opened = await factory.open();
  });
  after(async () => {
    for (const t of apis) await t.close().catch(() => undefined);
    await opened.cleanup();
  });

  /** An API over the real store with one failing method; the key is made on the real store. */
  async function faulty(method: Method, fault: () => unknown, options: { after?: number; sync?: boolean } = {}) {
    const real = createTestApi({ store: opened.store });
    apis.push(real);
    const key = await real.createKey();
    const t = createTestApi({ store: failing(opened.store, method, fault, options), logger: {} });
    apis.push(t);
    return { t, key };
  }

  const routes: [Method, string, string, () => Record<string, unknown> | undefined][] = [
    ['listDevices', 'GET', '/v1/devices', () => undefined],
    ['listDevices', 'GET', '/v1/devices?limit=5', () => undefined],
    ['createDevice', 'POST', '/v1/devices/create', () => deviceBody()],
    ['deleteDevice', 'DELETE', '/v1/devices/delete?id=1', () => undefined],
    ['listBlacklistMonitors', 'GET', '/v1/blacklist-monitors', () => undefined],
    ['createBlacklistMonitor', 'POST', '/v1/blacklist-monitors/create', () => deviceBody()],
    ['deleteBlacklistMonitor', 'DELETE', '/v1/blacklist-monitors/delete?id=1', () => undefined],
    ['findApiKeyByHash', 'GET', '/v1/me', () => undefined],
  ];

  for (const [method, verb, path, body] of routes) {
    test(`a store error with SQL and a stack in ${method} is 500 server_error, nothing leaked (${verb} ${path})`, async () => {
      const { t, key } = await faulty(method, sqlError);
      const res = await t.request(path, { method: verb, key, body: body() });
      assertServerError(res);
      assert.equal(res.headers.get('content-type'), JSON_TYPE);
      assert.ok(res.headers.get('x-request-id'));
      if (method !== 'findApiKeyByHash') {
        // Authenticated: the rate-limit fields are there on a 500 too (docs/contract.md §3).
        assert.equal(res.headers.get('ratelimit-policy'), '"key";q=120;w=60');
        assert.equal(res.headers.get('ratelimit'), '"key";r=119;t=60');
      }
    });

    test(`a store without its tables in ${method} is 500 missing_table (${verb} ${path})`, async () => {
      const { t, key } = await faulty(method, () => new MissingTableError({ cause: sqlError() }));
      const res = await t.request(path, { method: verb, key, body: body() });
      assertServerError(res, 'missing_table');
    });
  }

  test('a synchronous throw and a thrown non-Error are 500 server_error too', async () => {
    for (const fault of [
      sqlError,
      () => SECRET_SQL,
      () => ({ message: SECRET_SQL, stack: SECRET_SQL }),
      () => undefined,
      () => null,
    ]) {
      const sync = await faulty('listDevices', fault, { sync: true });
      assertServerError(await sync.t.request('/v1/devices', { key: sync.key }));
      const async = await faulty('createDevice', fault);
      assertServerError(
        await async.t.request('/v1/devices/create', { method: 'POST', key: async.key, body: deviceBody() }),
      );
    }
  });

  test('a 500 echoes the caller X-Request-Id; the next request is fine', async () => {
    const { t, key } = await faulty('listDevices', sqlError);
    const res = await t.request('/v1/devices', { key, headers: { 'x-request-id': 'trace-500' } });
    assertServerError(res);
    assert.equal(res.headers.get('x-request-id'), 'trace-500');
    assertSuccess(await t.request('/v1/me', { key }), 200);
    assertServerError(await t.request('/v1/devices', { key }));
  });

  test(
    'a store that fails in the middle of a streamed list never yields a complete-looking list',
    { timeout: HANG_GUARD_MS },
    async () => {
      const real = createTestApi({ store: opened.store, rateLimit: { limit: 10_000, windowSeconds: 60 } });
      apis.push(real);
      const key = await real.createKey();
      for (let i = 0; i < 520; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, (_, j) =>
            opened.store.createDevice(key.key.user_id, newDevice({ target_value: `s${i + j}.example.com` })),
          ),
        );
      }
      const t = createTestApi({ store: failing(opened.store, 'listDevices', sqlError, { after: 1 }), logger: {} });
      apis.push(t);
      const response = await t.api.fetch(new Request('http://monitoring.test/v1/devices', { headers: auth(key) }), {
        clientAddress: '127.0.0.1',
      });
      let text: string | undefined;
      try {
        text = await response.text();
      } catch {
        text = undefined;
      }
      if (response.status === 200 && text !== undefined) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        assert.ok(
          parsed === undefined || (parsed as { data?: unknown[] }).data?.length === 520,
          'a failed stream must not end as a valid but shorter list',
        );
      }
      if (text !== undefined) for (const leak of LEAKS) assert.ok(!text.includes(leak), `leaks ${leak}`);
      // Without the fault the whole list arrives.
      const whole = await real.request('/v1/devices', { key });
      assert.equal((assertSuccess(whole, 200) as unknown[]).length, 520);
    },
  );

  test('a failure to record key usage never reaches the client', async () => {
    const { t, key } = await faulty('recordKeyUsage', sqlError);
    for (let i = 0; i < 3; i++) assertSuccess(await t.request('/v1/me', { key }), 200);
    await t.close();
  });

  if (factory.openUnmigrated !== undefined) {
    const openUnmigrated = factory.openUnmigrated;

    test('a database that was never migrated: every authenticated request is 500 missing_table', async () => {
      const empty = await openUnmigrated();
      try {
        const t = createTestApi({ store: empty.store, logger: {} });
        for (const [verb, path] of [
          ['GET', '/v1/me'],
          ['GET', '/v1/devices'],
          ['POST', '/v1/devices/create'],
          ['DELETE', '/v1/blacklist-monitors/delete?id=1'],
        ] as const) {
          const res = await t.request(path, {
            method: verb,
            key: generateToken(),
            body: verb === 'POST' ? deviceBody() : undefined,
          });
          assertServerError(res, 'missing_table');
        }
        // No key at all is still 401: nothing needs the store for that.
        assertError(await t.request('/v1/me'), 401, 'missing_api_key');
        await t.close();
      } finally {
        await empty.cleanup();
      }
    });

    test('a table dropped from a migrated database is 500 missing_table on its routes only', async () => {
      const broken = await factory.open();
      try {
        const t = createTestApi({ store: broken.store, logger: {} });
        const key = await t.createKey();
        assert.ok(broken.execute !== undefined);
        // Listing periods refer to the monitors (PostgreSQL refuses to drop a referenced table).
        await broken.execute('drop table listing_periods');
        await broken.execute('drop table blacklist_monitors');
        assertSuccess(await t.request('/v1/me', { key }), 200);
        assertSuccess(await t.request('/v1/devices', { key }), 200);
        assertServerError(await t.request('/v1/blacklist-monitors', { key }), 'missing_table');
        assertServerError(
          await t.request('/v1/blacklist-monitors/create', { method: 'POST', key, body: deviceBody() }),
          'missing_table',
        );
        assertServerError(
          await t.request('/v1/blacklist-monitors/delete?id=1', { method: 'DELETE', key }),
          'missing_table',
        );
        await t.close();
      } finally {
        await broken.cleanup();
      }
    });
  }
});
