/**
 * docs/engine.md, "Locations": a device checked from three locations, as real processes on one
 * PostgreSQL database. Three workers (`--location`), each probing from its own loopback address
 * (`--probe-source-address` 127.0.0.2, .3, .4); targets that reset the connections of chosen
 * source addresses; every event counted at a receiver that verifies it with `standardwebhooks`.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Device } from '../../core/index.ts';
import { bootstrapToken, startServe, stopServe, type ServerProcess } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startWorker, type WorkerProcess } from '../support/worker-process.ts';
import { waitFor } from '../support/wait-for.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';
import { verifyNow, type DeliveredEvent } from '../e2e/harness.ts';

const database: TestDatabase = await createTestDatabase();
const LOCATIONS = { 'eu-west': '127.0.0.2', 'us-east': '127.0.0.3', 'ap-south': '127.0.0.4' } as const;

/** An HTTP target that answers 200, and resets at once the connections of the `refused` addresses. */
async function startTarget(refused: Set<string>): Promise<{ server: Server; port: number; refused: Set<string> }> {
  const server = createServer((_req, res) => res.writeHead(200).end('ok'));
  server.on('connection', (socket) => {
    if (refused.has(socket.remoteAddress ?? '')) socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, refused };
}

/**
 * An HTTP target that answers 200 until `arm()`; then it resets the next connection from each of
 * `sources` once, and answers 200 again: a blip that each location sees as one failed check.
 */
async function startBlipTarget(sources: readonly string[]) {
  const refused = new Map<string, number>();
  let armed = false;
  const server = createServer((_req, res) => res.writeHead(200).end('ok'));
  server.on('connection', (socket) => {
    const source = socket.remoteAddress ?? '';
    if (!armed || refused.has(source) || !sources.includes(source)) return;
    refused.set(source, refused.size);
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    arm: () => void (armed = true),
    /** Whether every source has been refused its one connection. */
    over: () => refused.size === sources.length,
  };
}

/**
 * An HTTP target that holds the requests from `held` unanswered until `release()`, which answers
 * them 503; every other request, and every request after the release, is answered 200 at once.
 */
async function startHoldingTarget(held: string) {
  const pending: ServerResponse[] = [];
  let holding = true;
  const server = createServer((req, res) => {
    if (holding && req.socket.remoteAddress === held) pending.push(res);
    else res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => {
    holding = false;
    for (const res of pending.splice(0)) res.writeHead(503).end('late');
  };
  return { server, port: (server.address() as AddressInfo).port, pending, release };
}

describe('three locations on PostgreSQL', { skip: database.skip }, () => {
  let serve: ServerProcess;
  let token: string;
  let receiver: Receiver;
  let secret: string;
  const workers = new Map<string, WorkerProcess>();
  const targets: Server[] = [];
  /** Every delivered event, verified, once per webhook-id. */
  const events = new Map<string, DeliveredEvent>();

  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${serve.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.ok(response.status < 300, `${path}: ${response.status} ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };
  const device = async (id: number) => (await api<Device[]>('/devices?limit=1000')).find((d) => d.id === id)!;
  const eventsOf = (id: number, type: string) =>
    [...events.values()].filter((e) => e.type === type && (e.data as { id: number }).id === id);

  before(async () => {
    if (database.skip !== undefined) return;
    const url = (database as { url: string }).url;
    receiver = await startReceiver();
    receiver.answer = (request) => {
      const event = verifyNow(secret, request);
      events.set(event.id, event);
      return 204;
    };
    serve = await startServe(['--database', url, '--allow-private-targets', '--rate-limit', '100000/60']);
    token = bootstrapToken(serve)!;
    const webhook = await api<{ secret: string }>('/webhooks/create', {
      url: `http://127.0.0.1:${receiver.port}/hook`,
    });
    secret = webhook.secret;
    for (const [location, source] of Object.entries(LOCATIONS)) {
      const worker = await startWorker([
        '--database',
        url,
        '--worker-id',
        `w-${location}`,
        '--location',
        location,
        '--probe-source-address',
        source,
        '--allow-private-targets',
        '--poll-interval',
        '100',
        '--retry-delay',
        '1',
        // Shorter than a stop past the heartbeat limit: a stopped worker's leases run out.
        '--lease',
        '5000',
      ]);
      workers.set(location, worker);
    }
  });

  after(async () => {
    for (const w of workers.values()) {
      if (w.child.exitCode === null) {
        w.child.kill('SIGCONT');
        w.child.kill('SIGTERM');
      }
    }
    await Promise.all([...workers.values()].map((w) => w.exited));
    if (serve !== undefined) await stopServe(serve);
    for (const server of targets) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await receiver?.close();
    if (database.skip === undefined) await database.drop();
  });

  const watched = async (refused: string[]) => {
    const target = await startTarget(new Set(refused));
    targets.push(target.server);
    const created = await api<Device>('/devices/create', {
      target_type: 'ip',
      target_value: '127.0.0.1',
      scheme: 'http',
      port: target.port,
      check_locations: Object.keys(LOCATIONS),
    });
    assert.equal(created.quorum, 2);
    return { id: created.id, target };
  };

  let oneRefused = 0;

  it('refused from one location only: the device is up with that location failing, and no device.down', async () => {
    const { id } = await watched([LOCATIONS['eu-west']]);
    oneRefused = id;
    // The device may be up before every location has reported: wait until all three have.
    await waitFor('the device up with eu-west failing and the others heard', async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const d = await device(id);
      return (
        d.status === 'up' &&
        d.locations?.['eu-west']?.status === 'failing' &&
        d.locations?.['us-east']?.status !== 'unknown' &&
        d.locations?.['ap-south']?.status !== 'unknown'
      );
    });
    const d = await device(id);
    assert.equal(d.quorum_state, 'met');
    assert.equal(d.locations?.['us-east']?.status, 'up');
    assert.equal(d.locations?.['ap-south']?.status, 'up');
    assert.equal(d.locations?.['eu-west']?.error, 'ECONNRESET');
    assert.deepEqual(eventsOf(id, 'device.down'), []);
  });

  it('refused from two locations at once: exactly one device.down, naming each location', async () => {
    // The three first checks run together: two failing results reach the store at the same
    // moment, and the device row's lock makes them decide one after the other.
    const { id } = await watched([LOCATIONS['eu-west'], LOCATIONS['us-east']]);
    await waitFor('one device.down delivered', () => eventsOf(id, 'device.down').length > 0);
    const [down, ...more] = eventsOf(id, 'device.down');
    assert.deepEqual(more, []);
    const locations = (down!.data as unknown as Device).locations!;
    assert.equal(locations['eu-west']?.status, 'failing');
    assert.equal(locations['us-east']?.status, 'failing');
    assert.equal(down!.data.status, 'down');
    // Every location has answered, the passing one too: still one device.down.
    await waitFor('every location heard', async () => {
      const d = await device(id);
      return Object.values(d.locations!).every((l) => l.status !== 'unknown');
    });
    const d = await device(id);
    assert.equal(d.status, 'down');
    assert.equal(d.locations?.['ap-south']?.status, 'up');
    assert.equal(eventsOf(id, 'device.down').length, 1);
  });

  let blipped = 0;

  it('a blip refused from every location, each once, shorter than the retry delay: no device.down', async () => {
    const blip = await startBlipTarget(Object.values(LOCATIONS));
    targets.push(blip.server);
    const { id } = await api<Device>('/devices/create', {
      target_type: 'ip',
      target_value: '127.0.0.1',
      scheme: 'http',
      port: blip.port,
      check_interval_s: 30,
      check_locations: Object.keys(LOCATIONS),
    });
    blipped = id;
    await waitFor('the device up from every location', async () => {
      const d = await device(id);
      return d.status === 'up' && Object.values(d.locations!).every((l) => l.status === 'up');
    });
    // The first location to check next (within an interval) fails; the others, asked at once,
    // fail too, within the retry delay (1 s); each one's re-check, a retry delay later, passes.
    blip.arm();
    await waitFor('every location refused once', () => blip.over(), 200);
    await waitFor(
      'every location failed once and passed its re-check',
      async () => {
        const results = await api<{ ok: boolean; check_location: string }[]>(`/devices/results?id=${id}&limit=1000`);
        const failed = results.filter((r) => !r.ok).map((r) => r.check_location);
        // Newest first: each location's latest result passes, after its one failure.
        const latest = new Map<string, boolean>();
        for (const r of [...results].reverse()) latest.set(r.check_location, r.ok);
        return failed.length === 3 && [...latest.values()].every((ok) => ok) && latest.size === 3;
      },
      200,
    );
    const results = await api<{ ok: boolean; check_location: string; error: string | null }[]>(
      `/devices/results?id=${id}&limit=1000`,
    );
    assert.deepEqual(
      results
        .filter((r) => !r.ok)
        .map((r) => r.check_location)
        .sort(),
      Object.keys(LOCATIONS).sort(),
      'one failure per location',
    );
    await waitFor('the device up again', async () => (await device(id)).status === 'up');
    assert.deepEqual(eventsOf(id, 'device.down'), []);
    assert.deepEqual(eventsOf(id, 'device.up'), []);
  });

  it('a stopped worker: its location goes stale and the quorum holds; it works again on SIGCONT', async () => {
    const ap = workers.get('ap-south')!;
    // ap-south's check of this device is in flight when its worker stops.
    const holding = await startHoldingTarget(LOCATIONS['ap-south']);
    targets.push(holding.server);
    const inFlight = (
      await api<Device>('/devices/create', {
        target_type: 'ip',
        target_value: '127.0.0.1',
        scheme: 'http',
        port: holding.port,
        check_locations: Object.keys(LOCATIONS),
      })
    ).id;
    await waitFor('ap-south checking the held target', () => holding.pending.length > 0);
    ap.child.kill('SIGSTOP');
    // Past the heartbeat limit (30 s by the database's clock).
    await waitFor(
      'ap-south without a live worker',
      async () => {
        const listed = await api<{ name: string; live_workers: number }[]>('/locations');
        return listed.find((l) => l.name === 'ap-south')?.live_workers === 0;
      },
      1000,
    );
    // eu-west fails, us-east passes, ap-south cannot be heard: one failure is below the quorum
    // of 2, so the device is up, and never down.
    const { id } = await watched([LOCATIONS['eu-west']]);
    await waitFor('the device up', async () => (await device(id)).status === 'up');
    const d = await device(id);
    assert.equal(d.locations?.['ap-south']?.status, 'stale');
    assert.equal(d.locations?.['eu-west']?.status, 'failing');
    assert.equal(d.quorum_state, 'met');
    // The answer to the check in flight arrives while the worker is stopped, long after its lease
    // ran out: on SIGCONT that result is fenced, and its next check (answered 200) is written.
    holding.release();
    ap.child.kill('SIGCONT');
    await waitFor('ap-south heard again', async () => (await device(id)).locations?.['ap-south']?.status === 'up');
    await waitFor(
      'ap-south checked the held device again',
      async () => (await device(inFlight)).locations?.['ap-south']?.status === 'up',
    );
    const results = await api<{ http_status: number | null }[]>(`/devices/results?id=${inFlight}&limit=1000`);
    assert.ok(results.length >= 3, JSON.stringify(results));
    assert.deepEqual(
      results.filter((r) => r.http_status !== 200),
      [],
      'the late 503 of the stopped worker was never written',
    );
    assert.deepEqual(eventsOf(id, 'device.down'), []);
  });

  it('a location failing below the quorum for a whole interval: one device.location_failing naming it', async () => {
    // eu-west has refused the first device since it was created; its first check that fails an
    // interval (60 s, give or take 10 %) or more after its first failure announces it, once: its
    // next check at the interval, or the one after when the jitter made that one early.
    await waitFor('device.location_failing', () => eventsOf(oneRefused, 'device.location_failing').length > 0, 500);
    const [failing, ...more] = eventsOf(oneRefused, 'device.location_failing');
    assert.deepEqual(more, []);
    const data = failing!.data as unknown as Device & { previous_status: string };
    assert.equal(data.locations?.['eu-west']?.status, 'failing');
    assert.equal(data.locations?.['us-east']?.status, 'up');
    assert.equal(data.status, 'up');
    assert.equal(data.previous_status, 'up');
    assert.deepEqual(eventsOf(oneRefused, 'device.down'), []);
    // Later still, the blip of an earlier test was never announced.
    assert.deepEqual(
      [...events.values()].filter((e) => (e.data as { id: number }).id === blipped).map((e) => e.type),
      [],
    );
  });
});
