/**
 * The closed days a response-time series keeps in memory (core/reports/closed-day-cache.ts): never
 * more than its size and device bounds, the device used longest ago first out, what it holds
 * always what it counts, and a run of days answered only for the days it was kept for.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClosedDayCache } from '../../core/reports/closed-day-cache.ts';

const json = (length: number) => 'x'.repeat(length);

/** What the cache holds, counted from the outside: every kept day's cost, and the run of days 0 to 30's. */
function heldSize(cache: ClosedDayCache, devices: number[]): number {
  let size = 0;
  for (const id of devices) {
    for (const day of cache.days(id)?.values() ?? []) size += ClosedDayCache.cost(day);
    const run = cache.run(id, 0, 30);
    if (run !== undefined) size += ClosedDayCache.cost(run);
  }
  return size;
}

test('never holds more than its size bound, and counts what it holds', () => {
  const bound = 10_000;
  const cache = new ClosedDayCache(1_000, bound);
  const devices = Array.from({ length: 20 }, (_, i) => i + 1);
  for (let round = 0; round < 3; round++) {
    for (const id of devices) {
      for (let day = 0; day < 30; day++) {
        cache.set(id, day, json((id * 7 + day * 13 + round) % 200));
        assert.ok(cache.size <= bound, `size ${cache.size} after device ${id}, day ${day}`);
      }
      cache.setRun(id, 0, 30, json((id * 101 + round) % 1500));
      assert.ok(cache.size <= bound, `size ${cache.size} after device ${id}'s run`);
    }
  }
  assert.equal(heldSize(cache, devices), cache.size);
  assert.ok(cache.size > bound / 2, 'and is not left nearly empty');
});

test('the device used longest ago goes first; a day too large for the bound is not kept', () => {
  const cost = ClosedDayCache.cost(json(100));
  const cache = new ClosedDayCache(1_000, 3 * cost);
  cache.set(1, 1, json(100));
  cache.set(2, 1, json(100));
  cache.set(3, 1, json(100));
  cache.days(1); // used: device 2 is now the oldest
  cache.set(4, 1, json(100));
  assert.equal(cache.days(2), undefined);
  assert.deepEqual(
    [1, 3, 4].map((id) => cache.days(id)?.get(1)?.length),
    [100, 100, 100],
  );
  cache.set(5, 1, json(4 * cost));
  assert.equal(cache.days(5), undefined, 'larger than the whole bound');
  assert.equal(cache.size, 3 * cost);
  // Replacing a day counts the new one instead of the old.
  cache.set(4, 1, json(50));
  assert.equal(cache.size, 2 * cost + ClosedDayCache.cost(json(50)));
});

test('never holds more devices than its bound', () => {
  const cache = new ClosedDayCache(3, 1_000_000);
  for (let id = 1; id <= 10; id++) cache.set(id, 1, json(10));
  assert.deepEqual(
    Array.from({ length: 10 }, (_, i) => cache.days(i + 1) !== undefined),
    [false, false, false, false, false, false, false, true, true, true],
  );
});

test('a run answers only for the days it was kept for, and replaces the one before', () => {
  const cache = new ClosedDayCache();
  cache.setRun(1, 10, 20, 'a');
  assert.equal(cache.run(1, 10, 20), 'a');
  assert.equal(cache.run(1, 10, 21), undefined);
  assert.equal(cache.run(1, 11, 20), undefined);
  assert.equal(cache.run(2, 10, 20), undefined);
  cache.setRun(1, 12, 20, 'bb');
  assert.equal(cache.run(1, 10, 20), undefined);
  assert.equal(cache.run(1, 12, 20), 'bb');
  assert.equal(cache.size, ClosedDayCache.cost('bb'));
});
