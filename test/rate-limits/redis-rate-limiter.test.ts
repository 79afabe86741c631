import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRedisRateLimiter, type RedisRateLimiter } from '../../stores/redis/index.ts';
import { REDIS_URL, redisSkipReason, uniquePrefix } from '../support/redis.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';

const skip = await redisSkipReason();
const policy = { limit: 50, windowSeconds: 60 };

suiteOrSkip('RedisRateLimiter', skip, {}, () => {
  let limiter: RedisRateLimiter;
  let other: RedisRateLimiter;
  const prefix = uniquePrefix();

  before(async () => {
    // A timeout far above the default 100 ms: on a loaded machine a slower answer started an
    // outage, and every decision after it failed open (71 of 200 let through, then every test
    // after it failed). Outages are the next suite's, and redis-stall.test.ts's, to prove.
    limiter = await createRedisRateLimiter(REDIS_URL, { prefix, timeoutMs: 10_000 });
    // A second client, as a second server instance would have.
    other = await createRedisRateLimiter(`${REDIS_URL}?prefix=${prefix}&timeout=10000`);
  });
  after(async () => {
    await limiter.close();
    await other.close();
  });

  it('lets exactly the limit through under concurrency, across two clients', async () => {
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? limiter : other).consume('key:concurrent', policy)),
    );
    assert.equal(decisions.filter((d) => d.allowed).length, 50);
    const remaining = decisions.map((d) => d.remaining).sort((a, b) => b - a);
    assert.equal(remaining[0], 49);
    assert.equal(remaining.at(-1), 0);
  });

  it('reports limit, remaining and a reset within the window', async () => {
    const first = await limiter.consume('key:headers', { limit: 3, windowSeconds: 30 });
    assert.deepEqual(
      { ...first, resetSeconds: first.resetSeconds <= 30 && first.resetSeconds >= 29 },
      {
        allowed: true,
        limit: 3,
        remaining: 2,
        resetSeconds: true,
      },
    );
  });

  it('cost 0 asks without counting', async () => {
    const small = { limit: 2, windowSeconds: 60 };
    assert.equal((await limiter.consume('auth:peek', small, 0)).allowed, true);
    await limiter.consume('auth:peek', small);
    assert.equal((await limiter.consume('auth:peek', small, 0)).remaining, 1);
    await limiter.consume('auth:peek', small);
    const blocked = await limiter.consume('auth:peek', small, 0);
    assert.equal(blocked.allowed, false);
    assert.equal(blocked.remaining, 0);
  });

  it('a negative cost gives back a reservation, but never below zero nor into a window that ended', async () => {
    const two = { limit: 2, windowSeconds: 60 };
    await limiter.consume('auth:refund', two);
    await limiter.consume('auth:refund', two);
    assert.equal((await limiter.consume('auth:refund', two, 0)).allowed, false);
    assert.equal((await limiter.consume('auth:refund', two, -1)).remaining, 1);
    assert.equal((await limiter.consume('auth:refund', two, -5)).remaining, 2);
    // No window exists for this bucket: giving back must not create one without an expiry.
    const gone = await limiter.consume('auth:refund-none', two, -1);
    assert.equal(gone.remaining, 2);
    assert.equal((await limiter.consume('auth:refund-none', two, 0)).remaining, 2);
  });

  it('starts a new window when the old one expires', async () => {
    const short = { limit: 1, windowSeconds: 1 };
    assert.equal((await limiter.consume('key:expiry', short)).allowed, true);
    assert.equal((await limiter.consume('key:expiry', short)).allowed, false);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    assert.equal((await limiter.consume('key:expiry', short)).allowed, true);
  });

  it('keeps deployments with different prefixes apart', async () => {
    const elsewhere = await createRedisRateLimiter(REDIS_URL, { prefix: uniquePrefix() });
    try {
      const one = { limit: 1, windowSeconds: 60 };
      assert.equal((await limiter.consume('key:shared-name', one)).allowed, true);
      assert.equal((await elsewhere.consume('key:shared-name', one)).allowed, true);
    } finally {
      await elsewhere.close();
    }
  });
});

suiteOrSkip('RedisRateLimiter when Redis goes away', skip, {}, () => {
  let proxy: TcpProxy;
  before(async () => {
    proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379), new URL(REDIS_URL).hostname);
  });
  after(() => proxy.close());

  for (const failOpen of [true, false]) {
    it(`fails ${failOpen ? 'open' : 'closed'}, warns once per outage, and recovers without a restart`, async () => {
      proxy.restore();
      const warnings: string[] = [];
      // The cut is seen as the connection closing (FAIL_FAST: no offline queue, no retries), not
      // as a timeout; the timeout is long so the first decision, which Redis must answer, never
      // starts an outage of its own on a loaded machine.
      const limiter = await createRedisRateLimiter(`redis://127.0.0.1:${proxy.port}`, {
        prefix: uniquePrefix(),
        failOpen,
        timeoutMs: 5_000,
        warn: (message) => warnings.push(message),
      });
      try {
        const one = { limit: 1, windowSeconds: 60 };
        assert.equal((await limiter.consume('key:outage', one)).allowed, true);
        proxy.cut();
        for (let i = 0; i < 3; i++) {
          const attempt = limiter.consume('key:outage', one);
          if (failOpen) assert.equal((await attempt).allowed, true);
          else await assert.rejects(attempt);
        }
        assert.equal(warnings.length, 1);
        assert.match(warnings[0]!, /unreachable/);
        proxy.restore();
        // The counter in Redis survived the outage: the limit of 1 is still used up.
        await waitFor(
          'Redis to return',
          async () => {
            try {
              return (await limiter.consume('key:outage', one, 0)).allowed === false;
            } catch {
              return false;
            }
          },
          100,
        );
        assert.equal(warnings.length, 2);
        assert.match(warnings[1]!, /reachable again/);
      } finally {
        await limiter.close();
      }
    });
  }

  it('refuses to start when Redis cannot be reached', async () => {
    proxy.cut();
    await assert.rejects(createRedisRateLimiter(`redis://127.0.0.1:${proxy.port}`), /cannot reach Redis/);
    proxy.restore();
  });
});

describe('a Redis refused at start', () => {
  it('leaves nothing behind that keeps the process alive', async () => {
    // A process that asks for a limiter and gives up must be free to exit at once. Timers are
    // counted before and after, once the refusal's own callbacks (100 ms at most) have run.
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    await settle();
    const before = timers();
    await assert.rejects(createRedisRateLimiter('redis://127.0.0.1:1'), /cannot reach Redis at 127\.0\.0\.1:1/);
    await settle();
    assert.equal(timers(), before, `timers left running: ${process.getActiveResourcesInfo().join(', ')}`);
  });
});
