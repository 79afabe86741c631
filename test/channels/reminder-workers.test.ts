/**
 * docs/notifications.md, "Reminders, escalation and acknowledgement": real `monitoring-api
 * worker` processes on one PostgreSQL database send each due reminder once, counted at a chat
 * service on 127.0.0.1 by the requests it took, however many workers race for them; and a worker
 * killed with SIGKILL while its requests hang loses none of its reminders (another sends them once
 * its leases run out) and doubles none. The reminders are made due by the due dates seeded in the
 * database, an hour ago, so no process's clock is moved.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { newChannel } from '../stores/channels-contract.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { newDevice } from '../support/records.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';

/** The longest `remind_every_s`: the reminder after the seeded one falls a week later, after the test. */
const WEEK_S = 604_800;
const CHANNELS = 30;

/**
 * A chat webhook on 127.0.0.1: while `holding`, it keeps every request open without an answer
 * (a service that hangs); otherwise it answers 200 `ok` and counts the message as taken, by path.
 */
interface Chat {
  port: number;
  holding: boolean;
  /** Requests held open so far. */
  held: number;
  /** Messages answered 200, by path. */
  taken: Map<string, number>;
  close(): Promise<void>;
}

async function startChat(): Promise<Chat> {
  const chat: Chat = { port: 0, holding: false, held: 0, taken: new Map(), close: async () => {} };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      if (chat.holding) {
        chat.held++;
        return;
      }
      chat.taken.set(req.url ?? '', (chat.taken.get(req.url ?? '') ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  chat.port = (server.address() as AddressInfo).port;
  chat.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return chat;
}

const first = await createTestDatabase({ migrated: true });
let firstTaken = false;
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/**
 * A migrated database with one user, one device down since an hour ago with its open incident and
 * its `device.down` event (already fanned out), and CHANNELS Slack channels reminding weekly, each
 * with its first reminder due now, posting to `chat` at a path of its own.
 */
async function seeded(chat: Chat): Promise<{ url: string; db: OpenedKyselyStore['db'] }> {
  const reuse = !firstTaken;
  firstTaken = true;
  const created = reuse ? first : await createTestDatabase({ migrated: true });
  if (created.skip !== undefined) throw new Error(created.skip);
  const opened = await openKyselyStore(created.url, { poolSize: 2 });
  cleanups.push(async () => {
    await opened.store.close();
    await created.drop();
  });
  await migrateToLatest(opened.db);
  const { store, db } = opened;
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const userId = (await store.createUser({ name: null, created_at: hourAgo })).id;
  const made = await store.createDevice(
    userId,
    newDevice({ target_value: 'web1.example.com', created_at: hourAgo, status: 'down', status_since: hourAgo }),
  );
  assert.ok('created' in made);
  const device = made.created;
  // Never due while the test runs: its status, and so its incident, stays as seeded.
  await sql`update devices set next_check_at = '2100-01-01T00:00:00Z' where id = ${device.id}`.execute(db);
  let [incident] = (await store.listIncidents(userId, { from: hourAgo, to: '2100-01-01T00:00:00Z', limit: 5 })) ?? [];
  if (incident === undefined) {
    await sql`insert into incidents (user_id, device_id, started_at) values (${userId}, ${device.id}, ${hourAgo})`.execute(
      db,
    );
    [incident] = (await store.listIncidents(userId, { from: hourAgo, to: '2100-01-01T00:00:00Z', limit: 5 }))!;
  }
  const data = JSON.stringify({ ...device, previous_status: 'up', status: 'down' });
  const event = await sql<{
    id: string;
  }>`insert into events (user_id, type, resource_kind, resource_id, created_at, data)
    values (${userId}, 'device.down', 'device', ${device.id}, ${incident!.started_at}, ${data}) returning id`.execute(
    db,
  );
  const eventId = Number(event.rows[0]!.id);
  await sql`update channel_fanout_floor set event_id = ${eventId}`.execute(db);
  for (let i = 1; i <= CHANNELS; i++) {
    const channel = await store.createChannel(
      userId,
      newChannel({
        type: 'slack',
        config: { webhook_url: `http://127.0.0.1:${chat.port}/hook/${i}` },
        events: ['device.down', 'device.up'],
        remind_every_s: WEEK_S,
        created_at: hourAgo,
      }),
    );
    await sql`insert into notifications (channel_id, event_id, status, attempts, next_attempt_at, reason, seq, due_at)
      values (${channel.id}, ${eventId}, 'pending', 0, ${hourAgo}, 'reminder', 1, ${hourAgo})`.execute(db);
    await sql`insert into channel_queue (channel_id) values (${channel.id})`.execute(db);
  }
  return { url: created.url, db };
}

const args = (url: string, id: string, extra: string[] = []) => [
  '--database',
  url,
  '--worker-id',
  id,
  '--allow-private-targets',
  '--poll-interval',
  '100',
  ...extra,
];

async function stop(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.stderr.join('\n'));
}

const count = async (db: OpenedKyselyStore['db'], query: ReturnType<typeof sql<{ n: string }>>) =>
  Number((await query.execute(db)).rows[0]!.n);

/** What the queue holds once every reminder went out: each delivered, the next one a week later, no lease. */
async function assertQueueAfter(db: OpenedKyselyStore['db']): Promise<void> {
  const rows = await sql<{ reason: string; seq: number; status: string; n: string }>`
    select reason, seq, status, count(*) as n from notifications group by reason, seq, status order by seq`.execute(db);
  assert.deepEqual(
    rows.rows.map((r) => [r.reason, Number(r.seq), r.status, Number(r.n)]),
    [
      ['reminder', 1, 'delivered', CHANNELS],
      ['reminder', 2, 'pending', CHANNELS],
    ],
  );
  assert.equal(
    await count(
      db,
      sql<{ n: string }>`select count(*) as n from notifications
        where seq = 2 and due_at <> (select min(due_at) from notifications where seq = 1) + interval '604800 seconds'`,
    ),
    0,
    'the next reminder is due a week after the first',
  );
  assert.equal(
    await count(
      db,
      sql<{ n: string }>`select count(*) as n from channel_attempts where kind = 'reminder' and error is null`,
    ),
    CHANNELS,
  );
  assert.equal(
    await count(db, sql<{ n: string }>`select count(*) as n from channel_queue where lease_token is not null`),
    0,
  );
}

/** Every channel's path, taken once: the counts at the chat service. */
const everyOnce = () => Array.from({ length: CHANNELS }, (_, i) => [`/hook/${i + 1}`, 1]);
const takenSorted = (chat: Chat) =>
  [...chat.taken].sort((a, b) => Number(a[0].split('/')[2]) - Number(b[0].split('/')[2]));

suiteOrSkip('reminders, several workers, one PostgreSQL database', first.skip, { concurrency: true }, () => {
  it('three workers send each of 30 due reminders once', async () => {
    const chat = await startChat();
    cleanups.push(() => chat.close());
    const { url, db } = await seeded(chat);
    const workers = await Promise.all(['r1', 'r2', 'r3'].map((id) => startWorker(args(url, id))));
    await waitFor(
      () => `every channel reminded (taken: ${chat.taken.size})`,
      () => chat.taken.size === CHANNELS,
    );
    await Promise.all(workers.map(stop));
    assert.deepEqual(takenSorted(chat), everyOnce());
    await assertQueueAfter(db);
  });

  it('a worker killed with SIGKILL while its requests hang loses none of its reminders and doubles none', async () => {
    const chat = await startChat();
    cleanups.push(() => chat.close());
    chat.holding = true;
    const { url, db } = await seeded(chat);
    const victim = await startWorker(args(url, 'victim'));
    await waitFor(
      () => `the victim to hold requests (held: ${chat.held})`,
      () => chat.held >= 10,
    );
    assert.ok(
      (await count(db, sql<{ n: string }>`select count(*) as n from channel_queue where lease_owner = 'victim'`)) > 0,
      'the victim holds leases',
    );
    victim.child.kill('SIGKILL');
    assert.equal(await victim.exited, null);
    chat.holding = false;
    const heirs = await Promise.all(['heir1', 'heir2'].map((id) => startWorker(args(url, id))));
    await waitFor(
      () => `every channel reminded after the kill (taken: ${chat.taken.size})`,
      () => chat.taken.size === CHANNELS,
    );
    await Promise.all(heirs.map(stop));
    assert.deepEqual(takenSorted(chat), everyOnce());
    await assertQueueAfter(db);
  });
});
