import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTestApi } from '../../core/testing/index.ts';
import { MemoryRateLimiter, MemoryStore } from '../../core/index.ts';

// While the store cannot look keys up, clients get 500s; those are the server's failures and must
// not use up the address's failed-authentication allowance (30 a minute by default).
it('key look-ups that fail in the store do not count as failed authentications', async () => {
  const store = new MemoryStore();
  let down = false;
  const findApiKeyByHash = store.findApiKeyByHash.bind(store);
  store.findApiKeyByHash = async (hash) => {
    if (down) throw new Error('connection terminated unexpectedly');
    return findApiKeyByHash(hash);
  };
  const t = createTestApi({ store, authFailureLimit: { limit: 3, windowSeconds: 60 }, keyCacheTtlMs: 0 });
  const key = await t.createKey();
  down = true;
  for (let i = 0; i < 5; i++) assert.equal((await t.request('/v1/me', { key })).status, 500);
  down = false;
  assert.equal((await t.request('/v1/me', { key })).status, 200);
});

// The other way round: a limiter that fails to take a reservation (Redis timing out, fail closed)
// has counted nothing, so nothing may be given back, or an earlier failure would be erased.
it('a reservation the limiter failed to take is not refunded', async () => {
  const limiter = new MemoryRateLimiter();
  let failReservation = false;
  const consume = limiter.consume.bind(limiter);
  limiter.consume = async (bucket, policy, cost) => {
    if (failReservation && cost === 1) {
      failReservation = false;
      throw new Error('Command timed out');
    }
    return consume(bucket, policy, cost);
  };
  const t = createTestApi({ rateLimiter: limiter, authFailureLimit: { limit: 3, windowSeconds: 60 } });
  const guess = (n: number) => `mapi_${String(n).padStart(43, 'A')}`;
  const from = { clientAddress: '198.51.100.7' };
  for (let i = 0; i < 2; i++) assert.equal((await t.request('/v1/me', { key: guess(i), ...from })).status, 401);
  failReservation = true;
  assert.equal((await t.request('/v1/me', { key: guess(8), ...from })).status, 500);
  assert.equal((await t.request('/v1/me', { key: guess(9), ...from })).status, 401, 'the third failure');
  assert.equal(
    (await t.request('/v1/me', { key: guess(10), ...from })).status,
    429,
    'three counted: the address is throttled',
  );
});
