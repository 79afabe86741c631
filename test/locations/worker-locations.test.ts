/**
 * docs/engine.md, "Locations": `monitoring-api worker --location NAME --probe-source-address ADDR`
 * as real processes sharing one SQLite file with `serve`. Each worker's heartbeat makes its
 * location show in `GET /locations`, and its probes leave from its own loopback address, which the
 * local target sees.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bootstrapToken, runCli, startServe, stopServe } from '../support/cli.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: string;
let target: Server;
/** The source address of every connection the target accepted. */
const seen: string[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-locations-'));
  target = createServer((socket) => {
    seen.push(socket.remoteAddress ?? '?');
    socket.end();
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  await new Promise<void>((resolve) => target.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

interface Location {
  name: string;
  live_workers: number;
  last_seen_at: string;
}

async function locations(url: string, token: string): Promise<Location[]> {
  const response = await fetch(`${url}/locations`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { data: Location[] }).data;
}

describe('workers at two locations, one SQLite file', () => {
  const database = () => `sqlite:${join(dir, 'shared.db')}`;
  let server: Awaited<ReturnType<typeof startServe>>;
  let token: string;
  const workers: WorkerProcess[] = [];
  /** Before the first worker started: every heartbeat of these workers comes after it. */
  let firstStart = Number.POSITIVE_INFINITY;
  const worker = async (location: string, source: string) => {
    firstStart = Math.min(firstStart, Date.now());
    const started = await startWorker([
      '--database',
      database(),
      '--worker-id',
      `w-${location}`,
      '--location',
      location,
      '--probe-source-address',
      source,
      '--allow-private-targets',
      '--poll-interval',
      '200',
    ]);
    workers.push(started);
    return started;
  };
  after(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    if (server !== undefined) await stopServe(server);
  });

  it('a worker says its location and probes from its source address', async () => {
    server = await startServe(['--database', database(), '--allow-private-targets']);
    token = bootstrapToken(server)!;
    assert.deepEqual(await locations(server.url, token), [], 'no worker yet');
    const eu = await worker('eu-west', '127.0.0.2');
    assert.ok(
      eu.stdout.some((l) => l.includes('from location eu-west, probes from 127.0.0.2 (')),
      eu.stdout.join('\n'),
    );
    const address = target.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const created = await fetch(`${server.url}/devices/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ target_type: 'ip', target_value: '127.0.0.1', service_type: 'tcp', port }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    await waitFor('the target to be probed', () => seen.length > 0);
    assert.deepEqual([...new Set(seen)], ['127.0.0.2']);
  });

  it('GET /locations lists each location with its live workers, by name', async () => {
    await worker('us-east', '127.0.0.3');
    await waitFor('two locations', async () => (await locations(server.url, token)).length === 2);
    const listed = await locations(server.url, token);
    assert.deepEqual(
      listed.map((l) => [l.name, l.live_workers]),
      [
        ['eu-west', 1],
        ['us-east', 1],
      ],
    );
    // Seen by a heartbeat of these workers: since the first of them started, and not in the future.
    for (const l of listed) {
      const seenAt = Date.parse(l.last_seen_at);
      assert.ok(seenAt >= firstStart && seenAt <= Date.now(), l.last_seen_at);
    }
  });

  it('a stopped worker leaves its location listed', async () => {
    const us = workers[1]!;
    us.child.kill('SIGTERM');
    assert.equal(await us.exited, 0);
    assert.deepEqual(
      (await locations(server.url, token)).map((l) => l.name),
      ['eu-west', 'us-east'],
    );
  });
});

it('a bad --location or --probe-source-address is a usage error (exit 2)', async () => {
  for (const [flag, value, message] of [
    ['--location', 'EU_West', /--location must be 1 to 32 of a-z, 0-9 and -/],
    ['--location', 'x'.repeat(33), /--location must be/],
    ['--probe-source-address', 'localhost', /--probe-source-address must be an IP address/],
  ] as const) {
    const result = await runCli(['worker', '--database', `sqlite:${join(dir, 'bad.db')}`, flag, value]);
    assert.equal(result.code, 2, `${flag} ${value}`);
    assert.match(result.stderr, message);
  }
});
