import assert from 'node:assert/strict';
import type { BlacklistMonitor, Channel, Device, Store } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';

/**
 * A check recorded through `writer` (another store on the same database, as another worker
 * would be) must show in the list `reader` serves, cached or not: the engine's writes move the
 * store's change marker as the API's own writes do.
 */
export async function assertRecordedCheckShows(
  reader: TestApi,
  creator: TestApi,
  writer: Store,
  key: string,
): Promise<void> {
  const monitor = await creator.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
    method: 'POST',
    key,
    body: { target_type: 'ip', target_value: '8.8.8.8' },
  });
  const status = async () =>
    (await reader.request<BlacklistMonitor[]>('/v1/blacklist-monitors', { key })).body.data![0]!.last_status;
  assert.equal(await status(), null);
  const claims = await writer.claimDueBlacklistMonitors({
    owner: 'test',
    now: '2100-01-01T00:00:00.000Z',
    limit: 10,
    leaseUntil: '2100-01-01T00:01:00.000Z',
  });
  assert.deepEqual(
    claims.map((c) => c.record.id),
    [monitor.body.data!.id],
  );
  const outcome = {
    checked_at: '2026-01-02T00:00:00.000Z',
    last_status: 'listed' as const,
    listed_on: ['zen.example'],
    failed_zones: [],
    results: [],
    next_check_at: '2026-01-02T01:00:00.000Z',
    events: [],
    listings: [],
    rdns: null,
  };
  assert.deepEqual(await writer.recordBlacklistChecks([{ lease: claims[0]!.lease, outcome }]), [true]);
  assert.equal(await status(), 'listed');
}

/**
 * Channel writes through `writer` (the API of another instance, and its store as the delivery work
 * would use it) show in the lists `reader` serves, cached or not: a channel's create, change and
 * delivery, and a delete that takes it out of a device's `channel_ids`.
 */
export async function assertChannelWritesShow(reader: TestApi, writer: TestApi, key: string): Promise<void> {
  const channels = async () =>
    ((await reader.request<Channel[]>('/v1/channels', { key })).body.data ?? []).map((c) => [
      c.name,
      c.last_delivery_status,
    ]);
  const ids = async () =>
    ((await reader.request<Device[]>('/v1/devices', { key })).body.data ?? [])
      .filter((d) => d.target_value === 'routed.example.com')
      .map((d) => d.channel_ids);
  assert.deepEqual(await channels(), []);
  assert.deepEqual(await channels(), [], 'a second, cached answer');
  const body = { name: 'ops', type: 'ntfy', config: { server_url: 'https://ntfy.sh', topic: 'ops' } };
  const created = await writer.request<Channel>('/v1/channels/create', { method: 'POST', key, body });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data!.id;
  assert.deepEqual(await channels(), [['ops', null]]);
  const device = await writer.request<Device>('/v1/devices/create', {
    method: 'POST',
    key,
    body: { target_type: 'domain', target_value: 'routed.example.com', channel_ids: [id] },
  });
  assert.equal(device.status, 201, device.text);
  assert.deepEqual(await ids(), [[id]]);
  const renamed = await writer.request(`/v1/channels/update?id=${id}`, {
    method: 'PATCH',
    key,
    body: { name: 'night' },
  });
  assert.equal(renamed.status, 200, renamed.text);
  assert.deepEqual(await channels(), [['night', null]]);
  const attempt = {
    kind: 'events' as const,
    event_ids: [1],
    event_types: ['device.down' as const],
    attempt: 1,
    attempted_at: '2026-01-01T00:00:01.000Z',
    http_status: 200,
    error: null,
    duration_ms: 3,
  };
  assert.equal(await writer.store.recordChannelAttempt(id, attempt), true);
  assert.deepEqual(await channels(), [['night', 'delivered']]);
  assert.equal((await writer.request(`/v1/channels/delete?id=${id}`, { method: 'DELETE', key })).status, 200);
  assert.deepEqual(await channels(), []);
  assert.deepEqual(await ids(), [[]], 'the delete took it out of the device');
}
