/**
 * `POST /incidents/acknowledge?id=` (docs/notifications.md, "Reminders, escalation and
 * acknowledgement") on every store: the key's id and the time are kept, `GET /incidents` answers
 * them, a repeat keeps the first (ten at once too), a closed incident may be acknowledged, and bad input, another
 * user's incident and a read-only key get the contract's errors with nothing changed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Device, Incident } from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { http, mustRecord, recordDeviceCheck } from './checks.ts';
import { assertError, assertSuccess, eachStore } from './helpers.ts';

const START = '2026-03-02T00:00:00.000Z';
const T0 = Date.parse(START);
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

async function check(t: TestApi, id: number, atMs: number, status: 'up' | 'down'): Promise<void> {
  const result = status === 'up' ? http(iso(atMs), 200) : http(iso(atMs), null);
  await mustRecord(recordDeviceCheck(t.store, id, { checked_at: iso(atMs), status, results: [result] }));
}

/** A device of `key`'s user, up, down at T0 + 10 min, and with `closed` up again 10 minutes later. */
async function incidentOf(t: TestApi, key: CreatedApiKey, closed: boolean, name: string): Promise<Incident> {
  const device = assertSuccess(
    await t.request<Device>('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: name },
    }),
    201,
  );
  await check(t, device.id, T0 + MINUTE, 'up');
  await check(t, device.id, T0 + 10 * MINUTE, 'down');
  if (closed) await check(t, device.id, T0 + 20 * MINUTE, 'up');
  t.clock.set(T0 + 30 * MINUTE);
  const list = assertSuccess(await t.request<Incident[]>(`/v1/incidents?device_id=${device.id}`, { key }), 200);
  assert.equal(list.length, 1);
  return list[0]!;
}

eachStore('incident acknowledgement', (env) => {
  const setup = async () => {
    const t = env.api({ start: START, rateLimit: { limit: 100_000, windowSeconds: 60 } });
    return { t, key: await t.createKey() };
  };
  const acknowledge = (t: TestApi, key: CreatedApiKey, query: string) =>
    t.request<Incident>(`/v1/incidents/acknowledge?${query}`, { method: 'POST', key });

  test('acknowledging keeps the time and the key, and GET /incidents answers both; a repeat keeps the first', async () => {
    const { t, key } = await setup();
    const open = await incidentOf(t, key, false, 'open.example.com');
    assert.equal(open.acknowledged_at, null);
    assert.equal(open.acknowledged_by, null);

    const first = assertSuccess(await acknowledge(t, key, `id=${open.id}`), 200);
    assert.deepEqual(first, { ...open, acknowledged_at: iso(T0 + 30 * MINUTE), acknowledged_by: key.key.id });
    const listed = assertSuccess(await t.request<Incident[]>('/v1/incidents', { key }), 200);
    assert.deepEqual(listed, [first]);

    t.clock.set(T0 + 40 * MINUTE);
    const other = await t.createKey({ userId: key.key.user_id });
    const again = assertSuccess(await acknowledge(t, other, `id=${open.id}`), 200);
    assert.deepEqual(again, first, 'the first acknowledgement is kept');
  });

  test('ten acknowledgements at once by ten keys: all 200, all answering the one that was kept', async () => {
    const { t, key } = await setup();
    const open = await incidentOf(t, key, false, 'racing.example.com');
    const keys = await Promise.all(Array.from({ length: 10 }, () => t.createKey({ userId: key.key.user_id })));
    const answers = await Promise.all(keys.map((k) => acknowledge(t, k, `id=${open.id}`)));
    const bodies = answers.map((answer) => assertSuccess(answer, 200));
    const kept = bodies[0]!.acknowledged_by;
    assert.ok(
      keys.some((k) => k.key.id === kept),
      `kept ${kept}`,
    );
    for (const body of bodies) assert.deepEqual(body, bodies[0]);
    const listed = assertSuccess(await t.request<Incident[]>('/v1/incidents', { key }), 200);
    assert.deepEqual(listed, [bodies[0]]);
  });

  test('a closed incident may be acknowledged', async () => {
    const { t, key } = await setup();
    const closed = await incidentOf(t, key, true, 'closed.example.com');
    assert.notEqual(closed.resolved_at, null);
    const answer = assertSuccess(await acknowledge(t, key, `id=${closed.id}`), 200);
    assert.equal(answer.acknowledged_at, iso(T0 + 30 * MINUTE));
    assert.equal(answer.resolved_at, closed.resolved_at);
  });

  test("bad ids, another user's incident and a read-only key are refused, and nothing changes", async () => {
    const { t, key } = await setup();
    const open = await incidentOf(t, key, false, 'mine.example.com');
    const stranger = await t.createKey();
    assertError(await acknowledge(t, stranger, `id=${open.id}`), 404, 'incident_not_found');
    assertError(await acknowledge(t, key, `id=${open.id + 1000}`), 404, 'incident_not_found');
    assertError(await acknowledge(t, key, ''), 400, 'invalid_id');
    assertError(await acknowledge(t, key, 'id=abc'), 400, 'invalid_id');
    assertError(await acknowledge(t, key, 'id=0'), 400, 'invalid_id');
    assertError(await acknowledge(t, key, `id=${open.id}&id=${open.id}`), 400, 'invalid_id');
    assertError(await acknowledge(t, key, `id=${open.id}&x=1`), 400, 'validation_failed');
    const reader = await t.createKey({ userId: key.key.user_id, scopes: ['read'] });
    assertError(await acknowledge(t, reader, `id=${open.id}`), 403, 'insufficient_scope');
    assertError(
      await t.request(`/v1/incidents/acknowledge?id=${open.id}`, { method: 'GET', key }),
      405,
      'method_not_allowed',
    );
    assertError(await t.request('/v1/incidents/silence', { method: 'POST', key }), 404, 'unknown_incidents_route');
    const after = assertSuccess(await t.request<Incident[]>('/v1/incidents', { key }), 200);
    assert.deepEqual(after, [open], 'nothing was acknowledged');
  });
});
