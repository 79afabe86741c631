/**
 * docs/engine.md, "Locations": a worker busy with other checks does not repeat an empty claim of
 * its location's pairs before the engine's clock has moved one poll interval on, so devices
 * without check_locations cost what they did before locations; once it moves, or once the worker
 * is idle, the pairs are claimed again. On the SQLite store, the claims counted as they go out.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { ManualClock } from '../../core/index.ts';
import { createMonitoringEngine, type DnsblResolver } from '../../engine/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { addMonitor } from '../support/engine-fixtures.ts';

const START = '2026-05-01T00:00:00.000Z';
const MONITORS = 200;
const BATCH = 10;
const POLL_MS = 1_000;

/** Every name is unlisted (NXDOMAIN), answered at once: the test is about claims. */
const nxdomain: DnsblResolver = {
  resolve4: () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })),
};

it('an empty location claim waits one poll interval while the worker is busy, not one turn', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-location-claims-'));
  const { store, db } = await openKyselyStore(`sqlite:${join(dir, 'test.db')}`);
  try {
    await migrateToLatest(db);
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    for (let i = 0; i < MONITORS; i++) await addMonitor(store, user.id, `198.51.${i >> 8}.${i & 255}`, START);

    // Each claim as it goes out: how many monitor claims came back full before it, and whether
    // the clock had moved. The clock moves one poll interval at the tenth monitor claim.
    const monitorClaims: { full: boolean }[] = [];
    const locationClaims: { fullBefore: number; moved: boolean }[] = [];
    const claimMonitors = store.claimDueBlacklistMonitors.bind(store);
    store.claimDueBlacklistMonitors = async (request) => {
      const claimed = await claimMonitors(request);
      monitorClaims.push({ full: claimed.length === request.limit });
      if (monitorClaims.length === 10) clock.advance(POLL_MS);
      return claimed;
    };
    const claimLocations = store.claimDueLocationChecks!.bind(store);
    store.claimDueLocationChecks = (request) => {
      locationClaims.push({
        fullBefore: monitorClaims.filter((c) => c.full).length,
        moved: Date.parse(request.now) > Date.parse(START),
      });
      return claimLocations(request);
    };

    const engine = createMonitoringEngine({
      store,
      clock,
      resolver: nxdomain,
      dnsblZones: ['zen.spamhaus.org'],
      batchSize: BATCH,
      concurrency: BATCH,
      pollIntervalMs: POLL_MS,
      writeDelayMs: 0,
      location: 'eu',
    });
    engine.start();
    // Busy until every monitor is claimed; then one claim comes back short and the worker sleeps.
    while (!monitorClaims.some((c) => !c.full)) await new Promise((resolve) => setImmediate(resolve));
    await engine.stop();

    const full = monitorClaims.filter((c) => c.full).length;
    assert.ok(full >= MONITORS / BATCH - 1, `the worker was busy for ${full} full claims`);
    // While busy: the first turn's claim, then one more once the clock has moved a poll interval.
    const whileBusy = locationClaims.filter((c) => c.fullBefore < full);
    assert.deepEqual(
      whileBusy.map((c) => c.moved),
      [false, true],
      `location claims while busy: ${JSON.stringify(locationClaims)}`,
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
