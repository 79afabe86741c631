/**
 * docs/engine.md, "Checking a device from several locations", through the SQL store on SQLite and
 * PostgreSQL: one schedule and lease per (device, location), claims by location, and one
 * location's result written with the quorum decision, fenced by its lease and its expiry.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ClaimedLocationCheck, LocationDecider, NewDevice, Store } from '../../core/index.ts';
import { locationDecider } from '../../engine/devices/location-check.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { replaceLocationChecks } from '../../stores/kysely/checks/location-checks.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { availableStores, type OpenedStore } from '../support/stores.ts';
import { createdOf, sshDevice } from '../stores/records.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const SETTINGS = { retryDelayS: 30, probeTimeoutMs: 10_000, failuresBeforeDown: 2, random: () => 0.5, tlsWarnDays: 14 };

function located(overrides: Partial<NewDevice> = {}): NewDevice {
  return sshDevice({
    is_enabled: true,
    status: 'pending',
    created_at: at(0),
    check_locations: ['eu', 'us', 'ap'],
    quorum: 2,
    locations: {},
    ...overrides,
  });
}

const result = (ok: boolean, s: number) => ({
  probe: 'service' as const,
  checked_at: at(s),
  ok,
  response_ms: ok ? 3 : null,
  error: ok ? null : 'ECONNREFUSED',
  banner: null,
});

for (const factory of (await availableStores()).filter((f) => f.name !== 'memory')) {
  describe(`location checks (${factory.name})`, { skip: factory.skip }, () => {
    let opened: OpenedStore;
    const open = async (): Promise<Store> => (opened ??= await factory.open()).store;
    after(() => opened?.cleanup());

    it('claims per location, decides on a quorum, fences stale and expired leases', async () => {
      const store = await open();
      const user = await store.createUser({ name: null, created_at: at(0) });
      // No worker yet: every location is stale; eu's worker live: eu is unknown until it answers.
      const early = createdOf(await store.createDevice(user.id, located({ port: 99 })));
      assert.deepEqual(
        Object.values(early.locations!).map((l) => l.status),
        ['stale', 'stale', 'stale'],
      );
      await store.recordHeartbeat!({ worker_id: 'w-eu', location: 'eu', version: 't', started_at: at(0) });
      const id = createdOf(await store.createDevice(user.id, located())).id;
      const created = (await store.listDevices(user.id, { afterId: early.id, limit: 1 }))[0]!;
      assert.deepEqual(created.locations, {
        eu: { status: 'unknown', last_checked_at: null, response_ms: null, error: null },
        us: { status: 'stale', last_checked_at: null, response_ms: null, error: null },
        ap: { status: 'stale', last_checked_at: null, response_ms: null, error: null },
      });
      await store.setEnabled('device', early.id, false, at(0));
      for (const location of ['eu', 'us', 'ap']) {
        await store.recordHeartbeat!({ worker_id: `w-${location}`, location, version: 't', started_at: at(0) });
      }
      // Not claimed as a device of one location: it has no schedule of its own.
      assert.deepEqual(await store.claimDueDevices({ owner: 'x', now: at(1), limit: 10, leaseUntil: at(100) }), []);
      const claim = (location: string, s: number, leaseS = 100) =>
        store.claimDueLocationChecks!({ owner: location, location, now: at(s), limit: 10, leaseUntil: at(s + leaseS) });
      const [eu] = await claim('eu', 1);
      assert.equal(eu?.location, 'eu');
      assert.equal(eu?.record.id, id);
      assert.deepEqual(await claim('eu', 1), [], 'leased');
      const [us] = await claim('us', 1);
      const [ap] = await claim('ap', 1, 1);
      const record = (c: ClaimedLocationCheck | undefined, ok: boolean, s: number, decide?: LocationDecider) => {
        const outcome = { location: c!.location, checked_at: at(s), results: [result(ok, s)] };
        return store.recordLocationCheck!(
          { lease: c!.lease, outcome },
          decide ?? locationDecider(c!.lease, outcome, SETTINGS),
        );
      };
      // A token that is not the pair's writes nothing.
      assert.equal(await record({ ...eu!, lease: { ...eu!.lease, token: 'other' } }, false, 2), false);
      assert.equal(await record(eu, false, 2), true);
      let device = (await store.listDevices(user.id, { afterId: early.id, limit: 10 }))[0]!;
      assert.equal(device.status, 'pending', 'one location heard of a quorum of 2: the status holds');
      assert.equal(device.quorum_state, 'insufficient');
      assert.equal(device.locations?.eu?.status, 'failing');
      assert.equal(await record(us, false, 3), true);
      device = (await store.listDevices(user.id, { afterId: early.id, limit: 10 }))[0]!;
      assert.equal(device.quorum_state, 'met');
      assert.equal(device.status, 'validating');
      // ap's lease ran out at 2 s: its result of 5 s is fenced.
      assert.equal(await record(ap, true, 5), false);
      assert.equal(await record(eu, false, 6), false, 'a lease is used once');
      const [eu2] = await claim('eu', 3);
      assert.ok(eu2 !== undefined, 'a second opinion: due at once');
      assert.equal(await record(eu2, false, 4), true);
      device = (await store.listDevices(user.id, { afterId: early.id, limit: 10 }))[0]!;
      assert.equal(device.status, 'validating', 'a second failure sooner than the retry delay confirms nothing');
      // Each location's re-check, a retry delay after its first failure, confirms it: down.
      const [us2] = await claim('us', 3 + SETTINGS.retryDelayS);
      assert.equal(await record(us2, false, 3 + SETTINGS.retryDelayS), true);
      device = (await store.listDevices(user.id, { afterId: early.id, limit: 10 }))[0]!;
      assert.equal(device.status, 'validating', 'one confirmed failure of a quorum of 2');
      const [eu3] = await claim('eu', 4 + SETTINGS.retryDelayS);
      assert.equal(await record(eu3, false, 4 + SETTINGS.retryDelayS), true);
      device = (await store.listDevices(user.id, { afterId: early.id, limit: 10 }))[0]!;
      assert.equal(device.status, 'down');
      assert.equal(device.locations?.ap?.status, 'unknown');
      const results = await store.listCheckResults(user.id, 'device', id, { limit: 10 });
      assert.equal(results?.length, 5, 'the fenced results were not written');
      // Disabled: every pair's lease is dropped, and nothing is due.
      const [ap2] = await claim('ap', 10);
      await store.setEnabled('device', id, false, at(11));
      assert.equal(await record(ap2, true, 12), false);
      assert.deepEqual(await claim('ap', 100), []);
    });

    it("a check that failed on the worker's side does not count toward the quorum; results carry their location", async () => {
      const dir = await mkdtemp(join(tmpdir(), 'monitoring-location-ours-'));
      const pg = factory.name === 'postgres' ? await createTestDatabase() : undefined;
      const url = pg !== undefined && pg.skip === undefined ? pg.url : `sqlite:${join(dir, 'test.db')}`;
      const { store, db } = await openKyselyStore(url);
      try {
        await migrateToLatest(db);
        const user = await store.createUser({ name: null, created_at: at(0) });
        const id = createdOf(await store.createDevice(user.id, located())).id;
        for (const location of ['eu', 'us', 'ap']) {
          await store.recordHeartbeat!({ worker_id: `w-${location}`, location, version: 't', started_at: at(0) });
        }
        const claim = async (location: string, s: number) => {
          const [claimed] = await store.claimDueLocationChecks!({
            owner: location,
            location,
            now: at(s),
            limit: 10,
            leaseUntil: at(s + 100),
          });
          assert.ok(claimed !== undefined, `${location} due at ${s} s`);
          return claimed;
        };
        const record = async (location: string, s: number, error: string | null, probes = 1) => {
          const c = await claim(location, s);
          const one = { ...result(error === null, s), error, response_ms: null };
          const outcome = { location, checked_at: at(s), results: Array.from({ length: probes }, () => one) };
          assert.equal(
            await store.recordLocationCheck!({ lease: c.lease, outcome }, locationDecider(c.lease, outcome, SETTINGS)),
            true,
          );
          return (await store.listDevices(user.id, { afterId: 0, limit: 10 }))[0]!;
        };
        for (const [i, location] of ['eu', 'us', 'ap'].entries()) await record(location, 1 + i, null);
        assert.equal((await store.listDevices(user.id, { afterId: 0, limit: 10 }))[0]!.status, 'up');
        // us fails: validating, and the others are asked at once.
        assert.equal((await record('us', 62, 'ECONNREFUSED')).status, 'validating');
        // ap's resolver is down: a second failure would be a quorum of 2, but this one is ours.
        const device = await record('ap', 63, 'resolver_unavailable');
        assert.equal(device.status, 'validating', "not down: our failure is not the target's");
        assert.equal(device.quorum_state, 'met');
        // ap shows its last real result, as before its resolver failed.
        assert.deepEqual(device.locations?.ap, {
          status: 'up',
          last_checked_at: at(3),
          response_ms: null,
          error: null,
        });
        // eu passes; ap has not answered since the failure (its last real result is older): validating.
        assert.equal((await record('eu', 64, null, 2)).status, 'validating');
        // ap kept its last result and is asked again after the retry delay, not at its interval.
        await assert.rejects(claim('ap', 63 + SETTINGS.retryDelayS - 1), /ap due at/);
        // It passes: 1 failing of 3 once every location answered: up again, never down.
        assert.equal((await record('ap', 63 + SETTINGS.retryDelayS, null)).status, 'up');
        const events = await db.selectFrom('events').select('type').where('resource_id', '=', id).execute();
        assert.deepEqual(events, [], 'nothing announced');
        // Results name the location that made them, and the rows of one check share its check id.
        const results = (await store.listCheckResults(user.id, 'device', id, { limit: 10 }))!;
        assert.deepEqual(
          results.map((r) => [r.check_location, r.error]),
          [
            ['ap', null],
            ['eu', null],
            ['eu', null],
            ['ap', 'resolver_unavailable'],
            ['us', 'ECONNREFUSED'],
            ['ap', null],
            ['us', null],
            ['eu', null],
          ],
        );
        const checkIds = results.map((r) => r.check_id);
        assert.equal(checkIds[1], checkIds[2], 'the two results of one check share its check id');
        assert.equal(new Set(checkIds).size, checkIds.length - 1, 'each other check has its own');
        assert.deepEqual(
          checkIds,
          [...checkIds].sort((a, b) => b - a),
          'later checks have larger ones',
        );
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
        if (pg !== undefined && pg.skip === undefined) await pg.drop();
      }
    });

    it('a change of check_locations moves the schedules with it (for an update)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'monitoring-location-checks-'));
      const pg = factory.name === 'postgres' ? await createTestDatabase() : undefined;
      const url = pg !== undefined && pg.skip === undefined ? pg.url : `sqlite:${join(dir, 'test.db')}`;
      const dialect = url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
      const { store, db } = await openKyselyStore(url);
      try {
        await migrateToLatest(db);
        const user = await store.createUser({ name: null, created_at: at(0) });
        const plain = createdOf(
          await store.createDevice(user.id, located({ check_locations: null, quorum: null, locations: null })),
        );
        const many = createdOf(await store.createDevice(user.id, located({ port: 2 })));
        const claimDevices = () => store.claimDueDevices({ owner: 'x', now: at(50), limit: 10, leaseUntil: at(150) });
        const claimAt = (location: string) =>
          store.claimDueLocationChecks!({ owner: 'x', location, now: at(50), limit: 10, leaseUntil: at(150) });
        // The plain device gains locations: no longer claimed as a device, due at each location.
        await db.transaction().execute((trx) => replaceLocationChecks(trx, dialect, plain.id, ['eu', 'zz'], at(40)));
        // The other keeps eu, loses us and ap, gains zz.
        await db.transaction().execute((trx) => replaceLocationChecks(trx, dialect, many.id, ['eu', 'zz'], at(40)));
        assert.deepEqual(await claimDevices(), []);
        assert.deepEqual((await claimAt('zz')).map((c) => c.record.id).sort(), [plain.id, many.id].sort());
        assert.deepEqual(
          (await claimAt('us')).map((c) => c.record.id),
          [],
        );
        // Back to any one location: claimed as a device again, and never by location.
        await db.transaction().execute((trx) => replaceLocationChecks(trx, dialect, many.id, null, at(40)));
        assert.deepEqual(
          (await claimDevices()).map((c) => c.record.id),
          [many.id],
        );
        // A deleted device takes its schedules with it.
        assert.equal(await store.deleteDevice(user.id, plain.id), true);
        assert.deepEqual(await claimAt('eu'), []);
        assert.deepEqual(await db.selectFrom('device_location_checks').select('device_id').execute(), []);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
        if (pg !== undefined && pg.skip === undefined) await pg.drop();
      }
    });
  });
}
