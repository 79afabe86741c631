/**
 * docs/heartbeats.md, "Deadlines": a schedule's next time after the last success, read in its
 * time zone by croner, daylight-saving days included; a period in plain seconds.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Heartbeat } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';

/** `next_due_at` after a success at `pingAt` of a heartbeat made of `body`. */
async function dueAfter(body: Record<string, unknown>, pingAt: string): Promise<string | null> {
  const t = createTestApi({ start: pingAt });
  const key = await t.createKey();
  const hb = (await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body })).body.data!;
  assert.equal((await t.ping(hb.ping_url!)).status, 200);
  const due = (await t.request<Heartbeat>(`/v1/heartbeats/get?id=${hb.id}`, { key })).body.data!.next_due_at;
  await t.close();
  return due;
}

const berlin = (schedule: string) => ({ schedule, time_zone: 'Europe/Berlin', grace_s: 300 });

it('a daily schedule on an ordinary day: the next local time, plus grace', async () => {
  assert.equal(await dueAfter(berlin('30 2 * * *'), '2026-03-27T12:00:00.000Z'), '2026-03-28T01:35:00.000Z');
});

it('spring forward: a time the zone skips runs at the first minute after the gap', async () => {
  // 2026-03-29 02:30 does not exist in Berlin (02:00 CET → 03:00 CEST): 03:00 CEST is 01:00Z.
  assert.equal(await dueAfter(berlin('30 2 * * *'), '2026-03-28T12:00:00.000Z'), '2026-03-29T01:05:00.000Z');
  // The day after, 02:30 CEST is 00:30Z.
  assert.equal(await dueAfter(berlin('30 2 * * *'), '2026-03-29T12:00:00.000Z'), '2026-03-30T00:35:00.000Z');
});

it('fall back: a fixed time the zone repeats runs once, at its first occurrence; a step runs on both', async () => {
  // 2026-10-25 02:30 happens at 00:30Z (CEST) and 01:30Z (CET): the first.
  assert.equal(await dueAfter(berlin('30 2 * * *'), '2026-10-24T12:00:00.000Z'), '2026-10-25T00:35:00.000Z');
  // After the first 02:30, the next daily run is the next day's: not the repeated hour's.
  assert.equal(await dueAfter(berlin('30 2 * * *'), '2026-10-25T00:31:00.000Z'), '2026-10-26T01:35:00.000Z');
  // Every 30 minutes: 02:30 CEST (00:30Z), 02:00 CET (01:00Z), 02:30 CET (01:30Z), ...
  assert.equal(await dueAfter(berlin('*/30 * * * *'), '2026-10-25T00:40:00.000Z'), '2026-10-25T01:05:00.000Z');
});

it('day of month and day of week together match either, as cron reads them; New York springs forward too', async () => {
  // The 15th or a Monday: after Friday 2026-01-09, Monday the 12th comes first.
  assert.equal(
    await dueAfter({ schedule: '0 9 15 * 1', grace_s: 60 }, '2026-01-09T12:00:00.000Z'),
    '2026-01-12T09:01:00.000Z',
  );
  // 2026-03-08 02:15 does not exist in New York: 03:00 EDT is 07:00Z.
  assert.equal(
    await dueAfter({ schedule: '15 2 * * *', time_zone: 'America/New_York', grace_s: 60 }, '2026-03-07T12:00:00.000Z'),
    '2026-03-08T07:01:00.000Z',
  );
});

it('a period is plain seconds, whatever the zone does', async () => {
  assert.equal(
    await dueAfter({ period_s: 86_400, time_zone: 'Europe/Berlin', grace_s: 60 }, '2026-03-28T12:00:00.000Z'),
    '2026-03-29T12:01:00.000Z',
  );
});
