/**
 * Workers on separate pools claiming from one PostgreSQL database at once: every due record is
 * claimed by exactly one of them (docs/engine.md, "Scheduling": FOR UPDATE SKIP LOCKED).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import type { BlacklistCheckOutcome } from '../../core/store/monitoring-store.ts';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { at, dnsblResult, T0 } from './records.ts';

const RECORDS = 2_000;
const WORKERS = 4;
const database = await createTestDatabase({ migrated: true });

if (database.skip !== undefined) {
  it('concurrent PostgreSQL claims', (t) => t.skip(database.skip));
} else {
  let setup: OpenedKyselyStore;
  before(async () => {
    setup = await openKyselyStore(database.url, { poolSize: 1 });
    await migrateToLatest(setup.db);
    const user = await setup.store.createUser({ name: null, created_at: T0 });
    // In bulk: the claims are under test here, not the creates.
    await sql`insert into blacklist_monitors (user_id, target_type, target_value, is_enabled, listed_on, created_at, next_check_at)
      select ${user.id}, 'ip', '10.0.' || (n / 256) || '.' || (n % 256), true, '[]', ${T0}, ${T0}
      from generate_series(1, ${RECORDS}) as n`.execute(setup.db);
  });
  after(async () => {
    await setup.store.close();
    await database.drop();
  });

  it(`${WORKERS} workers on their own pools claim and record ${RECORDS} due records, each exactly once`, async () => {
    const workers = await Promise.all(
      Array.from({ length: WORKERS }, () => openKyselyStore(database.url, { poolSize: 2 })),
    );
    try {
      const claimedBy = await Promise.all(
        workers.map(async ({ store }, n) => {
          const ids: number[] = [];
          for (;;) {
            // Leases outlast the test: a record is claimable again only when a claim was lost.
            const claims = await store.claimDueBlacklistMonitors({
              owner: `worker-${n}`,
              now: at(1),
              limit: 37,
              leaseUntil: at(600),
            });
            if (claims.length === 0) return ids;
            ids.push(...claims.map((c) => c.lease.id));
            const outcome = (checkedAt: string): BlacklistCheckOutcome => ({
              checked_at: checkedAt,
              last_status: 'clean',
              listed_on: [],
              failed_zones: [],
              next_check_at: at(61),
              events: [],
              listings: [],
              rdns: null,
              results: ['a.example', 'b.example', 'c.example'].map((zone) => dnsblResult(checkedAt, zone, false)),
            });
            const written = await store.recordBlacklistChecks(
              claims.map((c) => ({ lease: c.lease, outcome: outcome(at(1)) })),
            );
            assert.ok(written.every(Boolean), 'every check of a held lease is written');
          }
        }),
      );
      const all = claimedBy.flat();
      assert.equal(all.length, RECORDS, `claimed ${all.length} times in all`);
      assert.equal(new Set(all).size, RECORDS, 'no record claimed twice');
      assert.ok(claimedBy.filter((ids) => ids.length > 0).length > 1, 'the work was shared');
      const { rows } = await sql<{ results: string; leased: string; due: string }>`select
        (select count(*) from check_results) as results,
        (select count(*) from blacklist_monitors where lease_token is not null) as leased,
        (select count(*) from blacklist_monitors where next_check_at <> ${at(61)}) as due`.execute(setup.db);
      assert.deepEqual(rows[0], { results: String(RECORDS * 3), leased: '0', due: '0' });
    } finally {
      await Promise.all(workers.map(({ store }) => store.close()));
    }
  });
}
