import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestDatabase } from '../support/postgres.ts';
import { seedDatabase, startExample } from './harness.ts';
import { adapterSuite, call } from './suite.ts';

adapterSuite('deno');

describe('the deno example on PostgreSQL', () => {
  it('serves a postgres:// DATABASE_URL through npm:pg', async (t) => {
    const database = await createTestDatabase({ migrated: true });
    if (database.skip !== undefined) return t.skip(database.skip);
    try {
      const keys = await seedDatabase(database.url);
      const server = await startExample('deno', database.url);
      try {
        const created = await call(`${server.base}/devices/create`, {
          key: keys.readWrite,
          body: { target_type: 'ip', target_value: '8.8.4.4' },
        });
        assert.equal(created.status, 201, created.text);
        const list = await call(`${server.base}/devices`, { key: keys.readWrite });
        assert.deepEqual(
          (list.json.data as { target_value: string }[]).map((d) => d.target_value),
          ['8.8.4.4'],
        );
      } finally {
        assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.output());
      }
    } finally {
      await database.drop();
    }
  });
});
