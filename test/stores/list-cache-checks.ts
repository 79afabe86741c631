import assert from 'node:assert/strict';
import type { BlacklistMonitor, Store } from '../../core/index.ts';
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
