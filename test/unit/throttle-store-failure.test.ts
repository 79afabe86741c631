import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTestApi } from '../../core/testing/index.ts';
import { MemoryStore } from '../../core/index.ts';

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
