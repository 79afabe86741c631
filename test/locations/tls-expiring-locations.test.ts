/**
 * docs/engine.md, "Events and webhooks" and "Checking a device from several locations": a device
 * checked from three locations raises `device.tls_expiring` once per certificate, not once per
 * location, even when the three locations' results are written at the same time; a renewed
 * certificate is announced once more when its own window comes, and an expired one not at all.
 * Engines of three locations on one manual clock, through the API, against a loopback HTTPS
 * target whose certificate the test swaps; every event verified with `standardwebhooks`. On the
 * memory store (no schedule per location) the device is checked from any one location, and the
 * same holds.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Device } from '../../core/index.ts';
import { closedAfterEach, createWebDevice, eachStore, verifySigned } from '../e2e/harness.ts';
import { fixtureKeyPair, TEST_CA } from '../support/probe-servers.ts';

const LOCATIONS = ['eu', 'us', 'ap'] as const;
/** test/probes/fixtures/valid.pem ends here. */
const VALID_TO = '2045-01-01T00:00:00.000Z';
/** test/probes/fixtures/self-signed.pem ends here: the renewed certificate, trusted as its own CA. */
const RENEWED_TO = '2126-10-31T12:33:05.000Z';
/** Seven and a half days before each end: inside the default 14-day window. */
const START = '2044-12-24T12:00:00.000Z';
const RENEWED_WINDOW = '2126-10-24T00:00:00.000Z';
/** After the renewed certificate's end. */
const EXPIRED = '2126-11-01T00:00:00.000Z';
const RETRY_DELAY_S = 30;
const INTERVAL_S = 3600;

eachStore('device.tls_expiring for a device checked from several locations', (opened, name) => {
  const open = closedAfterEach();

  it('three locations seeing one certificate announce it once; a renewed one once more', async () => {
    const w = await open.world(opened().store, START);
    const target = await open.target('valid');
    const { receiver, webhook } = await w.subscribe();
    const trustedCa = [TEST_CA, fixtureKeyPair('self-signed').cert];
    const engines = LOCATIONS.map((location) =>
      w.engine({ location, workerId: `w-${location}`, trustedCa, retryDelayS: RETRY_DELAY_S }),
    );
    const device = await createWebDevice(w, 'www.probe-fixture.net', target.port, INTERVAL_S, {
      scheme: 'https',
      check_locations: LOCATIONS,
    });
    const events = () => receiver.received.map((request) => verifySigned(webhook.secret, request));
    const expiring = () => events().filter((e) => e.type === 'device.tls_expiring');
    /** Every location's due check, the three run at once: their results are written concurrently. */
    const runAll = async () => {
      await Promise.all(engines.map((engine) => engine.runOnce()));
      // A claim skips a pair whose device another location's write holds locked: the next round
      // of that worker, at the same instant, checks it.
      for (const engine of engines) await engine.runOnce();
      const checked = await w.device(device.id);
      if (name !== 'memory') {
        const now = new Date(w.clock.now()).toISOString();
        assert.deepEqual(
          LOCATIONS.map((l) => checked.locations?.[l]?.last_checked_at),
          LOCATIONS.map(() => now),
          'every location checked now',
        );
      }
      return checked;
    };
    /** `runAll`, every location seeing a valid certificate that ends at `validTo`. */
    const checkAll = async (validTo: string) => {
      const checked = await runAll();
      assert.equal(checked.status, 'up', JSON.stringify(checked.last_results));
      if (name !== 'memory') {
        assert.deepEqual(
          LOCATIONS.map((l) => checked.locations?.[l]?.status),
          LOCATIONS.map(() => 'up'),
        );
      }
      assert.deepEqual(
        [checked.last_results.public_tls?.ok, checked.last_results.public_tls?.tls_valid_to],
        [true, validTo],
      );
    };

    await checkAll(VALID_TO);
    assert.equal(expiring().length, 1, 'one certificate seen from three locations: one announcement');
    const first = expiring()[0]!;
    assert.equal(first.timestamp, START);
    assert.equal((first.data.last_results as Device['last_results']).public_tls?.tls_valid_to, VALID_TO);

    // The next checks of every location see the same certificate: nothing more.
    w.clock.advance(INTERVAL_S * 1000);
    await checkAll(VALID_TO);
    w.clock.advance(INTERVAL_S * 1000);
    await checkAll(VALID_TO);
    assert.equal(expiring().length, 1, 'the certificate already announced is not announced again');

    // Renewed: a new end of validity, far from its window at first, then inside it.
    target.present('self-signed');
    w.clock.advance(INTERVAL_S * 1000);
    await checkAll(RENEWED_TO);
    assert.equal(expiring().length, 1, 'a renewed certificate outside the window is no news');
    w.clock.set(RENEWED_WINDOW);
    await checkAll(RENEWED_TO);
    w.clock.advance(INTERVAL_S * 1000);
    await checkAll(RENEWED_TO);
    const renewed = expiring().slice(1);
    assert.deepEqual(
      renewed.map((e) => [e.timestamp, (e.data.last_results as Device['last_results']).public_tls?.tls_valid_to]),
      [[RENEWED_WINDOW, RENEWED_TO]],
      'the renewed certificate is announced once, when its window comes',
    );

    // An expired certificate (the TLS handshake judges it by the real time: the fixture ended in
    // 2021) is a failure, never a warning: down at the re-checks, and nothing more.
    target.present('expired');
    w.clock.set(EXPIRED);
    assert.equal((await runAll()).status, 'validating');
    w.clock.advance(RETRY_DELAY_S * 1000);
    const expired = await runAll();
    assert.deepEqual(
      [expired.status, expired.last_results.public_tls?.ok, expired.last_results.public_tls?.error],
      ['down', false, 'CERT_HAS_EXPIRED'],
    );
    assert.deepEqual(
      events().map((e) => e.type),
      ['device.tls_expiring', 'device.tls_expiring', 'device.down'],
      'nothing else is announced',
    );
  });
});
