import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import type { ServiceType } from '../../core/records/index.ts';
import { probeService } from '../../engine/probes/service-probe.ts';
import { localServiceSkip } from '../support/probe-local-services.ts';
import { probeDevice, probeHarness } from '../support/probe-devices.ts';
import { tcpServersClosedAfter, type LocalServer } from '../support/probe-servers.ts';

const serve = tcpServersClosedAfter();

/** A server that answers the client's first bytes with `answer(bytes)`, remembering them. */
async function answering(answer: (request: Buffer) => Buffer): Promise<{ server: LocalServer; requests: Buffer[] }> {
  const requests: Buffer[] = [];
  const server = await serve((socket) =>
    socket.once('data', (request: Buffer) => {
      requests.push(request);
      socket.write(answer(request));
    }),
  );
  return { server, requests };
}

async function probe(service_type: ServiceType, port: number, target = 'db.probe-fixture.net') {
  const { options } = probeHarness();
  return probeService(
    probeDevice({
      service_type,
      scheme: null,
      port,
      target_type: isIP(target) === 0 ? 'domain' : 'ip',
      target_value: target,
      expect_status: null,
    }),
    options,
  );
}

/** A MySQL packet: 3-byte little-endian length, sequence 0, payload. */
function mysqlPacket(payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  return Buffer.concat([header, payload]);
}

describe('service: mysql', async () => {
  const skip = await localServiceSkip('MariaDB', 3306);
  it("is ok on the machine's MariaDB, its version as banner", { skip }, async () => {
    const result = await probe('mysql', 3306, '127.0.0.1');
    assert.equal(result.error, null);
    assert.equal(result.ok, true);
    assert.match(result.banner ?? '', /^\d+\.\d+\.\d+/);
  });

  it('reads the version out of a HandshakeV10 sent in two pieces', async () => {
    const packet = mysqlPacket(Buffer.concat([Buffer.from([10]), Buffer.from('8.4.3\0'), Buffer.alloc(40, 1)]));
    const server = await serve((socket) => {
      socket.write(packet.subarray(0, 7));
      setTimeout(() => socket.write(packet.subarray(7)), 20);
    });
    const result = await probe('mysql', server.port);
    assert.deepEqual([result.ok, result.banner], [true, '8.4.3']);
  });

  it('fails on an ERR packet (a server refusing us), its message as banner', async () => {
    const message = "Host '203.0.113.9' is not allowed to connect to this MariaDB server";
    const server = await serve((socket) =>
      socket.write(mysqlPacket(Buffer.concat([Buffer.from([0xff, 0x6a, 0x04]), Buffer.from(message)]))),
    );
    const result = await probe('mysql', server.port);
    assert.deepEqual([result.ok, result.error, result.banner], [false, 'bad_greeting', message]);
  });

  it('fails on a text greeting', async () => {
    const server = await serve((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
    const result = await probe('mysql', server.port);
    assert.deepEqual([result.ok, result.error], [false, 'bad_greeting']);
  });
});

describe('service: postgresql', async () => {
  const skip = await localServiceSkip('PostgreSQL', 5432);
  it("is ok on the machine's PostgreSQL, answering the SSLRequest", { skip }, async () => {
    const result = await probe('postgresql', 5432, '127.0.0.1');
    assert.deepEqual([result.ok, result.error, result.banner], [true, null, null]);
  });

  it('sends an SSLRequest and takes N as an answer too', async () => {
    const { server, requests } = await answering(() => Buffer.from('N'));
    const result = await probe('postgresql', server.port);
    assert.equal(result.ok, true);
    assert.deepEqual([...(requests[0] ?? [])], [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
  });

  it('fails on any other answer', async () => {
    const { server } = await answering(() => Buffer.from('E\0\0\0\x10SFATAL\0'));
    const result = await probe('postgresql', server.port);
    assert.deepEqual([result.ok, result.error], [false, 'bad_greeting']);
  });
});

describe('service: rdp', () => {
  it('sends an X.224 Connection Request and is ok on a Connection Confirm', async () => {
    const confirm = Buffer.from('030000130ed000001234000200080001000000', 'hex');
    const { server, requests } = await answering(() => confirm);
    const result = await probe('rdp', server.port);
    assert.deepEqual([result.ok, result.error, result.banner], [true, null, null]);
    const request = requests[0] ?? Buffer.alloc(0);
    assert.deepEqual([request[0], request.readUInt16BE(2), request[5]], [3, request.length, 0xe0]);
  });

  it('fails when the answer is a TPKT without a Connection Confirm', async () => {
    const { server } = await answering(() => Buffer.from('0300000b06f000000000', 'hex'));
    const result = await probe('rdp', server.port);
    assert.deepEqual([result.ok, result.error], [false, 'bad_greeting']);
  });

  it('fails when the answer is not TPKT at all', async () => {
    const { server } = await answering(() => Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const result = await probe('rdp', server.port);
    assert.deepEqual([result.ok, result.error], [false, 'bad_greeting']);
  });
});

/** A DNS-over-TCP responder: answers each query with its id, the QR bit, and `rcode`. */
function dnsAnswer(rcode: number, idDelta = 0) {
  return (request: Buffer): Buffer => {
    const query = request.subarray(2, 2 + request.readUInt16BE(0));
    const answer = Buffer.from(query);
    answer.writeUInt16BE((query.readUInt16BE(0) + idDelta) & 0xffff, 0);
    answer[2] = 0x80 | ((query[2] ?? 0) & 0x78);
    answer[3] = rcode;
    const length = Buffer.alloc(2);
    length.writeUInt16BE(answer.length);
    return Buffer.concat([length, answer]);
  };
}

describe('service: dns', () => {
  it('sends a length-prefixed query over TCP and is ok on any well-formed answer, REFUSED included', async () => {
    const { server, requests } = await answering(dnsAnswer(5));
    const result = await probe('dns', server.port);
    assert.deepEqual([result.ok, result.error, result.banner], [true, null, null]);
    const request = requests[0] ?? Buffer.alloc(0);
    assert.equal(request.readUInt16BE(0), request.length - 2);
    assert.equal(request.readUInt16BE(6), 1, 'one question');
  });

  it('fails on an answer carrying another id', async () => {
    const { server } = await answering(dnsAnswer(0, 1));
    const result = await probe('dns', server.port);
    assert.deepEqual([result.ok, result.error], [false, 'bad_greeting']);
  });
});
