import assert from 'node:assert/strict';
import { createServer as createTlsServer } from 'node:tls';
import { describe, it } from 'node:test';
import type { ServiceType } from '../../core/records/index.ts';
import { probeService } from '../../engine/probes/service-probe.ts';
import { probeDevice, probeHarness } from '../support/probe-devices.ts';
import { fixtureKeyPair, tcpServersClosedAfter } from '../support/probe-servers.ts';

const serve = tcpServersClosedAfter();

/** A server that writes `greeting` to each client and keeps the connection open. */
const banner = (greeting: string | Buffer) => serve((socket) => socket.write(greeting));

async function probe(service_type: ServiceType, port: number) {
  const { options } = probeHarness();
  return probeService(probeDevice({ service_type, scheme: null, port, expect_status: null }), options);
}

describe('service: line protocols', () => {
  const greetings: [ServiceType, string, string][] = [
    ['ssh', 'SSH-2.0-OpenSSH_9.6p1 Debian-3\r\n', 'SSH-2.0-OpenSSH_9.6p1 Debian-3'],
    ['smtp', '220-mail.customer.org ESMTP Postfix\r\n220 more\r\n', '220-mail.customer.org ESMTP Postfix'],
    ['submission', '220 mail.customer.org ESMTP\r\n', '220 mail.customer.org ESMTP'],
    ['ftp', '220 (vsFTPd 3.0.5)\r\n', '220 (vsFTPd 3.0.5)'],
    ['imap', '* OK [CAPABILITY IMAP4rev1] Dovecot ready.\r\n', '* OK [CAPABILITY IMAP4rev1] Dovecot ready.'],
    ['pop3', '+OK Dovecot ready.\r\n', '+OK Dovecot ready.'],
  ];
  for (const [service, greeting, expected] of greetings) {
    it(`${service}: ok on its greeting, the first line kept as banner`, async () => {
      const server = await banner(greeting);
      const result = await probe(service, server.port);
      assert.deepEqual(
        { ...result, response_ms: typeof result.response_ms, checked_at: typeof result.checked_at },
        {
          probe: 'service',
          checked_at: 'string',
          ok: true,
          response_ms: 'number',
          error: null,
          banner: expected,
        },
      );
    });
  }

  it('waits for the line to end when the greeting comes in pieces', async () => {
    const server = await serve((socket) => {
      socket.write('SS');
      setTimeout(() => socket.write('H-2.0-piecewise\r\n'), 20);
    });
    const result = await probe('ssh', server.port);
    assert.deepEqual([result.ok, result.banner], [true, 'SSH-2.0-piecewise']);
  });

  it("fails with bad_greeting on another protocol's greeting, and shows what came", async () => {
    const server = await banner('220 mail.customer.org ESMTP\r\n');
    const result = await probe('ssh', server.port);
    assert.deepEqual([result.ok, result.error, result.banner], [false, 'bad_greeting', '220 mail.customer.org ESMTP']);
  });

  it('fails on a refusing SMTP greeting (554)', async () => {
    const server = await banner('554 no service for you\r\n');
    const result = await probe('smtp', server.port);
    assert.deepEqual([result.ok, result.error], [false, 'bad_greeting']);
  });

  it('cuts the banner at 200 characters and makes control characters harmless', async () => {
    const server = await banner(`SSH-2.0-\u001b[31m${'x'.repeat(300)}\r\n`);
    const result = await probe('ssh', server.port);
    assert.equal(result.ok, true);
    assert.equal(result.banner, `SSH-2.0-?[31m${'x'.repeat(187)}`);
  });

  it('fails with connection_closed when the server hangs up without a word', async () => {
    const server = await serve((socket) => socket.end());
    const result = await probe('pop3', server.port);
    assert.deepEqual([result.ok, result.error, result.banner], [false, 'connection_closed', null]);
    assert.equal(typeof result.response_ms, 'number');
  });
});

describe('service: over TLS', () => {
  for (const [service, greeting] of [
    ['smtps', '220 tls ESMTP'],
    ['imaps', '* OK tls ready'],
    ['pop3s', '+OK tls ready'],
  ] as const) {
    it(`${service}: greeted over TLS, the certificate not judged here (self-signed)`, async () => {
      const server = createTlsServer(fixtureKeyPair('self-signed'), (socket) => socket.write(`${greeting}\r\n`));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      assert.ok(address !== null && typeof address === 'object');
      try {
        const result = await probe(service, address.port);
        assert.deepEqual([result.ok, result.banner], [true, greeting]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  }

  it('smtps fails when the server speaks plain SMTP', async () => {
    const server = await banner('220 plain ESMTP\r\n');
    const result = await probe('smtps', server.port);
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^(ERR_SSL_|ECONNRESET)/);
  });
});

describe('service: tcp', () => {
  it('is ok on the connection alone, with no banner', async () => {
    const server = await serve(() => undefined);
    const result = await probe('tcp', server.port);
    assert.deepEqual([result.ok, result.error, result.banner], [true, null, null]);
  });
});
