import { bannerOf, MAX_GREETING_BYTES, MORE, type Greeting, type Verdict } from './greeting.ts';

const PROTOCOL_10 = 0x0a;
const ERR_PACKET = 0xff;

/**
 * MySQL and MariaDB speak first: one packet (3-byte little-endian length, sequence 0) holding
 * the Protocol::HandshakeV10, whose first byte is 10 and whose next field is the server version,
 * NUL-terminated: that version is the banner. A server that refuses the client at once (too many
 * connections, host blocked) sends an ERR packet instead: the service answers, but not for us.
 */
export function mysqlGreeting(): Greeting {
  return {
    hello: null,
    judge(received: Buffer): Verdict {
      if (received.length < 5) return MORE;
      const length = received.readUIntLE(0, 3);
      const sequence = received[3];
      const kind = received[4];
      if (sequence !== 0 || length === 0 || length > MAX_GREETING_BYTES)
        return { kind: 'bad', banner: bannerOf(received.toString('latin1')) };
      if (received.length < 4 + length) return MORE;
      const payload = received.subarray(4, 4 + length);
      if (kind === PROTOCOL_10) {
        const end = payload.indexOf(0, 1);
        if (end === -1) return { kind: 'bad', banner: null };
        return { kind: 'ok', banner: bannerOf(payload.subarray(1, end).toString('latin1')) };
      }
      if (kind === ERR_PACKET) {
        // 0xff, a 2-byte error code, then the message (no SQL state before the handshake).
        return { kind: 'bad', banner: bannerOf(payload.subarray(3).toString('utf8')) };
      }
      return { kind: 'bad', banner: null };
    },
  };
}
