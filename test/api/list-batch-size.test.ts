/**
 * The `listBatchSize` option (docs/configuration.md): how many records a list without `limit`
 * reads from the store per query. The stream itself is tested per store in test/api.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryStore, type PageRequest } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';

test('listBatchSize must be an integer from 1 to 1000 (the largest page): anything else is refused when the API is made', () => {
  for (const size of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1_001, 2 ** 53]) {
    assert.throws(
      () => createTestApi({ listBatchSize: size }),
      { name: 'TypeError', message: /listBatchSize must be an integer from 1 to 1000/ },
      String(size),
    );
  }
  for (const size of [1, 1_000]) assert.doesNotThrow(() => createTestApi({ listBatchSize: size }), String(size));
});

test('a list without limit reads the store listBatchSize records at a time, and answers every record', async () => {
  const store = new MemoryStore();
  const reads: number[] = [];
  const listDevices = store.listDevices.bind(store);
  store.listDevices = (userId: number, page: PageRequest) => {
    reads.push(page.limit);
    return listDevices(userId, page);
  };
  const t = createTestApi({ store, listBatchSize: 2 });
  const key = await t.createKey();
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    assert.equal(
      (
        await t.request('/v1/devices/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: `${name}.example.com` },
        })
      ).status,
      201,
    );
  }
  const list = await t.request<{ target_value: string }[]>('/v1/devices', { key });
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.data?.map((device) => device.target_value),
    ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}.example.com`),
  );
  assert.deepEqual(reads, [2, 2, 2]);
});
