/**
 * A host's unit test with `monitoring-api/testing`: the whole API in process, over a memory store
 * and a manual clock, no network and no database. Run it with
 *
 *   node --test examples/testing/devices.test.ts
 *
 * In an application the imports read 'monitoring-api' and 'monitoring-api/testing'.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Device } from '../../core/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';

describe('devices, through monitoring-api/testing', () => {
  let t: TestApi;
  beforeEach(() => {
    t = createTestApi({ start: '2026-03-01T12:00:00.000Z' });
  });
  afterEach(() => t.close());

  it('creates, lists and deletes a device', async () => {
    const key = await t.createKey({ scopes: ['read', 'write'] });

    const created = await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: 'Shop.Example.COM.' },
    });
    assert.equal(created.status, 201);
    // `Device` is what this test expects in `data`; the kit parses, it does not check the shape.
    const device = created.body.data;
    assert.ok(device);
    assert.equal(device.target_value, 'shop.example.com');
    assert.equal(device.created_at, '2026-03-01T12:00:00.000Z'); // the manual clock

    const list = await t.request<Device[]>('/v1/devices', { key });
    assert.deepEqual(
      list.body.data?.map((d) => d.id),
      [device.id],
    );

    const deleted = await t.request(`/v1/devices/delete?id=${device.id}`, { method: 'DELETE', key });
    assert.deepEqual(deleted.body, { success: true, data: { id: device.id, deleted: true } });
  });

  it('keeps a read-only key from writing', async () => {
    const key = await t.createKey({ scopes: ['read'] });
    const res = await t.request('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'ip', target_value: '8.8.8.8' },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.error?.code, 'insufficient_scope');
  });

  it('applies the key allow-list to the address the adapter would report', async () => {
    const key = await t.createKey({ allowedIps: ['10.0.0.0/8'] });
    assert.equal((await t.request('/v1/me', { key, clientAddress: '10.1.2.3' })).status, 200);
    const refused = await t.request('/v1/me', { key, clientAddress: '192.0.2.7' });
    assert.equal(refused.body.error?.code, 'ip_not_allowed');
  });

  it('lets rate-limit windows pass with the clock, not with real time', async () => {
    const key = await t.createKey({ rateLimit: { limit: 1, windowSeconds: 60 } });
    assert.equal((await t.request('/v1/me', { key })).status, 200);
    const limited = await t.request('/v1/me', { key });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '60');
    t.clock.advance(60_000);
    assert.equal((await t.request('/v1/me', { key })).status, 200);
  });
});
