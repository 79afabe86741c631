/**
 * docs/engine.md, "What a listing means": every return code of every default zone's catalogue
 * entry read into its meaning, through the engine, a real node:dns Resolver and a fake DNS server
 * on 127.0.0.1; the refusal codes still errors; policy listings; the operator's own zones; a
 * monitor's zones; reverse DNS; and the first check as the baseline of what is announced.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock, type BlacklistMonitor, type DnsblResult, type Store } from '../../core/index.ts';
import {
  createMonitoringEngine,
  DEFAULT_DNSBL_DOMAIN_ZONES,
  DEFAULT_DNSBL_ZONES,
  type MonitoringEngineOptions,
} from '../../engine/index.ts';
import { DNSBL_CATALOGUE } from '../../engine/dnsbl/catalogue.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { addMonitor, monitorOf, WatchedStore } from '../support/engine-fixtures.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';

const START = '2026-03-01T12:00:00.000Z';

let dns: FakeDnsServer;
before(async () => (dns = await startFakeDnsServer()));
after(() => dns.close());

/** The name a zone is asked for a target: IPv4 reversed, a domain as it is. */
function asked(target: string, zone: string): string {
  return /^[0-9.]+$/.test(target) ? `${target.split('.').reverse().join('.')}.${zone}` : `${target}.${zone}`;
}

/** An engine on the fake server: the default zones unless told otherwise. */
function engineOn(store: Store, clock: ManualClock, options: Partial<MonitoringEngineOptions> = {}) {
  return createMonitoringEngine({ store, clock, dnsServers: [dns.address], dnsTimeoutMs: 1_000, ...options });
}

async function resultsOf(store: Store, userId: number, id: number): Promise<Map<string, DnsblResult>> {
  const rows = (await store.listCheckResults(userId, 'blacklist_monitor', id, { limit: 1000 })) as DnsblResult[];
  return new Map(rows.map((row) => [row.zone, row]));
}

describe('the catalogue of the default zones', () => {
  it('names every default zone, with a name, an operator, a removal page and its codes', () => {
    assert.deepEqual(
      Object.keys(DNSBL_CATALOGUE).sort(),
      [...DEFAULT_DNSBL_ZONES, ...DEFAULT_DNSBL_DOMAIN_ZONES].sort(),
    );
    for (const [zone, entry] of Object.entries(DNSBL_CATALOGUE)) {
      assert.ok(entry.name !== '' && entry.operator !== '', zone);
      assert.match(entry.delist_url ?? '', /^https?:\/\//, zone);
      assert.ok(Object.keys(entry.codes).length > 0, zone);
    }
  });

  it('every code of every default zone is read into its meaning, on the record and on its result row', async () => {
    const store = new WatchedStore();
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    const cases: { monitor: BlacklistMonitor; zone: string; code: string }[] = [];
    let n = 0;
    for (const [zone, entry] of Object.entries(DNSBL_CATALOGUE)) {
      const domainZone = DEFAULT_DNSBL_DOMAIN_ZONES.includes(zone);
      for (const code of Object.keys(entry.codes)) {
        n++;
        const target = domainZone ? `code${n}.example.com` : `198.51.100.${n}`;
        dns.set(asked(target, zone), { a: [code] });
        cases.push({ monitor: await addMonitor(store, user.id, target, START), zone, code });
      }
    }
    assert.ok(cases.length >= 30, `${cases.length} codes`);
    const summary = await engineOn(store, clock).runOnce();
    assert.equal(summary.written, cases.length);
    for (const { monitor, zone, code } of cases) {
      const entry = DNSBL_CATALOGUE[zone]!;
      const expected = {
        zone,
        answer: code,
        meaning: entry.codes[code]!.meaning,
        policy: entry.codes[code]!.policy,
        delist_url: entry.delist_url,
        since: START,
      };
      const after = await monitorOf(store, user.id, monitor.id);
      assert.deepEqual(after.listings, [expected], `${zone} ${code}`);
      assert.equal(
        after.last_status,
        expected.policy ? 'clean' : 'listed',
        `${zone} ${code}: a policy code alone leaves it clean`,
      );
      assert.deepEqual(after.listed_on, expected.policy ? [] : [zone]);
      const row = (await resultsOf(store, user.id, monitor.id)).get(zone)!;
      assert.deepEqual(
        [row.ok, row.listed, row.answer, row.meaning, row.policy, row.delist_url, row.since],
        [true, true, code, expected.meaning, expected.policy, expected.delist_url, START],
        `${zone} ${code}: the row`,
      );
    }
    // The zones that list nothing have rows without a listing's fields.
    const quiet = (await resultsOf(store, user.id, cases[0]!.monitor.id)).get('bl.spamcop.net')!;
    assert.deepEqual(
      [quiet.listed, quiet.meaning, quiet.policy, quiet.delist_url, quiet.since],
      [false, null, false, null, null],
    );
    // Spamhaus PBL is the one policy listing of the defaults.
    const policyCodes = cases
      .filter(({ zone, code }) => DNSBL_CATALOGUE[zone]!.codes[code]!.policy)
      .map(({ zone, code }) => `${zone} ${code}`);
    assert.deepEqual(policyCodes, ['zen.spamhaus.org 127.0.0.10', 'zen.spamhaus.org 127.0.0.11']);
  });

  it('several codes: their meanings joined; a bitmask answer read bit by bit; an unknown code counts and means nothing', async () => {
    const store = new WatchedStore();
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    const zen = DNSBL_CATALOGUE['zen.spamhaus.org']!.codes;
    const uribl = DNSBL_CATALOGUE['multi.uribl.com']!.codes;
    const surbl = DNSBL_CATALOGUE['multi.surbl.org']!.codes;
    const cases: [string, string, string[], string | null, boolean][] = [
      [
        '203.0.113.1',
        'zen.spamhaus.org',
        ['127.0.0.2', '127.0.0.10'],
        `${zen['127.0.0.2']!.meaning}; ${zen['127.0.0.10']!.meaning}`,
        false,
      ],
      [
        '203.0.113.2',
        'zen.spamhaus.org',
        ['127.0.0.10', '127.0.0.11'],
        `${zen['127.0.0.10']!.meaning}; ${zen['127.0.0.11']!.meaning}`,
        true,
      ],
      ['203.0.113.3', 'zen.spamhaus.org', ['127.0.0.10', '127.0.0.99'], zen['127.0.0.10']!.meaning, false],
      ['203.0.113.4', 'bl.spamcop.net', ['127.0.0.7'], null, false],
      [
        'bits1.example.com',
        'multi.uribl.com',
        ['127.0.0.6'],
        `${uribl['127.0.0.2']!.meaning}; ${uribl['127.0.0.4']!.meaning}`,
        false,
      ],
      [
        'bits2.example.com',
        'multi.surbl.org',
        ['127.0.0.80'],
        `${surbl['127.0.0.16']!.meaning}; ${surbl['127.0.0.64']!.meaning}`,
        false,
      ],
    ];
    const monitors: BlacklistMonitor[] = [];
    for (const [target, zone, answer] of cases) {
      dns.set(asked(target, zone), { a: answer });
      monitors.push(await addMonitor(store, user.id, target, START));
    }
    await engineOn(store, clock).runOnce();
    for (const [i, [target, zone, answer, meaning, policy]] of cases.entries()) {
      const after = await monitorOf(store, user.id, monitors[i]!.id);
      assert.deepEqual(
        after.listings.map((l) => [l.zone, l.answer, l.meaning, l.policy]),
        [[zone, answer.join(','), meaning, policy]],
        target,
      );
      assert.equal(after.last_status, policy ? 'clean' : 'listed', target);
    }
  });

  it('the refusal codes stay errors, never listings, on every default zone', async () => {
    const store = new WatchedStore();
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    const cases: [string, string, string][] = [];
    let n = 0;
    for (const zone of [...DEFAULT_DNSBL_ZONES, ...DEFAULT_DNSBL_DOMAIN_ZONES]) {
      const refusals = ['127.255.255.252', '127.255.255.254', '127.255.255.255'];
      if (zone === 'dbl.spamhaus.org') refusals.push('127.0.1.255');
      if (zone === 'multi.uribl.com') refusals.push('127.0.0.1');
      for (const code of refusals) {
        n++;
        cases.push([
          DEFAULT_DNSBL_DOMAIN_ZONES.includes(zone) ? `refused${n}.example.com` : `192.0.2.${n}`,
          zone,
          code,
        ]);
      }
    }
    const monitors: BlacklistMonitor[] = [];
    for (const [target, zone, code] of cases) {
      dns.set(asked(target, zone), { a: [code] });
      monitors.push(await addMonitor(store, user.id, target, START));
    }
    await engineOn(store, clock).runOnce();
    for (const [i, [target, zone, code]] of cases.entries()) {
      const after = await monitorOf(store, user.id, monitors[i]!.id);
      assert.deepEqual(
        [after.last_status, after.listed_on, after.listings, after.failed_zones],
        ['clean', [], [], [zone]],
        `${zone} ${code}`,
      );
      const row = (await resultsOf(store, user.id, monitors[i]!.id)).get(zone)!;
      assert.deepEqual(
        [row.ok, row.listed, row.error, row.answer, row.meaning],
        [false, false, 'refused_by_list', code, null],
        `${target} ${zone}`,
      );
    }
    assert.deepEqual(store.events, [], 'nothing announced');
  });
});

describe("policy listings, zones of the operator, a monitor's zones", () => {
  it('a PBL listing alone is clean and unannounced unless count_policy_listings; beside SBL it is listed', async () => {
    const store = new WatchedStore();
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    dns.set(asked('203.0.113.20', 'zen.spamhaus.org'), { a: ['127.0.0.10'] });
    dns.set(asked('203.0.113.21', 'zen.spamhaus.org'), { a: ['127.0.0.10'] });
    const quiet = await addMonitor(store, user.id, '203.0.113.20', START);
    const counting = await addMonitor(store, user.id, '203.0.113.21', START, { count_policy_listings: true });
    const engine = engineOn(store, clock, { dnsblZones: ['zen.spamhaus.org'] });
    await engine.runOnce();
    const a = await monitorOf(store, user.id, quiet.id);
    assert.deepEqual(
      [a.last_status, a.listed_on, a.listings.map((l) => [l.zone, l.policy])],
      ['clean', [], [['zen.spamhaus.org', true]]],
    );
    const b = await monitorOf(store, user.id, counting.id);
    assert.deepEqual(
      [b.last_status, b.listed_on, b.listings.map((l) => [l.zone, l.policy])],
      ['listed', ['zen.spamhaus.org'], [['zen.spamhaus.org', true]]],
    );
    assert.deepEqual(
      store.events.map((e) => [e.type, (e.data as BlacklistMonitor).id]),
      [['blacklist.listed', counting.id]],
    );
    // The same range listed in the SBL as well: a listing that counts, announced.
    dns.set(asked('203.0.113.20', 'zen.spamhaus.org'), { a: ['127.0.0.2', '127.0.0.10'] });
    clock.advance(3600_000 * 1.2);
    await engine.runOnce();
    const c = await monitorOf(store, user.id, quiet.id);
    assert.deepEqual(
      [c.last_status, c.listed_on, c.listings[0]!.policy, c.listings[0]!.since],
      ['listed', ['zen.spamhaus.org'], false, START],
    );
    assert.deepEqual(
      store.events.map((e) => [e.type, (e.data as BlacklistMonitor).id]),
      [
        ['blacklist.listed', counting.id],
        ['blacklist.listed', quiet.id],
      ],
    );
  });

  it("an operator's zone: only what is known, or what --dnsbl-zone-info says; a DQS zone reads as its public twin", async () => {
    const store = new WatchedStore();
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    const zones = ['bl.example.net', 'described.example.net', 'key123.zen.dq.spamhaus.net'];
    for (const zone of zones) dns.set(asked('203.0.113.30', zone), { a: ['127.0.0.2'] });
    const monitor = await addMonitor(store, user.id, '203.0.113.30', START);
    await engineOn(store, clock, {
      dnsblZones: zones,
      dnsblZoneInfo: {
        'Described.Example.NET.': {
          name: 'Described',
          operator: 'Example',
          delist_url: 'https://described.example.net/remove',
          codes: { '127.0.0.2': { meaning: 'seen in our traps', policy: false } },
        },
      },
    }).runOnce();
    const after = await monitorOf(store, user.id, monitor.id);
    assert.deepEqual(
      after.listings.map(({ zone, meaning, policy, delist_url }) => [zone, meaning, policy, delist_url]),
      [
        ['bl.example.net', null, false, null],
        ['described.example.net', 'seen in our traps', false, 'https://described.example.net/remove'],
        [
          'key123.zen.dq.spamhaus.net',
          DNSBL_CATALOGUE['zen.spamhaus.org']!.codes['127.0.0.2']!.meaning,
          false,
          'https://check.spamhaus.org/',
        ],
      ],
    );
    assert.deepEqual(after.listed_on, zones, 'an unknown code of an unknown zone counts');
  });

  it('a bad dnsblZoneInfo is a RangeError naming what is wrong', () => {
    const store = new WatchedStore();
    assert.throws(
      () =>
        createMonitoringEngine({
          store,
          dnsblZoneInfo: {
            'bl.example.net': {
              name: 'X',
              operator: 'Y',
              delist_url: null,
              codes: { '127.0.0.2': { meaning: 'm', policy: 1 as unknown as boolean } },
            },
          },
        }),
      {
        name: 'RangeError',
        message: /dnsblZoneInfo: "bl\.example\.net"\.codes\["127\.0\.0\.2"\]\.policy must be true or false/,
      },
    );
  });

  it('a monitor with zones is asked in those only, of the zones configured', async () => {
    const store = new WatchedStore();
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    const monitor = await addMonitor(store, user.id, '203.0.113.40', START, {
      zones: ['bl.spamcop.net', 'zen.spamhaus.org', 'gone.example.net'],
    });
    const before = dns.queries.length;
    await engineOn(store, clock).runOnce();
    const zonesAsked = dns.queries
      .slice(before)
      .filter((q) => q.startsWith('40.113.0.203.') && !q.endsWith('.in-addr.arpa'))
      .sort();
    assert.deepEqual(
      zonesAsked,
      [asked('203.0.113.40', 'bl.spamcop.net'), asked('203.0.113.40', 'zen.spamhaus.org')],
      'a zone no longer configured is not asked',
    );
    assert.deepEqual([...(await resultsOf(store, user.id, monitor.id)).keys()].sort(), [
      'bl.spamcop.net',
      'zen.spamhaus.org',
    ]);
  });
});

describe('reverse DNS of IP targets', () => {
  it('present, absent, timed out (the name last known is kept), and never asked for a domain', async () => {
    const store = new WatchedStore();
    const clock = new ManualClock(START);
    const user = await store.createUser({ name: null, created_at: START });
    const named = await addMonitor(store, user.id, '203.0.113.50', START);
    const unnamed = await addMonitor(store, user.id, '203.0.113.51', START);
    const v6 = await addMonitor(store, user.id, '2001:db8::5', START);
    const domain = await addMonitor(store, user.id, 'rdns.example.com', START);
    dns.set('50.113.0.203.in-addr.arpa', { ptr: ['Mail.Example.NET.', 'other.example.net'] });
    dns.set('51.113.0.203.in-addr.arpa', 'nxdomain');
    dns.set(`5.0.0.0.${'0.'.repeat(20)}8.b.d.0.1.0.0.2.ip6.arpa`, { ptr: ['v6.example.net'] });
    const engine = engineOn(store, clock, { dnsblZones: ['zen.spamhaus.org'], dnsblDomainZones: ['dbl.spamhaus.org'] });
    const before = dns.queries.length;
    await engine.runOnce();
    assert.equal(
      (await monitorOf(store, user.id, named.id)).rdns,
      'mail.example.net',
      'the first name, lower-cased, without its dot',
    );
    assert.equal((await monitorOf(store, user.id, unnamed.id)).rdns, null);
    assert.equal((await monitorOf(store, user.id, v6.id)).rdns, 'v6.example.net');
    assert.equal((await monitorOf(store, user.id, domain.id)).rdns, null);
    assert.deepEqual(
      dns.queries.slice(before).filter((q) => q.endsWith('.arpa')).length,
      3,
      'one PTR query per IP target, none for the domain',
    );

    // The server stops answering PTR queries: the name last known stays, and the zones still answer.
    dns.set('50.113.0.203.in-addr.arpa', 'silent');
    dns.set('51.113.0.203.in-addr.arpa', 'silent');
    clock.advance(3600_000 * 1.2);
    await engine.runOnce();
    const kept = await monitorOf(store, user.id, named.id);
    assert.deepEqual([kept.rdns, kept.last_status], ['mail.example.net', 'clean']);
    assert.equal((await monitorOf(store, user.id, unnamed.id)).rdns, null);
    // It answers again, without a name: none.
    dns.set('50.113.0.203.in-addr.arpa', 'nodata');
    clock.advance(3600_000 * 1.2);
    await engine.runOnce();
    assert.equal((await monitorOf(store, user.id, named.id)).rdns, null);
  });
});

describe('the first check is the baseline of what is announced', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'monitoring-dnsbl-baseline-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  it("a monitor created listed is announced once, then never again: not after a restart, a pause, nor a zone's error", async () => {
    const url = `sqlite:${join(dir, 'baseline.db')}`;
    const clock = new ManualClock(START);
    dns.set(asked('203.0.113.60', 'zen.spamhaus.org'), { a: ['127.0.0.4'] });
    dns.set(asked('203.0.113.60', 'bl.spamcop.net'), { a: ['127.0.0.2'] });
    const zones = { dnsblZones: ['zen.spamhaus.org', 'bl.spamcop.net'] };
    /** Runs the due checks of one engine on a store opened for it, and says what the outbox got. */
    const run = async (each: (store: Store, userId: number) => Promise<void> = async () => {}) => {
      const { store, db } = await openKyselyStore(url);
      try {
        await migrateToLatest(db);
        await each(store, 1);
        await engineOn(store, clock, zones).runOnce();
        const events = await db.selectFrom('events').select(['type']).orderBy('id').execute();
        return {
          events: events.map((e) => e.type),
          monitor: (await store.listBlacklistMonitors(1, { afterId: 0, limit: 1 }))[0]!,
        };
      } finally {
        await store.close();
      }
    };
    const first = await run(async (store) => {
      const user = await store.createUser({ name: null, created_at: START });
      await addMonitor(store, user.id, '203.0.113.60', START);
    });
    assert.deepEqual(first.events, ['blacklist.listed'], 'the first check: created while listed, announced once');
    assert.equal(first.monitor.last_status, 'listed');

    // A restart: a new process, a new engine, the same database.
    clock.advance(3600_000 * 1.2);
    assert.deepEqual((await run()).events, ['blacklist.listed'], 'the same listing after a restart');

    // A pause and a resume (the record is due again at once).
    clock.advance(60_000);
    const resumed = await run(async (store) => {
      await store.setEnabled('blacklist_monitor', first.monitor.id, false, new Date(clock.now()).toISOString());
      await store.setEnabled('blacklist_monitor', first.monitor.id, true, new Date(clock.now()).toISOString());
    });
    assert.deepEqual(resumed.events, ['blacklist.listed'], 'the same listing after a pause');

    // One zone's transient error, then it lists the target again.
    dns.set(asked('203.0.113.60', 'zen.spamhaus.org'), 'servfail');
    clock.advance(3600_000 * 1.2);
    const failing = await run();
    assert.deepEqual([failing.events, failing.monitor.failed_zones], [['blacklist.listed'], ['zen.spamhaus.org']]);
    dns.set(asked('203.0.113.60', 'zen.spamhaus.org'), { a: ['127.0.0.4'] });
    clock.advance(3600_000 * 1.2);
    const back = await run();
    assert.deepEqual(back.events, ['blacklist.listed'], "the same listing after a zone's error");
    assert.deepEqual(
      back.monitor.listings.map((l) => [l.zone, l.since]),
      [
        ['bl.spamcop.net', START],
        ['zen.spamhaus.org', START],
      ],
      'since: the first check that saw it',
    );
  });
});
