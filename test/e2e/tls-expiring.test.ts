/**
 * docs/engine.md §4.2 and §6 together: a device on a loopback HTTPS server whose certificate ends
 * within `tlsWarnDays` by the engine's clock stays up and raises `device.tls_expiring` once for
 * that certificate, however many checks follow, delivered to a webhook made through the API.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Device } from '../../core/index.ts';
import { TEST_CA } from '../support/probe-servers.ts';
import { closedAfterEach, createWebDevice, eachStore, verifySigned } from './harness.ts';

/** test/probes/fixtures/valid.pem ends at 2045-01-01T00:00:00Z. */
const VALID_TO = '2045-01-01T00:00:00.000Z';
/** Seven and a half days before: inside the default 14-day window. */
const START = '2044-12-24T12:00:00.000Z';
const INTERVAL_S = 3600;

eachStore('a certificate near its end through the API, the engine and a webhook', (opened) => {
  const open = closedAfterEach();

  it('device.tls_expiring is announced once across several checks, the device staying up', async () => {
    const w = await open.world(opened().store, START);
    const target = await open.target('valid');
    const { receiver, webhook } = await w.subscribe();
    // The fixtures' CA is the only thing trusted beyond Node's list; the name is the certificate's.
    const engine = w.engine({ trustedCa: [TEST_CA] });
    const created = await createWebDevice(w, 'www.probe-fixture.net', target.port, INTERVAL_S, { scheme: 'https' });
    assert.deepEqual([created.check_public_https, created.check_public_tls], [true, true]);

    for (let check = 1; check <= 4; check++) {
      if (check > 1) w.clock.advance(INTERVAL_S * 1000 * 1.1);
      assert.equal((await engine.runOnce()).written, 1, `check ${check} is written`);
      const device = await w.device(created.id);
      assert.equal(device.status, 'up', `check ${check}: a certificate still in date leaves the device up`);
      const tls = device.last_results.public_tls;
      assert.equal(tls?.ok, true, `check ${check}: ${JSON.stringify(tls)}`);
      assert.equal(tls?.tls_valid_to, VALID_TO);
    }

    const events = receiver.received.map((r) => verifySigned(webhook.secret, r));
    assert.deepEqual(
      events.map((e) => e.type),
      ['device.tls_expiring'],
      'one announcement for one certificate',
    );
    const [event] = events;
    assert.equal(event!.timestamp, START, 'announced at the first check that saw it');
    assert.equal(event!.data.id, created.id);
    assert.equal(event!.data.status, 'up');
    const results = event!.data.last_results as Device['last_results'];
    assert.deepEqual([results.public_tls?.tls_valid_to, results.public_tls?.tls_days_left], [VALID_TO, 7]);
  });
});
