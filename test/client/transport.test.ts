/**
 * The client's edge cases that a healthy server never produces (a proxy's HTML page, a Link to
 * another host, an HTTP-date Retry-After, a 500 on a create), with a scripted fetch. The real
 * server covers everything else in client.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMonitoringClient, MonitoringApiError } from '../../client/index.ts';
import { cursorOf, nextLink, resultCursorOf, retryDelayMs } from '../../client/transport.ts';
import type { BlacklistMonitorInput, DeviceInput } from '../../client/index.ts';
import type { blacklistMonitorSchema } from '../../core/validation/blacklist-monitor-input.ts';
import type { deviceSchema } from '../../core/validation/device-input.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

// Compile time (npm run typecheck): the client's input types name exactly the fields the
// server's schemas accept, so a field added to the API cannot be missing from the client.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const deviceFields: Same<keyof DeviceInput, keyof typeof deviceSchema.entries> = true;
const monitorFields: Same<keyof BlacklistMonitorInput, keyof typeof blacklistMonitorSchema.entries> = true;
void [deviceFields, monitorFields];

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string | undefined;
}

/** A fetch that answers from a script, one response per call, and remembers the requests. */
function scripted(responses: (() => Response)[]): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    fetch: async (input, init) => {
      seen.push({
        method: init?.method ?? 'GET',
        url: String(input),
        headers: new Headers(init?.headers),
        body: init?.body as string | undefined,
      });
      const next = responses.shift();
      if (next === undefined) throw new Error('no more scripted responses');
      return next();
    },
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    });
const limited = (retryAfter: string) =>
  json(
    429,
    { success: false, error: { code: 'rate_limit_exceeded', message: 'Too many.' } },
    { 'retry-after': retryAfter },
  );
const created = json(201, { success: true, data: { id: 7 } });

describe('client transport', () => {
  test('URLs: the base URL with or without a trailing slash; headers; the id of a delete', async () => {
    for (const baseUrl of ['http://api.test/v1', 'http://api.test/v1/', new URL('http://api.test/v1?x=1')]) {
      const { fetch, seen } = scripted([json(200, { success: true, data: { id: 3, deleted: true } }), created]);
      const api = createMonitoringClient({ baseUrl, token: 'mapi_t', fetch });
      await api.blacklistMonitors.delete(3, { requestId: 'r-1' });
      await api.devices.create({ target_type: 'ip', target_value: '1.1.1.1' });
      assert.deepEqual(
        seen.map((s) => `${s.method} ${s.url}`),
        ['DELETE http://api.test/v1/blacklist-monitors/delete?id=3', 'POST http://api.test/v1/devices/create'],
      );
      assert.equal(seen[0]!.headers.get('authorization'), 'Bearer mapi_t');
      assert.equal(seen[0]!.headers.get('x-request-id'), 'r-1');
      assert.equal(seen[0]!.headers.get('content-type'), null);
      assert.equal(seen[1]!.headers.get('content-type'), 'application/json');
      assert.equal(seen[1]!.body, '{"target_type":"ip","target_value":"1.1.1.1"}');
    }
  });

  test('a 429 on a create is retried with the same body when opted in; a 500 never is', async () => {
    const ok = scripted([limited('0'), limited('0'), created]);
    const api = createMonitoringClient({
      baseUrl: 'http://api.test/v1',
      token: 't',
      fetch: ok.fetch,
      retry: { retries: 2 },
    });
    assert.deepEqual(await api.devices.create({ target_type: 'ip', target_value: '1.1.1.1' }), { id: 7 });
    assert.equal(ok.seen.length, 3);
    assert.ok(ok.seen.every((s) => s.body === ok.seen[0]!.body && s.method === 'POST'));

    const failing = scripted([
      json(500, { success: false, error: { code: 'server_error', message: 'The server failed.' } }),
      created,
    ]);
    const again = createMonitoringClient({
      baseUrl: 'http://api.test/v1',
      token: 't',
      fetch: failing.fetch,
      retry: { retries: 5 },
    });
    await assert.rejects(
      again.devices.create({ target_type: 'ip', target_value: '1.1.1.1' }),
      (e: unknown) => e instanceof MonitoringApiError && e.status === 500 && e.code === 'server_error',
    );
    assert.equal(failing.seen.length, 1);

    const exhausted = scripted([limited('0'), limited('0')]);
    const once = createMonitoringClient({
      baseUrl: 'http://api.test/v1',
      token: 't',
      fetch: exhausted.fetch,
      retry: { retries: 1 },
    });
    await assert.rejects(
      once.me(),
      (e: unknown) => e instanceof MonitoringApiError && e.code === 'rate_limit_exceeded' && e.retryAfterSeconds === 0,
    );
    assert.equal(exhausted.seen.length, 2);
  });

  test('aborting while waiting to retry ends the call at once', { timeout: HANG_GUARD_MS }, async () => {
    // The wait before the retry is as long as the test's hang guard: only the abort can end it in time.
    const { fetch, seen } = scripted([limited(String(HANG_GUARD_MS / 1000))]);
    const controller = new AbortController();
    const api = createMonitoringClient({
      baseUrl: 'http://api.test/v1',
      token: 't',
      fetch,
      retry: { retries: 1, maxDelayMs: HANG_GUARD_MS },
    });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(
      api.me({ signal: controller.signal }),
      (e: unknown) =>
        e instanceof MonitoringApiError && e.code === 'aborted' && /while waiting to retry/.test(e.message),
    );
    assert.equal(seen.length, 1, 'no retry was sent');
  });

  test('an answer without the API envelope is unexpected_response, with its status', async () => {
    const { fetch } = scripted([
      () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
      json(200, [1, 2]),
      json(200, { success: true }),
    ]);
    const api = createMonitoringClient({ baseUrl: 'http://api.test/v1', token: 't', fetch });
    for (const status of [502, 200, 200]) {
      await assert.rejects(
        api.me(),
        (e: unknown) => e instanceof MonitoringApiError && e.code === 'unexpected_response' && e.status === status,
      );
    }
  });

  test('Retry-After as seconds or an HTTP date, else RateLimit t, else a second', (t) => {
    assert.equal(retryDelayMs(new Headers({ 'retry-after': '3' })), 3000);
    // The clock held, on a whole second as an HTTP date has it.
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-07-01T12:00:00.000Z') });
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    assert.equal(retryDelayMs(new Headers({ 'retry-after': inTenSeconds })), 10_000);
    assert.equal(retryDelayMs(new Headers({ ratelimit: '"key";r=0;t=7' })), 7000);
    assert.equal(retryDelayMs(new Headers()), 1000);
  });

  test('Link: rel=next among other links, resolved against the answering URL; never off the API', () => {
    const base = new URL('http://api.test/v1/devices?limit=2');
    assert.equal(nextLink(new Headers(), base), null);
    assert.equal(nextLink(new Headers({ link: '</v1/devices?limit=2&after_id=1>; rel="prev"' }), base), null);
    const next = nextLink(
      new Headers({
        link: '</v1/devices?limit=2&after_id=0>; rel="prev", </v1/devices?limit=2&after_id=4>; rel="next last"',
      }),
      base,
    );
    assert.equal(next?.href, 'http://api.test/v1/devices?limit=2&after_id=4');
    assert.deepEqual(cursorOf(next!, base), { limit: 2, afterId: 4 });
    assert.throws(() => cursorOf(new URL('http://evil.test/v1/devices?limit=2&after_id=4'), base), MonitoringApiError);
    assert.throws(() => cursorOf(new URL('http://api.test/v1/devices?limit=x'), base), MonitoringApiError);
  });

  test('a results Link gives limit and before_id; it must name the same record on the same route', () => {
    const base = new URL('http://api.test/v1/devices/results?id=7&limit=2');
    assert.deepEqual(resultCursorOf(new URL('http://api.test/v1/devices/results?id=7&limit=2&before_id=40'), base), {
      limit: 2,
      beforeId: 40,
    });
    for (const href of [
      'http://api.test/v1/devices/results?id=8&limit=2&before_id=40',
      'http://evil.test/v1/devices/results?id=7&limit=2&before_id=40',
      'http://api.test/v1/blacklist-monitors/results?id=7&limit=2&before_id=40',
      'http://api.test/v1/devices/results?id=7&limit=2',
      'http://api.test/v1/devices/results?id=7&limit=0&before_id=40',
      'http://api.test/v1/devices/results?id=7&limit=2&before_id=0',
    ]) {
      assert.throws(() => resultCursorOf(new URL(href), base), MonitoringApiError, href);
    }
  });

  test('options are checked when the client is made', () => {
    assert.throws(() => createMonitoringClient({ baseUrl: 'http://api.test/v1', token: '' }), TypeError);
    assert.throws(
      () => createMonitoringClient({ baseUrl: 'http://api.test/v1', token: 't', retry: { retries: -1 } }),
      TypeError,
    );
    assert.throws(() => createMonitoringClient({ baseUrl: 'not a url', token: 't' }), TypeError);
  });
});
