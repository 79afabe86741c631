/**
 * docs/heartbeats.md, "Pings": the ping routes outside the base path and without a key, their
 * answers (text, `Ping-Body-Limit`), what each signal does to the status, and the refusals that
 * change nothing and never tell whether a token exists beyond its 404.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Heartbeat, HeartbeatPing } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';

async function setup(body: Record<string, unknown> = { period_s: 3600 }, options: { basePath?: string } = {}) {
  const t = createTestApi(options);
  const base = options.basePath ?? '/v1';
  const key = await t.createKey();
  const hb = (await t.request<Heartbeat>(`${base}/heartbeats/create`, { method: 'POST', key, body })).body.data!;
  const shown = async () => (await t.request<Heartbeat>(`${base}/heartbeats/get?id=${hb.id}`, { key })).body.data!;
  const pings = async () =>
    (await t.request<HeartbeatPing[]>(`${base}/heartbeats/results?id=${hb.id}`, { key })).body.data!;
  return { t, key, hb, url: hb.ping_url!, path: new URL(hb.ping_url!).pathname, shown, pings };
}

const UNKNOWN = '/ping/11111111-2222-4333-8444-555555555555';

describe('the ping routes', () => {
  it('answer 200 OK in text with Ping-Body-Limit, on GET, HEAD and POST, without a key', async () => {
    const { t, path, pings } = await setup();
    for (const method of ['GET', 'HEAD', 'POST']) {
      const answer = await t.ping(path, { method });
      assert.equal(answer.status, 200, method);
      assert.equal(answer.text, method === 'HEAD' ? '' : 'OK');
      assert.equal(answer.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(answer.headers.get('ping-body-limit'), '10000');
      assert.match(answer.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
      assert.equal(answer.headers.get('ratelimit'), null, 'no key, no quota');
    }
    assert.equal((await pings()).length, 3);
    await t.close();
  });

  it('live outside the base path, wherever the API is mounted', async () => {
    const { t, path } = await setup({ period_s: 60 }, { basePath: '/api/monitoring/v1' });
    assert.equal(t.api.owns(path), true);
    assert.equal(t.api.owns('/ping'), true);
    assert.equal((await t.ping(path)).status, 200);
    assert.equal((await t.ping(`/api/monitoring/v1${path}`)).status !== 200, true);
    await t.close();
  });

  it('refuse what is not a ping the same way whether or not the token exists, and record nothing', async () => {
    const { t, path, pings, hb } = await setup();
    const notFound = [
      UNKNOWN,
      '/ping/not-a-token',
      '/ping/11111111-2222-4333-8444-55555555555A',
      `${path}/restart`,
      `${path}/start/now`,
      '/ping',
    ];
    for (const bad of notFound) {
      const answer = await t.ping(bad);
      assert.deepEqual([answer.status, answer.text], [404, 'not found'], bad);
    }
    for (const base of [path, UNKNOWN]) {
      assert.deepEqual(
        [(await t.ping(`${base}/256`)).status, (await t.ping(`${base}/256`)).text],
        [400, 'invalid url format'],
      );
      const rid = await t.ping(`${base}?rid=not-a-uuid`);
      assert.deepEqual([rid.status, rid.text], [400, 'invalid uuid format']);
      const method = await t.ping(base, { method: 'PUT' });
      assert.equal(method.status, 405);
      assert.equal(method.headers.get('allow'), 'GET, HEAD, POST');
      const large = await t.ping(base, { body: 'x'.repeat(1_000_001) });
      assert.deepEqual([large.status, large.text], [413, 'payload too large']);
    }
    assert.deepEqual(await pings(), []);
    const after = (await t.request<Heartbeat>(`/v1/heartbeats/get?id=${hb.id}`, { key: await t.createKey() })).status;
    assert.equal(after, 404, "another user's key sees nothing");
    await t.close();
  });

  it('keeps the first 10,000 bytes of a body, up to 1 MB, without splitting a character', async () => {
    const { t, path, pings } = await setup();
    assert.equal((await t.ping(path, { body: 'é'.repeat(600_000) })).status, 413, '1.2 MB');
    const body = `${'a'.repeat(9_999)}é${'b'.repeat(900_000)}`;
    assert.equal((await t.ping(path, { body })).status, 200);
    const [kept] = await pings();
    assert.equal(kept!.body, 'a'.repeat(9_999), 'the é cut by the limit is dropped whole');
    await t.close();
  });

  it('keeps the first 500 characters of a User-Agent', async () => {
    const { t, path, pings } = await setup();
    for (const agent of ['a'.repeat(500), 'é'.repeat(600)])
      assert.equal((await t.ping(path, { headers: { 'user-agent': agent } })).status, 200);
    assert.deepEqual(
      (await pings()).map((ping) => ping.user_agent),
      ['é'.repeat(500), 'a'.repeat(500)],
    );
    await t.close();
  });

  it("keeps an adapter's User-Agent whole to a character, never half of a pair", async () => {
    const { t, path, pings } = await setup();
    // Headers read from HTTP are bytes, a character each; an embedding adapter may hand in more.
    const agent = `${'x'.repeat(499)}😀`;
    const headers = { get: (name: string) => (name === 'user-agent' ? agent : null) };
    const answer = await t.api.handle(
      { method: 'GET', url: path, headers, body: null },
      { clientAddress: '127.0.0.1' },
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(
      (await pings()).map((ping) => ping.user_agent),
      [`${'x'.repeat(499)}\uFFFD`],
    );
    await t.close();
  });

  it('record at most 5 pings a second per token: more answer 429 with Retry-After', async () => {
    const { t, path, pings } = await setup();
    for (let i = 0; i < 5; i++) assert.equal((await t.ping(path)).status, 200);
    const refused = await t.ping(path);
    assert.deepEqual([refused.status, refused.text], [429, 'rate limited']);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal((await t.ping(UNKNOWN)).status, 404, 'another token has its own 5');
    t.clock.advance(1000);
    assert.equal((await t.ping(path)).status, 200);
    assert.equal((await pings()).length, 6);
    await t.close();
  });
});

describe('what pings do to a heartbeat', () => {
  it('start is started and times the run; success ends it up, with its duration', async () => {
    const { t, path, shown } = await setup({ period_s: 3600, grace_s: 600 });
    await t.ping(`${path}/start`);
    let hb = await shown();
    assert.equal(hb.status, 'started');
    assert.equal(hb.next_due_at, '2026-01-01T00:10:00.000Z', 'a run must end within grace_s without max_runtime_s');
    t.clock.advance(42_000);
    await t.ping(path);
    hb = await shown();
    assert.deepEqual([hb.status, hb.last_duration_ms, hb.status_since], ['up', 42_000, '2026-01-01T00:00:42.000Z']);
    assert.equal(hb.next_due_at, '2026-01-01T01:10:42.000Z');
    await t.close();
  });

  it('fail, a non-zero exit status and a run shorter than min_runtime_s are down at once, each announced once', async () => {
    for (const [signal, cause] of [
      ['/fail', 'failed'],
      ['/3', 'exit_status'],
    ] as const) {
      const { t, key, path, shown } = await setup();
      await t.ping(path);
      await t.ping(`${path}${signal}`, { body: 'disk full' });
      const hb = await shown();
      assert.equal(hb.status, 'down', signal);
      assert.equal(hb.next_due_at, null);
      await t.ping(`${path}${signal}`);
      t.clock.advance(1000);
      const incidents = await t.request<{ cause: unknown }[]>(`/v1/incidents?heartbeat_id=${hb.id}`, { key });
      assert.deepEqual(
        incidents.body.data!.map((i) => i.cause),
        [{ probe: 'heartbeat', error: cause }],
      );
      await t.close();
    }
    const { t, path, shown } = await setup({ period_s: 3600, min_runtime_s: 60, max_runtime_s: 3600 });
    await t.ping(`${path}/start`);
    t.clock.advance(59_000);
    await t.ping(`${path}/0`);
    assert.equal((await shown()).status, 'down', 'ran_too_short');
    t.clock.advance(1000);
    await t.ping(path);
    assert.equal((await shown()).status, 'up', 'back up on the next success');
    await t.close();
  });

  it('runs are measured per rid when they overlap; log changes nothing', async () => {
    const { t, path, shown, pings } = await setup();
    const a = '0a0a0a0a-0000-4000-8000-000000000001';
    const b = '0b0b0b0b-0000-4000-8000-000000000002';
    await t.ping(`${path}/start?rid=${a}`);
    t.clock.advance(1000);
    await t.ping(`${path}/start?rid=${b}`);
    t.clock.advance(1000);
    await t.ping(`${path}?rid=${a}`);
    assert.equal((await shown()).status, 'started', 'run b is still open');
    t.clock.advance(3000);
    await t.ping(`${path}/log`, { body: 'halfway' });
    await t.ping(`${path}?rid=${b}`);
    const hb = await shown();
    assert.deepEqual([hb.status, hb.last_duration_ms], ['up', 4000]);
    assert.deepEqual(
      (await pings()).map((p) => [p.kind, p.duration_ms]),
      [
        ['success', 4000],
        ['log', null],
        ['success', 2000],
        ['start', null],
        ['start', null],
      ],
    );
    await t.close();
  });
});
