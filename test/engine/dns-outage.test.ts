/**
 * docs/engine.md, "Scheduling": a DNS server that stops answering costs each lookup one timeout,
 * never a stalled worker, and is logged once when it goes and once when it comes back.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock, type DnsblResult } from '../../core/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { addMonitor, keepingLogger, monitorOf, WatchedStore } from '../support/engine-fixtures.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';

let dns: FakeDnsServer;
before(async () => (dns = await startFakeDnsServer()));
after(() => dns.close());

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
  // Once three lookups in a row went unanswered the resolver is down, and the rows say so; the
  // very first ones, before that was known, say timeout.
  assert.ok(
    rows.every((r) => !r.ok && (r.error === 'timeout' || r.error === 'resolver_unavailable')),
    JSON.stringify(rows),
  );
  assert.deepEqual(
    rows.slice(0, 2).map((r) => r.error),
    ['resolver_unavailable', 'resolver_unavailable'],
    'the last round',
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

it('a resolver that never settles costs one timeout per lookup', async () => {
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
  const started = performance.now();
  assert.equal((await engine.runOnce()).written, 1);
  // Without its timeout, the lookup would never end.
  assert.ok(performance.now() - started < 10_000);
  assert.equal((await monitorOf(store, user.id, id)).last_status, 'error');
});
