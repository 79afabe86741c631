/**
 * docs/engine.md, "Configuration": `trustedCa` (`--ca-file`) makes the TLS probes trust a private
 * CA besides Node's list; without it, the same certificate is an untrusted chain.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../core/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { WatchedStore } from '../support/engine-fixtures.ts';
import { startTlsServer, TEST_CA, type LocalServer } from '../support/probe-servers.ts';
import { FIXTURE_NAME } from '../support/probe-devices.ts';
import { newWebDevice } from '../support/records.ts';

const START = '2026-03-01T00:00:00.000Z';
let server: LocalServer;
before(async () => (server = await startTlsServer('valid')));
after(() => server.close());

async function tlsResultWith(trustedCa: readonly string[] | undefined) {
  const store = new WatchedStore();
  const user = await store.createUser({ name: null, created_at: START });
  // A web device with only its TLS probe on, at the fixture server's port, named as its certificate.
  const created = await store.createDevice(
    user.id,
    newWebDevice({ target_value: FIXTURE_NAME, port: server.port, check_public_https: false, created_at: START }),
  );
  assert.ok('created' in created);
  const engine = createMonitoringEngine({
    store,
    clock: new ManualClock(START),
    resolver: { resolve4: async () => [] },
    lookup: async () => ['127.0.0.1'],
    allowPrivateTargets: true,
    ...(trustedCa === undefined ? {} : { trustedCa }),
  });
  await engine.runOnce();
  const [checked] = await store.listDevices(user.id, { afterId: 0, limit: 1 });
  return checked?.last_results.public_tls;
}

it('a certificate from a private CA is trusted only when the CA is given', async () => {
  const without = await tlsResultWith(undefined);
  assert.equal(without?.ok, false);
  assert.match(without?.tls_error ?? '', /UNABLE_TO|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
  const withCa = await tlsResultWith([TEST_CA]);
  assert.equal(withCa?.ok, true, JSON.stringify(withCa));
  assert.equal(withCa?.tls_error, null);
});
