/**
 * docs/engine.md, "Statuses and transitions" and "Events and webhooks": which blacklist checks
 * are announced, over a run of checks of one monitor.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock, type BlacklistMonitor } from '../../core/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { addMonitor, WatchedStore } from '../support/engine-fixtures.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';

let dns: FakeDnsServer;
before(async () => (dns = await startFakeDnsServer()));
after(() => dns.close());

const ZEN = '7.100.51.198.zen.spamhaus.org';
const SPAMCOP = '7.100.51.198.bl.spamcop.net';

it('listings and delistings are announced, errors and unchanged listings are not', async () => {
  const store = new WatchedStore();
  const clock = new ManualClock('2026-03-01T00:00:00.000Z');
  const user = await store.createUser({ name: null, created_at: '2026-03-01T00:00:00.000Z' });
  const monitor = await addMonitor(store, user.id, '198.51.100.7', '2026-03-01T00:00:00.000Z');
  const engine = createMonitoringEngine({
    store,
    clock,
    dnsServers: [dns.address],
    dnsblZones: ['zen.spamhaus.org', 'bl.spamcop.net'],
    dnsTimeoutMs: 1_000,
  });

  /** One check with these replies; says what it announced as `type(previous→status: zones)`. */
  const step = async (zen: Parameters<FakeDnsServer['set']>[1], spamcop: Parameters<FakeDnsServer['set']>[1]) => {
    dns.set(ZEN, zen);
    dns.set(SPAMCOP, spamcop);
    const seen = store.events.length;
    const summary = await engine.runOnce();
    assert.equal(summary.written, 1, 'each step checks the monitor once');
    clock.advance(3600_000 * 1.1);
    return store.events
      .slice(seen)
      .map(
        (e) =>
          `${e.type}(${e.data.previous_status}→${e.data.status}: ${String((e.data as { listed_on: string[] }).listed_on)})`,
      );
  };

  const listed = { a: ['127.0.0.2'] };
  assert.deepEqual(
    await step(listed, 'nxdomain'),
    ['blacklist.listed(null→listed: zen.spamhaus.org)'],
    'first listing',
  );
  assert.deepEqual(await step(listed, 'nxdomain'), [], 'still listed on the same zones');
  assert.deepEqual(
    await step(listed, listed),
    ['blacklist.listed(listed→listed: bl.spamcop.net,zen.spamhaus.org)'],
    'listed on one zone more',
  );
  assert.deepEqual(await step('nxdomain', listed), [], 'listed on fewer zones: still listed');
  assert.deepEqual(await step('nxdomain', 'nodata'), ['blacklist.delisted(listed→clean: )'], 'clean again');
  assert.deepEqual(await step('nxdomain', 'servfail'), [], 'clean with a failing zone is still clean');
  assert.deepEqual(await step('silent', 'servfail'), [], 'error is shown, not announced');
  assert.deepEqual(
    await step('nxdomain', 'nxdomain'),
    [],
    'clean after error: nothing to compare with, nothing announced',
  );
  assert.deepEqual(await step('refused', 'servfail'), [], 'error again');
  assert.deepEqual(
    await step(listed, 'nxdomain'),
    ['blacklist.listed(error→listed: zen.spamhaus.org)'],
    'a listing after an error is announced',
  );

  const last = store.events.at(-1)!;
  assert.equal(last.created_at, (last.data as BlacklistMonitor).last_checked_at, 'the event is stamped with its check');
  assert.deepEqual(
    { ...last.data },
    {
      ...monitor,
      last_status: 'listed',
      last_checked_at: last.created_at,
      listed_on: ['zen.spamhaus.org'],
      failed_zones: [],
      listings: [
        {
          zone: 'zen.spamhaus.org',
          answer: '127.0.0.2',
          meaning: 'SBL: a spam source or spam operation verified by Spamhaus',
          policy: false,
          delist_url: 'https://check.spamhaus.org/',
          since: last.created_at,
        },
      ],
      previous_status: 'error',
      status: 'listed',
    },
    'the data is the record after the check, with the statuses before and after',
  );

  // A zone that does not answer lists nothing at this check (spec 4.1, docs/engine.md, "Blacklist
  // monitors (DNSBL)"): with another zone answering, the check is clean, and `failed_zones` says
  // which zone could not be asked. Its listing stays in `listings`, since unchanged, so the
  // transient error announces nothing: not as it starts, nor as the zone lists the target again.
  const since = last.created_at;
  assert.deepEqual(
    await step('silent', 'nxdomain'),
    [],
    'the listing zone timed out, the other answered: clean, not announced',
  );
  const [shown] = await store.listBlacklistMonitors(user.id, { afterId: 0, limit: 1 });
  assert.deepEqual([shown?.last_status, shown?.listed_on, shown?.failed_zones], ['clean', [], ['zen.spamhaus.org']]);
  assert.deepEqual(
    shown?.listings.map((l) => [l.zone, l.since]),
    [['zen.spamhaus.org', since]],
    'the listing last known is kept',
  );
  assert.deepEqual(
    await step(listed, 'nxdomain'),
    [],
    'listed again by the same zone: the same listing, not announced again',
  );
  const [again] = await store.listBlacklistMonitors(user.id, { afterId: 0, limit: 1 });
  assert.deepEqual(
    [again?.last_status, again?.listed_on, again?.listings.map((l) => l.since)],
    ['listed', ['zen.spamhaus.org'], [since]],
  );
  // When no zone answers the check is an error and the last known listing stays in `listed_on`,
  // so a delisting that spans an outage is still announced.
  assert.deepEqual(await step('silent', 'servfail'), [], 'an outage: error, not announced');
  const [during] = await store.listBlacklistMonitors(user.id, { afterId: 0, limit: 1 });
  assert.deepEqual(
    [during?.last_status, during?.listed_on, during?.failed_zones],
    ['error', ['zen.spamhaus.org'], ['bl.spamcop.net', 'zen.spamhaus.org']],
  );
  assert.deepEqual(
    await step('nxdomain', 'nxdomain'),
    ['blacklist.delisted(error→clean: )'],
    'clean after the outage: the listing known before it ended',
  );
});
