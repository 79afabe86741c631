/** docs/contract.md §8: per-key rate limits, their headers, windows, overrides and atomicity. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ManualClock,
  MemoryRateLimiter,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitPolicy,
} from '../../core/index.ts';
import type { TestResponse } from '../../core/testing/index.ts';
import { assertError, assertSuccess, deviceBody, eachStore } from './helpers.ts';

function rate(res: TestResponse): {
  policy: string | null;
  limit: string | null;
  remaining: string | null;
  reset: string | null;
  value: string | null;
  retry: string | null;
} {
  return {
    policy: res.headers.get('ratelimit-policy'),
    value: res.headers.get('ratelimit'),
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    reset: res.headers.get('ratelimit-reset'),
    retry: res.headers.get('retry-after'),
  };
}

eachStore('rate limits', (env) => {
  test('120 requests a 60 s window by default; the 121st is 429 rate_limit_exceeded', async () => {
    const { t, key } = await env.setup();
    for (let i = 1; i <= 120; i++) {
      const res = await t.request(i % 2 === 0 ? '/v1/me' : '/v1/devices', { key });
      assertSuccess(res, 200);
      assert.deepEqual(rate(res), {
        policy: '"key";q=120;w=60',
        value: `"key";r=${120 - i};t=60`,
        limit: '120',
        remaining: String(120 - i),
        reset: '60',
        retry: null,
      });
    }
    const refused = await t.request('/v1/me', { key });
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.deepEqual(rate(refused), {
      policy: '"key";q=120;w=60',
      value: '"key";r=0;t=60',
      limit: '120',
      remaining: '0',
      reset: '60',
      retry: '60',
    });
    assertError(
      await t.request('/v1/devices/create', { method: 'POST', key, body: deviceBody() }),
      429,
      'rate_limit_exceeded',
    );
    assert.deepEqual(
      assertSuccess(await t.request('/v1/devices', { key: await t.createKey({ userId: key.key.user_id }) }), 200),
      [],
      'the refused create did not run',
    );
  });

  test('the window resets with the clock', async () => {
    const t = env.api();
    const key = await t.createKey({ rateLimit: { limit: 3, windowSeconds: 10 } });
    for (let i = 0; i < 3; i++) assertSuccess(await t.request('/v1/me', { key }), 200);
    t.clock.advance(4_000);
    let res = await t.request('/v1/me', { key });
    assertError(res, 429, 'rate_limit_exceeded');
    assert.equal(res.headers.get('ratelimit'), '"key";r=0;t=6');
    assert.equal(res.headers.get('retry-after'), '6');
    t.clock.advance(5_999);
    res = await t.request('/v1/me', { key });
    assertError(res, 429, 'rate_limit_exceeded');
    assert.equal(res.headers.get('retry-after'), '1');
    t.clock.advance(1);
    res = await t.request('/v1/me', { key });
    assertSuccess(res, 200);
    assert.equal(res.headers.get('ratelimit'), '"key";r=2;t=10');
    t.clock.advance(60_000);
    res = await t.request('/v1/me', { key });
    assert.equal(res.headers.get('ratelimit'), '"key";r=2;t=10');
  });

  test('a per-key limit overrides the default', async () => {
    const t = env.api();
    const limited = await t.createKey({ rateLimit: { limit: 5, windowSeconds: 10 } });
    const normal = await t.createKey({ userId: limited.key.user_id });
    for (let i = 1; i <= 5; i++) {
      const res = await t.request('/v1/me', { key: limited });
      assertSuccess(res, 200);
      assert.equal(res.headers.get('ratelimit-policy'), '"key";q=5;w=10');
      assert.equal(res.headers.get('ratelimit'), `"key";r=${5 - i};t=10`);
      assert.equal(res.headers.get('ratelimit-limit'), '5');
    }
    const refused = await t.request('/v1/me', { key: limited });
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.equal(refused.headers.get('retry-after'), '10');
    // Limits are per key: the same user's other key has its own, default, quota.
    const other = await t.request('/v1/me', { key: normal });
    assertSuccess(other, 200);
    assert.equal(other.headers.get('ratelimit-policy'), '"key";q=120;w=60');
    assert.equal(other.headers.get('ratelimit'), '"key";r=119;t=60');
  });

  test('a global limit overrides the default, and a per-key limit overrides the global one', async () => {
    const t = env.api({ rateLimit: { limit: 3, windowSeconds: 7 } });
    const key = await t.createKey();
    const own = await t.createKey({ rateLimit: { limit: 4, windowSeconds: 20 } });
    for (let i = 1; i <= 3; i++) {
      const res = await t.request('/v1/devices', { key });
      assertSuccess(res, 200);
      assert.equal(res.headers.get('ratelimit-policy'), '"key";q=3;w=7');
      assert.equal(res.headers.get('ratelimit'), `"key";r=${3 - i};t=7`);
      assert.equal(res.headers.get('ratelimit-reset'), '7');
    }
    const refused = await t.request('/v1/devices', { key });
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.equal(refused.headers.get('retry-after'), '7');
    for (let i = 1; i <= 4; i++) {
      const res = await t.request('/v1/devices', { key: own });
      assertSuccess(res, 200);
      assert.equal(res.headers.get('ratelimit-policy'), '"key";q=4;w=20');
    }
    assertError(await t.request('/v1/devices', { key: own }), 429, 'rate_limit_exceeded');
  });

  test('every authenticated request counts, whatever its answer', async () => {
    const t = env.api();
    const key = await t.createKey({ rateLimit: { limit: 4, windowSeconds: 60 } });
    assertError(await t.request('/v1/nope', { key }), 404, 'unknown_route');
    assertError(await t.request('/v1/me', { method: 'POST', key }), 405, 'method_not_allowed');
    assertError(await t.request('/v1/devices/create', { method: 'POST', key, body: {} }), 400, 'validation_failed');
    assertSuccess(await t.request('/v1/me', { key }), 200);
    assertError(await t.request('/v1/me', { key }), 429, 'rate_limit_exceeded');
  });

  test('50 concurrent requests against a limit of 10: exactly 10 pass', async () => {
    const t = env.api();
    const key = await t.createKey({ rateLimit: { limit: 10, windowSeconds: 60 } });
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.request('/v1/devices', { key })));
    assert.equal(answers.filter((a) => a.status === 200).length, 10);
    assert.equal(answers.filter((a) => a.status === 429).length, 40);
    for (const a of answers) if (a.status === 429) assertError(a, 429, 'rate_limit_exceeded');
    const remaining = answers
      .filter((a) => a.status === 200)
      .map((a) => Number(a.headers.get('ratelimit-remaining')))
      .sort((x, y) => x - y);
    assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('50 concurrent creates against a limit of 10: exactly 10 pass and 10 records exist', async () => {
    const t = env.api();
    const key = await t.createKey({ rateLimit: { limit: 10, windowSeconds: 60 } });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: deviceBody({ target_value: `c${i}.example.com` }),
        }),
      ),
    );
    assert.equal(answers.filter((a) => a.status === 201).length, 10);
    assert.equal(answers.filter((a) => a.status === 429).length, 40);
    const reader = await t.createKey({ userId: key.key.user_id });
    assert.equal((assertSuccess(await t.request('/v1/devices', { key: reader }), 200) as unknown[]).length, 10);
  });

  test('a limiter shared by two instances enforces one limit', async () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter({ clock });
    const a = env.api({ clock, rateLimiter: limiter, rateLimit: { limit: 6, windowSeconds: 60 } });
    const b = env.api({ clock, rateLimiter: limiter, rateLimit: { limit: 6, windowSeconds: 60 } });
    const key = await a.createKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).request('/v1/me', { key })),
    );
    assert.equal(answers.filter((x) => x.status === 200).length, 6);
    assertError(await b.request('/v1/me', { key }), 429, 'rate_limit_exceeded');
    await limiter.close();
  });

  test('a limiter that offers consumeNow is asked at once on every request, and one that does not is awaited: both count the same', async () => {
    const clock = new ManualClock();
    const asked: string[] = [];
    const memory = new MemoryRateLimiter({ clock });
    // Both wrap the same kind of counter; they differ only in which entry the core can call.
    const immediate: RateLimiter = {
      consume(bucket: string, policy: RateLimitPolicy, cost?: number): Promise<RateLimitDecision> {
        asked.push(`consume ${bucket.split(':')[0]} ${cost}`);
        return memory.consume(bucket, policy, cost);
      },
      consumeNow(bucket: string, policy: RateLimitPolicy, cost?: number): RateLimitDecision {
        asked.push(`now ${bucket.split(':')[0]} ${cost}`);
        return memory.consumeNow(bucket, policy, cost);
      },
    };
    const other = new MemoryRateLimiter({ clock });
    const awaited: RateLimiter = { consume: (bucket, policy, cost) => other.consume(bucket, policy, cost) };
    for (const rateLimiter of [immediate, awaited]) {
      const t = env.api({ clock, rateLimiter, rateLimit: { limit: 3, windowSeconds: 60 } });
      const key = await t.createKey();
      for (let i = 2; i >= 0; i--) {
        const res = await t.request('/v1/me', { key });
        assertSuccess(res, 200);
        assert.equal(rate(res).remaining, String(i));
      }
      assertError(await t.request('/v1/me', { key }), 429, 'rate_limit_exceeded');
    }
    // Every request asks at once about the address's failures (cost 0), then the key's quota
    // (cost 1). Only the first, which reads the key from the store, also reserves a failure and
    // gives it back, through consume (the authenticator's path, taken once per key).
    assert.deepEqual(asked, [
      'now auth 0',
      'consume auth 1',
      'consume auth -1',
      'now key 1',
      'now auth 0',
      'now key 1',
      'now auth 0',
      'now key 1',
      'now auth 0',
      'now key 1',
    ]);
    await memory.close();
    await other.close();
  });

  test('a limiter that overrides consume alone keeps every decision, though it inherits consumeNow', async () => {
    const clock = new ManualClock();
    const asked: string[] = [];
    // Exempts keys from the quota: an embedder's policy, written before consumeNow had a meaning.
    class Exempting extends MemoryRateLimiter {
      override async consume(bucket: string, policy: RateLimitPolicy, cost?: number): Promise<RateLimitDecision> {
        asked.push(`${bucket.split(':')[0]} ${cost}`);
        if (bucket.startsWith('key:'))
          return { allowed: true, limit: policy.limit, remaining: policy.limit, resetSeconds: 60 };
        return super.consume(bucket, policy, cost);
      }
    }
    const rateLimiter = new Exempting({ clock });
    const t = env.api({ clock, rateLimiter, rateLimit: { limit: 1, windowSeconds: 60 } });
    const key = await t.createKey();
    for (let i = 0; i < 3; i++) assertSuccess(await t.request('/v1/me', { key }), 200);
    assert.deepEqual(asked, ['auth 0', 'auth 1', 'auth -1', 'key 1', 'auth 0', 'key 1', 'auth 0', 'key 1']);
    await rateLimiter.close();
  });
});
