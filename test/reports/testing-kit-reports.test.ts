/**
 * The testing kit for reports (core/testing): availability follows a pause at the manual clock's
 * time with no engine, and `rollUp()` rolls the finished hours up once, as engines do.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AvailabilityReport, Device, Incident, ResponseTimePoint } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { http, mustRecord, recordDeviceCheck } from '../api/checks.ts';

const START = '2026-03-01T12:00:00.000Z';
const T0 = Date.parse(START);
const HOUR = 3_600_000;

test("a pause made through the API shows in availability at the clock's times", async () => {
  const t = createTestApi({ start: START });
  try {
    const key = await t.createKey();
    const created = await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: 'example.com' },
    });
    const id = created.body.data!.id;
    t.clock.advance(HOUR);
    const paused = await t.request(`/v1/devices/update?id=${id}`, {
      method: 'PATCH',
      key,
      body: { is_enabled: false },
    });
    assert.equal(paused.status, 200);
    t.clock.advance(HOUR / 2);
    const report = await t.request<AvailabilityReport>(
      `/v1/devices/availability?id=${id}&from=${encodeURIComponent(START)}`,
      { key },
    );
    assert.equal(report.status, 200);
    assert.equal(report.body.data!.uptime_s, 3600, 'pending counts as up');
    assert.equal(report.body.data!.paused_s, 1800);
    assert.equal(report.body.data!.availability, 100);
    assert.equal(report.body.data!.unknown_s, 0);
  } finally {
    await t.close();
  }
});

test('rollUp() rolls every finished hour once; the series reads the same before and after', async () => {
  const t = createTestApi({ start: START });
  try {
    const key = await t.createKey();
    const created = await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: 'example.com' },
    });
    const id = created.body.data!.id;
    for (const hour of [0, 1, 2]) {
      const at = new Date(T0 + hour * HOUR + 60_000).toISOString();
      await mustRecord(recordDeviceCheck(t.store, id, { checked_at: at, status: 'up', results: [http(at, 200)] }));
    }
    t.clock.set(T0 + 3 * HOUR + 600_000);
    const path = `/v1/devices/response-times?id=${id}&from=${encodeURIComponent(START)}`;
    const before = (await t.request<ResponseTimePoint[]>(path, { key })).body.data!;
    assert.equal(before.length, 3);
    assert.equal(await t.rollUp(), 3, 'the three hours that ended');
    assert.equal(await t.rollUp(), 0, 'each once');
    assert.deepEqual((await t.request<ResponseTimePoint[]>(path, { key })).body.data, before);
  } finally {
    await t.close();
  }
});

test("an incident is acknowledged at the clock's time, by the key that asks", async () => {
  const t = createTestApi({ start: START });
  try {
    const key = await t.createKey();
    const created = await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: 'example.com' },
    });
    const id = created.body.data!.id;
    const down = new Date(T0 + HOUR).toISOString();
    await mustRecord(recordDeviceCheck(t.store, id, { checked_at: down, status: 'down', results: [http(down, null)] }));
    t.clock.advance(2 * HOUR);
    const [incident] = (await t.request<Incident[]>('/v1/incidents', { key })).body.data!;
    const answer = await t.request<Incident>(`/v1/incidents/acknowledge?id=${incident!.id}`, { method: 'POST', key });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.data!.acknowledged_at, new Date(T0 + 2 * HOUR).toISOString());
    assert.equal(answer.body.data!.acknowledged_by, key.key.id);
  } finally {
    await t.close();
  }
});
