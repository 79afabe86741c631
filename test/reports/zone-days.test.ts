/**
 * core/reports/zone-days.ts: the start of a local day, for `bucket=day` with `time_zone`
 * (docs/engine.md, "Reports"), from the runtime's own zone data.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { zoneDayStart } from '../../core/reports/zone-days.ts';

it('is local midnight, in whole-hour and half-hour zones alike', () => {
  assert.equal(zoneDayStart('2026-03-10T15:00:00.000Z', 'Europe/Berlin'), '2026-03-09T23:00:00.000Z');
  assert.equal(zoneDayStart('2026-03-10T22:59:59.999Z', 'Europe/Berlin'), '2026-03-09T23:00:00.000Z');
  assert.equal(zoneDayStart('2026-03-10T23:00:00.000Z', 'Europe/Berlin'), '2026-03-10T23:00:00.000Z');
  assert.equal(zoneDayStart('2026-03-10T12:00:00.000Z', 'Asia/Kolkata'), '2026-03-09T18:30:00.000Z');
  assert.equal(zoneDayStart('2026-03-10T12:00:00.000Z', 'UTC'), '2026-03-10T00:00:00.000Z');
});

it('follows a change of offset within the day', () => {
  // Berlin moves to summer time at 02:00 on 29 March 2026: that day still starts at +01:00.
  assert.equal(zoneDayStart('2026-03-29T20:00:00.000Z', 'Europe/Berlin'), '2026-03-28T23:00:00.000Z');
  // And the next at +02:00.
  assert.equal(zoneDayStart('2026-03-30T08:00:00.000Z', 'Europe/Berlin'), '2026-03-29T22:00:00.000Z');
});

it('starts a day whose midnight is skipped at its first instant', () => {
  // Santiago de Chile moves from -04:00 to -03:00 at midnight on 6 September 2026: that day
  // begins at 01:00 local, 04:00 UTC.
  assert.equal(zoneDayStart('2026-09-06T15:00:00.000Z', 'America/Santiago'), '2026-09-06T04:00:00.000Z');
});
