import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTestApi } from '../../core/testing/index.ts';

// ip_not_allowed is an answer to an authenticated key: it shows the key's quota (docs/contract.md §3) but
// does not spend it, since the pipeline stops before the rate-limit step (docs/contract.md §2).
it("ip_not_allowed carries the key's rate-limit headers without counting the request", async () => {
  const t = createTestApi();
  const key = await t.createKey({ allowedIps: ['10.0.0.0/8'], rateLimit: { limit: 5, windowSeconds: 60 } });
  for (let i = 0; i < 3; i++) {
    const refused = await t.request('/v1/me', { key, clientAddress: '192.0.2.1' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error?.code, 'ip_not_allowed');
    assert.equal(refused.headers.get('ratelimit-policy'), '"key";q=5;w=60');
    assert.equal(refused.headers.get('ratelimit-remaining'), '5');
    assert.equal(refused.headers.get('retry-after'), null);
  }
  const allowed = await t.request('/v1/me', { key, clientAddress: '10.1.2.3' });
  assert.equal(allowed.status, 200);
  assert.equal(allowed.headers.get('ratelimit-remaining'), '4');
});
