/**
 * docs/heartbeats.md, "Lateness" and "Events, incidents and reports": the engine finds heartbeats past their deadline
 * (with an injected clock, one `runOnce()` at a time), announces `heartbeat.down` and
 * `heartbeat.up` to webhooks, opens incidents from the deadline missed, and counts availability;
 * maintenance windows hold a heartbeat's going down. Through the API and a webhook on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AvailabilityReport, Heartbeat, Incident } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';

interface Delivered {
  type: string;
  data: Heartbeat & { previous_status: string; status: string; cause: string | null; last_ping_body: string | null };
}

const received: Delivered[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    received.push(JSON.parse(body) as Delivered);
    res.end('ok');
  });
});
let webhookUrl = '';
before(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

async function setup(body: Record<string, unknown>, start = '2026-01-01T00:00:00.000Z') {
  const t = createTestApi({ allowPrivateTargets: true, start });
  const key = await t.createKey();
  await t.request('/v1/webhooks/create', {
    method: 'POST',
    key,
    body: { url: webhookUrl, events: ['heartbeat.down', 'heartbeat.up'] },
  });
  const hb = (await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body })).body.data!;
  const engine = createMonitoringEngine({ store: t.store, clock: t.clock, allowPrivateTargets: true });
  const shown = async () => (await t.request<Heartbeat>(`/v1/heartbeats/get?id=${hb.id}`, { key })).body.data!;
  const deliveries = async () => {
    received.length = 0;
    await engine.runOnce();
    return received.map((event) => [event.type, event.data.cause, event.data.status]);
  };
  return { t, key, hb, path: new URL(hb.ping_url!).pathname, engine, shown, deliveries };
}

describe('lateness found by the engine', () => {
  it('a heartbeat never pinged never goes down', async () => {
    const { t, shown, deliveries } = await setup({ period_s: 60 });
    t.clock.advance(30 * 86_400_000);
    assert.deepEqual(await deliveries(), []);
    assert.equal((await shown()).status, 'new');
    await t.close();
  });

  it('nothing by next_due_at is down from next_due_at, once; the next success is up', async () => {
    const { t, key, hb, path, shown, deliveries } = await setup({ period_s: 3600, grace_s: 300 });
    await t.ping(path, { body: 'nightly run: 42 files' });
    assert.equal((await shown()).next_due_at, '2026-01-01T01:05:00.000Z');
    t.clock.set('2026-01-01T01:04:59.999Z');
    assert.deepEqual(await deliveries(), [], 'not late a millisecond early');
    t.clock.set('2026-01-01T01:05:03.000Z');
    assert.deepEqual(await deliveries(), [['heartbeat.down', 'late', 'down']]);
    const down = received.length === 0 ? undefined : await shown();
    assert.deepEqual([down!.status, down!.status_since, down!.next_due_at], ['down', '2026-01-01T01:05:00.000Z', null]);
    t.clock.advance(3_600_000);
    assert.deepEqual(await deliveries(), [], 'announced once');
    await t.ping(path);
    assert.deepEqual(await deliveries(), [['heartbeat.up', null, 'up']]);
    const incidents = await t.request<Incident[]>(`/v1/incidents?heartbeat_id=${hb.id}`, { key });
    assert.deepEqual(
      incidents.body.data!.map(({ id: _id, ...incident }) => incident),
      [
        {
          device_id: null,
          heartbeat_id: hb.id,
          started_at: '2026-01-01T01:05:00.000Z',
          resolved_at: '2026-01-01T02:05:03.000Z',
          duration_s: 3603,
          cause: { probe: 'heartbeat', error: 'late' },
          locations: null,
          acknowledged_at: null,
          acknowledged_by: null,
        },
      ],
    );
    t.clock.advance(600_000);
    const range = 'from=2025-12-31T23:00:00.000Z&to=2026-01-01T02:15:03.000Z';
    const report = (await t.request<AvailabilityReport>(`/v1/heartbeats/availability?id=${hb.id}&${range}`, { key }))
      .body.data!;
    assert.deepEqual(
      [report.uptime_s, report.downtime_s, report.unknown_s, report.incidents],
      [4500, 3603, 3600, 1],
      'unknown before it existed, up from the first ping to the deadline and after the success, down in between',
    );
    await t.close();
  });

  it('the event carries the cause and the start of the last body', async () => {
    const { t, path, deliveries } = await setup({ period_s: 60, grace_s: 60 });
    await t.ping(path, { body: 'x'.repeat(5000) });
    t.clock.advance(121_000);
    await deliveries();
    const [event] = received;
    assert.equal(event!.data.last_ping_body, 'x'.repeat(1000));
    assert.equal(event!.data.previous_status, 'up');
    assert.equal('ping_url' in event!.data, false, 'an event never carries the token');
    await t.close();
  });

  it('a run not ended within max_runtime_s (else grace_s) is down: ran_too_long', async () => {
    const { t, path, shown, deliveries } = await setup({ period_s: 86_400, max_runtime_s: 600 });
    await t.ping(`${path}/start`);
    t.clock.advance(599_000);
    assert.deepEqual(await deliveries(), []);
    t.clock.advance(2000);
    assert.deepEqual(await deliveries(), [['heartbeat.down', 'ran_too_long', 'down']]);
    assert.equal((await shown()).status_since, '2026-01-01T00:10:00.000Z');
    await t.close();
  });

  it('a maintenance window holds a heartbeat from going down until it ends, and counts as maintenance', async () => {
    const { t, key, hb, path, shown, deliveries } = await setup({ period_s: 3600, grace_s: 60 });
    await t.ping(path);
    const window = await t.request('/v1/maintenance-windows/create', {
      method: 'POST',
      key,
      body: {
        name: 'migration',
        starts_at: '2026-01-01T00:30:00.000Z',
        ends_at: '2026-01-01T03:00:00.000Z',
        heartbeat_ids: [hb.id],
      },
    });
    assert.equal(window.status, 201);
    t.clock.set('2026-01-01T00:30:00.000Z');
    await deliveries();
    t.clock.set('2026-01-01T02:00:00.000Z');
    await t.ping(`${path}/fail`);
    assert.deepEqual(await deliveries(), [], 'neither late nor failed while the window is in force');
    assert.equal((await shown()).status, 'up');
    t.clock.set('2026-01-01T03:00:00.000Z');
    assert.deepEqual(await deliveries(), [['heartbeat.down', 'late', 'down']], 'its deadline passed in the window');
    assert.equal((await shown()).status_since, '2026-01-01T03:00:00.000Z', 'late from the end of the window');
    t.clock.set('2026-01-01T04:00:00.000Z');
    const range = 'from=2026-01-01T00:00:00.000Z&to=2026-01-01T04:00:00.000Z';
    const report = (await t.request<AvailabilityReport>(`/v1/heartbeats/availability?id=${hb.id}&${range}`, { key }))
      .body.data!;
    assert.deepEqual([report.uptime_s, report.maintenance_s, report.downtime_s], [1800, 9000, 3600]);
    await t.close();
  });

  it("a foreign heartbeat id in a window is invalid_value; incidents of a heartbeat not the user's are 404", async () => {
    const { t, hb } = await setup({ period_s: 60 });
    const other = await t.createKey();
    const window = await t.request('/v1/maintenance-windows/create', {
      method: 'POST',
      key: other,
      body: { name: 'x', starts_at: '2026-01-02T00:00:00Z', ends_at: '2026-01-02T01:00:00Z', heartbeat_ids: [hb.id] },
    });
    assert.deepEqual(
      window.body.error!.details!.map((d) => [d.field, d.code]),
      [['heartbeat_ids', 'invalid_value']],
    );
    const incidents = await t.request(`/v1/incidents?heartbeat_id=${hb.id}`, { key: other });
    assert.deepEqual([incidents.status, incidents.body.error!.code], [404, 'heartbeat_not_found']);
    const both = await t.request(`/v1/incidents?heartbeat_id=${hb.id}&device_id=1`, { key: other });
    assert.deepEqual(
      both.body.error!.details!.map((d) => [d.field, d.code]),
      [['heartbeat_id', 'not_applicable']],
    );
    await t.close();
  });
});
