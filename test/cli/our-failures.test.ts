/**
 * docs/engine.md, "Our failures are not the target's", through real processes: a `worker` whose
 * DNS server stops and comes back, and a `worker` whose target policy is not the API's. Neither
 * moves a record towards down or listed, neither announces anything, the results say why, and
 * records are checked again after the retry delay once the cause is gone.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { bootstrapToken, dnsblFlags, startServe, stopServe, type ServerProcess } from '../support/cli.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker } from '../support/worker-process.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';

const NAME = 'svc.our-failures.net';
let dir: string;
let tcp: Server;
let tcpPort: number;
let receiver: Receiver;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-our-failures-'));
  tcp = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  tcpPort = (tcp.address() as { port: number }).port;
  receiver = await startReceiver();
});
after(async () => {
  await new Promise((resolve) => tcp.close(resolve));
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

async function call<T>(server: ServerProcess, token: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = (await response.json()) as { data: T };
  assert.ok(response.ok, JSON.stringify(parsed));
  return parsed.data;
}

interface DeviceView {
  id: number;
  status: string;
  last_checked_at: string | null;
  last_results: { service?: { error: string | null } };
}
interface MonitorView {
  id: number;
  last_status: string | null;
}
interface ResultView {
  error: string | null;
  ok: boolean;
}

const eventTypes = () => receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type);

it('a DNS server stopped and restarted: resolver_unavailable, nothing moves or is announced, back within the retry delay', async () => {
  let dns: FakeDnsServer = await startFakeDnsServer({ [NAME]: { a: ['127.0.0.1'] } });
  const port = dns.port;
  const database = `sqlite:${join(dir, 'resolver.db')}`;
  const server = await startServe(['--database', database, '--allow-private-targets']);
  const token = bootstrapToken(server)!;
  await call(server, token, '/webhooks/create', { url: `http://127.0.0.1:${receiver.port}/resolver` });
  const worker = await startWorker([
    '--database',
    database,
    ...dnsblFlags(dns.address),
    '--allow-private-targets',
    '--retry-delay',
    '1',
    '--failures-before-down',
    '1',
    '--poll-interval',
    '200',
    '--dns-timeout',
    '5000',
  ]);
  let dnsRunning = true;
  try {
    await dns.close();
    dnsRunning = false;
    // Made while the resolver is away: due at once, and not due again for ten minutes or an hour.
    const device = await call<DeviceView>(server, token, '/devices/create', {
      target_type: 'domain',
      target_value: NAME,
      service_type: 'tcp',
      port: tcpPort,
      check_interval_s: 600,
    });
    const monitor = await call<MonitorView>(server, token, '/blacklist-monitors/create', {
      target_type: 'ip',
      target_value: '93.184.215.14',
    });
    const deviceNow = async () =>
      (await call<DeviceView[]>(server, token, '/devices')).find((d) => d.id === device.id)!;
    const monitorNow = async () =>
      (await call<MonitorView[]>(server, token, '/blacklist-monitors')).find((m) => m.id === monitor.id)!;

    await waitFor('the device to be checked', async () => (await deviceNow()).last_checked_at !== null);
    let seen = await deviceNow();
    assert.deepEqual([seen.status, seen.last_results.service?.error], ['pending', 'resolver_unavailable']);
    await waitFor('the monitor to be checked', async () => (await monitorNow()).last_status !== null);
    const rows = await call<ResultView[]>(server, token, `/blacklist-monitors/results?id=${monitor.id}`);
    assert.ok(rows.length > 0 && rows.every((r) => !r.ok && r.error === 'resolver_unavailable'), JSON.stringify(rows));
    // Three lookups in a row without an answer make an outage, warned once, naming the error.
    await waitFor('the outage warning', () => worker.stderr.some((l) => /does not answer \(ECONNREFUSED\)/.test(l)));
    // Checked again and again at the retry delay while it lasts; never down, never announced.
    await waitFor(
      'a second check of the device',
      async () => (await call<ResultView[]>(server, token, `/devices/results?id=${device.id}`)).length >= 2,
    );
    seen = await deviceNow();
    assert.equal(seen.status, 'pending');

    assert.equal(worker.stderr.filter((l) => /does not answer/.test(l)).length, 1, worker.stderr.join('\n'));
    dns = await startFakeDnsServer({ [NAME]: { a: ['127.0.0.1'] } }, port);
    dnsRunning = true;
    await waitFor('the device to be up within the retry delay', async () => (await deviceNow()).status === 'up');
    await waitFor(
      'the monitor to be clean within the retry delay',
      async () => (await monitorNow()).last_status === 'clean',
    );
    assert.ok(
      !eventTypes().some((type) => type === 'device.down' || type.startsWith('blacklist.')),
      eventTypes().join(),
    );
    await waitFor('the recovery line', () => worker.stdout.some((l) => /answers again/.test(l)));
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
    if (dnsRunning) await dns.close();
    assert.equal(await stopServe(server), 0);
  }
});

it('a DNS server that stops answering (drops queries): the first check of the outage is already resolver_unavailable, nothing goes down or is announced', async () => {
  const name = 'stall.our-failures.net';
  const dns = await startFakeDnsServer({ [name]: { a: ['127.0.0.1'] } });
  const database = `sqlite:${join(dir, 'stall.db')}`;
  // The waits below ask every 50 ms for seconds on end: more than the default rate limit allows.
  const server = await startServe(['--database', database, '--allow-private-targets', '--rate-limit', '100000/60']);
  const token = bootstrapToken(server)!;
  await call(server, token, '/webhooks/create', { url: `http://127.0.0.1:${receiver.port}/stall` });
  const before = receiver.received.length;
  // One failure would make the device down: a check of the outage counted against it shows.
  const worker = await startWorker([
    '--database',
    database,
    '--dns-server',
    dns.address,
    '--allow-private-targets',
    '--retry-delay',
    '1',
    '--failures-before-down',
    '1',
    '--poll-interval',
    '200',
    '--dns-timeout',
    '2000',
  ]);
  try {
    const device = await call<DeviceView>(server, token, '/devices/create', {
      target_type: 'domain',
      target_value: name,
      service_type: 'tcp',
      port: tcpPort,
      check_interval_s: 600,
    });
    const deviceNow = async () => call<DeviceView>(server, token, `/devices/get?id=${device.id}`);
    const results = async () => call<ResultView[]>(server, token, `/devices/results?id=${device.id}`);
    await waitFor('the device to be up', async () => (await deviceNow()).status === 'up');
    assert.equal((await results()).length, 1);

    dns.silence(true);
    // Due at once, not in ten minutes: a check on demand.
    await call(server, token, `/devices/check?id=${device.id}`, {});
    await waitFor('the first check of the outage', async () => (await results()).length >= 2);
    let rows = await results();
    assert.deepEqual(
      rows.map((r) => r.error),
      ['resolver_unavailable', null],
    );
    assert.equal((await deviceNow()).status, 'up');
    // The outage, known from the canary's silence, is warned once, naming how the server failed.
    await waitFor('the outage warning', () => worker.stderr.some((l) => /does not answer \(timeout\)/.test(l)));
    // Checked again after the retry delay while it lasts, never counted against the device.
    await waitFor('a second check of the outage', async () => (await results()).length >= 3);
    rows = await results();
    assert.ok(
      rows.slice(0, -1).every((r) => r.error === 'resolver_unavailable'),
      JSON.stringify(rows),
    );
    assert.equal((await deviceNow()).status, 'up');

    dns.silence(false);
    await waitFor('a check that passes again', async () => (await results())[0]!.error === null);
    assert.equal((await deviceNow()).status, 'up');
    assert.equal(worker.stderr.filter((l) => /does not answer/.test(l)).length, 1, worker.stderr.join('\n'));
    const announced = receiver.received.slice(before).map((r) => (JSON.parse(r.body) as { type: string }).type);
    assert.deepEqual(announced, []);
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
    await dns.close();
    assert.equal(await stopServe(server), 0);
  }
});

it('a worker without --allow-private-targets beside an API with it: refused_by_policy, said once in full and once per device', async () => {
  const database = `sqlite:${join(dir, 'policy.db')}`;
  const server = await startServe(['--database', database, '--allow-private-targets']);
  const token = bootstrapToken(server)!;
  await call(server, token, '/webhooks/create', { url: `http://127.0.0.1:${receiver.port}/policy` });
  const before = receiver.received.length;
  const worker = await startWorker([
    '--database',
    database,
    '--poll-interval',
    '200',
    '--retry-delay',
    '1',
    '--failures-before-down',
    '1',
    ...dnsblFlags('127.0.0.1:9'),
  ]);
  try {
    assert.match(worker.stdout.join('\n'), /private targets refused/);
    const ids: number[] = [];
    for (const port of [tcpPort, tcpPort + 1]) {
      ids.push(
        (
          await call<DeviceView>(server, token, '/devices/create', {
            target_type: 'ip',
            target_value: '127.0.0.1',
            service_type: 'tcp',
            port,
          })
        ).id,
      );
    }
    const devices = async () => (await call<DeviceView[]>(server, token, '/devices')).filter((d) => ids.includes(d.id));
    await waitFor('both devices to be checked twice', async () => {
      for (const id of ids)
        if ((await call<ResultView[]>(server, token, `/devices/results?id=${id}`)).length < 2) return false;
      return true;
    });
    for (const device of await devices()) {
      assert.deepEqual([device.status, device.last_results.service?.error], ['pending', 'refused_by_policy']);
    }
    const warnings = worker.stderr.filter((l) => /refused_by_policy/.test(l));
    assert.equal(
      warnings.filter((l) => /Run the API and every worker with the same --allow-private-targets/.test(l)).length,
      1,
      warnings.join('\n'),
    );
    for (const id of ids)
      assert.equal(warnings.filter((l) => l.includes(`device ${id}:`)).length, 1, `one line for device ${id}`);
    assert.equal(receiver.received.length, before, 'nothing announced');
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
    assert.equal(await stopServe(server), 0);
  }
});
