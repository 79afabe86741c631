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

/**
 * Runs `work` `times` times in a row; resolves with the longest one, in milliseconds. One that
 * waited for a frozen Redis takes the whole timeout (at least TIMEOUT_MS - 5 as measured here, the
 * timer's own rounding allowed for); one that did not, a few milliseconds even on a busy machine.
 * The longest tells them apart where a total would not: twenty quick ones on a loaded machine can
 * add up to more than one slow one.
 */
async function slowestOf(times: number, work: () => Promise<unknown>): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await work();
    slowest = Math.max(slowest, performance.now() - started);
  }
  return slowest;
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

        // Frozen still: later decisions do not ask Redis, so none waits out the timeout.
        const slowest = await slowestOf(50, () => limiter.consume('key:stall', policy).catch((error: unknown) => error));
        assert.ok(slowest < TIMEOUT_MS - 5, `a decision during the outage took ${slowest} ms: it waited for Redis`);
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
      const slowest = await slowestOf(20, async () => assert.equal((await t.request('/v1/me', { key })).status, 200));
      assert.ok(slowest < TIMEOUT_MS - 5, `a request during the outage took ${slowest} ms: it waited for Redis`);
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
