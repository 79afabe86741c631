import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createMonitoringApi, MemoryStore, type MonitoringApi } from '../../core/index.ts';
import { createRedisRateLimiter, type RedisRateLimiter } from '../../stores/redis/index.ts';
import { startServe, type ServerProcess } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { runCommandJson } from '../support/run-command.ts';
import { REDIS_URL, redisSkipReason, uniquePrefix } from '../support/redis.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';

const redisSkip = await redisSkipReason();

suiteOrSkip('one limit across two server processes (PostgreSQL + Redis)', redisSkip, {}, () => {
  let pg: TestDatabase;
  const servers: ServerProcess[] = [];
  let token = '';

  before(async () => {
    pg = await createTestDatabase({ migrated: true });
    if (pg.skip !== undefined) return;
    const database = pg.url;
    const user = await runCommandJson<{ user_id: number }>(['users', 'create', '--database', database]);
    const key = await runCommandJson<{ token: string }>([
      'keys',
      'create',
      '--user',
      String(user.user_id),
      '--rate-limit',
      '12/60',
      '--database',
      database,
    ]);
    token = key.token;
    // A Redis timeout far above the default 100 ms: on a loaded machine a decision that took
    // longer failed open, each process then counting alone (24 passed), which is the outage
    // behaviour redis-stall.test.ts proves, not what this test is about.
    const store = `${REDIS_URL}?prefix=${uniquePrefix()}&timeout=10000`;
    servers.push(
      ...(await Promise.all([0, 1].map(() => startServe(['--database', database, '--rate-limit-store', store])))),
    );
  });
  after(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((server) => server.exited));
    if (pg.skip === undefined) await pg.drop();
  });

  it('40 concurrent requests with a key limited to 12 a minute: exactly 12 pass, 28 are rate_limit_exceeded', async (t) => {
    if (pg.skip !== undefined) return t.skip(pg.skip);
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const response = await fetch(`${servers[i % 2]!.url}/me`, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: await response.json(), headers: response.headers };
      }),
    );
    assert.equal(answers.filter((a) => a.status === 200).length, 12);
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(refused.length, 28);
    for (const answer of refused) {
      assert.equal(answer.body.error.code, 'rate_limit_exceeded');
      assert.equal(answer.headers.get('ratelimit-policy'), '"key";q=12;w=60');
      assert.match(answer.headers.get('ratelimit')!, /^"key";r=0;t=\d+$/);
      assert.equal(answer.headers.get('retry-after'), /t=(\d+)/.exec(answer.headers.get('ratelimit')!)![1]);
    }
    // Had each process kept its own count, 24 would have passed: 12 means one limit for both.
  });
});

suiteOrSkip('failed-authentication throttle on the shared limiter', redisSkip, {}, () => {
  let limiter: RedisRateLimiter;
  let api: MonitoringApi;
  let token = '';
  before(async () => {
    // Past the default 100 ms, a slow answer on a loaded machine would fail open: see above.
    limiter = await createRedisRateLimiter(REDIS_URL, { prefix: uniquePrefix(), timeoutMs: 10_000 });
    api = createMonitoringApi({ store: new MemoryStore(), rateLimiter: limiter });
    const user = await api.keys.createUser();
    token = (await api.keys.createApiKey({ userId: user.id })).token;
  });
  after(async () => {
    await api.close();
    await limiter.close();
  });
  const me = (key: string, clientAddress: string) =>
    api.fetch(new Request('http://api.test/v1/me', { headers: { authorization: `Bearer ${key}` } }), { clientAddress });
  const wrong = 'mapi_' + 'A'.repeat(43);

  it('after 30 failed keys from one address it gets 429, valid key included; other addresses are unaffected', async () => {
    const failures = await Promise.all(Array.from({ length: 45 }, () => me(wrong, '198.51.100.7')));
    assert.equal(failures.filter((r) => r.status === 401).length, 30);
    assert.equal(failures.filter((r) => r.status === 429).length, 15);
    const blocked = await me(token, '198.51.100.7');
    assert.equal(blocked.status, 429);
    assert.equal((await blocked.json()).error.code, 'rate_limit_exceeded');
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    assert.equal((await me(token, '198.51.100.8')).status, 200);
    assert.equal((await me(wrong, '198.51.100.8')).status, 401);
  });

  it('a burst with one valid key on a cold key cache is one store read: none of it is throttled as failed authentication', async () => {
    // Every consume() waits on Redis, so the burst is all in flight before any key read begins.
    const cold = createMonitoringApi({
      store: new MemoryStore(),
      rateLimiter: limiter,
      rateLimit: { limit: 1000, windowSeconds: 60 },
    });
    try {
      const user = await cold.keys.createUser();
      const { token: fresh } = await cold.keys.createApiKey({ userId: user.id });
      const request = () =>
        cold.fetch(new Request('http://api.test/v1/me', { headers: { authorization: `Bearer ${fresh}` } }), {
          clientAddress: '198.51.100.20',
        });
      const statuses = await Promise.all(Array.from({ length: 80 }, async () => (await request()).status));
      assert.deepEqual(
        statuses.filter((status) => status !== 200),
        [],
      );
      // And nothing of the burst was left counted against the address.
      for (let i = 0; i < 30; i++)
        assert.equal((await me(wrong, '198.51.100.20')).status, 401, `failure ${i + 1} of 30`);
    } finally {
      await cold.close();
    }
  });

  it('IPv6 clients are counted per /64; IPv4-mapped addresses count as their IPv4 address', async () => {
    for (let i = 0; i < 30; i++) assert.equal((await me(wrong, `2001:db8:aa:bb::${(i + 1).toString(16)}`)).status, 401);
    assert.equal((await me(token, '2001:db8:aa:bb:ffff::1')).status, 429, 'same /64, another address');
    assert.equal((await me(token, '2001:db8:aa:bc::1')).status, 200, 'the next /64');
    for (let i = 0; i < 30; i++) await me(wrong, '::ffff:203.0.113.9');
    assert.equal((await me(token, '203.0.113.9')).status, 429);
    assert.equal((await me(token, '::ffff:203.0.113.10')).status, 200, 'other IPv4 clients keep their own buckets');
  });
});

suiteOrSkip('Redis cut off under a running API', redisSkip, {}, () => {
  let proxy: TcpProxy;
  before(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
  });
  after(() => proxy.close());

  for (const failOpen of [true, false]) {
    it(`fail ${failOpen ? 'open: requests pass' : 'closed: 500 server_error'}, one warning per outage, recovery without restart`, async () => {
      proxy.restore();
      const warnings: string[] = [];
      // A long timeout: the first request's decision must be answered, not start an outage of its
      // own on a loaded machine; the cut is seen as the connection closing, not as a timeout.
      const limiter = await createRedisRateLimiter(`redis://127.0.0.1:${proxy.port}`, {
        prefix: uniquePrefix(),
        failOpen,
        timeoutMs: 5_000,
        warn: (m) => warnings.push(m),
      });
      const api = createMonitoringApi({ store: new MemoryStore(), rateLimiter: limiter });
      const user = await api.keys.createUser();
      const { token } = await api.keys.createApiKey({ userId: user.id });
      const me = async () => {
        const response = await api.fetch(
          new Request('http://api.test/v1/me', { headers: { authorization: `Bearer ${token}` } }),
          { clientAddress: '192.0.2.1' },
        );
        return { status: response.status, text: await response.text() };
      };
      try {
        assert.equal((await me()).status, 200);
        proxy.cut();
        for (let i = 0; i < 3; i++) {
          const answer = await me();
          if (failOpen) assert.equal(answer.status, 200);
          else {
            assert.equal(answer.status, 500);
            assert.equal(JSON.parse(answer.text).error.code, 'server_error');
            assert.ok(!/redis|ECONN|stack/i.test(answer.text), answer.text);
          }
        }
        assert.equal(warnings.length, 1);
        proxy.restore();
        await waitFor(
          'the API to recover after Redis came back',
          async () => (await me()).status === 200 && warnings.length >= 2,
          100,
        );
        assert.match(warnings[1]!, /reachable again/);
      } finally {
        await api.close();
        await limiter.close();
      }
    });
  }
});
