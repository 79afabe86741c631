/**
 * docs/engine.md, "Shape and run modes": `monitoring-api worker` and `serve --worker` as an
 * operator runs them, on SQLite, with DNSBL zones served by a fake DNS server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createSocket } from 'node:dgram';
import { createMonitoringApi } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { bootstrapToken, dnsblFlags, startServe, stopServe } from '../support/cli.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: string;
let dns: FakeDnsServer;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-worker-'));
  dns = await startFakeDnsServer({ '14.215.184.93.zen.spamhaus.org': { a: ['127.0.0.2'] } });
});
after(async () => {
  await dns.close();
  await rm(dir, { recursive: true, force: true });
});

/** The engine flags of every run here: the fake DNS server, its zones, nothing else asked. */
const ENGINE = () => dnsblFlags(dns.address);

async function createMonitor(url: string, token: string, ip = '93.184.215.14'): Promise<number> {
  const response = await fetch(`${url}/blacklist-monitors/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ target_type: 'ip', target_value: ip, is_enabled: true }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return ((await response.json()) as { data: { id: number } }).data.id;
}

/** Polls the list until the monitor has a status; the first check is due at once. */
async function statusOf(
  url: string,
  token: string,
  id: number,
): Promise<{ last_status: string | null; listed_on: string[] }> {
  let checked: { last_status: string | null; listed_on: string[] } | undefined;
  await waitFor(
    `monitor ${id} to be checked`,
    async () => {
      const response = await fetch(`${url}/blacklist-monitors`, { headers: { authorization: `Bearer ${token}` } });
      const { data } = (await response.json()) as {
        data: { id: number; last_status: string | null; listed_on: string[] }[];
      };
      checked = data.find((m) => m.id === id && m.last_status !== null);
      return checked !== undefined;
    },
    100,
  );
  return checked!;
}

// One worker and one server for these four, in order: three process starts saved. The worker
// comes first, so that it is the one to migrate the fresh database; the server then serves on it,
// and once the worker has stopped, shows that it checks nothing itself.
describe('monitoring-api worker, then serve beside it', () => {
  const database = () => `sqlite:${join(dir, 'shared.db')}`;
  let worker: WorkerProcess;
  let server: Awaited<ReturnType<typeof startServe>>;
  let token: string;

  it('starts on a fresh database and says what it runs with', async () => {
    worker = await startWorker([
      '--database',
      database(),
      '--worker-id',
      'w-test',
      '--poll-interval',
      '250',
      ...ENGINE(),
    ]);
    assert.ok(
      worker.stdout.some(
        (l) =>
          l ===
          `monitoring-api: worker w-test checking devices and blacklist monitors from location default (concurrency 100, polling every 250 ms when idle, DNS ${dns.address}, private targets refused)`,
      ),
      worker.stdout.join('\n'),
    );
    assert.ok(
      worker.stdout.some((l) => /^monitoring-api: migrated the database/.test(l)),
      'it migrated the fresh database',
    );
  });

  it('beside serve, checks what the API stores', async () => {
    server = await startServe(['--database', database()]);
    token = bootstrapToken(server)!;
    const id = await createMonitor(server.url, token);
    const monitor = await statusOf(server.url, token, id);
    assert.equal(monitor.last_status, 'listed');
    assert.deepEqual(monitor.listed_on, ['zen.spamhaus.org']);
    // At the default level (info) a claimed batch is no line of its own: that is debug.
    assert.ok(!worker.stdout.some((l) => /"claimed \d+ due/.test(l)), worker.stdout.join('\n'));
  });

  it('exits 0 on SIGTERM', async () => {
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.stderr.join('\n'));
  });

  it('serve without --worker checks nothing', async () => {
    const asked = dns.queries.length;
    const id = await createMonitor(server.url, token, '93.184.215.15');
    await delay(1_200);
    const response = await fetch(`${server.url}/blacklist-monitors`, { headers: { authorization: `Bearer ${token}` } });
    const { data } = (await response.json()) as { data: { id: number; last_status: string | null }[] };
    assert.equal(data.find((m) => m.id === id)?.last_status, null);
    assert.equal(dns.queries.length, asked, 'no DNS query was sent');
    assert.ok(!server.lines.some((l) => /worker .* checking/.test(l)));
    assert.equal(await stopServe(server), 0);
  });
});

describe('monitoring-api worker --stop-timeout', () => {
  it(
    'a check still in flight at SIGTERM: exit 1 once the stop timeout has passed, saying why',
    { timeout: HANG_GUARD_MS },
    async () => {
      // A DNS server that receives and never answers: the DNSBL check of the monitor hangs in flight.
      const silent = createSocket('udp4');
      let asked = 0;
      silent.on('message', () => void asked++);
      await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
      after(() => silent.close());
      const file = join(dir, 'stuck.db');
      const { store, db } = await openKyselyStore(`sqlite:${file}`);
      await migrateToLatest(db);
      const api = createMonitoringApi({ store });
      const key = await api.keys.createApiKey({ userId: (await api.keys.createUser()).id });
      const created = await api.fetch(
        new Request('http://api.test/v1/blacklist-monitors/create', {
          method: 'POST',
          headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ target_type: 'ip', target_value: '93.184.215.14' }),
        }),
      );
      assert.equal(created.status, 201);
      await api.close();
      await store.close();

      // A DNS timeout as long as the test's hang guard: the check is still in flight at the signal
      // however slow the machine, and only the stop timeout can end the wait for it in time.
      const worker = await startWorker([
        '--database',
        `sqlite:${file}`,
        '--stop-timeout',
        '300',
        '--dns-timeout',
        String(HANG_GUARD_MS),
        ...dnsblFlags(`127.0.0.1:${silent.address().port}`),
      ]);
      await waitFor('the worker to ask the DNS server', () => asked > 0);
      const stopped = performance.now();
      worker.child.kill('SIGTERM');
      assert.equal(await worker.exited, 1, worker.stderr.join('\n'));
      const ms = performance.now() - stopped;
      // Its line names its own deadline (0.3 s, not the 30 s default) as what ended the wait; and
      // the wait lasted that long at least.
      assert.match(worker.stderr.join('\n'), /^monitoring-api: checks still in flight after 0\.3 s, exiting$/m);
      assert.ok(ms >= 250, `exited ${Math.round(ms)} ms after SIGTERM`);
    },
  );
});

describe('monitoring-api serve --worker', () => {
  it('checks a monitor created through the API within seconds', async () => {
    const server = await startServe(['--database', `sqlite:${join(dir, 'one.db')}`, '--worker', ...ENGINE()]);
    await server.waitForLine(/^monitoring-api: worker \S+ checking devices and blacklist monitors/);
    const token = bootstrapToken(server)!;
    const id = await createMonitor(server.url, token);
    const monitor = await statusOf(server.url, token, id);
    assert.equal(monitor.last_status, 'listed');
    assert.ok(
      server.lines.some((l) => /"path":"\/v1\/blacklist-monitors"/.test(l)),
      'request lines are info',
    );
    assert.equal(await stopServe(server), 0);
  });

  it('--log-level warn writes no request line, and debug writes each claimed batch', async () => {
    const quiet = await startServe([
      '--database',
      `sqlite:${join(dir, 'quiet.db')}`,
      '--worker',
      '--log-level',
      'warn',
      ...ENGINE(),
    ]);
    const token = bootstrapToken(quiet)!;
    const id = await createMonitor(quiet.url, token);
    assert.equal((await statusOf(quiet.url, token, id)).last_status, 'listed');
    assert.deepEqual(
      quiet.lines.filter((l) => l.startsWith('{')),
      [],
      'no JSON line on stdout',
    );
    assert.equal(await stopServe(quiet), 0);

    const chatty = await startServe([
      '--database',
      `sqlite:${join(dir, 'quiet.db')}`,
      '--worker',
      '--log-level',
      'debug',
      ...ENGINE(),
    ]);
    await createMonitor(chatty.url, token, '93.184.215.16');
    const line = await chatty.waitForLine(/"claimed \d+ due blacklist_monitor checks"/);
    assert.equal((JSON.parse(line) as { level: string }).level, 'debug');
    assert.equal(await stopServe(chatty), 0);
  });
});
