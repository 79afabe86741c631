/**
 * A Redis that stalls (SIGSTOP: the connection stays open, nothing answers) must not stall the
 * API: the first decision of the outage waits at most the limiter's timeout, later ones do not
 * wait at all until a background probe sees Redis answer again.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTestApi } from '../../core/testing/index.ts';
import { createRedisRateLimiter, RedisUnavailableError, type RedisRateLimiter } from '../../stores/redis/index.ts';
import { uniquePrefix } from '../support/redis.ts';
import { privateRedisSkipReason, startPrivateRedis, type PrivateRedis } from '../support/redis-server.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';

const skip = privateRedisSkipReason();
const policy = { limit: 1_000, windowSeconds: 60 };
const TIMEOUT_MS = 100;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([work()]);
  return { ms: performance.now() - started, result: result! };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

suiteOrSkip('a stalled Redis', skip, {}, () => {
  let redis: PrivateRedis;
  before(async () => {
    redis = await startPrivateRedis();
  });
  after(() => redis?.stop());

  for (const failOpen of [true, false]) {
    it(`fails ${failOpen ? 'open' : 'closed'} within the timeout once, then at once, until a probe sees it again`, async () => {
      const warnings: string[] = [];
      const limiter = await createRedisRateLimiter(`${redis.url}?timeout=${TIMEOUT_MS}`, {
        prefix: uniquePrefix(), failOpen, probeIntervalMs: 50, warn: (message) => warnings.push(message),
      });
      try {
        assert.equal((await limiter.consume('key:stall', policy)).remaining, 999);
        redis.freeze();
        const first = await timed(() => limiter.consume('key:stall', policy));
        assert.ok(first.ms >= TIMEOUT_MS - 5 && first.ms < TIMEOUT_MS + 150, `first decision took ${first.ms} ms`);
        if (failOpen) assert.equal(first.result.status === 'fulfilled' && first.result.value.allowed, true);
        else assert.ok(first.result.status === 'rejected' && first.result.reason instanceof RedisUnavailableError);
        assert.equal(warnings.length, 1);
        assert.match(warnings[0]!, /unreachable.*no answer within 100 ms.*failing/);

        // Frozen still: later decisions do not ask Redis, so they do not wait for it.
        const rest = await timed(async () => {
          for (let i = 0; i < 50; i++) await limiter.consume('key:stall', policy).catch((error: unknown) => error);
        });
        assert.ok(rest.ms < 50, `50 decisions during the outage took ${rest.ms} ms`);
        assert.equal(warnings.length, 1);

        redis.thaw();
        await waitFor(() => warnings.length === 2, 'the probe to see Redis again');
        assert.match(warnings[1]!, /reachable again/);
        // Redis decides again: only the answered decisions counted (the abandoned one ran late).
        const back = await limiter.consume('key:stall', policy);
        assert.ok(back.remaining === 997 || back.remaining === 998, `remaining ${back.remaining}`);
      } finally {
        redis.thaw();
        await limiter.close();
      }
    });
  }

  it('the API answers within the timeout while Redis is frozen, also when the key cache refreshes', async () => {
    const limiter = await createRedisRateLimiter(`${redis.url}?timeout=${TIMEOUT_MS}`, { prefix: uniquePrefix(), probeIntervalMs: 50 });
    // keyCacheTtlMs 0: every request looks its key up again, which asks the limiter once more.
    const t = createTestApi({ rateLimiter: limiter, keyCacheTtlMs: 0 });
    try {
      const key = await t.createKey({ scopes: ['read'] });
      assert.equal((await t.request('/v1/me', { key })).status, 200);
      redis.freeze();
      const first = await timed(() => t.request('/v1/me', { key }));
      assert.equal(first.result.status === 'fulfilled' && first.result.value.status, 200);
      assert.ok(first.ms < TIMEOUT_MS + 150, `the first request of the outage took ${first.ms} ms`);
      const rest = await timed(async () => {
        for (let i = 0; i < 20; i++) assert.equal((await t.request('/v1/me', { key })).status, 200);
      });
      assert.ok(rest.ms < 200, `20 requests during the outage took ${rest.ms} ms`);
    } finally {
      redis.thaw();
      await t.api.close();
      await limiter.close();
    }
  });

  it('closing a limiter while Redis is frozen does not wait for Redis', async () => {
    const limiter: RedisRateLimiter = await createRedisRateLimiter(`${redis.url}?timeout=${TIMEOUT_MS}`, { prefix: uniquePrefix() });
    redis.freeze();
    try {
      const closing = await timed(() => limiter.close());
      assert.ok(closing.ms < TIMEOUT_MS + 150, `close took ${closing.ms} ms`);
    } finally {
      redis.thaw();
    }
  });
});
