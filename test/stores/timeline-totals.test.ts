/**
 * Availability from the timeline's running totals (stores/kysely/migrations/timeline-totals.ts,
 * docs/engine.md "Availability"), on SQLite and PostgreSQL: for timelines written by the status
 * trigger (with changes at the same instant and changes dated before the last one), and by
 * migration 0012 from a timeline kept before it, the store's totals over many ranges equal a walk
 * over the changes it holds, also after retention has removed the oldest.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { DEVICE_STATUSES, type DeviceStatus, type StatusTotals } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore, type Database } from '../../stores/kysely/index.ts';
import { freshSqlDatabase } from '../support/stores.ts';
import { migrationsFrom } from './migration-names.ts';
import { createdOf, sshDevice } from './records.ts';
import { migrateBefore } from './migration-databases.ts';

const HOUR = 3_600_000;
const START = Date.parse('2026-03-01T00:00:00.000Z');
const stamp = (ms: number) => new Date(ms).toISOString();

/** The same pseudo-random sequence every run (mulberry32): a failure replays. */
function sequence(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
}

/** Changes a device's status the way every path does: one UPDATE of `status` and `status_since`. */
async function changeStatus(db: Kysely<Database>, id: number, status: DeviceStatus, since: number) {
  await sql`update devices set status = ${status}, status_since = ${stamp(since)} where id = ${id}`.execute(db);
}

/**
 * `count` changes a few minutes to hours apart from `startMs`; one in eight at the instant of the
 * last, one in four dated before it (a maintenance window that began earlier). Returns the time
 * of the last.
 */
async function writeChanges(
  db: Kysely<Database>,
  id: number,
  startMs: number,
  count: number,
  next: (n: number) => number,
) {
  let at = startMs;
  let status: DeviceStatus = 'pending';
  for (let i = 0; i < count; i++) {
    const others = DEVICE_STATUSES.filter((s) => s !== status);
    status = others[next(others.length)]!;
    const kind = next(8);
    at += kind === 0 ? 0 : (1 + next(240)) * 60_000;
    // A status_since moved back without a change of status: the next change is dated before the
    // last one on two counts, and still follows it.
    if (kind === 2) await sql`update devices set status_since = ${stamp(at - 5 * HOUR)} where id = ${id}`.execute(db);
    await changeStatus(db, id, status, kind === 1 || kind === 2 ? at - 4 * HOUR : at);
  }
  return at;
}

/** The totals in [from, to) by walking the changes the store holds, each lasting until the next. */
async function walkedTotals(db: Kysely<Database>, id: number, from: number, to: number): Promise<StatusTotals> {
  const rows = await db
    .selectFrom('status_changes')
    .select(['at', 'to_status'])
    .where('device_id', '=', id)
    .orderBy('at')
    .orderBy('id')
    .execute();
  const changes = rows.map((row) => ({
    at: Date.parse(String(row.at instanceof Date ? row.at.toISOString() : row.at)),
    status: row.to_status,
  }));
  const totals: StatusTotals = { ms: {}, down_periods: 0, longest_down_ms: 0 };
  changes.forEach((change, i) => {
    const next = changes[i + 1]?.at ?? to;
    if (change.at >= to || next <= from) return;
    const length = Math.min(next, to) - Math.max(change.at, from);
    if (length > 0) totals.ms[change.status] = (totals.ms[change.status] ?? 0) + length;
    if (change.status === 'down') {
      totals.down_periods += 1;
      totals.longest_down_ms = Math.max(totals.longest_down_ms, length);
    }
  });
  return totals;
}

/** Compares the store's totals with the walk over `ranges` ranges within [first, last]. */
async function compareRanges(
  opened: Awaited<ReturnType<typeof openKyselyStore>>,
  userId: number,
  id: number,
  span: { first: number; last: number },
  ranges: number,
  next: (n: number) => number,
) {
  const minutes = Math.round((span.last - span.first) / 60_000);
  for (let i = 0; i < ranges; i++) {
    const from = span.first + next(minutes) * 60_000 + (next(4) === 0 ? 0 : next(60_000));
    const to = from + (1 + next(minutes)) * 60_000;
    const stored = await opened.store.deviceStatusTotals(userId, id, { from: stamp(from), to: stamp(to) });
    assert.deepEqual(stored, await walkedTotals(opened.db, id, from, to), `range ${stamp(from)} to ${stamp(to)}`);
  }
}

async function newDevice(opened: Awaited<ReturnType<typeof openKyselyStore>>, userId: number, name: string) {
  const device = createdOf(
    await opened.store.createDevice(
      userId,
      sshDevice({ target_value: name, is_enabled: true, status: 'pending', created_at: stamp(START) }),
    ),
  );
  return device.id;
}

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`availability from the timeline's running totals on ${kind}`, () => {
    it('equals a walk over the changes for any range, and after retention removes the oldest', async (context) => {
      const made = await freshSqlDatabase(kind);
      if ('skip' in made) return context.skip(made.skip);
      const opened = await openKyselyStore(made.url);
      try {
        await migrateToLatest(opened.db);
        const next = sequence(7);
        const user = await opened.store.createUser({ name: null, created_at: stamp(START) });
        const id = await newDevice(opened, user.id, 'a.example.com');
        const last = await writeChanges(opened.db, id, START, 80, next);
        // Ranges from before the device existed to after its last change.
        const span = { first: START - 6 * HOUR, last: last + 6 * HOUR };
        await compareRanges(opened, user.id, id, span, 150, next);

        const cutoff = START + Math.round((last - START) / 2);
        assert.ok((await opened.store.deleteReportsBefore(stamp(cutoff), 10_000)) > 0);
        await compareRanges(opened, user.id, id, span, 100, next);
      } finally {
        await opened.store.close();
        await made.remove();
      }
    });

    it('migration 0012 gives a kept timeline its totals, and the trigger goes on from them', async (context) => {
      const made = await freshSqlDatabase(kind);
      if ('skip' in made) return context.skip(made.skip);
      const opened = await openKyselyStore(made.url);
      try {
        await migrateBefore(opened.db, opened.dialect, '0012');
        const next = sequence(11);
        const user = await opened.store.createUser({ name: null, created_at: stamp(START) });
        const ids = [
          await newDevice(opened, user.id, 'a.example.com'),
          await newDevice(opened, user.id, 'b.example.com'),
        ];
        let last = START;
        for (const id of ids) last = Math.max(last, await writeChanges(opened.db, id, START, 40, next));

        assert.deepEqual(await migrateToLatest(opened.db), migrationsFrom('0012_timeline_totals'));
        let after = last;
        for (const id of ids) after = Math.max(after, await writeChanges(opened.db, id, last + HOUR, 20, next));
        for (const id of ids) {
          await compareRanges(opened, user.id, id, { first: START - HOUR, last: after + HOUR }, 80, next);
        }
      } finally {
        await opened.store.close();
        await made.remove();
      }
    });
  });
}
