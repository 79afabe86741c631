/**
 * docs/engine.md §4.1, §5 and §6 together: a blacklist monitor created through the API, checked
 * through a real node:dns Resolver asking the fake DNS server on 127.0.0.1, goes
 * null → clean → listed → listed on more zones → clean → error; the listings and the delisting
 * reach a webhook, the error does not, and the API shows `listed_on` and `failed_zones`.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BlacklistMonitor, DnsblResult } from '../../core/index.ts';
import { closedAfterEach, eachStore, verifySigned } from './harness.ts';

const ZONE_A = 'zone-a.e2e-dnsbl.net';
const ZONE_B = 'zone-b.e2e-dnsbl.net';
const INTERVAL_S = 300;
const START = '2026-03-01T00:00:00.000Z';

eachStore('a blacklist monitor through the API, the engine, the fake DNS server and a webhook', (opened) => {
  const open = closedAfterEach();

  it('null → clean → listed → listed on more zones → clean → error: the changes announced, the error not', async () => {
    const w = await open.world(opened().store, START);
    const dns = await open.dns();
    const { receiver, webhook } = await w.subscribe();
    // The engine's own Resolver, pointed at the fake server: the path a `--dns-server` takes.
    const engine = w.engine({ dnsServers: [dns.address], dnsblZones: [ZONE_A, ZONE_B], dnsblDomainZones: [] });
    const created = await w.call<BlacklistMonitor>(
      '/blacklist-monitors/create',
      {
        method: 'POST',
        body: { target_type: 'ip', target_value: '192.0.2.10', check_interval_s: INTERVAL_S },
      },
      201,
    );
    assert.equal(created.last_status, null);
    const a = `10.2.0.192.${ZONE_A}`;
    const b = `10.2.0.192.${ZONE_B}`;
    const iso = () => new Date(w.clock.now()).toISOString();
    const step = async () => {
      w.clock.advance(INTERVAL_S * 1000);
      const summary = await engine.runOnce();
      assert.equal(summary.written, 1, 'the monitor is due once per interval');
      return w.monitor(created.id);
    };
    const delivered = () => receiver.received.map((r) => verifySigned(webhook.secret, r));

    // First check: both zones answer NXDOMAIN. null → clean is no event.
    await engine.runOnce();
    let monitor = await w.monitor(created.id);
    assert.deepEqual(
      [monitor.last_status, monitor.listed_on, monitor.failed_zones, monitor.last_checked_at],
      ['clean', [], [], iso()],
    );
    assert.deepEqual(
      dns.queries.toSorted(),
      ['10.2.0.192.in-addr.arpa', a, b],
      'each zone, and the reverse DNS of the IP',
    );
    assert.equal(receiver.received.length, 0);

    dns.set(a, { a: ['127.0.0.2'] });
    monitor = await step();
    assert.deepEqual([monitor.last_status, monitor.listed_on], ['listed', [ZONE_A]]);
    assert.deepEqual(
      delivered().map((e) => e.type),
      ['blacklist.listed'],
    );
    const listed = delivered()[0]!;
    assert.equal(listed.timestamp, iso());
    assert.deepEqual(
      [listed.data.previous_status, listed.data.status, listed.data.listed_on],
      ['clean', 'listed', [ZONE_A]],
    );
    const { previous_status: _, status: __, ...record } = listed.data;
    assert.deepEqual(record, monitor, 'the data is the monitor as the API shows it after the check');
    // What the listing means travels with it: nothing is known of these zones but the answer and since.
    assert.deepEqual(listed.data.listings, [
      { zone: ZONE_A, answer: '127.0.0.2', meaning: null, policy: false, delist_url: null, since: iso() },
    ]);

    // The same listing again: nothing new.
    assert.deepEqual((await step()).listed_on, [ZONE_A]);
    assert.equal(receiver.received.length, 1);

    // The zone set grows: announced again.
    dns.set(b, { a: ['127.0.0.4'] });
    monitor = await step();
    assert.deepEqual([monitor.last_status, monitor.listed_on], ['listed', [ZONE_A, ZONE_B]]);
    const grown = delivered()[1]!;
    assert.deepEqual(
      [grown.type, grown.data.previous_status, grown.data.listed_on],
      ['blacklist.listed', 'listed', [ZONE_A, ZONE_B]],
    );

    dns.set(a, 'nxdomain');
    dns.set(b, 'nodata');
    monitor = await step();
    assert.deepEqual([monitor.last_status, monitor.listed_on], ['clean', []]);
    const delisted = delivered()[2]!;
    assert.deepEqual(
      [delisted.type, delisted.data.previous_status, delisted.data.status],
      ['blacklist.delisted', 'listed', 'clean'],
    );

    // One zone failing beside one answering: still clean, the failure shown.
    dns.set(b, 'servfail');
    monitor = await step();
    assert.deepEqual([monitor.last_status, monitor.failed_zones], ['clean', [ZONE_B]]);

    // Every zone failing: error, shown and not announced.
    dns.set(a, 'refused');
    monitor = await step();
    assert.deepEqual([monitor.last_status, monitor.listed_on, monitor.failed_zones], ['error', [], [ZONE_A, ZONE_B]]);
    // Back to clean after the error: not a delisting either.
    dns.set(a, 'nxdomain');
    dns.set(b, 'nxdomain');
    monitor = await step();
    assert.deepEqual([monitor.last_status, monitor.failed_zones], ['clean', []]);
    assert.equal(receiver.received.length, 3, 'error and the clean after it are not announced');
    assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 3);

    // A result row per zone and check, newest first.
    const results = await w.call<DnsblResult[]>(`/blacklist-monitors/results?id=${created.id}&limit=4`);
    assert.deepEqual(results.map((r) => [r.zone, r.ok, r.listed]).toSorted(), [
      [ZONE_A, false, false],
      [ZONE_A, true, false],
      [ZONE_B, false, false],
      [ZONE_B, true, false],
    ]);
    assert.deepEqual(
      results.slice(0, 2).map((r) => r.checked_at),
      [iso(), iso()],
    );
    // The two zones of one check share its check_id; the check before has a smaller one.
    const checkIds = results.map((r) => r.check_id);
    assert.deepEqual([checkIds[0], checkIds[2]], [checkIds[1], checkIds[3]]);
    assert.ok(checkIds[0]! > checkIds[2]!, `check ids ${checkIds.join(', ')}`);
  });
});
