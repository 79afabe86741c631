/**
 * docs/engine.md, "Scheduling" and "Our failures are not the target's": a DNS server that stops
 * answering costs each lookup one timeout, never a stalled worker, is logged once when it goes
 * and once when it comes back, and is known for the worker's failure from the first check of the
 * outage (the canary asks the same server the root zone's NS), while a name that alone goes
 * unanswered is still the target's failure.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, it } from 'node:test';
import { ManualClock, type DeviceProbeResult, type DnsblResult } from '../../core/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { addDevice, addMonitor, keepingLogger, monitorOf, WatchedStore } from '../support/engine-fixtures.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

let dns: FakeDnsServer;
let tcp: Server;
let tcpPort: number;
before(async () => {
  dns = await startFakeDnsServer();
  tcp = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  tcpPort = (tcp.address() as { port: number }).port;
});
after(async () => {
  await dns.close();
  await new Promise((resolve) => tcp.close(resolve));
});

const START = '2026-04-01T00:00:00.000Z';

it('a silent DNS server: every check is an error within its timeout, one warning per outage, one line on recovery', async () => {
  const store = new WatchedStore();
  const clock = new ManualClock(START);
  const logger = keepingLogger();
  const user = await store.createUser({ name: null, created_at: START });
  const ids: number[] = [];
  for (let i = 1; i <= 8; i++) ids.push((await addMonitor(store, user.id, `203.0.113.${i}`, START)).id);
  // The silent rounds wait out a second; the answers after the recovery beat it on a slow machine too.
  const engine = createMonitoringEngine({
    store,
    clock,
    logger,
    dnsServers: [dns.address],
    dnsblZones: ['zen.spamhaus.org', 'bl.spamcop.net'],
    dnsTimeoutMs: 1_000,
  });
  const warnings = () => logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
  const recoveries = () => logger.lines.filter((l) => /answers again/.test(l.message));

  dns.silence(true);
  for (let round = 0; round < 3; round++) {
    const asked = dns.queries.length;
    const summary = await engine.runOnce();
    assert.equal(summary.written, 8);
    if (round === 0) {
      // 16 lookups, all in flight together: one timeout, not sixteen. The resolver sends each
      // name again half-way through its timeout, so lookups one after another (or a few at a
      // time) would repeat a name among the first 16 queries the server gets.
      const first = dns.queries.slice(asked, asked + 16);
      assert.equal(new Set(first).size, 16, `the first queries: ${first.join(' ')}`);
    }
    for (const id of ids) {
      const monitor = await monitorOf(store, user.id, id);
      assert.equal(monitor.last_status, 'error');
      assert.deepEqual(monitor.failed_zones, ['bl.spamcop.net', 'zen.spamhaus.org']);
    }
    clock.advance(4000_000);
  }
  const rows = (await store.listCheckResults(user.id, 'blacklist_monitor', ids[0]!, { limit: 10 })) as DnsblResult[];
  // The canary got no answer either, half-way through the first lookups' deadline: the resolver
  // is down from the first round on, and every row says so.
  assert.equal(rows.length, 6);
  assert.ok(
    rows.every((r) => !r.ok && r.error === 'resolver_unavailable'),
    JSON.stringify(rows),
  );
  assert.equal(warnings().length, 1, `one warning for 48 silent lookups: ${JSON.stringify(warnings())}`);
  assert.match(
    warnings()[0]!,
    new RegExp(`DNS server ${dns.address.replace('.', '\\.')} does not answer \\(timeout\\)`),
  );
  assert.equal(recoveries().length, 0);

  dns.silence(false);
  await engine.runOnce();
  assert.equal((await monitorOf(store, user.id, ids[0]!)).last_status, 'clean');
  assert.equal(recoveries().length, 1, 'recovery told once');
  clock.advance(4000_000);
  await engine.runOnce();
  assert.equal(recoveries().length, 1);
  assert.equal(warnings().length, 1);

  // A second outage is a second warning.
  dns.silence(true);
  clock.advance(4000_000);
  await engine.runOnce();
  assert.equal(warnings().length, 2);
});

it("a blacklist check of a single lookup in a silent DNS server's first moments: resolver_unavailable, not timeout", async () => {
  const dnsServer = await startFakeDnsServer();
  const store = new WatchedStore();
  const clock = new ManualClock(START);
  const user = await store.createUser({ name: null, created_at: START });
  // A domain in one zone: one lookup, no reverse DNS, so no three lookups in a row can tell.
  const { id } = await addMonitor(store, user.id, 'stall-check.net', START);
  const engine = createMonitoringEngine({
    store,
    clock,
    dnsServers: [dnsServer.address],
    dnsblZones: [],
    dnsblDomainZones: ['dbl.spamhaus.org'],
    dnsTimeoutMs: 1_000,
  });
  try {
    dnsServer.silence(true);
    await engine.runOnce();
    assert.equal((await monitorOf(store, user.id, id)).last_status, 'error');
    const rows = (await store.listCheckResults(user.id, 'blacklist_monitor', id, { limit: 10 })) as DnsblResult[];
    assert.deepEqual(
      rows.map((r) => [r.zone, r.error]),
      [['dbl.spamhaus.org', 'resolver_unavailable']],
    );
    assert.deepEqual(store.events, []);
  } finally {
    await dnsServer.close();
  }
});

it('a resolver that never settles costs one timeout per lookup', { timeout: HANG_GUARD_MS }, async () => {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  const { id } = await addMonitor(store, user.id, '203.0.113.50', START);
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: { resolve4: () => new Promise<string[]>(() => undefined) },
    dnsblZones: ['zen.spamhaus.org'],
    dnsTimeoutMs: 50,
  });
  // The lookup never ends of its own accord: only its timeout can end the run, and the result says so.
  assert.equal((await engine.runOnce()).written, 1);
  assert.equal((await monitorOf(store, user.id, id)).last_status, 'error');
  const rows = (await store.listCheckResults(user.id, 'blacklist_monitor', id, { limit: 10 })) as DnsblResult[];
  assert.deepEqual(
    rows.map((r) => [r.zone, r.error]),
    [['zen.spamhaus.org', 'timeout']],
    'ended by the lookup timeout',
  );
});

/** The newest result of each of the user's devices, with its status. */
async function devicesOf(store: WatchedStore, userId: number) {
  const devices = await store.listDevices(userId, { afterId: 0, limit: 100 });
  return devices.map((d) => ({ status: d.status, error: d.last_results.service?.error ?? null }));
}

it('a DNS server that stops answering: devices reached by name keep their status from the first check, resolver_unavailable, nothing announced', async () => {
  const names = ['a.dns-stall.net', 'b.dns-stall.net', 'c.dns-stall.net'];
  const dnsServer = await startFakeDnsServer(Object.fromEntries(names.map((name) => [name, { a: ['127.0.0.1'] }])));
  const store = new WatchedStore();
  const clock = new ManualClock(START);
  const logger = keepingLogger();
  const user = await store.createUser({ name: null, created_at: START });
  for (const name of names) await addDevice(store, user.id, name, START, { service_type: 'tcp', port: tcpPort });
  // One failure would be enough to go down: a single check counted against a target shows.
  const engine = createMonitoringEngine({
    store,
    clock,
    logger,
    dnsServers: [dnsServer.address],
    allowPrivateTargets: true,
    failuresBeforeDown: 1,
    dnsTimeoutMs: 1_000,
  });
  const warnings = () => logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
  try {
    await engine.runOnce();
    assert.deepEqual(
      await devicesOf(store, user.id),
      names.map(() => ({ status: 'up', error: null })),
    );

    dnsServer.silence(true);
    const asked = dnsServer.queries.length;
    for (let round = 0; round < 2; round++) {
      // Due again: the interval (60 s, within ±10 %) the first time; then the retry delay, 30 s,
      // sooner than any interval, brings back a check the resolver failed.
      clock.advance(round === 0 ? 66_000 : 30_000);
      assert.equal((await engine.runOnce()).written, 3, `round ${round}`);
      assert.deepEqual(
        await devicesOf(store, user.id),
        names.map(() => ({ status: 'up', error: 'resolver_unavailable' })),
        `round ${round}`,
      );
    }
    // The canary went to the same server (the root's question has the empty name), and the
    // outage was warned once, naming how the server failed.
    assert.ok(dnsServer.queries.slice(asked).includes(''), dnsServer.queries.slice(asked).join(' '));
    assert.equal(warnings().length, 1, JSON.stringify(warnings()));
    assert.match(warnings()[0]!, /does not answer \(timeout\)/);
    // Each device has its results, every one of the outage the worker's failure.
    for (const device of await store.listDevices(user.id, { afterId: 0, limit: 10 })) {
      const rows = (await store.listCheckResults(user.id, 'device', device.id, { limit: 10 })) as DeviceProbeResult[];
      assert.deepEqual(
        rows.map((r) => r.error),
        ['resolver_unavailable', 'resolver_unavailable', null],
      );
    }

    dnsServer.silence(false);
    clock.advance(30_000);
    await engine.runOnce();
    assert.deepEqual(
      await devicesOf(store, user.id),
      names.map(() => ({ status: 'up', error: null })),
    );
    assert.equal(logger.lines.filter((l) => /answers again/.test(l.message)).length, 1);
    assert.deepEqual(store.events, [], 'nothing announced');
  } finally {
    await dnsServer.close();
  }
});

it('a name that alone goes unanswered while the DNS server answers the canary: the target fails', async () => {
  const name = 'slow.dns-stall.net';
  const dnsServer = await startFakeDnsServer({ [name]: 'silent' });
  const store = new WatchedStore();
  const clock = new ManualClock(START);
  const logger = keepingLogger();
  const user = await store.createUser({ name: null, created_at: START });
  await addDevice(store, user.id, name, START, { service_type: 'tcp', port: tcpPort });
  // A long deadline: the canary's answer, from a loaded machine too, comes well within its half.
  const engine = createMonitoringEngine({
    store,
    clock,
    logger,
    dnsServers: [dnsServer.address],
    allowPrivateTargets: true,
    failuresBeforeDown: 1,
    dnsTimeoutMs: 4_000,
  });
  try {
    await engine.runOnce();
    assert.deepEqual(await devicesOf(store, user.id), [{ status: 'down', error: 'timeout' }]);
    // The canary was asked and answered: the server is up, no outage is logged.
    assert.ok(dnsServer.queries.includes(''), dnsServer.queries.join(' '));
    assert.deepEqual(
      logger.lines.filter((l) => l.level === 'warn'),
      [],
    );
    assert.deepEqual(
      store.events.map((e) => e.type),
      ['device.down'],
    );
  } finally {
    await dnsServer.close();
  }
});
