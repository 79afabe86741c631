/**
 * docs/engine.md, "Checking a device from several locations": the re-check rule comes before the
 * quorum, and a location's failing episode counts only checks made while the device is up.
 * Engines of three locations on one manual clock, through the API, on the SQL stores (the memory
 * store keeps no schedule per location), against a local target whose health the test switches
 * between one location's check and the next; every event verified with `standardwebhooks`.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { closedAfterEach, createWebDevice, eachStore, verifySigned } from '../e2e/harness.ts';

const LOCATIONS = ['eu', 'us', 'ap'] as const;
type Location = (typeof LOCATIONS)[number];
const START = '2026-05-04T10:00:00.000Z';

eachStore('the re-check rule and failing episodes on the quorum path', (opened, name) => {
  const open = closedAfterEach();
  const skip = name === 'memory' ? 'the memory store keeps no schedule per location' : false;

  /** A world with a device checked from the three locations, each checked once and passing. */
  async function located(intervalS: number, retryDelayS: number) {
    const w = await open.world(opened().store, START);
    const target = await open.target();
    const { receiver, webhook } = await w.subscribe();
    const engines = new Map(
      LOCATIONS.map((location) => [location, w.engine({ location, workerId: `w-${location}`, retryDelayS })]),
    );
    const device = await createWebDevice(w, 'located.probe-fixture.net', target.port, intervalS, {
      check_locations: LOCATIONS,
    });
    const t = target;
    /** Each location's due checks, in this order, the target healthy for those named `ok`. */
    const run = async (
      health: Partial<Record<Location, 'ok' | 'error'>> = {},
      order: readonly Location[] = LOCATIONS,
    ) => {
      for (const location of order) {
        t.health = health[location] ?? 'ok';
        await engines.get(location)!.runOnce();
      }
    };
    await run();
    const up = await w.device(device.id);
    assert.equal(up.status, 'up');
    const events = () =>
      receiver.received
        .map((request) => verifySigned(webhook.secret, request))
        .map((e) => [e.type, e.data.previous_status, e.data.status]);
    return { w, id: device.id, up, run, events };
  }

  it('a blip shorter than the retry delay fails each location once: validating, never down', { skip }, async () => {
    const { w, id, up, run, events } = await located(60, 30);
    w.clock.advance(60_000);
    // eu fails and the others are asked at once: they fail too, each once.
    await run({ eu: 'error', us: 'error', ap: 'error' });
    const blip = await w.device(id);
    assert.equal(blip.status, 'validating', 'three first failures confirm nothing');
    assert.deepEqual(
      LOCATIONS.map((l) => blip.locations?.[l]?.status),
      ['failing', 'failing', 'failing'],
    );
    // The blip is over by the re-checks, a retry delay later.
    w.clock.advance(30_000);
    await run();
    const after = await w.device(id);
    assert.deepEqual([after.status, after.status_since], ['up', up.status_since], 'up, and up since before the blip');
    w.clock.advance(60_000);
    await run();
    assert.deepEqual(events(), [], 'nothing announced');
  });

  it(
    'a real outage from two locations: down once, at the re-checks a retry delay after the first failure',
    { skip },
    async () => {
      const { w, id, run, events } = await located(60, 30);
      w.clock.advance(60_000);
      await run({ eu: 'error', us: 'error' });
      assert.equal((await w.device(id)).status, 'validating');
      w.clock.advance(30_000);
      await run({ eu: 'error', us: 'error' });
      const down = await w.device(id);
      assert.equal(down.status, 'down');
      assert.equal(down.status_since, new Date(Date.parse(START) + 90_000).toISOString());
      w.clock.advance(60_000);
      await run({ eu: 'error', us: 'error' });
      assert.deepEqual(events(), [['device.down', 'validating', 'down']]);
    },
  );

  it(
    'recovery from an outage with one location still failing: device.up, and location_failing only an interval later',
    { skip },
    async () => {
      const { w, id, run, events } = await located(60, 30);
      const failing = { eu: 'error', us: 'error', ap: 'error' } as const;
      w.clock.advance(60_000);
      await run(failing);
      w.clock.advance(30_000);
      await run(failing);
      assert.equal((await w.device(id)).status, 'down');
      // Down for ten minutes, checked every interval from each location.
      for (let i = 0; i < 10; i++) {
        w.clock.advance(60_000);
        await run(failing);
      }
      // eu and us pass again; ap still fails, with a failing result from the outage.
      w.clock.advance(60_000);
      await run({ ap: 'error' });
      const recovered = await w.device(id);
      assert.equal(recovered.status, 'up');
      assert.equal(recovered.locations?.ap?.status, 'failing');
      assert.deepEqual(events(), [
        ['device.down', 'validating', 'down'],
        ['device.up', 'down', 'up'],
      ]);
      // ap's checks after the recovery: one an interval after it still failing is the episode's one event.
      w.clock.advance(60_000);
      await run({ ap: 'error' });
      w.clock.advance(60_000);
      await run({ ap: 'error' });
      assert.deepEqual(events().slice(2), [['device.location_failing', 'up', 'up']]);
    },
  );

  it('retry delay equal to the interval: one failure and a passing re-check announce nothing', { skip }, async () => {
    const { w, id, run, events } = await located(30, 30);
    w.clock.advance(30_000);
    await run({ eu: 'error' });
    assert.equal((await w.device(id)).status, 'up', 'one location of three failing once: up again at once');
    // The next checks, an interval (and a retry delay) later: the others first, then eu, passing.
    w.clock.advance(30_000);
    await run({}, ['us', 'ap', 'eu']);
    assert.equal((await w.device(id)).locations?.eu?.status, 'up');
    assert.deepEqual(events(), []);
  });
});
