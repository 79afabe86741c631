/**
 * PostgreSQL sums an hour's raw results into its rollups itself (stores/kysely/reports/rollup-postgres.ts):
 * its rows must be what core/reports/rollups.ts makes of the same results, bucket by bucket, for
 * response times across the whole range a probe can take, results without one and failures.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { rollUpResults, type RollupInput } from '../../core/reports/rollups.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { createdOf, sshDevice } from './records.ts';

const probed = await createTestDatabase();
if (probed.skip !== undefined && process.env.CI === 'true') throw new Error(probed.skip);

suiteOrSkip('hourly rollups summed by PostgreSQL', probed.skip, {}, () => {
  it('equal the core rollup of the same results, bucket by bucket', async () => {
    if (probed.skip !== undefined) return;
    const opened = await openKyselyStore(probed.url);
    try {
      await migrateToLatest(opened.db);
      const user = await opened.store.createUser({ name: 'rollups', created_at: '2026-03-01T00:00:00.000Z' });
      const ids: number[] = [];
      for (const name of ['a', 'b'])
        ids.push(
          createdOf(
            await opened.store.createDevice(
              user.id,
              sshDevice({ target_value: `${name}.example.com`, created_at: '2026-03-01T00:00:00.000Z' }),
            ),
          ).id,
        );
      // Every millisecond value up to 2,000, then a spread to two minutes; some failed, some with
      // no response time; two probes, one of them from a location; two hours.
      const results: RollupInput[] = [];
      const values = [
        ...Array.from({ length: 2001 }, (_, i) => i),
        ...Array.from({ length: 400 }, (_, i) => 2000 + i * 297),
      ];
      values.forEach((ms, i) => {
        results.push({
          device_id: ids[i % 2]!,
          probe: i % 3 === 0 ? 'public_tls' : 'public_https',
          location: i % 5 === 0 ? 'eu-west' : null,
          checked_at: new Date(Date.parse('2026-03-01T10:00:00.000Z') + (i % 7200) * 1000).toISOString(),
          ok: i % 11 !== 0,
          response_ms: i % 13 === 0 ? null : ms,
        });
      });
      await opened.db
        .insertInto('report_progress')
        .values({ name: 'rollups', rolled_until: '2026-03-01T10:00:00.000Z' })
        .onConflict((oc) => oc.column('name').doUpdateSet({ rolled_until: '2026-03-01T10:00:00.000Z' }))
        .execute();
      for (let i = 0; i < results.length; i += 500) {
        const chunk = results.slice(i, i + 500);
        await sql`insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields, check_location)
          select 'device', r.id, r.at, r.probe, r.ok, r.ms, null, '{}', r.location
          from unnest(cast(${chunk.map((r) => r.device_id)} as bigint[]), cast(${chunk.map((r) => r.checked_at)} as timestamptz[]),
            cast(${chunk.map((r) => r.probe)} as text[]), cast(${chunk.map((r) => r.ok)} as boolean[]),
            cast(${chunk.map((r) => r.response_ms)} as integer[]), cast(${chunk.map((r) => r.location)} as text[]))
            as r (id, at, probe, ok, ms, location)`.execute(opened.db);
      }
      assert.equal(await opened.store.rollUpResults('2026-03-01T12:00:00.000Z', 2), 2);
      const rows = await opened.db.selectFrom('device_rollups_hourly').selectAll().execute();
      const key = (r: { device_id: number; probe: string; location: string | null; start: string }) =>
        `${r.device_id} ${r.probe} ${r.location ?? ''} ${r.start}`;
      const stored = new Map(
        rows.map((row) => [
          key({
            device_id: Number(row.device_id),
            probe: row.probe,
            location: row.location === '' ? null : row.location,
            start: new Date(row.start as unknown as string).toISOString(),
          }),
          {
            checks: row.checks,
            failures: row.failures,
            timed: row.timed,
            sum_ms: Number(row.sum_ms),
            min_ms: row.min_ms,
            max_ms: row.max_ms,
            histogram: JSON.parse(row.histogram) as Record<string, number>,
          },
        ]),
      );
      const expected = rollUpResults(results);
      assert.equal(stored.size, expected.length);
      for (const row of expected) {
        const { device_id: _d, probe: _p, location: _l, start: _s, histogram, ...counts } = row;
        const got = stored.get(key(row));
        assert.ok(got, `a row for ${key(row)}`);
        assert.deepEqual({ ...got, histogram: undefined }, { ...counts, histogram: undefined }, key(row));
        assert.deepEqual(
          got.histogram,
          Object.fromEntries(Object.entries(histogram).map(([k, v]) => [k, v])),
          `the histogram of ${key(row)}`,
        );
      }
    } finally {
      await opened.store.close();
      await probed.drop();
    }
  });
});
