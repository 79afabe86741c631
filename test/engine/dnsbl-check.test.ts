/**
 * docs/engine.md, "Blacklist monitors (DNSBL)": whole checks through the engine, a real node:dns
 * Resolver and a fake DNS server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, type DnsblResult } from '../../core/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { addMonitor, monitorOf, WatchedStore } from '../support/engine-fixtures.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';

const START = '2026-03-01T12:00:00.000Z';
const IP_ZONES = ['zen.spamhaus.org', 'bl.spamcop.net', 'psbl.surriel.com'];
const DOMAIN_ZONES = ['dbl.spamhaus.org', 'multi.uribl.com'];

let dns: FakeDnsServer;
before(async () => (dns = await startFakeDnsServer()));
after(() => dns.close());

async function checkOnce(target: string) {
  const store = new WatchedStore();
  const clock = new ManualClock(START);
  const user = await store.createUser({ name: null, created_at: START });
  const monitor = await addMonitor(store, user.id, target, START);
  const engine = createMonitoringEngine({
    store,
    clock,
    dnsServers: [dns.address],
    dnsblZones: IP_ZONES,
    dnsblDomainZones: DOMAIN_ZONES,
    dnsTimeoutMs: 2_000,
  });
  const summary = await engine.runOnce();
  const after = await monitorOf(store, user.id, monitor.id);
  const results = (await store.listCheckResults(user.id, 'blacklist_monitor', monitor.id, {
    limit: 100,
  })) as DnsblResult[];
  return { summary, after, results, store };
}

describe('a blacklist check', () => {
  it('listed on some zones: listed, listed_on sorted, a row per zone', async () => {
    dns.set('10.2.0.198.zen.spamhaus.org', { a: ['127.0.0.2', '127.0.0.4'] });
    dns.set('10.2.0.198.psbl.surriel.com', { a: ['127.0.0.2'] });
    dns.set('10.2.0.198.bl.spamcop.net', 'nxdomain');
    const { summary, after, results } = await checkOnce('198.0.2.10');
    assert.deepEqual(summary, { claimed: 1, written: 1, fenced: 0, failed: 0, pruned: 0 });
    assert.equal(after.last_status, 'listed');
    assert.deepEqual(after.listed_on, ['psbl.surriel.com', 'zen.spamhaus.org']);
    assert.deepEqual(after.failed_zones, []);
    assert.equal(after.last_checked_at, START);
    const byZone = new Map(results.map((r) => [r.zone, r]));
    assert.deepEqual([...byZone.keys()].sort(), [...IP_ZONES].sort(), 'one row per IP zone, no domain zone');
    const zen = byZone.get('zen.spamhaus.org')!;
    assert.equal(zen.probe, 'dnsbl');
    assert.deepEqual([zen.ok, zen.listed, zen.answer, zen.error], [true, true, '127.0.0.2,127.0.0.4', null]);
    assert.equal(typeof zen.response_ms, 'number');
    const spamcop = byZone.get('bl.spamcop.net')!;
    assert.deepEqual([spamcop.ok, spamcop.listed, spamcop.answer, spamcop.error], [true, false, null, null]);
  });

  it('no zone lists it but one answers: clean, the failing zones named', async () => {
    dns.set('11.2.0.198.zen.spamhaus.org', 'nodata');
    dns.set('11.2.0.198.bl.spamcop.net', 'servfail');
    dns.set('11.2.0.198.psbl.surriel.com', 'refused');
    const { after, results } = await checkOnce('198.0.2.11');
    assert.equal(after.last_status, 'clean');
    assert.deepEqual(after.listed_on, []);
    assert.deepEqual(after.failed_zones, ['bl.spamcop.net', 'psbl.surriel.com']);
    const errors = Object.fromEntries(results.map((r) => [r.zone, r.error]));
    assert.deepEqual(errors, {
      'zen.spamhaus.org': null,
      'bl.spamcop.net': 'ESERVFAIL',
      'psbl.surriel.com': 'EREFUSED',
    });
  });

  it('every zone fails: error, every zone in failed_zones, refusal codes never count as listings', async () => {
    dns.set('12.2.0.198.zen.spamhaus.org', { a: ['127.255.255.254'] });
    dns.set('12.2.0.198.bl.spamcop.net', { a: ['192.0.2.1'] });
    dns.set('12.2.0.198.psbl.surriel.com', 'silent');
    const { after, results, summary } = await checkOnce('198.0.2.12');
    assert.equal(summary.written, 1);
    assert.equal(after.last_status, 'error');
    assert.deepEqual(after.listed_on, []);
    assert.deepEqual(after.failed_zones, ['bl.spamcop.net', 'psbl.surriel.com', 'zen.spamhaus.org']);
    const rows = Object.fromEntries(results.map((r) => [r.zone, [r.listed, r.answer, r.error]]));
    assert.deepEqual(rows, {
      'zen.spamhaus.org': [false, '127.255.255.254', 'refused_by_list'],
      'bl.spamcop.net': [false, '192.0.2.1', 'unexpected_answer'],
      'psbl.surriel.com': [false, null, 'timeout'],
    });
  });

  it('a domain is asked in the domain zones only, with their refusal codes', async () => {
    const before = dns.queries.length;
    dns.set('listed.example.org.dbl.spamhaus.org', { a: ['127.0.1.2'] });
    dns.set('listed.example.org.multi.uribl.com', { a: ['127.0.0.1'] });
    const { after } = await checkOnce('listed.example.org');
    assert.equal(after.last_status, 'listed');
    assert.deepEqual(after.listed_on, ['dbl.spamhaus.org']);
    assert.deepEqual(after.failed_zones, ['multi.uribl.com'], 'URIBL 127.0.0.1: the query was refused');
    assert.deepEqual(
      dns.queries
        .slice(before)
        .filter((q) => q.startsWith('listed.example.org.'))
        .sort(),
      ['listed.example.org.dbl.spamhaus.org', 'listed.example.org.multi.uribl.com'],
    );
  });

  it('an IPv6 target is asked by its reversed nibbles', async () => {
    const before = dns.queries.length;
    const name = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.5.4.1.0.0.a.2';
    dns.set(`${name}.bl.spamcop.net`, { a: ['127.0.0.2'] });
    const { after } = await checkOnce('2a00:1450::1');
    assert.deepEqual(after.listed_on, ['bl.spamcop.net']);
    const asked = dns.queries.slice(before).filter((q) => q.startsWith(name));
    assert.deepEqual(
      asked.filter((q) => !q.endsWith('.ip6.arpa')).sort(),
      IP_ZONES.map((zone) => `${name}.${zone}`).sort(),
    );
    assert.deepEqual(
      asked.filter((q) => q.endsWith('.ip6.arpa')),
      [`${name}.ip6.arpa`],
      'its reverse DNS, asked once',
    );
  });

  it('the next check is due an interval later, within ±10 %', async () => {
    const { store } = await checkOnce('198.0.2.13');
    const claim = (at: number) =>
      store.claimDueBlacklistMonitors({
        owner: 't',
        now: new Date(at).toISOString(),
        limit: 10,
        leaseUntil: new Date(at + 60_000).toISOString(),
      });
    const start = Date.parse(START);
    assert.equal((await claim(start + 3600_000 * 0.9 - 1)).length, 0, 'not due before interval - 10 %');
    assert.equal((await claim(start + 3600_000 * 1.1)).length, 1, 'due by interval + 10 %');
  });
});
