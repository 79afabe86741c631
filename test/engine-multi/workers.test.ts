/**
 * docs/engine.md, "Scheduling" and "Many machines" (issue 11, item 5): several `monitoring-api worker`
 * processes sharing one PostgreSQL database, with the DNSBL zones served by a fake DNS server on
 * 127.0.0.1. Each test has a database and a DNS server of its own, so no worker of one test claims
 * another's records or meets another's silent or slow DNS: the tests run side by side, their
 * waits (leases running out, poll intervals, DNS timeouts) overlapping instead of adding up.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { newDevice } from '../support/records.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';

const NOW = new Date().toISOString();
/** Monitor n watches 10.0.(n / 256).(n % 256) (see seedMonitors), asked of a zone as this name. */
const QUERY = (n: number, zone: string) => `${n & 255}.${n >> 8}.0.10.${zone}`;

interface Db {
  url: string;
  opened: OpenedKyselyStore;
  userId: number;
}

const first = await createTestDatabase({ migrated: true });
let firstTaken = false;
const opened: { drop(): Promise<void>; opened: OpenedKyselyStore }[] = [];
const servers: FakeDnsServer[] = [];

after(async () => {
  for (const server of servers) await server.close();
  for (const { opened: o, drop } of opened) {
    await o.store.close();
    await drop();
  }
});

/** A fake DNS server for one test: what it is told (silence, delays, holds) and asked is that test's alone. */
async function dnsServer(): Promise<FakeDnsServer> {
  const server = await startFakeDnsServer();
  servers.push(server);
  return server;
}

/**
 * A migrated database with one user; the first is the one created above to learn whether
 * PostgreSQL is there (taken at once: the tests start together).
 */
async function database(): Promise<Db> {
  const reuse = !firstTaken;
  firstTaken = true;
  const created = reuse ? first : await createTestDatabase({ migrated: true });
  if (created.skip !== undefined) throw new Error(created.skip);
  const o = await openKyselyStore(created.url, { poolSize: 2 });
  opened.push({ opened: o, drop: created.drop });
  await migrateToLatest(o.db);
  const user = await o.store.createUser({ name: null, created_at: NOW });
  return { url: created.url, opened: o, userId: user.id };
}

/** `count` enabled IP monitors, due now, in one statement: the workers see them appear together. */
async function seedMonitors(db: Db, count: number, intervalS = 3600): Promise<void> {
  await sql`insert into blacklist_monitors (user_id, target_type, target_value, is_enabled, listed_on, created_at, next_check_at, check_interval_s)
    select ${db.userId}, 'ip', '10.0.' || (n / 256) || '.' || (n % 256), true, '[]', ${NOW}, ${NOW}, ${intervalS}
    from generate_series(1, ${count}) as n`.execute(db.opened.db);
}

async function scalar(db: Db, query: ReturnType<typeof sql<{ n: string }>>): Promise<number> {
  const { rows } = await query.execute(db.opened.db);
  return Number(rows[0]!.n);
}

const checkedCount = (db: Db) =>
  scalar(db, sql<{ n: string }>`select count(*) as n from blacklist_monitors where last_checked_at is not null`);

/** How many times `dns` was asked each name in `names`. */
function askedTimes(dns: FakeDnsServer, names: readonly string[]): Map<string, number> {
  const wanted = new Set(names);
  const counts = new Map<string, number>(names.map((name) => [name, 0]));
  for (const name of dns.queries) if (wanted.has(name)) counts.set(name, counts.get(name)! + 1);
  return counts;
}

async function stop(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.stderr.join('\n'));
}

suiteOrSkip('many workers, one PostgreSQL database, real processes', first.skip, { concurrency: true }, () => {
  it('three workers share 300 due monitors: each is checked once, by one worker, none twice', async () => {
    const db = await database();
    const dns = await dnsServer();
    const zone = 'shared-a.test';
    // A DNS timeout and a lease beyond the test: c-ares asks again at half of the timeout, and a
    // lease that runs out lets another worker claim its records, both rightly on a machine so
    // busy that a check stalls for half a minute. A name asked twice must mean a second claim of
    // a record still leased.
    const args = (n: number) => [
      '--database',
      db.url,
      '--dns-server',
      dns.address,
      '--dnsbl-zone',
      zone,
      '--worker-id',
      `a${n}`,
      '--concurrency',
      '10',
      '--dns-timeout',
      '600000',
      '--lease',
      '3600000',
      '--log-level',
      'debug',
    ];
    const workers = await Promise.all([1, 2, 3].map((n) => startWorker(args(n))));
    // Slow enough answers that one worker alone would need longer than a poll interval: the
    // others wake up to due records and the claims really compete.
    dns.delay(40);
    try {
      await seedMonitors(db, 300);
      await waitFor('300 monitors checked', async () => (await checkedCount(db)) === 300);
      // One poll interval more: a second claim of anything would show now.
      await delay(1_200);
    } finally {
      dns.delay(0);
    }
    const perMonitor = await sql<{ resource_id: string; n: string }>`
      select resource_id, count(*) as n from check_results group by resource_id having count(*) <> 1`.execute(
      db.opened.db,
    );
    assert.deepEqual(perMonitor.rows, [], 'one result row per monitor');
    assert.equal(await scalar(db, sql<{ n: string }>`select count(*) as n from check_results`), 300);
    const names = Array.from({ length: 300 }, (_, i) => QUERY(i + 1, zone));
    const asked = askedTimes(dns, names);
    assert.deepEqual(
      [...asked].filter(([, n]) => n !== 1),
      [],
      'each name asked of the DNS server exactly once',
    );
    const claims = workers.map((w) => w.claimed('blacklist_monitor'));
    assert.equal(
      claims.reduce((a, b) => a + b, 0),
      300,
      `claims per worker: ${claims.join(', ')}`,
    );
    assert.ok(claims.filter((n) => n > 0).length >= 2, `the work was shared: ${claims.join(', ')}`);
    await Promise.all(workers.map(stop));
  });

  it('a worker killed with SIGKILL mid-batch leaves leases that expire and another worker claims', async () => {
    const db = await database();
    const dns = await dnsServer();
    const zone = 'killed-b.test';
    const lease = 1_500;
    // A DNS timeout beyond the test: c-ares would otherwise ask again at half of it, and the
    // count of queries per name below would depend on how fast this machine is.
    // Debug: the claimed batches are counted from their log lines.
    const common = [
      '--database',
      db.url,
      '--dns-server',
      dns.address,
      '--dnsbl-zone',
      zone,
      '--dns-timeout',
      '60000',
      '--log-level',
      'debug',
    ];
    // Its checks hang: the server keeps every answer in this zone until released.
    const release = dns.hold(zone);
    // The monitors are there before the victim starts, so its first claim, made at once, takes
    // all 40; it polls once a minute, so it never claims them again once its leases have run
    // out, however late the SIGKILL comes. The heir keeps the default lease: on a slow
    // machine its checks could outlast one that short.
    await seedMonitors(db, 40);
    const a = await startWorker([
      ...common,
      '--lease',
      String(lease),
      '--poll-interval',
      '60000',
      '--worker-id',
      'victim',
    ]);
    const names = Array.from({ length: 40 }, (_, i) => QUERY(i + 1, zone));
    await waitFor('the victim to ask about all 40', () => [...askedTimes(dns, names).values()].every((n) => n >= 1));
    const { rows: leased } = await sql<{ n: string; expires: Date }>`
      select count(*) as n, max(lease_expires_at) as expires from blacklist_monitors where lease_owner = 'victim'`.execute(
      db.opened.db,
    );
    assert.equal(Number(leased[0]!.n), 40, 'the victim holds all 40 when it dies');
    const expiredAt = new Date(leased[0]!.expires).getTime();
    a.child.kill('SIGKILL');
    assert.equal(await a.exited, null);
    release();

    const b = await startWorker([...common, '--worker-id', 'heir']);
    await waitFor('the heir to check all 40', async () => (await checkedCount(db)) === 40);
    assert.equal(b.claimed('blacklist_monitor'), 40);
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from check_results`.execute(db.opened.db);
    assert.equal(Number(rows[0]!.n), 40, 'one result each: the victim wrote nothing');
    const { rows: claims } = await sql<{ n: string }>`
      select count(*) as n from blacklist_monitors where last_checked_at < ${new Date(expiredAt).toISOString()}`.execute(
      db.opened.db,
    );
    assert.equal(Number(claims[0]!.n), 0, "no record was checked before the victim's lease ran out");
    assert.equal(
      await scalar(db, sql<{ n: string }>`select count(*) as n from blacklist_monitors where lease_token is not null`),
      0,
    );
    assert.ok(
      [...askedTimes(dns, names).values()].every((n) => n === 2),
      'each name asked by the victim, then once by the heir',
    );
    await stop(b);
  });

  it('a worker that lost its lease cannot overwrite the newer result (fencing, two processes)', async () => {
    const db = await database();
    const dns = await dnsServer();
    // The stale worker's zone lists every address, the new one's lists none: an overwrite would
    // turn the monitors `listed` and announce it.
    const stale = 'stale-c.test';
    const fresh = 'fresh-c.test';
    const names = Array.from({ length: 20 }, (_, i) => QUERY(i + 1, stale));
    for (const name of names) dns.set(name, { a: ['127.0.0.2'] });
    const release = dns.hold(stale);
    const common = ['--database', db.url, '--dns-server', dns.address];
    // A DNS timeout beyond the test's hang guard: the stale worker's checks wait for the held
    // answers, however long the fresh worker takes to start on a busy machine. A shorter one ends
    // them as errors under leases nobody has claimed again yet, so the writes stand and the
    // records are not due for an hour. It
    // polls once an hour, so once its leases have run out it does not race the fresh worker for
    // the same records (a race whose winner the two poll phases would decide, and which it wins
    // on a machine busy enough to hold the fresh worker's checks for a minute) and stays stuck.
    // The monitors are there before it starts, so its first claim, made at once, takes them all.
    // Only its leases are short: on a slow machine the fresh worker's checks could outlast a lease
    // that short.
    await seedMonitors(db, 20);
    const a = await startWorker([
      ...common,
      '--dnsbl-zone',
      stale,
      '--lease',
      '1500',
      '--dns-timeout',
      '600000',
      '--poll-interval',
      '3600000',
      '--worker-id',
      'stale',
    ]);
    await waitFor('the stale worker to ask about all 20', () =>
      [...askedTimes(dns, names).values()].every((n) => n >= 1),
    );
    // Its DNS deadline is generous too: on a busy machine an answer of the test's own DNS server can
    // take longer than the default 5 s, and a check that timed out is `error`, due again only in an
    // hour, so the wait below would never end.
    const b = await startWorker([
      ...common,
      '--dnsbl-zone',
      fresh,
      '--dns-timeout',
      '60000',
      '--poll-interval',
      '200',
      '--worker-id',
      'fresh',
    ]);
    let seen = '';
    await waitFor(
      () => `the fresh worker to record all 20 clean; the monitors' statuses: ${seen}`,
      async () => {
        const { rows } = await sql<{ last_status: string | null; n: string }>`
          select last_status, count(*) as n from blacklist_monitors group by 1 order by 1`.execute(db.opened.db);
        // With the results' errors and zones: which worker wrote an error, and why, if this never ends.
        const errors = await sql<{ zone: string; error: string | null; n: string }>`
          select cast(fields as jsonb) ->> 'zone' as zone, cast(fields as jsonb) ->> 'error' as error, count(*) as n
          from check_results group by 1, 2 order by 1, 2`.execute(db.opened.db);
        seen = `${JSON.stringify(rows)}; results by zone and error: ${JSON.stringify(errors.rows)}`;
        return rows.length === 1 && rows[0]!.last_status === 'clean' && Number(rows[0]!.n) === 20;
      },
    );
    await stop(b);
    // Now the stale worker's checks finish (listed) and it writes them under its lost leases.
    // A SIGTERM makes it finish its checks in flight and write them before it exits 0; with the
    // DNS timeout that long, an exit 0 now means the answers came and the writes were made.
    release();
    await stop(a);
    const { rows } = await sql<{ last_status: string; listed_on: string }>`
      select distinct last_status, listed_on from blacklist_monitors`.execute(db.opened.db);
    assert.deepEqual(rows, [{ last_status: 'clean', listed_on: '[]' }]);
    const zones = await sql<{ zone: string; n: string }>`
      select cast(fields as jsonb) ->> 'zone' as zone, count(*) as n from check_results group by 1`.execute(
      db.opened.db,
    );
    assert.deepEqual(
      zones.rows.map((r) => [r.zone, Number(r.n)]),
      [[fresh, 20]],
      'no result row of the stale worker',
    );
    assert.equal(await scalar(db, sql<{ n: string }>`select count(*) as n from events`), 0, 'no listing announced');
  });

  it('a DNS server that stops answering: error results, one warning per outage, devices still checked', async () => {
    const db = await database();
    const dns = await dnsServer();
    const zone = 'outage-d.test';
    // TCP listeners for the devices, which need no DNS: the worker must keep checking them.
    for (let i = 1; i <= 5; i++) {
      const listener: Server = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      after(() => new Promise<void>((resolve) => listener.close(() => resolve())));
      const created = await db.opened.store.createDevice(
        db.userId,
        newDevice({
          target_type: 'ip',
          target_value: '127.0.0.1',
          service_type: 'tcp',
          port: (listener.address() as { port: number }).port,
          created_at: NOW,
        }),
      );
      assert.ok('created' in created);
    }
    // Every second (the store takes any interval; the API's minimum is 300 s): the outages below
    // see each monitor checked again and again.
    await seedMonitors(db, 30, 1);
    const status = (s: string) =>
      scalar(db, sql<{ n: string }>`select count(*) as n from blacklist_monitors where last_status = ${s}`);

    dns.silence(true);
    // Three zones: each check is three timed-out lookups, 90 in the first pass alone. The DNS
    // timeout is long enough that a stall of this process (the DNS server's) or the worker's
    // does not time out answers that were sent: three of those in a row would be a second outage.
    const zones = ['a', 'b', 'c'].flatMap((z) => ['--dnsbl-zone', `${z}.${zone}`]);
    const w = await startWorker([
      '--database',
      db.url,
      '--dns-server',
      dns.address,
      ...zones,
      '--dns-timeout',
      '2000',
      '--concurrency',
      '20',
      '--allow-private-targets',
      '--worker-id',
      'outage',
    ]);
    const warnings = () => w.stderr.filter((line) => line.includes('does not answer'));
    const recoveries = () => w.stdout.filter((line) => line.includes('answers again'));
    await waitFor('30 monitors in error', async () => (await status('error')) === 30);
    const up = await scalar(db, sql<{ n: string }>`select count(*) as n from devices where status = 'up'`);
    assert.equal(up, 5, 'the devices were checked while every DNSBL lookup timed out');
    // One warning, however many timeouts.
    const timeouts = await scalar(
      db,
      sql<{ n: string }>`select count(*) as n from check_results where resource_kind = 'blacklist_monitor' and not ok`,
    );
    assert.ok(timeouts >= 90, `${timeouts} failed lookups`);
    assert.equal(warnings().length, 1, `one warning for ${timeouts} timeouts: ${w.stderr.join('\n')}`);

    dns.silence(false);
    await waitFor('30 monitors clean again', async () => (await status('clean')) === 30);
    await delay(800);
    assert.equal(recoveries().length, 1, w.stdout.filter((l) => l.includes('DNS')).join('\n'));
    assert.equal(warnings().length, 1, `no warning while it answers: ${w.stderr.join('\n')}`);

    dns.silence(true);
    await waitFor('30 monitors in error again', async () => (await status('error')) === 30);
    dns.silence(false);
    await stop(w);
    assert.equal(warnings().length, 2, `a second outage, a second warning: ${w.stderr.join('\n')}`);
    assert.ok(
      w.stderr.every((line) => !line.includes('"level":"error"')),
      w.stderr.join('\n'),
    );
  });
});
