/**
 * docs/heartbeats.md, "Lateness": real `monitoring-api worker` processes on one PostgreSQL
 * database find heartbeats past their deadline from the index on it, each announced once however
 * many workers race for it, and after a worker dies with SIGKILL holding some, once by another.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';

const first = await createTestDatabase({ migrated: true });
let firstTaken = false;
const opened: { drop(): Promise<void>; opened: OpenedKyselyStore }[] = [];
after(async () => {
  for (const { opened: o, drop } of opened) {
    await o.store.close();
    await drop();
  }
});

async function database(): Promise<{ url: string; db: OpenedKyselyStore['db']; userId: number }> {
  const reuse = !firstTaken;
  firstTaken = true;
  const created = reuse ? first : await createTestDatabase({ migrated: true });
  if (created.skip !== undefined) throw new Error(created.skip);
  const o = await openKyselyStore(created.url, { poolSize: 3 });
  opened.push({ opened: o, drop: created.drop });
  await migrateToLatest(o.db);
  const user = await o.store.createUser({ name: null, created_at: new Date().toISOString() });
  return { url: created.url, db: o.db, userId: user.id };
}

/** `count` heartbeats that were pinged an hour ago with a period of a minute: all late, at once. */
async function seedLate(db: OpenedKyselyStore['db'], userId: number, count: number): Promise<void> {
  const pinged = new Date(Date.now() - 3_600_000).toISOString();
  const due = new Date(Date.now() - 3_480_000).toISOString();
  await sql`insert into heartbeats (user_id, period_s, time_zone, grace_s, is_enabled, ping_token, status,
      status_since, last_ping_at, next_due_at, created_at, last_success_at, late_check_at)
    select ${userId}, 60, 'UTC', 60, true, gen_random_uuid()::text, 'up', ${pinged}, ${pinged}, ${due}, ${pinged},
      ${pinged}, ${due}
    from generate_series(1, ${count})`.execute(db);
}

async function count(db: OpenedKyselyStore['db'], query: ReturnType<typeof sql<{ n: string }>>): Promise<number> {
  return Number((await query.execute(db)).rows[0]!.n);
}

const downs = (db: OpenedKyselyStore['db']) =>
  count(db, sql<{ n: string }>`select count(*) as n from events where type = 'heartbeat.down'`);

async function stop(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.stderr.join('\n'));
}

suiteOrSkip('late heartbeats, several workers, one PostgreSQL database', first.skip, { concurrency: true }, () => {
  it('three workers share 300 late heartbeats: one heartbeat.down and one incident each', async () => {
    const { url, db, userId } = await database();
    const args = (n: number) => [
      '--database',
      url,
      '--worker-id',
      `h${n}`,
      '--poll-interval',
      '100',
      '--log-level',
      'debug',
    ];
    const workers = await Promise.all([1, 2, 3].map((n) => startWorker(args(n))));
    await seedLate(db, userId, 300);
    await waitFor('300 heartbeats down', async () => (await downs(db)) >= 300);
    await Promise.all(workers.map(stop));
    assert.equal(await downs(db), 300);
    assert.equal(
      await count(
        db,
        sql<{ n: string }>`select count(distinct resource_id) as n from events where type = 'heartbeat.down'`,
      ),
      300,
    );
    assert.equal(
      await count(db, sql<{ n: string }>`select count(*) as n from incidents where heartbeat_id is not null`),
      300,
    );
    assert.equal(await count(db, sql<{ n: string }>`select count(*) as n from heartbeats where status <> 'down'`), 0);
    const claims = workers.map((w) => w.claimed('heartbeat'));
    assert.equal(
      claims.reduce((a, b) => a + b, 0),
      300,
      `claims per worker: ${claims.join(', ')}`,
    );
  });

  it('a worker killed with SIGKILL before its write leaves leases that expire; another writes each once', async () => {
    const { url, db, userId } = await database();
    await seedLate(db, userId, 40);
    // The outbox is locked while the victim works: its claim commits, its write waits at the
    // events it inserts, and dies there uncommitted. The lock is held on a connection of its own
    // for as long as the victim lives.
    await db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`lock table events in exclusive mode`.execute(conn);
      try {
        const victim = await startWorker([
          '--database',
          url,
          '--worker-id',
          'victim',
          '--lease',
          '1500',
          '--poll-interval',
          '60000',
        ]);
        await waitFor(
          'the victim to claim all 40',
          async () =>
            (await count(db, sql<{ n: string }>`select count(*) as n from heartbeats where lease_owner = 'victim'`)) ===
            40,
        );
        await waitFor(
          'the victim to wait at the outbox',
          async () =>
            (await count(
              db,
              sql<{
                n: string;
              }>`select count(*) as n from pg_locks where not granted and relation = 'events'::regclass`,
            )) > 0,
        );
        victim.child.kill('SIGKILL');
        assert.equal(await victim.exited, null);
      } finally {
        await sql`commit`.execute(conn);
      }
    });
    const heir = await startWorker([
      '--database',
      url,
      '--worker-id',
      'heir',
      '--poll-interval',
      '100',
      '--log-level',
      'debug',
    ]);
    await waitFor('the heir to write all 40', async () => (await downs(db)) >= 40);
    await stop(heir);
    assert.equal(await downs(db), 40, 'the victim wrote nothing');
    assert.equal(heir.claimed('heartbeat'), 40);
    assert.equal(
      await count(db, sql<{ n: string }>`select count(*) as n from heartbeats where lease_token is not null`),
      0,
    );
  });
});
