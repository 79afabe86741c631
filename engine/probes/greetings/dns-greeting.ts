import { randomInt } from 'node:crypto';
import { MORE, type Greeting, type Verdict } from './greeting.ts';

const QR_BIT = 0x80;
const HEADER_LENGTH = 12;

/**
 * DNS over TCP (RFC 1035 4.2.2, RFC 7766): a query for the root's NS records, length-prefixed,
 * recursion not asked. Any well-formed answer to it shows a DNS server, whatever its code: an
 * authoritative-only server answering REFUSED is as much up as a resolver answering NOERROR.
 * The answer must carry the query's id and the response bit, and be at least a DNS header long.
 */
export function dnsGreeting(): Greeting {
  const id = randomInt(0, 0x10000);
  const query = Buffer.from([
    0x00,
    0x11, // TCP length prefix: 17 bytes follow
    id >> 8,
    id & 0xff, // id
    0x00,
    0x00, // a standard query, RD clear
    0x00,
    0x01,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00, // one question
    0x00, // the root name
    0x00,
    0x02,
    0x00,
    0x01, // NS, IN
  ]);
  return {
    hello: query,
    judge(received: Buffer): Verdict {
      if (received.length < 2 + HEADER_LENGTH) return MORE;
      const length = received.readUInt16BE(0);
      const wellFormed =
        length >= HEADER_LENGTH && received.readUInt16BE(2) === id && ((received[4] ?? 0) & QR_BIT) !== 0;
      if (!wellFormed) return { kind: 'bad', banner: null };
      if (received.length < 2 + length) return MORE;
      return { kind: 'ok', banner: null };
    },
  };
}
