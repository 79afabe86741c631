/** The typed client's webhooks, against the API in process (the testing kit's api.fetch). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createMonitoringClient, isApiError } from '../../client/index.ts';
import { createTestApi } from '../../core/testing/index.ts';

it('creates (with the secret), lists (without), pages, refuses duplicates and deletes webhooks', async () => {
  const t = createTestApi();
  const key = await t.createKey();
  const api = createMonitoringClient({
    baseUrl: 'http://monitoring.test/v1',
    token: key.token,
    fetch: (input, init) => t.api.fetch(new Request(input, init), { clientAddress: '127.0.0.1' }),
  });
  const created = await api.webhooks.create({ url: 'https://hooks.example.com/a', events: ['device.down'] });
  assert.match(created.secret, /^whsec_/);
  await api.webhooks.create({ url: 'https://hooks.example.com/b' });
  const page = await api.webhooks.list({ limit: 1 });
  assert.deepEqual([page.data.map((w) => w.id), page.next], [[created.id], { limit: 1, afterId: created.id }]);
  assert.ok(!('secret' in page.data[0]!));
  const all = [];
  for await (const w of api.webhooks.all({ pageSize: 1 })) all.push(w.url);
  assert.deepEqual(all, ['https://hooks.example.com/a', 'https://hooks.example.com/b']);
  await assert.rejects(
    api.webhooks.create({ url: 'https://hooks.example.com/a' }),
    (e) => isApiError(e, 'duplicate_webhook') && e.existingId === created.id,
  );
  assert.deepEqual(await api.webhooks.delete(created.id), { id: created.id, deleted: true });
  await assert.rejects(api.webhooks.delete(created.id), (e) => isApiError(e, 'webhook_not_found'));
  await t.close();
});
