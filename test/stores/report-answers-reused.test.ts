/**
 * Report answers are kept under the store's change marker, as list answers are (core/routes/
 * reused-answer.ts). Two stores on one database stand for two processes, the API's and a worker's:
 * whatever the worker changes that a report shows (a status change, report retention, a rollup),
 * the API's next answer shows, on SQLite and PostgreSQL; a rollup or retention by the API's own
 * store (`serve --worker`) moves its marker too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { AvailabilityReport, Device } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { freshSqlDatabase } from '../support/stores.ts';
import { createdOf, sshDevice } from './records.ts';

const DAY = 86_400_000;
// After the testing kit's clock starts (2026-01-01), when the first test's device is made.
const START = Date.parse('2026-01-02T00:00:00.000Z');
const stamp = (ms: number) => new Date(ms).toISOString();

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`report answers reused on ${kind}, never stale`, () => {
    it("shows another store's status changes and report retention in the next answer", async (context) => {
      const made = await freshSqlDatabase(kind);
      if ('skip' in made) return context.skip(made.skip);
      const api = await openKyselyStore(made.url);
      await migrateToLatest(api.db);
      const worker = await openKyselyStore(made.url);
      const t = createTestApi({ store: api.store });
      try {
        const { token } = await t.createKey();
        const created = await t.request<Device>('/v1/devices/create', {
          method: 'POST',
          key: token,
          body: { target_type: 'domain', target_value: 'reused.example.com' },
        });
        const id = created.body.data!.id;
        // The device's timeline: up from START, down for a day from START + 2 days.
        const change = (status: string, at: number) =>
          sql`update devices set status = ${status}, status_since = ${stamp(at)} where id = ${id}`.execute(worker.db);
        await change('up', START);
        t.clock.set(START + 10 * DAY);
        const range = `from=${stamp(START - DAY)}&to=${stamp(START + 4 * DAY)}`;
        const availability = async () =>
          (await t.request<AvailabilityReport>(`/v1/devices/availability?id=${id}&${range}`, { key: token })).body
            .data!;
        const up = await availability();
        assert.equal(up.downtime_s, 0);
        assert.deepEqual(await availability(), up, 'the same answer while nothing changed');

        await change('down', START + 2 * DAY);
        await change('up', START + 3 * DAY);
        const afterOutage = await availability();
        assert.equal(afterOutage.downtime_s, 86_400, "the worker's status change shows");
        assert.equal(afterOutage.incidents, 1);

        // Retention removes the changes before START + 2.5 days but the last one before it (the
        // outage's start), so the range's first three days are no longer known.
        assert.ok((await worker.store.deleteReportsBefore(stamp(START + 2.5 * DAY), 100)) > 0);
        const afterRetention = await availability();
        assert.equal(afterRetention.unknown_s, afterOutage.unknown_s + 3 * 86_400, "the worker's retention shows");
      } finally {
        await t.close();
        await worker.store.close();
        await api.store.close();
        await made.remove();
      }
    });

    it('a rollup or report retention moves the marker, by another store or by its own', async (context) => {
      const made = await freshSqlDatabase(kind);
      if ('skip' in made) return context.skip(made.skip);
      const api = await openKyselyStore(made.url);
      await migrateToLatest(api.db);
      const worker = await openKyselyStore(made.url);
      try {
        const user = await api.store.createUser({ name: null, created_at: stamp(START) });
        const device = createdOf(await api.store.createDevice(user.id, sshDevice({ created_at: stamp(START) })));
        // A result in each of two hours, to roll; the rollups start at the hour of the migration,
        // so they are moved back.
        const ok = kind === 'postgres' ? sql.lit(true) : sql.lit(1);
        for (const minute of [10, 70])
          await sql`insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields)
            values ('device', ${device.id}, ${stamp(START + minute * 60_000)}, 'service', ${ok}, 5, null, '{}')`.execute(
            api.db,
          );
        await sql`update report_progress set rolled_until = ${stamp(START)}`.execute(api.db);
        for (const [store, who] of [
          [worker.store, 'another store'],
          [api.store, 'its own'],
        ] as const) {
          const before = await api.store.changeMarker();
          assert.equal(await store.rollUpResults(stamp(START + DAY), 1), 1);
          assert.notEqual(await api.store.changeMarker(), before, `a rollup by ${who}`);
        }
        for (const [status, at] of [
          ['up', START],
          ['down', START + DAY],
        ] as const) {
          await sql`update devices set status = ${status}, status_since = ${stamp(at)} where id = ${device.id}`.execute(
            api.db,
          );
        }
        const before = await api.store.changeMarker();
        assert.ok((await api.store.deleteReportsBefore(stamp(START + 2 * DAY), 100)) > 0);
        assert.notEqual(await api.store.changeMarker(), before, 'retention by its own store');
      } finally {
        await worker.store.close();
        await api.store.close();
        await made.remove();
      }
    });

    it('expiring raw results moves the marker, by another store or by its own', async (context) => {
      // A series shows raw results in the hours its range cuts, while they are kept (docs/engine.md,
      // "Reports"), so their expiry changes an answer.
      const made = await freshSqlDatabase(kind);
      if ('skip' in made) return context.skip(made.skip);
      const api = await openKyselyStore(made.url);
      await migrateToLatest(api.db);
      const worker = await openKyselyStore(made.url);
      try {
        const user = await api.store.createUser({ name: null, created_at: stamp(START) });
        const device = createdOf(await api.store.createDevice(user.id, sshDevice({ created_at: stamp(START) })));
        // One result in a day long past (PostgreSQL: the default partition, deleted by rows), one
        // today (PostgreSQL: today's partition, which its expiry drops whole).
        const past = Date.parse('2020-01-02T00:00:00.000Z');
        const today = Math.floor(Date.now() / DAY) * DAY;
        const ok = kind === 'postgres' ? sql.lit(true) : sql.lit(1);
        for (const at of [past, today])
          await sql`insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields)
            values ('device', ${device.id}, ${stamp(at + 10 * 60_000)}, 'service', ${ok}, 5, null, '{}')`.execute(
            api.db,
          );
        await sql`update report_progress set rolled_until = ${stamp(today + 2 * DAY)}`.execute(api.db);
        for (const [store, who, until] of [
          [worker.store, 'another store', past + DAY],
          [api.store, 'its own', today + DAY],
        ] as const) {
          const before = await api.store.changeMarker();
          assert.equal(await store.deleteCheckResultsBefore(stamp(until), 100), 1);
          assert.notEqual(await api.store.changeMarker(), before, `an expiry by ${who}`);
        }
        const left = await sql<{ n: number }>`select count(*) as n from check_results`.execute(api.db);
        assert.equal(Number(left.rows[0]!.n), 0);
      } finally {
        await worker.store.close();
        await api.store.close();
        await made.remove();
      }
    });
  });
}
