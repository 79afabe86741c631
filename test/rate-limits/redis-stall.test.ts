/**
 * A Redis that stalls (SIGSTOP: the connection stays open, nothing answers) must not stall the
 * API: the first decision of the outage waits at most the limiter's timeout, later ones do not
 * wait at all until a background probe sees Redis answer again.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Redis } from 'ioredis';
import type { RateLimiter } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { createRedisRateLimiter, RedisRateLimiter, RedisUnavailableError } from '../../stores/redis/index.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { uniquePrefix } from '../support/redis.ts';
import { privateRedisSkipReason, startPrivateRedis, type PrivateRedis } from '../support/redis-server.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';

const skip = privateRedisSkipReason();
const policy = { limit: 1_000, windowSeconds: 60 };
/**
 * The limiter's timeout. It also bounds the decisions Redis must answer (before the freeze and
 * after the thaw), so it leaves room for a loaded machine; it stays below ioredis's own command
 * timeout (1 s, FAIL_FAST in stores/redis/redis-rate-limiter.ts), and the limiter's warning names
 * it, so which of the two ended a wait is read, not timed.
 */
const TIMEOUT_MS = 500;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([work()]);
  return { ms: performance.now() - started, result: result! };
}

/**
 * Whether `decision` settles before a setImmediate callback runs. One that asked a frozen Redis
 * cannot (only its timer ends it); one made without I/O settles in microtasks, which all run
 * first, however loaded the machine.
 */
async function settlesAtOnce(decision: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([
    decision.catch((error: unknown) => error),
    new Promise((resolve) => setImmediate(resolve, pending)),
  ]);
  return first !== pending;
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
        prefix: uniquePrefix(),
        failOpen,
        probeIntervalMs: 50,
        warn: (message) => warnings.push(message),
      });
      try {
        assert.equal((await limiter.consume('key:stall', policy)).remaining, 999);
        redis.freeze();
        const first = await timed(() => limiter.consume('key:stall', policy));
        // At least the timeout (the timer's own rounding allowed for): it waited for Redis.
        assert.ok(first.ms >= TIMEOUT_MS - 5, `first decision took ${first.ms} ms`);
        if (failOpen) assert.equal(first.result.status === 'fulfilled' && first.result.value.allowed, true);
        else assert.ok(first.result.status === 'rejected' && first.result.reason instanceof RedisUnavailableError);
        assert.equal(warnings.length, 1);
        // The limiter's own timer ended it, not ioredis's command timeout.
        assert.match(warnings[0]!, new RegExp(`unreachable.*no answer within ${TIMEOUT_MS} ms.*failing`));

        // Frozen still: later decisions do not ask Redis, so each is made at once.
        for (let i = 0; i < 50; i++) {
          const atOnce = await settlesAtOnce(limiter.consume('key:stall', policy));
          assert.ok(atOnce, `decision ${i + 1} of the outage waited for Redis`);
        }
        assert.equal(warnings.length, 1);

        redis.thaw();
        await waitFor('the probe to see Redis again', () => warnings.length === 2, 10);
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
    const warnings: string[] = [];
    const limiter = await createRedisRateLimiter(`${redis.url}?timeout=${TIMEOUT_MS}`, {
      prefix: uniquePrefix(),
      probeIntervalMs: 50,
      warn: (message) => warnings.push(message),
    });
    // Every decision the API asks for once the outage has begun, and whether it was made at once.
    let watching = false;
    const decisions: Promise<boolean>[] = [];
    const watched: RateLimiter = {
      consume(bucket, policy, cost) {
        const decision = limiter.consume(bucket, policy, cost);
        if (watching) decisions.push(settlesAtOnce(decision));
        return decision;
      },
    };
    // keyCacheTtlMs 0: every request looks its key up again, which asks the limiter once more.
    const t = createTestApi({ rateLimiter: watched, keyCacheTtlMs: 0 });
    try {
      const key = await t.createKey({ scopes: ['read'] });
      assert.equal((await t.request('/v1/me', { key })).status, 200);
      redis.freeze();
      const first = await t.request('/v1/me', { key });
      assert.equal(first.status, 200);
      // Answered once the limiter's own timer gave up on Redis, not ioredis's command timeout.
      assert.match(warnings.join('\n'), new RegExp(`unreachable.*no answer within ${TIMEOUT_MS} ms`));
      watching = true;
      for (let i = 0; i < 20; i++) assert.equal((await t.request('/v1/me', { key })).status, 200);
      assert.ok(decisions.length >= 20, `${decisions.length} decisions asked for`);
      const waited = (await Promise.all(decisions)).filter((atOnce) => !atOnce).length;
      assert.equal(waited, 0, `${waited} of ${decisions.length} decisions during the outage waited for Redis`);
    } finally {
      redis.thaw();
      await t.api.close();
      await limiter.close();
    }
  });

  it('closing a limiter while Redis is frozen does not wait for Redis', { timeout: HANG_GUARD_MS }, async () => {
    // ioredis's own command timeout is the test's hang guard here: only the limiter's timer can
    // end the close in time, and a close that waited for Redis would hang into the guard.
    const connection = new Redis(redis.url, { commandTimeout: HANG_GUARD_MS, maxRetriesPerRequest: 0 });
    connection.on('error', () => {});
    await connection.ping();
    const limiter = new RedisRateLimiter(connection, { prefix: uniquePrefix(), timeoutMs: 100 });
    redis.freeze();
    try {
      await limiter.close();
    } finally {
      redis.thaw();
      connection.disconnect();
    }
  });
});
